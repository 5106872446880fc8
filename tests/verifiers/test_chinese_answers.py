"""Chinese answers (CMATH, Gaokao, CN middle school and any Chinese RL corpus): a word or sign that
joins, hedges, scales or qualifies a number is read, never dropped.

The class: math-verify's plain-expression fallback reads a fragment of a text LaTeX cannot parse, so
`5或10` ("5 or 10") was the number 5 and `5万` (5 x 10^4) was 5: a hedge and a wrong value rewarded.
Each label below follows from the Chinese it reads (或 = or, 和/与/及 = and, 、 = the enumeration comma,
万 = 10^4, 亿 = 10^8, 以上 = or more, 约 = about), decided before the code ran on it."""

from __future__ import annotations

import pytest

import verifiers


@pytest.mark.parametrize(
    ("pred", "gold", "equivalent"),
    [
        # 或 (or) between values is a hedge against one gold, in a box, between boxes or in an equation
        ("故答案为 \\boxed{5或10}", "5", False),
        ("故答案为 \\boxed{5或10}", "10", False),
        ("\\boxed{5 或者 10}", "5", False),
        ("\\boxed{5} 或 \\boxed{10}", "5", False),
        ("\\boxed{x=5或x=10}", "10", False),
        ("\\boxed{x=5或x=10}", "x=5 \\text{ or } x=10", True),
        # 和 / 与 / 及 / 、 join several answers: a list, not its first or last element
        ("\\boxed{5和10}", "5", False),
        ("\\boxed{5和10}", "5, 10", True),
        ("\\boxed{5、10}", "5", False),
        ("\\boxed{5、10}", "5, 10", True),
        ("\\boxed{5}，\\boxed{10}", "5, 10", True),
        ("故答案为 $\\boxed{5}$；$\\boxed{10}$。", "$5$;$10$", True),
        ("\\boxed{5} 和 \\boxed{10}", "5, 10", True),
        # a later box after words is still a correction, in Chinese as in English
        ("\\boxed{5}。不对，应该是 \\boxed{10}。", "10", True),
        # 万 and 亿 scale the number
        ("\\boxed{5万}", "5", False),
        ("\\boxed{5万}", "50000", True),
        ("\\boxed{2.5万人}", "25000", True),
        ("\\boxed{1.2亿}", "120000000", True),
        ("\\boxed{1.2亿}", "1.2", False),
        # a qualifier changes the claim: "5 or more", "about 5"
        ("\\boxed{5以上}", "5", False),
        ("\\boxed{约 5}", "5", False),
        # a measure word or unit after one number is a unit, as `5 apples` is
        ("\\boxed{5元}", "5", True),
        ("\\boxed{5个}", "5", True),
        ("\\boxed{12平方厘米}", "12", True),
        ("\\boxed{7岁}", "8", False),
        # `答：` opens a school solution's answer line (it is `Answer:`): its one number is read
        ("答：她还剩9页没有看。", "9", True),
        ("答：拿走了34把。", "34", True),
        ("答：共有3组，每组34把。", "34", False),
        # signs that join two numbers are never dropped
        ("\\boxed{5 § 10}", "5", False),
        ("\\boxed{5 # 10}", "10", False),
    ],
)
def test_chinese_joiners_scales_and_qualifiers_are_read(pred: str, gold: str, equivalent: bool) -> None:
    v = verifiers.check(pred, gold, timeout=5)
    assert v.equivalent is equivalent, (pred, gold, v)


@pytest.mark.parametrize(
    ("pred", "gold", "equivalent"),
    [
        # English scale words scale too: `5 million` is 5,000,000 (before, the word was dropped as a unit)
        ("\\boxed{5 million}", "5", False),
        ("\\boxed{5 million}", "5000000", True),
        ("The population is $2.5$ thousand.", "2500", True),
        ("\\boxed{1.5 \\text{ billion}}", "1500000000", True),
        ("\\boxed{5 thousand dollars}", "5000", True),
        ("\\boxed{3 trillion}", "3", False),
        ("\\boxed{12 apples}", "12", True),  # a counted word that is not a scale is still a unit
    ],
)
def test_english_scale_words_scale_the_number(pred: str, gold: str, equivalent: bool) -> None:
    """Decided: a gold `5` for a question asked "in millions" now misses `5 million` (a recall cost);
    before, `5 million` equalled 5 and missed 5000000, a wrong value rewarded either way."""
    v = verifiers.check(pred, gold, timeout=5)
    assert v.equivalent is equivalent, (pred, gold, v)


def test_a_chinese_gold_with_two_values_needs_both():
    """A Gaokao gold `$1$或$2$` (both values) matched `\\boxed{2}` alone (the fallback read 2 of it)."""
    gold = "$1$或$2$"
    assert verifiers.check("\\boxed{1或2}", gold).equivalent
    assert verifiers.check("\\boxed{1,2}", gold).equivalent
    assert not verifiers.check("\\boxed{2}", gold).equivalent
    assert not verifiers.check("\\boxed{1}", gold).equivalent


@pytest.mark.parametrize(
    ("pred", "gold", "equivalent"),
    [
        ("\\boxed{10和11之间}", "10和11之间", True),  # "between 10 and 11": as written
        ("\\boxed{10, 11}", "10和11之间", False),  # was a structure match with the list 10, 11
        ("\\boxed{10}", "10和11之间", False),
        ("\\boxed{5}", "5以上", False),  # "5 or more" is not 5, on either side
    ],
)
def test_a_qualified_chinese_answer_is_compared_as_written(pred, gold, equivalent):
    assert verifiers.check(pred, gold, timeout=5).equivalent is equivalent


@pytest.mark.parametrize(
    ("pred", "gold", "equivalent"),
    [
        # set Y: a concluding Chinese sentence around math spans reads its last span, as English prose does
        ("由 $c=1$ 得 $a=2$，$b=\\sqrt3$，所以 $C$ 的方程为 $\\frac{x^2}{4}+\\frac{y^2}{3}=1$。", "\\frac{x^{2}}{4}+\\frac{y^{2}}{3}=1", True),
        ("由 $c=1$ 得 $a=2$，$b=\\sqrt3$，所以 $C$ 的方程为 $\\frac{x^2}{3}+\\frac{y^2}{4}=1$。", "\\frac{x^{2}}{4}+\\frac{y^{2}}{3}=1", False),
        ("令 $g(x)=x^3-3x$，与 $y=a$ 有两个交点，得 $-2<a<1$。", "(-2, 1)", True),
        ("令 $g(x)=x^3-3x$，与 $y=a$ 有两个交点，得 $-2<a<2$。", "(-2, 1)", False),
        ("综上，$a\\in(-\\sqrt3,-1)\\cup(1,\\sqrt3)$。", "(-\\sqrt{3},-1) \\cup (1, \\sqrt{3})", True),
        ("$M\\cup N$ 为 $(-3,4)$。", "(-3,4)", True),
        ("$M\\cup N$ 为 $(-3,4)$。", "(-3,1)", False),
        ("我们先求出 $a=3$。最后得到面积为 $12$。", "3", False),  # the last sentence's span, not an earlier one
    ],
)  # fmt: skip
def test_chinese_prose_reads_its_last_span(pred, gold, equivalent):
    assert verifiers.check(pred, gold).equivalent is equivalent
