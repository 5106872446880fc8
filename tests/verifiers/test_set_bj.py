"""Classes from blind set BJ (issue 21): a yes/no answer to a true/false gold (TheoremQA keys `true` and `false`), and
a value with a Unicode math sign after it (`the answer is 2π.`), which is not a value followed by words."""

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
