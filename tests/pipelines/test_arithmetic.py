"""pipelines.arithmetic: the one expression or equation a statement asks, read exactly (values from the texts)."""

from fractions import Fraction

import pytest
import sympy

from pipelines.arithmetic import (
    arithmetic_value,
    asked_equation,
    asked_expression,
    asking_sentence,
    equation_holds,
    equation_solutions,
)


@pytest.mark.parametrize(
    ("expr", "value"),
    [
        ("12.45 + 3.678", Fraction("16.128")),
        ("8.05 − 3.678", Fraction("4.372")),
        ("2.4 × 1.35", Fraction("3.24")),
        ("$6.75 \\div 0.5$", Fraction(27, 2)),
        ("\\frac{3}{4}+0.5", Fraction(5, 4)),
        ("\\( 2\\frac{1}{4} + 3\\frac{1}{3} \\)", Fraction(67, 12)),  # mixed numbers are sums
        ("3(4 + 2)^2 - 5", Fraction(103)),  # a number before a bracket multiplies
        ("12% of 480", Fraction(288, 5)),
        ("2^3 * 3^2 / 6", Fraction(12)),
    ],
)
def test_arithmetic_is_evaluated_exactly(expr, value):
    assert arithmetic_value(expr) == value


@pytest.mark.parametrize("expr", ["x+1", "3,5+2", "(1.5)", "1/0", "2^100", "2^0.5", "1.5e3 + 1", "f(2) + 1"])
def test_anything_else_is_no_expression(expr):
    assert arithmetic_value(expr) is None


@pytest.mark.parametrize(
    ("equation", "letter", "roots"),
    [
        ("2x + 5 = 17", None, [6]),
        ("x^2 - 5x + 6 = 0", None, [2, 3]),
        ("x^3 + 3x^2 - 4 = 0", None, [-2, 1]),
        ("(x-1)^2 = 0", None, [1]),
        ("x^2 = 2", None, [-sympy.sqrt(2), sympy.sqrt(2)]),
        ("x^2 + 1 = 0", None, []),
        ("2x = 2x", None, None),  # every number
        ("x^5 = 32", None, None),  # beyond degree 4: no claim
        ("1/x = 2", None, None),  # not a polynomial
        ("y = 3", "x", None),  # not an equation in the unknown asked
        ("x^4 - 3x^3 + 7x - 11 = 0", None, None),  # roots sympy cannot place as real: no claim
    ],
)
def test_equations_of_degree_up_to_four_in_one_letter(equation, letter, roots):
    assert equation_solutions(equation, letter) == roots


def test_the_asking_sentence_and_what_it_asks():
    assert asking_sentence("Add the given decimals.\nWhat is 3.5 + 2.4?") == "What is 3.5 + 2.4?"
    assert (
        asking_sentence("Perform the following calculations:\n$1170 \\div 12$")
        == "Calculate: $1170 \\div 12$"
    )
    assert asked_expression("3. 23.4 + 15.7 = _______") == ("23.4 + 15.7", Fraction("39.1"))
    assert asked_expression("An item costs $480 with a 7% sales tax. What is the total price?") is None
    assert asked_equation("What is the value of 'y' in the equation y/4 - 2 = 7?") == ("y/4 - 2 = 7", "y")
    assert equation_solutions("y/4 - 2 = 7", "y") == [36]
    assert asked_equation("Giải phương trình: √(x² - 5) = 3") == ("√(x² - 5) = 3", None)


@pytest.mark.parametrize(
    ("equation", "value", "holds"),
    [
        ("√(x² - 5) = 3", sympy.Integer(3), False),  # √4 = 2
        ("√(x² - 5) = 2", sympy.Integer(3), True),
        ("\\sqrt{2x + 1} = 3", sympy.Integer(4), True),
        ("2^x = 8", sympy.Integer(3), True),  # an integer key makes the power a small integer one
        ("\\log x = 2", sympy.Integer(100), None),  # a function this does not read
    ],
)
def test_whether_an_equation_holds_at_a_key(equation, value, holds):
    assert equation_holds(equation, value) is holds
