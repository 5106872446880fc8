"""Blind set J4 (JAMB and CBSE banks, Project Euler archives; issue 21): a statement whose own arithmetic, stated as a
fact at the start of a sentence, is false has lost its formatting (`215 = 32768` is 2^15 with the superscript gone, so
`the number 21000` is 2^1000): it is rejected as a lost expression, whatever its key."""

import pytest
from rule_outcome import offline

from pipelines.classify import false_stated_equality


def test_a_flattened_power_is_a_lost_expression():
    done = offline(
        "215 = 32768 and the sum of its digits is 3 + 2 + 7 + 6 + 8 = 26.What is the sum of the digits of the number "
        "21000?",
        "1366",
    )
    assert done["status"] == "rejected:lost_expression", done["status"]


@pytest.mark.parametrize(
    "text",
    [
        "The sum of the primes below 10 is 2 + 3 + 5 + 7 = 17. Find the sum of all the primes below two million.",
        "If 3 = 9 and 4 = 16, then 5 = ?",
        "What is the sum of the values of $a$ that satisfy the equation $$(3)5^2-4(5-a)^2 \\div 3=63?$$",
        "The equation $x ^ 2 + x + a ^ 2 - 1 = 0$ has one root $x _ 1 = 0$. Find the other root.",
        "Fill in the blank: 7 + __ = 12.",
        "2 + 3 = 5. What is 4 + 4?",
    ],
)
def test_true_or_unstated_equalities_are_no_loss(text):
    assert false_stated_equality(text) is None
