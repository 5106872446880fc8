"""Blind set Y4 (Chinese, Japanese and Korean sources: the Nine Chapters, the 2024 Korean CSAT, Korean banking and
word-problem sets, JMMLU, SPI aptitude; issue 21), measured once on arrival on 791fffa (wrong kept 32, 11 of them keys
the labeller found wrong; right kept 116/165): options numbered (1)-(5) or ①-⑤ at the end of a statement are
options, so a key `1` names option 1; compound interest in Korean (복리) is compound interest; an option that is a
sum of plain numbers is a form, not its value; Chinese numeral keys with a full stop or a whole number and a fraction
of one unit are read; a classical curved field or a circumference written 週 computes with pi = 3."""

import pytest
from rule_outcome import offline

from pipelines.classify import numbered_choices

CSAT = (
    r"\begin{array}{l}\text{1. } \sqrt[3]{24} \times 3^{\frac{2}{3}} \text{ 의 값은? [2점]}\\ \text{(1) 6}\\ "
    r"\text{(2) 7}\\ \text{(3) 8}\\ \text{(4) 9}\\ \text{(5) 10}\end{array}"
)


@pytest.mark.parametrize(
    "problem, key, integer",
    [
        (CSAT, "1", "6"),  # option (1) is 6
        ("세 수의 합은? \n① 12\n② 16\n③ 20\n④ 24\n⑤ 28", "2", "16"),
        (
            r"값은? \text{(1) } -\frac{1}{4}\\ \text{(2) } \frac{1}{4}\\ \text{(3) } \frac{1}{2}\\ \text{(4) } 1",
            "2",
            "5",
        ),
    ],
)
def test_numbered_options_are_named_by_their_number(problem, key, integer):
    done = offline(problem, key)
    assert (done["status"], done["answer"]) == ("kept", integer), done["status"]


def test_numbered_parts_are_not_options():
    """(1)-(4) that ask things are the parts of a problem, not its options"""
    assert numbered_choices("(1) 求 a 的值 (2) 求 b 的值？ (3) 求 c (4) 求 d") is None


@pytest.mark.parametrize(
    "problem, key",
    [
        (
            "2년 만기 정기예금에 연 3.5% 단리로 500만원을 넣는 것과, 매달 20만원씩 2년 간 자유적금에 연 5.0% 복리로 적금하는 것의 차이는?",
            "291828",
        ),
        (
            "ジミーとキーマは3日間ドライブする。初日は182マイル、二日目は439マイル、三日目は217マイル。推定値に最も近い式はどれか。"
            "\nA. 150 + 400 + 200\nB. 200 + 400 + 200\nC. 200 + 450 + 200\nD. 200 + 500 + 200",
            "C",
        ),  # the option is an expression: the form asked, not 850
        ("今有宛田，下週三十步，逕十六步。問為田幾何？", "一百二十步。"),  # a curved field: pi = 3
    ],
)
def test_compound_interest_forms_and_classical_curves_are_not_kept(problem, key):
    assert offline(problem, key)["status"] != "kept"


@pytest.mark.parametrize(
    "key, integer",
    [
        ("一百六十八步。", "168"),
        ("得一、六十三分之五十。", "176"),  # 1 50/63 = 113/63
        ("一百二十步、九分步之五。", "1094"),  # 120 5/9 = 1085/9
    ],
)
def test_chinese_numeral_keys_with_a_stop_or_a_whole_and_a_part(key, integer):
    done = offline("今有田廣十五步，從十六步。問為田幾何？", key)
    assert (done["status"], done["answer"]) == ("kept", integer), done["status"]


def test_two_units_are_not_one_number():
    assert offline("今有田廣十五步，從十六步。問為田幾何？", "一畝二百步、十一分步之七。")["status"] != "kept"
