"""A choice question whose options are in its text: an answer given as an option's value against a letter gold,
or as a letter against the value gold, is that option. Equal only when the value is the gold option's and no
other option's (two options with one value decide nothing). Verdicts follow from the options, decided before the
code ran on them."""

from __future__ import annotations

import pytest

import verifiers

DEGREE = "Find the degree of Q(sqrt(2), sqrt(3), sqrt(18)) over Q.\nA. 0\nB. 4\nC. 2\nD. 6"
POLY = "Find the product in Z_8[x].\n(A) $2x^2 + 5$ (B) $6x^2 + 4x + 6$ (C) $0$ (D) $x^2 + 1$"


@pytest.mark.parametrize(
    ("pred", "gold", "question", "equal"),
    [
        ("The answer is 4.", "B", DEGREE, True),
        ("\\boxed{4}", "B", DEGREE, True),
        ("The answer is 2.", "B", DEGREE, False),
        ("The answer is B.", "4", DEGREE, True),
        ("The answer is C.", "4", DEGREE, False),
        ("The answer is 4.", "B", None, False),  # no options to read
        ("$6x^2+4x+6$", "B", POLY, True),
        ("$6x^2+4x+7$", "B", POLY, False),
        ("The answer is 4.", "B", "Which is it?\n(A) 4 (B) 4 (C) 2 (D) 6", False),  # two options hold 4
        ("The answer is E.", "4", DEGREE, False),  # no option E
    ],
)
def test_an_option_value_against_a_letter(pred, gold, question, equal):
    assert verifiers.check(pred, gold, question=question).equivalent is equal


def test_upper_case_half_bracket_labels_on_their_own_lines_are_choices():
    from verifiers.forms import options

    question = "What is 225 + 422?\nA) 648\nB) 641\nC) 670\nD) 647"
    start, choices = options(question)
    assert (
        choices == {"A": "648", "B": "641", "C": "670", "D": "647"}
        and question[:start].strip() == "What is 225 + 422?"
    )
    assert verifiers.check("D", "647", question=question).equivalent
    # `f(A) = 1` or a label inside a sentence is no choice list
    assert options("Let f(A) = 1, g(B) = 2 and h(C) = 3. What is f(A)?") is None
