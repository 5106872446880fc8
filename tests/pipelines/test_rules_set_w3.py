"""Middle-school keys (blind set W3, issue 21 items 1 and 3): numbers joined by bars are a list, a conversion
drill's key must be the exact conversion, and a key that shows its working as a chain (`10 + 2 * 5 = 10 + 10 =
20`) is kept by its own arithmetic: its last member, when every arithmetic member gives it, the statement holds
some of its numbers, and the statement does not already state the value."""

import pytest
from rule_outcome import assert_kept_as, offline


@pytest.mark.parametrize(
    ("problem", "key", "kept"),
    [
        # bars and spaced slashes separate values (`455 || 600` was read as the product 273000)
        ("Calculate the total cost for each item line, and then the Grand Total.", "455 || 600 || 305 || 1360", None),
        ("Fill in the missing values in the bank statement.", "700 | 800 | 600", None),
        ("Give the three missing terms.", "3 / 4 / 5", None),
        ("What is $|-3|$?", "|-3|", "3"),  # an absolute value opens with its bar
        # a conversion drill's key is its exact result or nothing
        ("1 mile = ? meters\nOptions: 1000 meters / 1609 meters / 1800 meters / 2000 meters", "1609 meters", None),
        ("How many centimeters are in 1 inch?", "3", None),
        ("1 km = ? meters", "1000", "1000"),
        ("How many feet are in 3 yards?", "9", "9"),
        # a worked chain: the key's own arithmetic
        ("Evaluate: 10 + 2 * 5", "`10 + 2 * 5` = `10 + 10` = `20`", "20"),
        ("Find the perimeter of a square of side 6 cm.", "Perimeter = 4 × side = 4 × 6 = 24 cm.", "24"),
        ("Find the circumference of a circle with radius 7 cm. (Use π = 22/7)",
         "Circumference = 2 × π × r = 2 × 22/7 × 7 = 44 cm", "44"),
        ("Evaluate: 10 + 2 * 5", "`10 + 2 * 5` = `10 + 10` = `21`", None),  # its arithmetic does not give it
        ("A circle has radius 7 cm. Find its circumference.",
         "Circumference = 2 × π × r = 2 × 22/7 × 7 = 44 cm", None),  # a value for pi the statement did not give
        ("Example of percentage?",
         "If 20 students passed out of 50, the percentage of students passed = (20/50) × 100 = 40%.", None),  # prose
        ("Çözüm?", "5×8-3 = 40-3 = 37", None),  # the statement holds none of the working's numbers
        ("Vérifie que sin²(30°) + cos²(30°) = 1.",
         "sin²(30°) + cos²(30°) = (1/2)² + (√3/2)² = 1/4 + 3/4 = 1.", None),  # a verification
    ],
)  # fmt: skip
def test_middle_school_keys(problem, key, kept):
    assert_kept_as(offline(problem, key), kept)
