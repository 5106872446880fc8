"""Keys written in Chinese numerals (blind set X4: the Nine Chapters and the Sunzi Suanjing, `答曰一千八百二十七`,
`荅曰三分之二`): a whole numeral or a fraction `N分之M` is read exactly, with one counter after it; digit strings,
spoken abbreviations, shares and mixed units are not numbers this reads; a classical circle computes with pi = 3."""

from fractions import Fraction

import pytest
from rule_outcome import offline

from pipelines.arithmetic import chinese_number


@pytest.mark.parametrize(
    "text, value",
    [
        ("一千八百二十七", 1827),
        ("三萬六千一百一十七", 36117),
        ("一亿二千万", 120_000_000),
        ("两千零二十四", 2024),
        ("一百零五", 105),
        ("十二", 12),
        ("十万", 100_000),
        ("三分之二", Fraction(2, 3)),
        ("三十五分步之十二", Fraction(12, 35)),  # 12/35 of a bu: the unit written between
    ],
)
def test_numerals_read_exactly(text, value):
    assert chinese_number(text) == value


@pytest.mark.parametrize(
    "text", ["二〇二四", "一二三", "三百五", "一万五", "三十七丁五分", "六尺五寸", "萬", ""]
)
def test_what_is_not_one_numeral(text):
    """a digit string (a year), spoken abbreviations (`三百五` is 350), mixed units"""
    assert chinese_number(text) is None


@pytest.mark.parametrize(
    "problem, key, integer",
    [
        ("今有物不知其數，三三數之賸二，五五數之賸三，七七數之賸二，問物幾何？", "答曰二十三", "23"),
        ("今有出錢五百七十六，買竹七十八箇。欲其大小率之，問各幾何？", "答曰四百八十六匹", "486"),
        ("今有十八分之十二，問約之得幾何？", "荅曰三分之二", "5"),
    ],
)
def test_a_numeral_key_is_kept(problem, key, integer):
    done = offline(problem, key)
    assert (done["status"], done["answer"]) == ("kept", integer), done["status"]


@pytest.mark.parametrize(
    "problem, key",
    [
        ("今有田廣十五步，從十六步。問為田幾何？", "荅曰一畝二十步"),  # two units
        ("今有布七尺，問合幾何？", "答曰三成"),  # a share: 30%
        ("今有平地聚粟，下周三丈六尺，高四尺五寸。問為粟幾何？", "答曰一百斛"),  # a cone of grain, pi = 3
        ("2014年1月31日是星期（ ）。\nA. 一 B. 四 C. 五 D. 六", "C"),  # an option `五` is Friday
    ],
)
def test_what_a_numeral_key_does_not_prove(problem, key):
    assert offline(problem, key)["status"] != "kept"
