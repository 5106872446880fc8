"""Blind set V4 (answer keys that show their working: worksheet keys in Markdown, trigonometry and physics worked
solutions, French problem sheets; issue 21), measured once on arrival (wrong kept 0, right kept 7/107): a worked key
of several lines that marks its value in bold is that value when every bold span is the same number and a chain of
working that starts from the statement's numbers ends in it; bold values that differ are several answers, working
that gives another value or that starts from numbers the statement lacks (a table it does not hold) is no proof."""

import pytest
from rule_outcome import offline


@pytest.mark.parametrize(
    "problem, key, integer",
    [
        (
            "A triangle has base 12 cm and height 5 cm. What is its area?",
            "Base 12 cm, height 5 cm\n   - Area = (12 × 5) ÷ 2 = 60 ÷ 2 = **30 cm²**",
            "30",
        ),
        (
            "What is the perimeter of a rectangle 9 cm long and 4 cm wide?",
            "Rectangle 9 cm by 4 cm\n   - Perimeter = 9 + 4 + 9 + 4 = **26 cm**\n   - Or: Perimeter = 2 × (9 + 4) = 2 × 13 = **26 cm**",
            "26",
        ),
        ("Find the mean of 4, 8 and 12.", "4, 8 and 12\n   - (4 + 8 + 12) ÷ 3 = 24 ÷ 3 = **8**", "8"),
    ],
)
def test_a_bold_value_that_ends_its_working(problem, key, integer):
    done = offline(problem, key)
    assert (done["status"], done["answer"]) == ("kept", integer), done["status"]


@pytest.mark.parametrize(
    "problem, key",
    [
        (
            "Find the mean of 4, 8 and 12.",
            "4, 8 and 12\n   - (4 + 8 + 12) ÷ 3 = 24 ÷ 3 = **9**",
        ),  # wrong working
        (  # two parts, two values
            "Write as decimals: 2 and 3/10; 5 and 7/100.",
            "- 2 and 3/10 = **2.3**\n   - 5 and 7/100 = **5.07**",
        ),
        (  # the counts are in a table the statement does not hold
            "4. Totals: How many votes are there in all after adding Green?",
            "After adding Green with 6 votes:\n   - Total = 7 + 2 + 9 + 6 = **24 votes**",
        ),
        ("Is 6 × 7 equal to 42?", "- 6 × 7 = 42\n   - **Yes**"),  # a word in bold
    ],
)
def test_bold_working_that_proves_nothing(problem, key):
    assert offline(problem, key)["status"] != "kept"


def test_an_answer_line_before_its_working():
    """`Answer: 11` then the working, ending in the same value: the answer line's value."""
    done = offline(
        "Question 2:\n\n(4 + 1) * 3 - 4", "Answer: 11\n\n(4 + 1) * 3 - 4\n\n5 * 3 - 4\n\n15 - 4 = 11"
    )
    assert (done["status"], done["answer"]) == ("kept", "11"), done["status"]


@pytest.mark.parametrize(
    "problem, key",
    [
        (
            "Question 2:\n\n(4 + 1) * 3 - 4",
            "Answer: 11\n\n(4 + 1) * 3 - 4\n\n5 * 3 - 4\n\n15 - 4 = 12",
        ),  # ends elsewhere
        (
            "Question 5:\n\n2 / 4 ^ -1",
            "Answer: 1 / 4\n\n(4 / 2) ^ -1\n\n2 ^ -1 = 1 / 4",
        ),  # the statement's 2/(4^-1) is 8
        (
            "Question 6:\n\n2 ^ 2 ^ 3",
            "Answer: 64\n\n2 ^ 2 ^ 3\n\n4 ^ 3 = 64",
        ),  # an unbracketed tower: 2^8 or 4^3
    ],
)
def test_an_answer_line_its_working_or_statement_contradicts(problem, key):
    assert offline(problem, key)["status"] != "kept"
