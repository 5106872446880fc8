"""Answers in other languages (blind set M's classes): the answer words and sentences of 16 languages, the verb or
unit after the value, digits of other scripts, and the number formats of languages that write a decimal comma.
Each verdict follows from the text, decided before the code ran on it. A comma or dot is read by the language's
convention only when an answer word of such a language is seen; otherwise a comma is never a decimal point."""

from __future__ import annotations

import pytest

import verifiers


@pytest.mark.parametrize(
    ("text", "gold", "equal"),
    [
        ("Entonces, 12 + 6 = 18. La respuesta es 18.", "18", True),
        ("Entonces, 12 + 6 = 18. La respuesta es 17.", "18", False),
        ("Donc 9 + 9 = 18. La réponse est 18.", "18", True),
        ("Also 20 - 2 = 18. Die Antwort lautet 18.", "18", True),
        ("Шесть умножить на три.\nОтвет: 18.", "18", True),
        ("9 × 2 を計算すると、答えは18です。", "18", True),
        ("3x = 15이므로 x = 5입니다. 따라서 정답은 \\boxed{5}입니다.", "5", True),
        ("Ta có 9 nhân 2. Đáp số: 18.", "18", True),
        ("3 × 6 = 18. Jawabannya adalah 18.", "18", True),
        ("9 + 9 = 18. Cevap 18'dir.", "18", True),
        ("١٠ + ٨ = ١٨. الإجابة هي ١٨.", "18", True),
        ("९ + ९ = १८। उत्तर १८ है।", "18", True),
        ("৩ − ১০ = −৭। উত্তর −৭", "-7", True),
        ("๕ × ๕ = ๒๕ คำตอบคือ ๒๕", "25", True),
        ("10 + 8 = 18. Jibu ni 18.", "18", True),
    ],
)
def test_answer_words_of_other_languages(text, gold, equal):
    assert verifiers.check(text, gold).equivalent is equal


@pytest.mark.parametrize(
    ("text", "gold", "equal"),
    [
        ("12,6 : 4 = 3,5. Die Antwort lautet 3,5.", "3.5", True),
        ("4 · 250 = 1.000. Die Antwort lautet 1.000 Euro.", "1000", True),
        ("4 · 250 = 1.000. Die Antwort lautet 1.000 Euro.", "1", False),  # 1.000 is one thousand here
        ("2.500 m sind 2,5 km. Die Antwort lautet 2.500 m.", "2.5", False),
        ("1000 g entsprechen 1,000 kg. Die Antwort lautet 1,000 kg.", "1", True),  # a decimal comma
        ("1 200 + 300 = 1 500. La réponse est 1 500 habitants.", "1500", True),
        ("40.000 − 2.500 = 37.500. A resposta é R$ 37.500,00.", "37500", True),
        ("3/4 = 0,75. Đáp số: 0,75.", "0.75", True),
        ("5,00,000 − 50,000 = 4,50,000। उत्तर ₹4,50,000 है।", "450000", True),  # lakh grouping
        ("25만 × 4 = 100만이므로 정답은 100만 원입니다.", "1000000", True),
        ("4切れのうち3切れなので、答えは4分の3です。", "\\frac{3}{4}", True),
        (
            "So the total is 1,5 liters.\nThe answer is 1,5.",
            "1.5",
            False,
        ),  # English: a comma is never a decimal point
    ],
)
def test_number_formats_of_the_language(text, gold, equal):
    assert verifiers.check(text, gold).equivalent is equal


@pytest.mark.parametrize(
    ("text", "gold", "equal"),
    [
        ("We count again.\nThe answer is 19, because before giving 5 away he had 24.", "19", True),
        ("We count again.\nThe answer is 19, because before giving 5 away he had 24.", "24", False),
        ("We subtract.\nThe answer is minus 5.", "-5", True),
        ("Restamos. La respuesta es 19, porque antes tenía 24.", "19", True),
    ],
)
def test_a_reason_after_the_value_and_minus_in_words(text, gold, equal):
    assert verifiers.check(text, gold).equivalent is equal
