"""An answer that restates the question's own expression is not a solved problem: `\\binom{10}{3}` for
"Compute $\\dbinom{10}{3}$" equals 120 by arithmetic, and a policy rewarded for it learns to copy the
question. With the question given (the verl and TRL adapters pass it), such an answer is
`restates_question`. Labels follow from the questions."""

from __future__ import annotations

import pytest

import verifiers
from verifiers.trl import dapo_trl_reward
from verifiers.verl import compute_score


@pytest.mark.parametrize(
    ("pred", "gold", "question", "equivalent"),
    [
        ("\\boxed{\\binom{10}{3}}", "120", "Compute $\\dbinom{10}{3}$.", False),
        ("\\boxed{120}", "120", "Compute $\\dbinom{10}{3}$.", True),
        ("\\boxed{x^2-4}", "(x-2)(x+2)", "Factor $x^2-4$.", False),
        ("\\boxed{(x+2)(x-2)}", "(x-2)(x+2)", "Factor $x^2-4$.", True),
        ("\\boxed{\\sqrt{50}}", "5\\sqrt{2}", "Simplify $\\sqrt{50}$.", False),
        ("\\boxed{3+4}", "7", "What is $3 + 4$?", False),
        ("\\boxed{2(x+1)-1}", "2x+1", "Let $f(x) = 2(x+1) - 1$. Simplify $f(x)$.", False),
        ("\\boxed{\\frac{3}{20}}", "0.15", "Write $\\frac{3}{20}$ as a decimal.", False),  # set D's d4-013
        # the gold's own spelling, a number, or a choice's content is never a restatement
        ("\\boxed{2^{10}}", "2^{10}", "Which is larger, $2^{10}$ or $10^3$?", True),
        ("\\boxed{\\frac{1}{2}}", "\\frac12", "Which is it? (A) $\\frac12$ (B) $\\frac13$", True),
        ("\\boxed{A}", "A", "Which is it? (A) $\\frac12$ (B) $\\frac13$", True),
        ("\\boxed{7}", "7", "What is $3 + 4$? It is not $7$ or $8$.", True),
    ],
)
def test_an_answer_restating_the_question_is_not_a_match(pred, gold, question, equivalent):
    v = verifiers.check(pred, gold, question=question, timeout=5)
    assert v.equivalent is equivalent, (pred, gold, v)
    if not equivalent:
        assert v.reason == "restates_question" and verifiers.check(pred, gold, timeout=5).equivalent


def test_the_reward_adapters_pass_the_question():
    q = "Compute $\\dbinom{10}{3}$."
    assert (
        compute_score("math_dapo", "Answer: \\binom{10}{3}", "120", extra_info={"raw_problem": q})["score"]
        == -1.0
    )
    assert compute_score("math_dapo", "Answer: 120", "120", extra_info={"raw_problem": q})["score"] == 1.0
    prompts = [[{"role": "user", "content": q}]] * 2
    got = dapo_trl_reward(prompts, ["Answer: \\binom{10}{3}", "Answer: 120"], answer=["120", "120"])
    assert got == [-1.0, 1.0]


def test_a_restated_question_never_goes_to_the_judge():
    """The judge is asked "equal?", and a restatement is equal by value: it would undo the refusal."""
    from verifiers.judge import judgeable

    v = verifiers.check("\\boxed{3+4}", "7", question="What is $3 + 4$?")
    assert v.reason == "restates_question" and not judgeable(v.reason, v.extracted)


def test_score_batch_passes_each_question_to_its_response():
    q = ["Compute $\\dbinom{10}{3}$.", "Compute $\\dbinom{10}{3}$.", None]
    res = verifiers.score_batch(["\\boxed{\\binom{10}{3}}", "\\boxed{120}", "\\boxed{\\binom{10}{3}}"],
                                ["120"] * 3, workers=1, timeout=5, questions=q)  # fmt: skip
    assert [(r.acc, r.reason) for r in res][:2] == [(0.0, "restates_question"), (1.0, "integer_match")]
    assert res[2].acc == 1.0  # no question, nothing to restate
