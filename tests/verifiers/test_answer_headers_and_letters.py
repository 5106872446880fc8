"""Answer forms met in set S (real outputs of Gaokao and MMLU-Pro evaluations, long reasoning traces); the
labels follow from the texts: GAOKAO-Bench's `【答案】` header and `<eoa>` end tag, MMLU-Pro's ten option
letters, multi-select keys, a concluding sentence with one number, and a dollar sign that is currency."""

from __future__ import annotations

import pytest

import verifiers
from verifiers import extract


@pytest.mark.parametrize(
    ("pred", "gold", "equivalent"),
    [
        ("【解析】先求导……<eoe>\n【答案】: A <eoa>", "A", True),
        ("【解析】先求导……<eoe>\n【答案】: A <eoa>", "B", False),
        ("【解析】……<eoe>\n【答案】\n解方程得到n=8.<eoa>", "8", True),  # Chinese words lead to the value
        ("【答案】5<eoa>\n【答案】6", "5", True),  # <eoa> ends the answer: nothing after it is read
        ("答案：解得 x=3", "3", True),
        ("Thus the probability is 0.675. The answer is (H).", "H", True),  # MMLU-Pro: options A-J
        ("Thus the probability is 0.675. The answer is (H).", "G", False),
        ("\\boxed{\\text{A、C、D}}", "ACD", True),  # a multi-select key
        ("\\boxed{A, C and D}", "ACD", True),
        ("\\boxed{A、C}", "ACD", False),
        ("\\boxed{A、C、D、D}", "ACD", False),
        ("\\boxed{\\text{B（}a=1\\text{）}}", "B", True),  # the letter with its value
        ("Each week she runs 180 m.\n\nTherefore, James runs a total of 540 meters per week.", "540", True),
        ("We add them up.\n\nTherefore, James runs a total of 540 meters per week.", "541", False),
    ],
)
def test_answer_headers_letters_and_conclusions(pred, gold, equivalent):
    v = verifiers.check(pred, gold, timeout=5)
    assert v.equivalent is equivalent, (pred, gold, v)


@pytest.mark.parametrize(
    "text",
    [
        "It holds 12 apples.\n\nSo we need at least 3 more boxes.",  # a qualified number
        "The glasses cost $40 + $24.\n\nTherefore, Kylar needs to pay $64 for the 16 glasses.",  # two numbers
        "We checked it.\n\nThus we do not get 5 boxes here.",  # negated
        "First, 3 apples.\n\nWe then try again with 4 apples.",  # no conclusion word
    ],
)
def test_a_concluding_sentence_gives_its_number_only_when_it_has_exactly_one_unqualified(text):
    assert extract(text).answers == ()


def test_a_letter_after_e_is_an_option_only_alone_or_in_brackets():
    from verifiers.forms import choice

    assert choice("(H)") == ("H", "") and choice("H") == ("H", "")
    assert choice("F = ma") is None and choice("G(x)") is None
    assert choice("C. x = 42") == ("C", "x = 42")  # A-E keep their option text


def test_a_dollar_amount_is_not_a_math_span_across_a_paragraph():
    text = "The total is $40 + $24 = $64.\n\nTherefore, Kylar needs to pay $"
    assert extract(text).answers != ("64.\n\nTherefore, Kylar needs to pay",)
    assert "Therefore" not in " ".join(extract(text).answers)


@pytest.mark.parametrize(
    ("pred", "gold", "question", "equivalent"),
    [
        ("0.5\\%", "\\frac{1}{2}", None, False),  # 0.5% is 1/200: a percent against a fraction is scaled
        ("50\\%", "\\frac{1}{2}", None, True),
        ("0.5\\%", "0.5", None, True),  # a plain number may be the count of percent ("what percent")
        ("0.5\\%", "0.005", None, True),
        ("30^\\circ", "\\frac{\\pi}{6}", "Find the angle in radians.", False),
        ("30^\\circ", "\\frac{\\pi}{6}", None, True),  # without the question, equal values
        ("\\frac{\\pi}{6}", "30^\\circ", "Give the angle in degrees.", False),
        ("\\sqrt{2}e^{i\\pi/4}", "1+i", None, True),  # Euler form
        ("\\sqrt{2}e^{i\\pi/4}", "1-i", None, False),
        ("\\emptyset", "\\text{no solution}", None, True),
        ("\\{0\\}", "\\emptyset", None, False),
    ],
)
def test_percent_angle_units_euler_form_and_empty_answers(pred, gold, question, equivalent):
    v = verifiers.check(pred, gold, timeout=5, question=question)
    assert v.equivalent is equivalent, (pred, gold, question, v)
