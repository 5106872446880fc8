"""Blind set B5 (keys with words around or instead of a value, questions about bounds: challenging word problems,
Brazilian and Indonesian entrance exams, a Ghanaian JHS book, Hindi textbooks; issue 21), measured once on arrival on
8603c94 (wrong kept 10: 8 keys the labeller found wrong, 2 rewritten problems that lost their data; right kept
50/109): currency signs of the sources before the amount (Ghanaian cedis `GH₵`, Philippine pesos `₱`, naira `₦`)."""

import pytest
from rule_outcome import offline


@pytest.mark.parametrize(
    "problem, key, integer",
    [
        ("Ama bought 3 books at GH₵17 each. How much did she pay?", "GH₵51", "51"),  # set B5: Ghanaian cedis
        (
            "A pen costs ₱4.25 and a notebook ₱6.50. What is the total cost?",
            "₱10.75",
            "1075",
        ),  # pesos, to centavos
    ],
)
def test_currency_signs_before_the_amount(problem, key, integer):
    done = offline(problem, key)
    assert (done["status"], done["answer"]) == ("kept", integer), done["status"]
