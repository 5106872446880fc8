"""Blind set K4 (LLM-made data: MetaMathQA/FOBAR samples, GPT-3.5 answers stored as keys to ALG-514 and DRAW-1K, generated
banks; issue 21). Four classes, each written here from its statement:

- MetaMathQA's FOBAR rows end `If we know the answer to the above question is 5, what is the value of unknown variable
  X?`: "the above question" is the statement's own first part and its answer is given, so nothing is missing; a
  reference that does not give the value (`Let T be the answer to the previous problem`) still is.
- a statement that writes a repeating fraction cut short (`0.1667 of a number` for 1/6, `.833` for 5/6) has a key that
  is the fraction's answer, not the answer of the numbers as written: no rule can prove it.
- a key written as one sentence (`The original number is 45.`, `The speed of Bus A is 15 mph.`) is a model's answer
  stored as the key (41 of the 55 such GPT-3.5 keys in K4 are wrong): it is left to the solver, never read by a rule.
  A reader that took the value when the sentence names the asked quantity was tried: it added two right keys and one
  wrong one (`15 mph` for 45) on K4 and changed nothing on any earlier set, so it was not kept.
- thousands separators before a unit's words (`20,000 dollars.`) are one number, as they are alone.
"""

import pytest
from rule_outcome import offline

from pipelines.classify import refers_to_other_problem
from pipelines.rules import rounded_repeating_decimal

FOBAR = (
    "Bob is 75 miles ahead of Tom, driving X miles per hour. Tom is driving 70 miles per hour. How long will it take "
    "Tom to catch up with Bob? If we know the answer to the above question is 5, what is the value of unknown "
    "variable X?"
)


def test_a_fobar_row_gives_the_answer_it_refers_to():
    # 75 / (70 - X) = 5, so X = 55
    done = offline(FOBAR, "55")
    assert (done["status"], done["answer"]) == ("kept", "55")


@pytest.mark.parametrize(
    "text",
    [
        "Let T be the answer to the previous problem. Find the number of divisors of T.",
        "Use the result of the previous problem to find the area.",
        "If the answer to problem 3 is less than 10, find x.",
    ],
)
def test_a_reference_without_its_value_is_still_missing_context(text):
    assert refers_to_other_problem(text) is not None
    assert offline(text, "12")["status"] == "rejected:refers_to_other_problem"


@pytest.mark.parametrize(
    "problem, answer",
    [
        ("0.5 of a certain number is 10 more than 0.1667 of a number. Find the number.", "30"),
        (".833 of a number is -60. What is the number?", "-72"),
        ("Jim ate 0.6667 of a pizza cut into 12 slices. How many slices did he eat?", "8"),
    ],
)
def test_a_repeating_fraction_cut_short_leaves_the_key_unproven(problem, answer):
    done = offline(problem, answer)
    assert done["status"].startswith("needs_llm: the statement writes"), done["status"]


@pytest.mark.parametrize("text", ["Half of 0.125 is what?", "A pen costs $2.99. What do 3 pens cost?",
                                  "A rope of 1.5 m is cut in 3. How long is each piece in m?", "x = 0.142857",
                                  "0.777... (repeating) in fraction form is", "Write 0.333… as a fraction."])  # fmt: skip
def test_terminating_money_and_marked_repeating_decimals_are_not_cut_fractions(text):
    assert rounded_repeating_decimal(text) is None


@pytest.mark.parametrize(
    "problem, key",
    [
        ("The sum of the digits of a two-digit number is 9. The number with the digits interchanged is 6 times the "
         "sum of the digits. Find the original number.", "The original number is 45."),
        ("The student-teacher ratio was 27.5 to 1. If there are 42 teachers, then how many students are there?",
         "There are 1,155 students."),
        ("A car goes 120 km in 2 hours. What is its speed in km/h?", "The time is 2 hours."),
    ],
)  # fmt: skip
def test_a_key_written_as_a_sentence_is_left_to_the_solver(problem, key):
    assert offline(problem, key)["status"].startswith("needs_llm")


def test_thousands_before_a_unit_word_are_one_number():
    problem = (
        "The value of a car this year is 16,000 dollars, which is 0.8 of what its value was last year. "
        "Find the value of the car last year."
    )
    done = offline(problem, "20,000 dollars.")
    assert (done["status"], done["answer"]) == ("kept", "20000")


# set L4 (ChatGPT answers to DRAW-1K / ALG-514 stored as keys), measured once after K4's fixes, then these two classes:
# `How many of each item did she order?` asks one value per item (`375,125` is two values, never 375125), and `the
# above information` after the statement's own setup is that setup (AIME 1988 #15 in MetaMathQA), not another item's.
@pytest.mark.parametrize(
    "problem",
    [
        "Calendars cost $0.75 each and date books $0.50 each. She ordered 500 items and spent $300. How many of each "
        "item did she order?",
        "The sum of two numbers is 25 and their difference is 7. Find the two numbers.",
    ],
)
def test_one_value_per_thing_asked_is_several_values(problem):
    assert offline(problem, "200")["status"] == "rejected:several_asks"
    assert offline(problem, "375,125")["status"] != "kept"


@pytest.mark.parametrize(
    "problem, key",
    [
        ("There are 4 boxes with 6 eggs in each box. How many eggs are in each box?", "6"),
        # equal numbers of each coin: one count answers `how many of each` (AGIEval's AQuA)
        ("A pouch holds Rs. 700 in equal numbers of 25 paise, 50 paise and one rupee coins. How many of each are "
         "there?", "400"),
    ],
)  # fmt: skip
def test_one_value_asked_of_each_thing_is_still_one_value(problem, key):
    done = offline(problem, key)
    assert (done["status"], done["answer"]) == ("kept", key)


def test_the_above_information_after_the_setup_is_the_statement_own():
    problem = (
        "Nine letters are delivered in the order 1, 2, ..., 9 and typed from the top of the pile. Letter 8 has "
        "already been typed. Based upon the above information, how many such after-lunch typing orders are possible?"
    )
    assert offline(problem, "704")["status"] == "kept"
    assert offline("Based on the above information, how many orders are possible?", "704")["status"] == (
        "rejected:needs_data"
    )


# K4's one wrong key that is no model's answer: OpenMathInstruct-2 keys `Solve for $y$:` over a displayed rational
# equation with 2, where its left side divides by zero: an extraneous root, no solution. A key is substituted into the
# equation a `Solve for` line stands over, and a side that divides by zero there does not hold.
@pytest.mark.parametrize(
    "problem, key, kept",
    [
        ("Solve for $y$:\n\n$$\\frac{y^2 - 3y + 2}{y - 2} = y + 1$$", "2", False),
        ("Solve for $x$:\n$$\\frac{x+1}{x-1} = 3$$", "3", False),
        ("Solve for $x$:\n$$\\frac{x+1}{x-1} = 3$$", "2", True),
        ("Solve for x: \\frac{12}{x} = 4", "4", False),
        ("Solve for x: \\frac{12}{x} = 4", "3", True),
    ],
)
def test_a_key_is_substituted_into_the_equation_asked(problem, key, kept):
    done = offline(problem, key)
    assert (done["status"] == "kept") is kept, done["status"]
    if not kept:
        assert "does not hold at the key" in done["status"]
