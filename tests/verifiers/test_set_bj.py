"""Classes from blind sets BJ and BK (issue 21): a yes/no answer to a true/false gold (TheoremQA keys `true` and `false`), a
last line that opens with its verdict and gives the reason after it (`True, p(x) has exactly one real root`), and
a value with a Unicode math sign after it (`the answer is 2π.`), which is not a value followed by words; a decimal
under a root (`10\\sqrt{0.51}`), and a clause after a stated value (`is 27, namely 8 + 9 + 10`)."""

import pytest

import verifiers


@pytest.mark.parametrize(
    ("pred", "gold", "want"),
    [
        (
            "f(1) = 7, which is not 0, so x - 1 does not divide the polynomial.\nTherefore, the answer is No.",
            "false",
            True,
        ),
        ("Therefore, the answer is Yes.", "true", True),
        ("Therefore, the answer is Yes.", "false", False),
        ("Réponse : vrai.", "True", True),
        ("Therefore, the answer is No.", "True", False),
        ("\\boxed{\\text{No}}", "False", True),
    ],
)
def test_a_yes_or_no_answers_a_true_or_false_gold(pred, gold, want):
    assert verifiers.check(pred, gold).equivalent is want


@pytest.mark.parametrize(
    ("pred", "gold", "want"),
    [
        ("True, $q(x) = x^3 + 2x + 5$ has exactly one real root", "true", True),
        ("True, $q(x) = x^3 + 2x + 5$ has exactly one real root", "false", False),
        (
            "We check continuity at 0 from both sides.\n\n**False.** The left limit is 1 and the right limit is 0.",
            "False",
            True,
        ),
        (
            "We check continuity at 0 from both sides.\n\n**False.** The left limit is 1 and the right limit is 0.",
            "True",
            False,
        ),
        ("No - the terms do not tend to 0, so the series diverges.", "no", True),
        ("Yes; by the intermediate value theorem there is a root in (0, 1).", "False", False),
        ("Yes; by the intermediate value theorem there is a root in (0, 1).", "True", True),
        ("True, $x = 3$ is the root.", "3", True),  # a truth word before a value: the value is the answer
        ("Nothing converges here; the answer is 4.", "no", False),  # `No` only as a whole word
    ],
)
def test_a_last_line_that_opens_with_its_verdict(pred, gold, want):
    assert verifiers.check(pred, gold).equivalent is want


@pytest.mark.parametrize(
    ("pred", "gold", "want"),
    [
        ("A curve around the origin once changes θ by 2π.\nTherefore, the answer is 2π.", "2", False),
        ("A curve around the origin once changes θ by 2π.\nTherefore, the answer is 2π.", "2\\pi", True),
        ("So the side is two root three.\nThe answer is 2√3.", "2", False),
        ("The answer is 5².", "5", False),
        ("答案是18个。", "18", True),  # a measure word after the value is still words
        ("答えは18です。", "18", True),
    ],
)
def test_a_math_sign_after_the_value_is_part_of_it(pred, gold, want):
    assert verifiers.check(pred, gold).equivalent is want


@pytest.mark.parametrize(
    ("pred", "gold", "want"),
    [
        ("Thus $DE = 10 \\sqrt{0.51}$.\n<answer>10\\sqrt{0.51}</answer>", "\\sqrt{51}", True),  # set BK
        ("<answer>2\\sqrt{0.5}</answer>", "\\sqrt{2}", True),
        ("<answer>10\\sqrt{0.52}</answer>", "\\sqrt{51}", False),
        ("<answer>2^{0.5}</answer>", "\\sqrt{2}", True),
    ],
)
def test_a_decimal_under_a_root_is_the_fraction_it_writes(pred, gold, want):
    assert verifiers.check(pred, gold).equivalent is want


@pytest.mark.parametrize(
    ("pred", "want"),
    [
        (
            "The smallest positive perfect cube that is a sum of three consecutive integers is 27, namely 8 + 9 + 10.",
            True,
        ),
        (
            "The smallest positive perfect cube that is a sum of three consecutive integers is 64, namely 21 + 22 + 21.",
            False,
        ),
    ],
)
def test_a_clause_after_the_stated_value_is_no_part_of_it(pred, want):
    assert verifiers.check(pred, "27").equivalent is want
