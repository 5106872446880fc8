"""Integer rewriting rules: every rewrite is re-derived here from the original answer with sympy."""

import math

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from pipelines.rules import Miss, Rewrite, apply_rules, recompute

SQRT = sympy.sqrt


def _value_from_params(rule: str, d: dict, answer: int) -> sympy.Expr:
    """Rebuild the original value from the parameters, independently of pipelines.rules."""
    sign = -1 if d.get("negative") else 1
    if rule in ("identity", "degrees", "percent"):
        return sympy.Integer(answer)
    if rule == "decimal":
        return sympy.Rational(answer, d["scale"])
    if rule == "fraction":
        assert math.gcd(d["m"], d["n"]) == 1 and d["m"] > 0 and d["n"] > 1
        assert d["m"] + d["n"] == answer
        return sign * sympy.Rational(d["m"], d["n"])
    if rule == "pi_multiple":
        if "k" in d:
            assert d["k"] == answer
            return sign * d["k"] * sympy.pi
        assert math.gcd(d["m"], d["n"]) == 1 and d["m"] + d["n"] == answer
        return sign * sympy.Rational(d["m"], d["n"]) * sympy.pi
    # radicals: (a + b sqrt(n)) / p with the signs from the stated form
    assert sympy.factorint(d["n"]) and max(sympy.factorint(d["n"]).values()) == 1, "n squarefree"
    a, b, p = d["signs"]["a"], d["signs"]["b"], d.get("p", 1)
    assert abs(a) == d.get("k", 0) and abs(b) == d["m"]
    assert math.gcd(math.gcd(abs(a), abs(b)), p) == 1
    assert sum(d[x] for x in ("k", "m", "n", "p") if x in d) == answer
    return (a + b * SQRT(d["n"])) / p


# (original answer as written, the same value as a sympy expression typed by hand, expected rule)
CASES = [
    ("034", "34", "identity"),
    ("27.0", "27", "identity"),
    ("-12", "-12", "identity"),
    ("$2^{10}$", "1024", "identity"),
    ("\\frac{3}{8}", "Rational(3, 8)", "fraction"),
    ("-\\dfrac{14}{6}", "Rational(-7, 3)", "fraction"),
    ("11-2\\sqrt{6}", "11 - 2*sqrt(6)", "radical"),
    ("\\sqrt{5}-1", "sqrt(5) - 1", "radical"),
    ("3+\\sqrt{12}", "3 + 2*sqrt(3)", "radical"),
    ("\\frac{3+\\sqrt{5}}{2}", "(3 + sqrt(5))/2", "radical_fraction"),
    ("\\frac{-1-\\sqrt{5}}{4}", "(-1 - sqrt(5))/4", "radical_fraction"),
    ("\\frac{6+4\\sqrt{2}}{4}", "(3 + 2*sqrt(2))/2", "radical_fraction"),
    ("\\frac{9}{32}\\sqrt{2}", "9*sqrt(2)/32", "radical_fraction"),
    ("4\\sqrt{2}", "4*sqrt(2)", "root_multiple"),
    ("\\sqrt{72}", "6*sqrt(2)", "root_multiple"),
    ("0.75", "Rational(3, 4)", "decimal"),
    ("-2.125", "Rational(-17, 8)", "decimal"),
    ("\\frac{3\\pi}{4}", "3*pi/4", "pi_multiple"),
    ("12\\pi", "12*pi", "pi_multiple"),
    ("30^\\circ", "30", "degrees"),
    ("$45^{\\circ}$", "45", "degrees"),
    ("25\\%", "25", "percent"),
    ("12.5\\%", "Rational(25, 2)", "decimal"),
]


# A decimal is exact only when the statement makes it so, a unit only when the statement asks
# for it: these cases carry a statement that does (the value follows from the statement alone).
STATEMENTS = {
    "0.75": "Write $\\frac{3}{4}$ as a decimal.",
    "-2.125": "Write $-\\frac{17}{8}$ as a decimal.",
    "30^\\circ": "What is the measure of the angle, in degrees?",
    "$45^{\\circ}$": "How many degrees are in the angle?",
    "25\\%": "What percent of the class is absent?",
    "12.5\\%": "What percent of 8 is 1? Give the percentage to one decimal place.",
}


