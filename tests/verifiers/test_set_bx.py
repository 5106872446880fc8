"""Blind set BX (responses that could fool a lenient checker: Countdown answers, GSM8K RL rollouts; issue 21), measured
once on arrival (0.803, 28 false positives): the Countdown class lives in test_countdown.py; here the others, each
written from the statement of its class. A money sign escaped for Markdown (`\\$5`) in a concluding sentence is money,
not mathematics; a bracketed sentence after the answer's sentence is an aside unless it speaks of the same thing; a
currency amount with a magnitude letter (`$20k`, `$1.5M`) is that amount; a one-line answer that names its quantity
first (`Earnings: $460`) is its value."""

import pytest

from verifiers import check

BETTY = "Betty needs $100 for a wallet and has $95. How much more money does Betty need to buy the wallet?"
COOKIES = "Katarina has 68 cookies, Max 73, the Cookie Monster 61 and Summer 96. How many cookies do they have in total?"


@pytest.mark.parametrize(
    "response, gold, equal",
    [
        ("100 - 95 = 5.\n\n#### Betty needs \\$5 more to buy the wallet.", "5", True),
        ("100 - 95 = 5.\n\nSo Betty needs \\$5 more to buy the wallet.", "5", True),
        ("100 - 95 = 5.\n\nSo Betty needs \\$5 more to buy the wallet.", "6", False),
        ("So Betty does not need \\$5 more.", "5", False),  # a negation commits to nothing
        ("Thus she needs \\$5 more, and \\$7 is left over.", "5", False),  # two new numbers: which one?
    ],
)
def test_an_escaped_dollar_is_money(response, gold, equal):
    assert check(response, gold, question=BETTY).equivalent is equal


@pytest.mark.parametrize(
    "response, gold, equal",
    [
        (
            "Katarina 68, Max 73, Monster 61, Summer 96.\nTotal = 298 cookies. (The Cookie Monster alone has 61.)",
            "298",
            True,
        ),
        ("Total = 298 cookies. (The Cookie Monster alone has 61.)", "61", False),
        ("So the total is 298. (Check: 68 + 73 + 61 + 96 = 298.)", "298", True),
        ("So the total is 300. (The total is 298.)", "300", False),  # the same thing, restated: no aside
    ],
)
def test_a_bracketed_sentence_after_the_answer(response, gold, equal):
    assert check(response, gold, question=COOKIES).equivalent is equal


@pytest.mark.parametrize(
    "response, gold, equal",
    [
        ("Final answer: $20k", "20000", True),
        ("Final answer: $20K", "20000", True),
        ("The answer is $1.5M.", "1500000", True),
        ("Final answer: $20k", "20", False),
        ("The answer is $20k$.", "20000", False),  # inside math delimiters: 20 times k
        ("The answer is $20k$.", "20k", True),
        ("Final answer: 300 K", "300", True),  # kelvin, no currency: untouched
    ],
)
def test_money_with_a_magnitude_letter(response, gold, equal):
    assert check(response, gold, question="What is the total amount spent?").equivalent is equal


@pytest.mark.parametrize(
    "response, gold, equal",
    [
        ("Earnings: $460.", "460", True),
        ("Earnings: $460.\nCheck: 400 + 60 = 460, for 40 + 5 = 45 hours.", "460", True),
        ("Earnings: $460.", "45", False),
        ("Ratio: 3:4", "460", False),
    ],
)
def test_a_labelled_value(response, gold, equal):
    q = "Eliza earns $10 an hour and 1.2 times that after 40 hours. How much are her earnings for 45 hours?"
    assert check(response, gold, question=q).equivalent is equal
