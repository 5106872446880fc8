"""Answer lines that commit to more than one value (blind set AK's classes): a labelled correction after the line
that was read (`Correction — ANSWER: 153740`, `Final: 1183959424`) is the last commitment; two bare answer lines in a
row with different values offer both (a hedge); a number written in words where the question demands digits is not
the form asked. Each verdict follows from the text and the question, decided before the code ran on it."""

from __future__ import annotations

import pytest

import verifiers

ONLY_BITS = "Evaluate the expression.\nOutput only 0 or 1.\n\nOutput final answer only on one line exactly as: ANSWER: <value>"


@pytest.mark.parametrize(
    ("text", "gold", "equal"),
    [
        ("ANSWER: 153704\n\nCorrection — ANSWER: 153740", "153704", False),
        ("ANSWER: 153704\n\nCorrection — ANSWER: 153740", "153740", True),
        ("ANSWER: 1183959244\nFinal: 1183959424", "1183959244", False),
        ("ANSWER: 1183959244\nFinal: 1183959424", "1183959424", True),
        ("Answer: 12\nCorrected answer: 14", "12", False),
        ("Answer: 12\nRevised final answer: 14", "14", True),
        ("The sum is 7 + 5.\n\nAnswer: 12\n\nFinal: 12", "12", True),
        ("Answer: $\\boxed{9}$\n\nCorrection: Answer: 8", "9", False),
    ],
)
def test_a_labelled_correction_after_the_answer_line_is_the_last_commitment(text, gold, equal):
    assert verifiers.check(text, gold).equivalent is equal


@pytest.mark.parametrize(
    ("text", "gold", "equal"),
    [
        ("ANSWER: 0\nANSWER: 1", "1", False),
        ("ANSWER: 0\nANSWER: 1", "0", False),
        ("Answer: 34\n\nAnswer: 35", "35", False),
        ("Answer: 34\nAnswer: 34", "34", True),
        ("Answer: 1,000\nFinal Answer: 1000", "1000", True),
        ("Answer: 12\n\nWait, I made a slip above; redoing it gives 34.\n\nAnswer: 34", "34", True),
    ],
)
def test_two_bare_answer_lines_in_a_row_offer_both_values(text, gold, equal):
    assert verifiers.check(text, gold).equivalent is equal


def test_two_bare_answer_lines_are_named_a_hedge():
    assert verifiers.check("ANSWER: 0\nANSWER: 1", "1").reason == "hedged"
    assert verifiers.extract("ANSWER: 0\nANSWER: 1").joined == "or"


@pytest.mark.parametrize(
    ("text", "gold", "question", "equal"),
    [
        ("ANSWER: zero", "0", ONLY_BITS, False),
        ("ANSWER: one", "1", ONLY_BITS, False),
        ("ANSWER: 0", "0", ONLY_BITS, True),
        ("Answer: five", "5", "How many apples are left? Write the answer in digits.", False),
        ("Answer: twelve", "12", "How many eggs? Give your answer in arabic numerals.", False),
        ("Answer: 12", "12", "How many eggs? Give your answer in arabic numerals.", True),
        ("Final answer: five laps", "5", "How many laps did she run?", True),
    ],
)
def test_number_words_where_the_question_demands_digits(text, gold, question, equal):
    assert verifiers.check(text, gold, question=question).equivalent is equal


@pytest.mark.parametrize(
    ("text", "gold", "question", "equal"),
    [
        ("ANSWER: $10^{13} \\equiv 10 \\pmod{11}$", "10", "Compute (10 ^ 13) mod 11.", True),
        ("ANSWER: $14^{12} \\equiv 1 \\pmod{13}$", "1", "Compute (14 ^ 12) mod 13.", True),
        ("ANSWER: $14^{12} \\equiv 1 \\pmod{13}$", "14", "Compute (14 ^ 12) mod 13.", False),
        ("ANSWER: $14^{12} \\pmod{13}$", "1", "Compute (14 ^ 12) mod 13.", False),
    ],
)
def test_a_congruence_answers_with_its_last_member(text, gold, question, equal):
    assert verifiers.check(text, gold, question=question).equivalent is equal


@pytest.mark.parametrize(
    ("text", "gold", "equal"),
    [
        ("Tomato cost: \\boxed{800}. Celery cost: 2400.\nSo the total is $3200.\n\n#### 3200", "3200", True),
        ("Tomato cost: \\boxed{800}. Celery cost: 2400.\nSo the total is $3200.\n\n#### 3200", "800", False),
        ("The total is \\boxed{3200}.\n#### 3200", "3200", True),
        ("#### three thousand two hundred", "3200", True),
        ("#### three thousand two hundred", "3020", False),
        ("#### Step three\nWe add the two costs next.", "3", False),
    ],
)
def test_a_gsm8k_line_after_a_box_and_in_words(text, gold, equal):
    assert verifiers.check(text, gold).equivalent is equal


SLIP = "Answer: $8$\n\nWait, I made an arithmetic slip above. Correction: the answer is $9$."


@pytest.mark.parametrize(
    ("text", "gold", "equal"),
    [
        (SLIP, "9", True),
        (SLIP, "8", False),
        (
            "Answer: $(3,\\pi)$\n\nOops. Correction: the answer is $\\left(3, \\frac{\\pi}{2}\\right)$.",
            "(3,\\frac{\\pi}{2})",
            True,
        ),
        ("Answer: 9\n\nI hope the answer is correct.", "9", True),
        ("Answer: 9\n\nActually, let me double-check: yes, 9.", "9", True),
        ("Answer: 9\n\nWait, the answer is 10. No wait, that is wrong.", "10", False),
    ],
)
def test_a_correction_in_prose_after_the_answer_line(text, gold, equal):
    assert verifiers.check(text, gold).equivalent is equal