@pytest.mark.parametrize(("original", "value", "rule"), CASES)
def test_every_rule_recomputes_from_the_original_answer(original, value, rule):
    out = apply_rules(STATEMENTS.get(original, "Compute the value."), original)
    assert isinstance(out, Rewrite), out
    assert out.rule == rule
    expected = sympy.sympify(value)
    answer = int(out.answer)
    assert str(answer) == out.answer, "canonical integer"
    rebuilt = _value_from_params(out.rule, out.detail, answer)
    assert sympy.simplify(rebuilt - expected) == 0
    # the module's own checker agrees with the independent one
    assert sympy.simplify(recompute(out.rule, out.detail, out.answer) - expected) == 0


def test_dapo_paper_example_and_statement():
    out = apply_rules("Find the minimum value of $f$.", "11-2\\sqrt{6}")
    assert out.answer == "19"  # the paper's k+m+n
    assert out.problem.startswith(
        "Find the minimum value of $f$. The answer can be written as $k - m\\sqrt{n}$"
    )
    assert out.problem.endswith("Find $k+m+n$.")
    assert "not divisible by the square of any prime" in out.problem


def test_fraction_statement_replaces_express_as_sentence():
    out = apply_rules("What is the probability? Express your answer as a common fraction.", "\\frac{2}{6}")
    assert out.answer == "4"
    assert "common fraction" not in out.problem
    assert out.problem.endswith("relatively prime positive integers. Find $m+n$.")


@pytest.mark.parametrize(
    ("original", "fragment", "llm"),
    [
        ("(1,2)", "interval or tuple", True),
        ("1,3,5", "tuple or several answers", True),
        ("2n-2", "expression in variables", True),
        ("f(x)=2x", "equation or function", True),
        ("[1, 2)", "interval", True),
        ("\\sqrt{2}+\\sqrt{3}", "irrational form", True),
        ("\\sqrt[3]{2}", "irrational form", True),
        ("5^{5^{5^{5^{5}}}}", "too large", True),
        ("2^{1009}", "integer too large", True),
        ("\\left(\\frac{1}{2}\\right)^{-10^{9}}", "number too large", True),
        ("3 \\text{ or } 4", "several answers", True),
        ("", "empty answer", False),
        (None, "empty answer", False),
    ],
)
def test_unruly_answers_miss_with_a_reason(original, fragment, llm):
    out = apply_rules("Problem.", original)
    assert isinstance(out, Miss)
    assert fragment in out.reason
    assert out.llm is llm


def test_recompute_refuses_broken_parameters():
    with pytest.raises(ValueError, match="lowest terms"):
        recompute("fraction", {"m": 2, "n": 4}, "6")
    with pytest.raises(ValueError, match="squarefree"):
        recompute("radical", {"k": 1, "m": 1, "n": 8, "signs": {"a": 1, "b": 1}}, "10")
    with pytest.raises(ValueError, match="add up"):
        recompute("fraction", {"m": 3, "n": 8}, "12")


@settings(max_examples=60, deadline=None)
@given(st.integers(-500, 500), st.integers(1, 500))
def test_fraction_property(p, q):
    out = apply_rules("Q.", f"\\frac{{{p}}}{{{q}}}")
    value = sympy.Rational(p, q)
    assert isinstance(out, Rewrite)
    if value.is_Integer:
        assert out.rule == "identity" and out.answer == str(int(value))
    else:
        assert out.rule == "fraction"
        assert int(out.answer) == abs(value.p) + value.q


@settings(max_examples=60, deadline=None)
@given(st.integers(-40, 40), st.integers(-40, 40).filter(bool), st.integers(2, 60), st.integers(1, 30))
def test_radical_property(a, b, c, d):
    value = (a + b * SQRT(c)) / d
    original = f"\\frac{{{a} + {b}\\sqrt{{{c}}}}}{{{d}}}".replace("+ -", "- ")
    out = apply_rules("Q.", original)
    assert isinstance(out, Rewrite), (original, out)
    rebuilt = _value_from_params(out.rule, out.detail, int(out.answer))
    assert sympy.simplify(rebuilt - value) == 0


def test_unit_and_decimal_sentences_both_survive():
    out = apply_rules(
        "What percent of 8 is 5, to the nearest tenth of a percent? Express your answer as a percent.",
        "62.5\\%",
    )
    assert out.answer == "625"
    assert "Express your answer" not in out.problem
    assert "Give the answer as a percentage, without the percent sign." in out.problem
    assert out.problem.endswith("find $10x$.")


def test_integer_answers_keep_the_statement():
    problem = "How many apples? Express your answer as a whole number."
    assert apply_rules(problem, "12").problem == problem
