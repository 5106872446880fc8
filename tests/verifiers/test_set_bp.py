"""Classes from blind set BP (geometry and measurement answers; issue 21).

- An area where a length is asked, or the reverse, is another quantity (`16 m²` for "What is the perimeter of the
  square?", `96 cm` for an area), and so is the gold's own measure in another unit with the same number (`264 m²`
  for the gold `264 sq.cm`); the gold's unit written another way (`96 cm^2` for `96 sq.cm`) is the same.
- An answer line right after a sentence that names another option as the correct one is a hedge (`Hence, the
  correct choice is (D).\\nAnswer:C`); with a correction between them (`Wait, ...`) the answer line stands.
- A bare option letter is never `restates_question`: the question holds its options (`(C)` for `145°`).
"""

import pytest

import verifiers


@pytest.mark.parametrize(
    ("pred", "gold", "question", "want"),
    [
        (
            "Each side is 4 m, so the perimeter is 4 × 4 = 16 m².",
            "16",
            "What is the perimeter of the square?",
            False,
        ),
        (
            "Each side is 4 m, so the perimeter is 4 × 4 = 16 m.",
            "16",
            "What is the perimeter of the square?",
            True,
        ),
        (
            "Area = 12 × 8 = 96\nFinal Answer: 96 cm",
            "96 sq.cm",
            "Find the area of a rectangle 12 cm by 8 cm.",
            False,
        ),
        (
            "Area = 12 × 8 = 96\nFinal Answer: 96 cm^2",
            "96 sq.cm",
            "Find the area of a rectangle 12 cm by 8 cm.",
            True,
        ),
        ("Area of path = 264 m²\n\nFinal answer: 264 m²", "264 sq.cm", "Find the area of the path.", False),
        ("The rug covers 20 square feet.", "20", "What is the area of the rug in square feet?", True),
    ],
)
def test_an_area_for_a_length_or_another_unit_of_the_gold(pred, gold, question, want):
    assert verifiers.check(pred, gold, question=question).equivalent is want


CHOICES = "If ∠ABC = 60.0, then the degree of ∠CDE is ()\nChoices:\n(A) 30°\n(B) 45°\n(C) 60°\n(D) 70°"


@pytest.mark.parametrize(
    ("pred", "want"),
    [
        ("Therefore, ∠CDE = 120°. Hence, the correct choice is (D).\nAnswer:C\n", False),
        ("Hence, the correct choice is (C).\nAnswer:C\n", True),
        ("The correct answer is (D). Wait, recheck: it is 60. So C.\nAnswer: C", True),
    ],
)
def test_an_answer_line_after_another_named_option(pred, want):
    assert verifiers.check(pred, "C", question=CHOICES).equivalent is want


@pytest.mark.parametrize(("pred", "want"), [("So ∠CDE = 60°.\n\nAnswer: (C)", True), ("Answer: (B)", False)])
def test_a_letter_answers_a_value_gold_of_its_option(pred, want):
    assert verifiers.check(pred, "60°", question=CHOICES).equivalent is want
