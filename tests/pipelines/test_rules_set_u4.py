"""Blind set U4 (geometry and trigonometry worksheets and quiz banks; issue 21), measured once on arrival (wrong kept 0,
right kept 12/85): keys typed with Unicode mathematics (`6√2`, `(6√2)²`, `√3/2`) are the LaTeX they stand for; a key
that names the quantity the statement asks (`Hypotenuse = 6√2 ≈ 8.49 cm`, `b) Area = (6√2)² = 72 cm²`) is that
quantity's value; an exact value followed by its decimal is the exact value when the decimal is its rounding (and
no value when it is not); a statement that asks to write a number as a sum or a product asks for a representation."""

import pytest
from rule_outcome import offline


@pytest.mark.parametrize(
    "problem, key, kept",
    [
        ("What is the exact value of sin 60°?", "√3/2", "5"),  # sqrt(3)/2 -> a+b form of the radical rule
        (
            "A square has a diagonal of length 12 cm. Find the area of the square in square centimetres.",
            "(6√2)²",
            "72",
        ),
        (
            "A square has a diagonal of length 12 cm. Find the area of the square.",
            "b) Area = (6√2)² = 72 cm²",
            "72",
        ),
    ],
)
def test_unicode_and_named_keys(problem, key, kept):
    done = offline(problem, key)
    assert done["status"] == "kept", done["status"]
    if kept != "5":
        assert done["answer"] == kept


def test_an_exact_value_and_its_rounding():
    problem = "In a 45-45-90 triangle the legs are 6 cm. Find the length of the hypotenuse."
    done = offline(problem, "a) Hypotenuse = 6√2 ≈ 8.49 cm")
    assert done["status"] == "kept", done["status"]  # 6*sqrt(2), not 8.49
    assert offline(problem, "Hypotenuse = 6√2 ≈ 8.52 cm")["status"] != "kept"  # not its rounding


@pytest.mark.parametrize(
    "problem, key",
    [
        ("Exprime 23 comme somme de carrés.", "23 = 4² + 2² + 1² + 1² + 1²."),
        ("Write 30 as a product of primes.", "30"),
        ("Question 1 — Successive Division Remainders\n| Divisors | 35, 45, 55 |", "Smallest number = 3448"),
    ],
)
def test_no_value_asked(problem, key):
    assert offline(problem, key)["status"] != "kept"


def test_a_sum_in_the_setup_is_no_representation_asked():
    problem = (
        "Let f(n) be the number of ways to write n as a sum of powers of 2. Find the smallest n greater than 2013 "
        "for which f(n) is odd."
    )
    done = offline(problem, "2047")
    assert (done["status"], done["answer"]) == ("kept", "2047")


def test_a_unit_squared_after_a_letter_stays_a_unit():
    done = offline("A rectangle is 5 m by 4 m. What is its area in square metres?", "20 m²")
    assert (done["status"], done["answer"]) == ("kept", "20"), done["status"]


@pytest.mark.parametrize(
    "problem, key, integer",
    [
        (  # 4*sqrt(3): m + n of the radical form
            "A 30-60-90 triangle has a shorter leg of 4 cm. Find the length of the longer leg.",
            "Longer leg = 4 × √3 = 4√3 ≈ 6.93 cm",
            "7",
        ),
        (  # 9 + 9*sqrt(2)
            "An isosceles right triangle has legs of 9 m. Find its perimeter.",
            "Perimeter = 9 + 9 + 9√2 = 18 + 9√2 ≈ 30.73 m",
            "29",
        ),
        (  # the working proves the decimal inside 24.5√3: 49*sqrt(3)/2
            "A 30-60-90 triangle has a shorter leg of 7 cm. Find its area.",
            "Area = (1/2) × 7 × 7√3 = 24.5√3 ≈ 42.44 cm²",
            "54",
        ),
        ("A square has a side of 5 cm. Find its diagonal.", "Diagonal = 10/√2 = 10√2/2 = 5√2 ≈ 7.07 cm", "7"),
    ],
)
def test_a_chain_of_working_that_ends_in_an_exact_value_and_its_rounding(problem, key, integer):
    """`Perimeter = 9 + 9 + 9√2 = 18 + 9√2 ≈ 30.73 m`: the exact value the chain's own arithmetic gives, when its
    decimal is that value's rounding."""
    done = offline(problem, key)
    assert (done["status"], done["answer"]) == ("kept", integer), done["status"]


@pytest.mark.parametrize(
    "key",
    [
        "Perimeter = 9 + 9 + 9√2 = 18 + 8√2 ≈ 30.73 m",  # the working gives another value
        "Perimeter = 9 + 9 + 9√2 = 18 + 9√2 ≈ 30.37 m",  # the decimal is not its rounding
        "Perimeter = 2 × leg + hypotenuse = 18 + 9√2 ≈ 30.73 m",  # nothing computes it: a formula only
    ],
)
def test_a_chain_that_proves_nothing_is_no_value(key):
    assert (
        offline("An isosceles right triangle has legs of 9 m. Find its perimeter.", key)["status"] != "kept"
    )
