"""Blind set R4 (school arithmetic and measurement banks from Australia, New Zealand, the UK and South Africa; issue
21), measured once on arrival: a key that writes the unit the statement asks for by name (`Convert 2 kg to grams`
keyed `2000 g`) is that number of grams, not 2000 times a variable g; and a unit conversion the statement asks
(`Convert 250 centimetres to metres` keyed 2.5) is computed by its defined factor, a derivation, so its decimal is
exact: the same reading that rejects `1 mile = ? meters` keyed 1609 (a rounding of 1609.344)."""

import pytest
from rule_outcome import offline


@pytest.mark.parametrize(
    "problem, key, value",
    [
        ("Convert 2 kg to grams", "2000 g", "2000"),
        ("How many seconds are in 3 minutes?", "180 s", "180"),
        ("Convert 1.25 L to mL", "1250 mL", "1250"),
    ],
)
def test_a_key_in_the_unit_asked_by_name(problem, key, value):
    done = offline(problem, key)
    assert (done["status"], done["answer"]) == ("kept", value), done["status"]


def test_a_letter_after_a_number_in_algebra_stays_a_variable():
    assert offline("Simplify 2g + 3g", "5 g")["status"] != "kept"
    assert offline("Convert 2 kg to pounds", "4 g")["status"] != "kept"  # g is not the unit asked


@pytest.mark.parametrize(
    "problem, key, scaled",
    [
        ("Convert 250 centimetres to metres.", "2.5 metres", "25"),
        ("450 g = ___ kg", "0.45 kg", "45"),
        ("Express 7 mm in cm", "0.7 cm", "7"),
        ("How many kilograms are in 2500 g?", "2.5", "25"),
    ],
)
def test_an_asked_conversion_proves_its_decimal(problem, key, scaled):
    done = offline(problem, key)
    assert (done["status"], done["answer"]) == ("kept", scaled), done["status"]


@pytest.mark.parametrize(
    "problem, key",
    [
        ("Convert 250 centimetres to metres.", "2.6 metres"),  # not the conversion's value
        ("Convert 250 centimetres to metres.", "2.5 km"),  # another unit than the one asked
        ("Convert 250 cm to inches", "98.4"),  # 98.4252...: a rounding
        ("Express 5 cm in inches", "1.97"),
    ],
)
def test_a_conversion_that_is_not_the_key_proves_nothing(problem, key):
    assert offline(problem, key)["status"] != "kept"


# `Which is larger: 4.5 or 4.125?` keyed `4.5 is larger`: the key names one of the two numbers the statement writes,
# and comparing them proves it; the other one is a wrong key, whatever its form
@pytest.mark.parametrize(
    "problem, key, scaled",
    [
        ("Which is greater: 0.6 or 0.59?", "0.6", "6"),
        ("Which is larger: 4.5 or 4.125?", "4.5 is larger", "45"),
        ("Which is smaller: 0.25 or 0.3?", "0.25", "25"),
        ("Which is greater: 7 or 9?", "9", "9"),
    ],
)
def test_the_compared_number_asked(problem, key, scaled):
    done = offline(problem, key)
    assert (done["status"], done["answer"]) == ("kept", scaled), done["status"]


@pytest.mark.parametrize(
    "problem, key",
    [
        ("Which is greater: 0.6 or 0.59?", "0.59"),
        ("Which is larger: 4.5 or 4.125?", "4.125 is larger"),  # a dyadic key, but the smaller one
        ("Which is greater: 7 or 9?", "7"),
    ],
)
def test_the_other_compared_number_is_no_answer(problem, key):
    assert offline(problem, key)["status"] != "kept"
