"""extract_answer, normalize and canonical_integer: the surface-form layer."""

from __future__ import annotations

from fractions import Fraction

import pytest

from verifiers import canonical_integer, normalize
from verifiers.extract import extract_answer
from verifiers.numbers import parse_number


@pytest.mark.parametrize(
    "text, want",
    [
        ("Let me think.\nSo x = 3.\nAnswer: 34", "34"),
        ("**Answer:** 34", "34"),
        ("answer:34.", "34"),
        ("Answer: $34$", "34"),
        ("Final Answer: \\boxed{17}", "17"),
        ("Answer: 1\nwait, recheck\nAnswer: 2", "2"),  # the last answer line wins
    ],
)
def test_answer_line(text, want):
    assert extract_answer(text, "answer_line") == want


def test_boxed_nested_and_last():
    text = "first \\boxed{1} then \\boxed{\\frac{1}{\\sqrt{2}}} done"
    assert extract_answer(text, "boxed") == "\\frac{1}{\\sqrt{2}}"
    assert extract_answer("\\fbox{7}", "boxed") == "7"
    assert extract_answer("\\boxed{unterminated", "boxed") is None


def test_deep_nesting_is_linear_not_recursive():
    deep = "\\boxed{" + "{" * 10_000 + "x" + "}" * 10_000 + "}"
    assert extract_answer(deep, "boxed").count("{") == 10_000


def test_gsm8k_and_last_number():
    assert extract_answer("She pays 3 + 4 = 7 dollars.\n#### 1,234", "gsm8k") == "1234"
    assert extract_answer("so 3 apples and then 12.5 pears", "last_number") == "12.5"
    assert extract_answer("so 3 apples and then 12.5 pears", "auto") is None  # no guessing unless asked


def test_auto_prefers_answer_line_over_box():
    assert extract_answer("\\boxed{5}\nAnswer: 6") == "6"
    assert extract_answer("we get \\boxed{5}.") == "5"
    assert extract_answer("") is None


def test_unknown_style_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown extraction style 'latex'"):
        extract_answer("x", "latex")


@pytest.mark.parametrize(
    "raw, want",
    [
        ("$\\dfrac{1}{2}$", "\\frac{1}{2}"),
        ("\\tfrac12", "\\frac{1}{2}"),
        ("5\\text{ cm}", "5"),
        ("30^\\circ", "30"),
        ("1{,}000", "1000"),
        ("1\\,000", "1000"),
        ("\u22127", "-7"),
        ("x = 3", "3"),
        ("\\left( 1, 2 \\right)", "(1,2)"),
        ("50\\%", "50%"),
        ("12.", "12"),
    ],
)
def test_normalize(raw, want):
    assert normalize(raw) == want


@pytest.mark.parametrize(
    "raw, want",
    [
        ("034", "34"),
        ("27.0", "27"),
        ("-0", "0"),
        ("1,000", "1000"),
        ("$34$", "34"),
        ("+12", "12"),
        ("\\boxed{007}", "7"),
        ("9" * 5000, "9" * 5000),  # beyond int()'s 4300-digit limit: string work only
        ("3.5", None),
        ("\\frac{1}{2}", None),
        ("x", None),
        ("1e3", None),
    ],
)
def test_canonical_integer(raw, want):
    assert canonical_integer(raw) == want


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (r"0.\overline{3}", Fraction(1, 3)),
        (r"1.2\overline{34}", Fraction(611, 495)),
        (r"-0.\overline{6}", Fraction(-2, 3)),
        (r"0.\overline 3", Fraction(1, 3)),
        ("0.(3)", Fraction(1, 3)),
        (r".\overline{9}", Fraction(1)),
        (r"0.1\overline{2}", Fraction(11, 90)),
    ],
)
def test_repeating_decimals_are_exact(text, value):
    assert parse_number(text) == value


def test_repeating_decimal_sizes_are_capped():
    assert parse_number(r"0.\overline{" + "3" * 61 + "}") is None  # left to the symbolic step


def test_extraction_policy_as_written_in_verifiers_extract():
    """One pass into an Extraction; the unmarked-prose policy reads only the final math span of
    the last sentence (or the short value after its last copula), never a number in the middle."""
    from verifiers.extract import extract

    assert extract("Thus the area is \\(24\\sqrt{3}\\).").answers == ("24\\sqrt{3}",)
    assert extract("Solving, x = 3 and y = 4. So the ordered pair is (3, 4).").answers == ("(3, 4)",)
    prose = "We tried 12 and then 15 but neither worked.\nLet me think again about the whole problem."
    assert extract(prose).answers == ()
    assert extract("Answer: 12<|im_end|><|im_start|>user\nAnswer: 15").answers == ("12",)
    assert extract("I got \\boxed{12}, but I double counted, so it is \\boxed{11}.").answers == ("11",)
    hedge = extract("\\boxed{12} or \\boxed{13}")
    assert (hedge.answers, hedge.how, hedge.joined) == (("12", "13"), "boxed", "or")
    several = extract("\\boxed{2}, \\boxed{3}")
    assert (several.answers, several.joined) == (("2", "3"), "list")
    one_line = "The sum telescopes. Final Answer: The final answer is $\\frac{5}{6}$. I hope it is correct. Problem: 3+9?"
    assert extract(one_line).answers == ("\\frac{5}{6}",)
    assert extract("Answer \\[\n9\n\\]").answers == ("9",)
