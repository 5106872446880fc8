"""Answer keys that state one value in the dress real files give it (issue 21, pre-registered before blind set X4):
fullwidth digits and minus signs, vulgar fractions and the fraction slash, bold math around a fraction, LaTeX's
inline delimiters and a CJK full stop around the key, a unit in its own math span, a Japanese counter the statement
uses, and a value followed by its working in brackets, kept only when that working ends in the value."""

import pytest
from rule_outcome import offline

from pipelines.rules import parse_answer, typed_fractions


@pytest.mark.parametrize(
    "typed, plain",
    [("-⅔", "-2/3"), ("1½", "1 1/2"), ("⁷⁄₁₀ is larger", "7/10 is larger"), ("3⁄4", "3/4"), ("½", "1/2")],
)
def test_typed_fractions(typed, plain):
    assert typed_fractions(typed) == plain


@pytest.mark.parametrize(
    "problem, key, integer",
    [
        ("计算：5－8＝？", "－３", "-3"),
        ("Compute -1/3 - 1/3.", "-⅔", "5"),  # -2/3 -> m+n
        ("Which is larger: 7/10 or 2/3?", "⁷⁄₁₀ is larger", "17"),
        ("Work out 1/2 + 1/5.", r"$\mathbf{\frac{7}{10}}$", "17"),
        ("Work out 1/4 - 3/7.", r"$\mathbf{-\frac{5}{28}}$", "33"),
        ("求 1/8 × 1/9 的值。", r"\(\displaystyle\frac1{72}\)。", "73"),
        ("What is the area of a rectangle 5 cm by 10 cm?", r"50 \(cm^2\)", "50"),
        ("この本は240ページです。半分は何ページですか。", "120ページ", "120"),
    ],
)
def test_one_value_in_its_dress_is_kept(problem, key, integer):
    done = offline(problem, key)
    assert (done["status"], done["answer"]) == ("kept", integer), done["status"]


def test_a_counter_the_statement_does_not_use_is_not_read():
    assert not hasattr(parse_answer("350グラム", problem="半分はいくつですか。"), "value")


@pytest.mark.parametrize(
    "key, integer",
    [
        ("₹600 (20% of 500 = 100, so 500 + 100 = 600)", "600"),
        ("12 (15% of 80 = 0.15 × 80 = 12)", "12"),
        ("**6,840** ($P(20, 3) = 20 \\times 19 \\times 18$)", "6840"),
        ("**2** ($[-\\cos(x)]_{0}^{\\pi} = -(-1 - 1) = 2$)", "2"),  # a leading minus is a sign, not a bullet
        ("8 trees (5 + 4 – 1 = 8)", "8"),
    ],
)
def test_a_value_then_working_that_ends_in_it(key, integer):
    done = offline("Work it out.", key)
    assert (done["status"], done["answer"]) == ("kept", integer), done["status"]


@pytest.mark.parametrize(
    "key",
    [
        "7 (3 + 4 = 8)",  # the working ends elsewhere
        "₹600 (Let x be the price. 0.9x = 1.26 × 400, so x = 560 ÷ 0.9 = 622.22, rounded to ₹600)",
        "26 (The numbers are 18, 20, 22, 24, 26)",  # no working: a list
        "**6** (Factorize $(x-3)(x+3)$)",  # a hint, not a proof
    ],
)
def test_a_value_then_brackets_that_prove_nothing(key):
    assert offline("Work it out.", key)["status"] != "kept"


def test_a_distance_along_a_bearing_of_thirty_degrees_keyed_without_its_root():
    """60 km on a bearing of 030°: 30√3 km north; `52.0 km` is a rounding, not the exact value."""
    done = offline(
        r"A boat sails \(60\text{ km}\) on a bearing of \(030^\circ\). How far North of its starting point is it?",
        r"\(52.0\text{ km}\)",
    )
    assert done["status"] != "kept"
