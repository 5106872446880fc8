"""Blind set Z4 (short answers easy to misread as one number: blanks, conversions, roundings, sequences, quiz
banks; issue 21), measured once on arrival on def6088 (wrong kept 19, 4 of them keys the labeller found wrong, and 9
our scorer's: it did not read `to the nearest 10` in digits, and rounded halves to even): a sequence to continue is
kept only when a simple rule of its terms gives the key; the expanded form of a number and a digit with its place are
not values; a number rounded to the nearest 10 is checked against the key."""

import pytest
from rule_outcome import offline

from pipelines.rules import sequence_miss


@pytest.mark.parametrize(
    "problem, key",
    [
        ("2, 4, 6, 8, ___", "10"),  # constant difference
        ("1, 4, 9, 16, __", "25"),  # a square: second differences constant
        ("3, 6, __, 12", "9"),  # the blank inside
        ("2, 6, 18, ___", "54"),  # constant ratio
        ("1, 1, 2, 3, 5, 8, ___", "13"),  # the sum of the two before
        ("2, 3, 5, 9, 17, __", "33"),  # differences doubling
    ],
)
def test_a_regular_sequence_keeps_its_key(problem, key):
    done = offline(problem, key)
    assert (done["status"], done["answer"]) == ("kept", key), done["status"]


@pytest.mark.parametrize(
    "problem, key",
    [
        ("6. 3, 3, 4, 8, 10, 36, _____", "333"),  # no simple rule: an aptitude puzzle's one reading
        ("11. 7776, 625, 64, 9, _____", "4"),  # 6^5, 5^4, 4^3, 3^2: the key breaks its own pattern
        ("2, 4, 6, 8, ___", "12"),  # a regular sequence keyed with another value
    ],
)
def test_an_irregular_or_contradicted_sequence_is_deferred(problem, key):
    assert offline(problem, key)["status"] != "kept"
    assert sequence_miss(problem, int(key)) is not None


def test_no_sequence_no_verdict():
    assert sequence_miss("A farmer has 3, then 5 cows. How many now?", 8) is None


@pytest.mark.parametrize(
    "problem, key",
    [
        ("Write 4,508 in expanded form. Options: 4000 + 500 + 8 | 4000 + 50 + 8", "4000 + 500 + 8"),
        ("In 6,420, what does the 0 represent? Options: 0 ones | 0 tens | 0 hundreds", "0 ones"),
        ("What is the value of the 4 in 6,420?", "4 hundreds"),  # 400, not 4
        ("64 rounded off to the nearest 10 is.\na: 64\nb: 70\nc: 60", "70"),  # the key rounds the wrong way
    ],
)
def test_representations_places_and_wrong_roundings_are_not_kept(problem, key):
    assert offline(problem, key)["status"] != "kept"


def test_a_rounding_to_the_nearest_ten_in_digits_is_checked_and_kept():
    done = offline("45 rounded off to the nearest 10 is.\na: 50\nb: 45\nc: 40", "50")  # halves go up
    assert (done["status"], done["answer"]) == ("kept", "50"), done["status"]
