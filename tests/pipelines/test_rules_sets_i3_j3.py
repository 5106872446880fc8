"""Blind rule set I3's classes (quiz banks of worked keys, Indian rupee banks, grade-school drills): a key that
states a comparison is no value, a key in another money unit than the statement's depends on that unit, a
rounding the statement asks for is checked, and a number glued to its unit (`15hours`, `RS 3150`) is that
number. Every expected outcome follows from the statement and key as written: 492 to the nearest hundred is 500,
50 cents times 10 is 500 cents, and `1/6 = 2/12` says the two fractions are equal.

Set J3's classes (Russian exam answer sheets, a Polish course, OBMEP-style banks): a statement that is
only a heading asks nothing, marking a number on the number line is a drawing, and a number whose absolute value is
given has two values. Every expected outcome follows from the statement as written: `### Вариант 1` states no
problem, `Wskaż liczbę -3 na osi liczbowej` asks for a mark, and |x| = 15 holds at 15 and at -15."""

import pytest
from rule_outcome import assert_kept_as, offline


@pytest.mark.parametrize(
    ("problem", "key"),
    [
        ("Compare 1/6 vs 2/12", "1/6 = 2/12"),
        ("Compare 3/4 and 5/8. Which is greater?", "3/4 > 5/8"),
        ("Compare using <, > or =: 0.5 ___ 1/2", "0.5 = 1/2"),
    ],
)
def test_a_comparison_key_is_a_relation_not_a_value(problem, key):
    assert offline(problem, key)["status"] != "kept"


def test_a_worked_key_is_still_its_value():
    done = offline("What is 8 × 12?", "8 × 12 = 96")
    assert done["status"] == "kept" and done["answer"] == "96"


@pytest.mark.parametrize(
    ("problem", "key", "kept"),
    [
        ("Matthew gave his dog 10 treats. Each treat costs 50 cents. How much money worth of treats did he give his dog?",
         "5 dollars", None),
        ("Each pencil costs 25 cents. How much do 8 pencils cost in dollars?", "2 dollars", "2"),
        ("Each pencil costs 25 cents. How many cents do 8 pencils cost?", "200 cents", "200"),
        ("A book costs $12 and a pen costs $3. How much do they cost together?", "15 dollars", "15"),
    ],
)  # fmt: skip
def test_a_key_in_another_money_unit_than_the_statement(problem, key, kept):
    done = offline(problem, key)
    assert_kept_as(done, kept)


@pytest.mark.parametrize(
    ("problem", "key", "kept"),
    [
        ("Round 492 to the nearest hundred.", "5000", None),
        ("Round 492 to the nearest hundred.", "500", "500"),
        ("Round 3,451 to the nearest thousand.", "3,000", "3000"),
        ("Round 2,650 to the nearest hundred.", "2,700", "2700"),
        ("Round 65 to the nearest ten.", "60", None),
    ],
)
def test_a_rounding_the_statement_asks_for_is_checked(problem, key, kept):
    done = offline(problem, key)
    if kept is None:
        assert done["status"] != "kept" and "contradicts" in done["status"], done["status"]
    else:
        assert done["status"] == "kept" and done["answer"] == kept, done["status"]


@pytest.mark.parametrize(
    ("problem", "key", "kept"),
    [
        ("Suzan works 5 hours everyday. How many hours does she work in 3 days?\nOptions: 12hours / 15hours / 14hours / 10hours",
         "15hours", "15"),
        ("Ravindra sold his car worth Rs 63,000 to Yash at a profit of 5%. What was the profit?\nOptions: RS 3150 / RS 3000 / RS 3500",
         "RS 3150", "3150"),
    ],
)  # fmt: skip
def test_a_number_glued_to_its_unit_or_a_capital_rupee_sign(problem, key, kept):
    done = offline(problem, key)
    assert done["status"] == "kept" and done["answer"] == kept, done["status"]


@pytest.mark.parametrize(
    ("problem", "key"),
    [
        ("### Вариант 1", "50."),
        ("## Zadanie 7", "12"),
        ("### Вариант 11 (only a solution image is stored; no statement)", "6250."),
        ("Wskaż liczbę -3 na osi liczbowej.", "-3"),
        ("Zaznacz na osi liczbowej liczbę 5.", "5"),
        ("Mark the number 7 on the number line.", "7"),
        ("Znajdź liczbę, której wartość bezwzględna wynosi 15", "15"),
        ("Find a number whose absolute value is 15.", "15"),
    ],
)
def test_statements_that_ask_for_no_one_number(problem, key):
    assert offline(problem, key)["status"] != "kept"


@pytest.mark.parametrize(
    ("problem", "key", "kept"),
    [
        ("### Find the sum of 2 and 3.", "5", "5"),
        ("What is the absolute value of -15?", "15", "15"),
        ("Find the positive number whose absolute value is 15.", "15", "15"),
        ("Znajdź liczbę, której 20% wynosi 8.", "40", "40"),
        ("What number is 3 more than -3 on the number line?", "0", "0"),
    ],
)
def test_the_same_words_around_one_number_are_kept(problem, key, kept):
    done = offline(problem, key)
    assert done["status"] == "kept" and done["answer"] == kept, done["status"]


# set K3 (MATH-style competition sets, a visual-math dump): an answer asked in another base is a numeral, not the
# integer its digits spell (`12_5` is seven), and a rounding asked of a statement that gives no number at all
# (`Find the distance between the two endpoints. Round to three decimal places.`) rounds data that is elsewhere
@pytest.mark.parametrize(
    ("problem", "key"),
    [
        ("Find the sum of $S$, $H$ and $E$, expressing your answer in base $5$.", "12_5"),
        ("What is $84_{10}$ in base 6?", "220_6"),
        ("Express $1011_2 + 101_2$ in base 2.", "10000"),
        ("Find the distance between the two endpoints. Round to three decimal places.", "8.246"),
        ("Find the area of the shaded triangle. Round to the nearest tenth.", "12.5"),
    ],
)
def test_a_numeral_in_another_base_and_a_rounding_of_missing_data(problem, key):
    assert offline(problem, key)["status"] != "kept"


@pytest.mark.parametrize(
    ("problem", "key", "kept"),
    [
        ("What is $1011_2$ in base 10?", "11", "11"),
        ("Convert $324_5$ to base ten.", "89", "89"),
        ("How many positive divisors does 196 have?", "9", "9"),
    ],
)
def test_base_ten_asked_is_the_integer(problem, key, kept):
    done = offline(problem, key)
    assert done["status"] == "kept" and done["answer"] == kept, done["status"]


# set L3 (aptitude banks): a letter-coding puzzle's key is a code string, not a quantity
@pytest.mark.parametrize(
    ("problem", "key", "kept"),
    [
        ("If PALE is coded as 2134, EARTH is coded as 41576, how is PEARL coded?", "24153", None),
        (
            "In a certain code, 'MOUSE' is written as 'PRUQC'. How is 'SHIFT' written in that code?",
            "VKIDR",
            None,
        ),
        (
            "How many two-digit numbers can be coded with the digits 1, 2 and 3 if digits may repeat?",
            "9",
            "9",
        ),
    ],
)
def test_a_letter_code_is_no_quantity(problem, key, kept):
    done = offline(problem, key)
    assert_kept_as(done, kept)
