"""Classes from blind set BR (competition answers of 2024-2025; issue 21).

- An answer line whose label names a format (`Final answer (AIME format): \\boxed{070}`) holds the answer: the format
  word there is no format example (`in the format \\boxed{N}` is one, and its box is not read).
- A bracketed aside that opens with `the` or `i.e.` after an answer line's value describes it (`Answer: 735 (the
  remainder when N = 885,735 is divided by 1000)`); `(or 736)` stays a hedge.
- A closing `, which is the number we were asked for.` without a number is a remark after the value; one that names
  an option (`, which is option C.`) is the answer's letter and stays.
"""

import pytest

import verifiers

CHOICES = (
    "Which of the following is the volume, in cubic units, of methanol in the altered solution? "
    "Answer Choices: (A) 20 (B) 40 (C) 50 (D) 100 (E) 200"
)


@pytest.mark.parametrize(
    ("pred", "gold", "question", "want"),
    [
        ("So b = 21 and b = 49.\n\nFinal answer (AIME format): \\boxed{070}", "70", "", True),
        ("Write the result in the format \\boxed{N}, e.g. \\boxed{5}.\n\nThe answer is 7.", "5", "", False),
        (
            "Counting by 3-adic valuations gives N = 885,735 ordered triples.\n\nAnswer: 735 (the remainder when "
            "N = 885,735 is divided by 1000)",
            "735",
            "",
            True,
        ),  # fmt: skip
        ("Answer: 735 (or 736)", "735", "", False),
        (
            "Since 128 and 693 are coprime, m + n = 128 + 693 = 821, which is the number we were asked for.",
            "821",
            "",
            True,
        ),  # fmt: skip
        ("Methanol = 100 cubic units, which is option C.", "D", CHOICES, False),
    ],
)
def test_what_ends_an_answer_after_its_value(pred, gold, question, want):
    assert verifiers.check(pred, gold, question=question or None).equivalent is want
