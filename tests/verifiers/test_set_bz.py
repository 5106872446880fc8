"""Blind set BZ (multiple choice on the precision side: AQuA-RAT answers of GPT-3, gpt-3.5-turbo and a Llama model,
probes; issue 21), measured once on arrival (0.911, 7 false positives). Each class written from its statement: what a
model thinks (`<think>... so A.</think>`) is no answer; an opening letter that a correction takes back is not the
answer; a percent option is answered by its number (`12.5`), not by the fraction (`0.125`); a lower-case letter
names its option; an equation then the letter it solves (`0.018x = 72, so x = 4000`) is that letter's value."""

import pytest

from verifiers import check

OPTIONS = " Answer Choices: (A) After 6 minutes (B) After 12 minutes (C) After 18 minutes (D) After 24 minutes (E) none"
BELLS = (
    "Three bells ring at intervals of 36, 40 and 48 seconds. When will they ring together again?" + OPTIONS
)
PERCENT = (
    "The new tires cost $45 a year and the repair $40. The new tires' cost is what percent greater than the repair's?"
    " Answer Choices: (A) 8% (B) 10% (C) 12.5% (D) 16.7% (E) 25%"
)


@pytest.mark.parametrize(
    "response, gold, equal",
    [
        ("<think>LCM is 720 s, 12 minutes, so B.</think>", "B", False),  # only thought
        (
            "<think>LCM is 720 s, so B.</think>\nI am not sure; somewhere between 6 and 18 minutes.",
            "B",
            False,
        ),
        ("<think>LCM is 720 s.</think>\nThe answer is (B).", "B", True),
    ],
)
def test_a_letter_inside_think_is_no_answer(response, gold, equal):
    assert check(response, gold, question=BELLS).equivalent is equal


@pytest.mark.parametrize(
    "response, gold, equal",
    [
        ("(B) After 12 minutes. Actually, LCM(36, 40, 48) = 1440 seconds, so 24 minutes: (D).", "B", False),
        ("(B) After 12 minutes. Actually, LCM(36, 40, 48) = 1440 seconds, so 24 minutes: (D).", "D", True),
        ("(B) After 12 minutes. Correction: none of these options is right.", "B", False),
        ("(B) After 12 minutes.", "B", True),
    ],
)
def test_an_opening_letter_taken_back(response, gold, equal):
    assert check(response, gold, question=BELLS).equivalent is equal


@pytest.mark.parametrize(
    "response, equal",
    [("Answer: 0.125", False), ("Answer: 12.5", True), ("Answer: 12.5%", True), ("Answer: C", True)],
)
def test_a_percent_option_is_answered_by_its_number(response, equal):
    assert check(response, "C", question=PERCENT).equivalent is equal


@pytest.mark.parametrize(
    "response, gold, equal",
    [("**Answer: b**", "B", True), ("**Answer: b**", "C", False), ("Answer: (d).", "D", True)],
)
def test_a_lower_case_letter_names_its_option(response, gold, equal):
    assert check(response, gold, question=BELLS).equivalent is equal


@pytest.mark.parametrize(
    "response, gold, equal",
    [
        ("0.018x = 72, so x = 4000.", "4000", True),
        ("2x = 8, so x = 4.", "5", False),
        ("y = 8, so x = 4", "4", False),  # the equation before does not hold the letter solved
    ],
)
def test_an_equation_then_the_letter_it_solves(response, gold, equal):
    assert check(response, gold).equivalent is equal
