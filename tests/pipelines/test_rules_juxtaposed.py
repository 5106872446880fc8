"""Numbers written side by side: the LaTeX parser reads any juxtaposition as a mixed number, so
`2(3)` was 5, `(2)(3)` 5, `2 3` 5, `10 000` 0 and `-2 1/2` -3/2, each kept with a "proof" (a user's
SciBench build kept 109 for 3(1/3) - 3(1/3)^2 + (1/3)^3 = 19/27). Values below are arithmetic, decided
before the code ran on them: a number before a bracket multiplies it; a whole number before a fraction
is a mixed number; other numbers side by side are no single value (a list, or a thousands grouping
the statement must confirm), so the rule step defers them.

Moved in writing (2026-11-29, second session): a whole number before a *bracketed fraction* (`2(1/2)`,
`3(\\frac13)`) was read as a product; blind set G showed Ape210K writing the mixed number 4 5/11 as `4(5/11)`
(a key kept as 20/11). The notation means a product in one source and a mixed number in another, so it is
deferred, the SciBench expression with it."""

from __future__ import annotations

import pytest
import sympy

from pipelines.rules import Miss, parse_answer


@pytest.mark.parametrize(
    ("answer", "value"),
    [
        ("2(3)", 6),
        ("4(3)+1", 13),
        ("-2(3)", -6),
        ("2 1/2", sympy.Rational(5, 2)),
        ("-2 1/2", sympy.Rational(-5, 2)),
        ("2\\frac{1}{2}", sympy.Rational(5, 2)),
        ("2\\,\\frac{1}{2}", sympy.Rational(5, 2)),
        ("1\\tfrac{1}{4}", sympy.Rational(5, 4)),
        ("12", 12),
    ],
)
def test_a_number_before_a_bracket_multiplies_and_before_a_fraction_is_mixed(answer, value):
    got = parse_answer(answer)
    assert not isinstance(got, Miss), (answer, got)
    assert sympy.simplify(got.value - value) == 0, (answer, got.value, value)


# `10(0.5)` is 5 as arithmetic, but a decimal inside an expression is deferred whatever surrounds it
# (decided with the `(0.829)` class: no decimal proof covers it), so it is deferred here too; and `(2)(3)`, a product 6
# in the first version of this file, is also how a multi-select key names statements (2) and (3) (set Q's question
# bank, Gaokao's `(1)(3)(4)`): ambiguous alone, so deferred to the LLM stage, which reads it with its statement
@pytest.mark.parametrize(
    "answer",
    ["(2)(3)", "2 3", "10 000", "2~3", "2\\ 3", "1 2 3", "3 \\quad 4", "10(0.5)", "4(5/11)", "2(\\frac{1}{2})",
     "2\\left(\\frac{1}{3}\\right)", "3(\\frac{1}{3})-3(\\frac{1}{3})^2+(\\frac{1}{3})^3"],
)  # fmt: skip
def test_other_numbers_side_by_side_are_deferred(answer):
    got = parse_answer(answer)
    assert isinstance(got, Miss), (answer, got)


@pytest.mark.parametrize(
    ("answer", "places"),
    [("(0.829)", 3), ("0.25", 2), ("-3.50", 1), ("- 2.5", 1), ("3.00", 0)],
)
def test_a_decimal_in_brackets_or_after_a_spaced_sign_is_still_a_decimal(answer, places):
    """`(0.829)` was read as the fraction 829/1000 and kept without the decimal proof (a SciBench key)."""
    got = parse_answer(answer)
    assert not isinstance(got, Miss) and got.decimals == places, (answer, got)


@pytest.mark.parametrize("answer", ["2.5\\pi", "\\frac{1.5}{2}", "\\sqrt{0.25}"])
def test_a_decimal_inside_an_expression_is_deferred(answer):
    assert isinstance(parse_answer(answer), Miss), answer
