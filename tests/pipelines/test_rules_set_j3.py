"""Blind rule set J3's classes (Russian exam answer sheets, a Polish course, OBMEP-style banks): a statement that is
only a heading asks nothing, marking a number on the number line is a drawing, and a number whose absolute value is
given has two values. Every expected outcome follows from the statement as written: `### Вариант 1` states no
problem, `Wskaż liczbę -3 na osi liczbowej` asks for a mark, and |x| = 15 holds at 15 and at -15."""

import pytest

from mathdata.schema import new_record
from pipelines.report import run_offline_steps


def _run(problem: str, answer: str) -> dict:
    rec = new_record(source="test", original_problem=problem, original_answer=answer, source_key="k")
    return run_offline_steps([rec])[0]


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
    assert _run(problem, key)["status"] != "kept"


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
    done = _run(problem, key)
    assert done["status"] == "kept" and done["answer"] == kept, done["status"]
