"""Answer styles other projects' models write (issue 22, part 3): plain-text maths, an exact box
with its rounding, `\\framebox`, ordinals, a boxed choice letter, a one-word answer in prose; and
precision first: identities that hold only under assumptions are not equivalences."""

from __future__ import annotations

import pytest

import verifiers


@pytest.fixture(scope="module", autouse=True)
def _warm():
    verifiers.warmup()


@pytest.mark.parametrize(
    "pred, gold, equal",
    [
        ("cos(x)^2+sin(x)^2", "1", True),
        ("cos(x)^2-sin(x)^2", "1", False),
        ("log(x)/log(10)", "\\log_{10} x", True),
        ("exp(16)-1", "e^{16}-1", True),
        ("exp(16)+1", "e^{16}-1", False),
        ("\\frac{n!}{k!(n-k)!}", "\\binom{n}{k}", True),
        ("So \\boxed{\\frac{1}{3}} \\approx \\boxed{0.333}", "\\frac13", True),
        ("So $\\boxed{\\frac{1}{3}}$, which is approximately $\\boxed{0.333}$.", "0.333", False),
        ("\\boxed{5}. Wait, that is wrong: \\boxed{6}", "6", True),
        ("The answer is **57**.", "57", True),
        ("Therefore the total is **57**", "57", True),
        ("\\framebox{57}", "57", True),
        ("so \\framebox{58}", "57", False),
        ("12^{\\mathrm{th}}", "12", True),
        ("12^{th}", "12", True),
        ("12th", "12", True),
        ("21st", "12", False),
        ("\\boxed{C}", "C", True),
        ("\\boxed{\\text{(B)}}", "C", False),
        ("So the day is Monday.", "\\text{Monday}", True),
        ("So the day is Tuesday.", "\\text{Monday}", False),
        ("Hence the sum is even.", "\\text{even}", True),
        ("\\sqrt{x^2}", "x", False),
        ("\\log(xy)", "\\log x+\\log y", False),
        ("\\ln(ab)", "\\ln a + \\ln b", False),
        # an equation and ALL its roots hold without assumptions (issue 22 part 3; set C c3-0039);
        # one root taken for the equation needs an assumption (x > 0) and stays refused
        ("x^2=4", "x=2 \\text{ or } x=-2", True),
        ("x^2=4", "x=2", False),
    ],
)
def test_answer_styles(pred, gold, equal):
    v = verifiers.check(pred, gold, timeout=10.0)
    assert v.equivalent is equal, v


def test_prose_reads_one_name_or_answer_word_only():
    assert verifiers.extract("This is correct.").answer is None
    assert verifiers.extract("So the day is Monday.").answer == "Monday"


@pytest.mark.parametrize(
    ("text", "gold", "equal"),
    [
        # set AE (real outputs of small models): an answer line that repeats its own label, GSM8K's marker at the end
        # of a line with a full stop after the value, a system prompt leaked after the answer
        ("Total earnings = $8/hour × 3 hours = $24\n\nFinal answer: Answer: 24", "24.0", True),
        ("Total earnings = $8/hour × 3 hours = $24\n\nFinal answer: Answer: 25", "24.0", False),
        ("The combined length of the remoras is 10% of the shark's body length. #### 10.", "10", True),
        ("The combined length of the remoras is 10% of the shark's body length. #### 12.", "10", False),
        ("Therefore, the value of $x$ is 600.\nYou are an AI assistant that helps people find information. User will "
         "you give you a question.", "600", True),
        ("Therefore, the value of $x$ is 600.\nYou are a helpful assistant. Answer the next question: 7", "600", True),
    ],
)  # fmt: skip
def test_set_ae_repeated_labels_inline_markers_and_leaked_prompts(text, gold, equal):
    assert verifiers.check(text, gold).equivalent is equal
