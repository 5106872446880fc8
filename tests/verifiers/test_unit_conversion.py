"""Quantities in two units of one dimension are compared after an exact conversion (SI prefixes; the inch as
2.54 cm, the foot, yard and mile from it; seconds to weeks; grams; litres). Each verdict follows from the
arithmetic, decided before the code ran. A question that asks for one unit ("How many minutes ...?") wants the
answer in it: the same quantity in another unit is `unit_mismatch`, as an angle in the other unit is."""

from __future__ import annotations

import pytest

import verifiers


@pytest.mark.parametrize(
    ("pred", "gold", "equal"),
    [
        ("1 foot", "12\\text{ inches}", True),
        ("2 hours 30 minutes", "2.5 (hours)", True),
        ("2 hours 50 minutes", "2.5 (hours)", False),
        ("500 cm", "5 \\text{ m}", True),
        ("50 cm", "5 \\text{ m}", False),
        ("5 m", "5 cm", False),
        ("3 kg", "3000 g", True),
        ("2 km", "2000 meters", True),
        ("1 week", "7 days", True),
        ("90 min", "1.5 h", True),
        ("5 feet 6 inches", "66 inches", True),
        ("5 feet 6 inches", "65 inches", False),
        ("1 mile", "5280 feet", True),
        ("250 mL", "0.25 L", True),
        ("12 apples", "12 oranges", False),  # counted things are no units to convert
        ("5 cm^2", "5 cm", False),  # an area is no length
    ],
)
def test_quantities_are_compared_after_an_exact_conversion(pred, gold, equal):
    assert verifiers.check(pred, gold).equivalent is equal


@pytest.mark.parametrize(
    ("pred", "gold", "question", "equal"),
    [
        ("1.5 hours", "90 minutes", "How many minutes does the trip take?", False),
        ("90 minutes", "1.5 hours", "How many minutes does the trip take?", True),
        ("1.5 hours", "90 minutes", "How long does the trip take?", True),
        ("2 m", "200 cm", "What is the length in centimeters?", False),
        ("200 cm", "2 m", "What is the length in centimeters?", True),
    ],
)
def test_the_unit_the_question_asks_for(pred, gold, question, equal):
    assert verifiers.check(pred, gold, question=question).equivalent is equal
