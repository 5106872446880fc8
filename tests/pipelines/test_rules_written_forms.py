"""How keys and option values are written in real sources, read as the value they state (set E's AQuA rows,
MATH's `\\frac{270}7\\text{ degrees}`): each value below follows from its text, decided before the code ran.

A unit written against its number (`144km`) is read off only when the statement writes that unit after a
number too: without the statement, `144km` may be the product 144·k·m."""

from __future__ import annotations

import pytest
import sympy

from pipelines.classify import find_choices
from pipelines.rules import Miss, parse_answer


@pytest.mark.parametrize(
    ("answer", "value", "unit"),
    [
        ("Rs. 750", 750, None),  # AQuA's rupees
        ("Rs.3937.50", sympy.Rational(7875, 2), None),
        ("\u20b9 40", 40, None),
        ("USD 12", 12, None),
        ("\\$18.90", sympy.Rational(189, 10), None),
        ("\\frac{270}7", sympy.Rational(270, 7), None),  # TeX's brace-less argument
        ("\\frac{270}7\\text{ degrees}", sympy.Rational(270, 7), "degrees"),
        ("\\dfrac 3 4", sympy.Rational(3, 4), None),
        ("45 degrees", 45, "degrees"),
        ("1 step/minute", 1, None),
        ("60 km/hr", 60, None),
    ],
)
def test_written_forms_read_as_their_value(answer, value, unit):
    got = parse_answer(answer)
    assert not isinstance(got, Miss), (answer, got)
    assert sympy.simplify(got.value - value) == 0, (answer, got.value)
    assert got.unit == unit


def test_a_glued_unit_is_read_off_only_when_the_statement_writes_it_after_a_number():
    jeep = (
        "During the return journey, it increased its speed by 12km/hr and took 4 hours. What is the distance?"
    )
    got = parse_answer("144km", problem=jeep)
    assert not isinstance(got, Miss) and got.value == 144
    assert isinstance(parse_answer("144km"), Miss)  # no statement: possibly 144·k·m
    algebra = "Let k and m be integers with k + m = 5. Express the product 144 times k times m."
    assert isinstance(parse_answer("144km", problem=algebra), Miss)


def test_a_label_written_twice_is_not_part_of_the_option():
    stem, choices = find_choices(
        "Now I am 60 years old, how old is my brother?\n(A)A)59 (B)B)69 (C)C)79 (D)D)89 (E)E)99"
    )
    assert choices == {"A": "59", "B": "69", "C": "79", "D": "89", "E": "99"}
    assert stem.endswith("brother?")


def test_an_option_that_starts_with_another_letter_keeps_it():
    _, choices = find_choices("Which is largest?\n(A) B) is wrong (B) 2 (C) 3 (D) 4")
    assert choices["A"] == "B) is wrong"
