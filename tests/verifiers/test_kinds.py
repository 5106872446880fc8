"""Cheap kind classification and value probes: mismatches decided without the symbolic worker."""

from __future__ import annotations

import pytest

from verifiers import check
from verifiers.kinds import answer_kind, kinds_differ
from verifiers.quickeval import clearly_differ


@pytest.mark.parametrize(
    "s, kind",
    [
        ("4.5", "number"),
        ("2\\sqrt{5}", "constant"),
        ("x^2+1", "expression"),
        ("Evelyn", "text"),
        ("(C)", "text"),
        ("(1,2)", "tuple"),
        ("[1,2)", "interval"),
        ("(-\\infty,0]", "interval"),
        ("(0,9)\\cup(9,36)", "interval"),
        ("\\{1,2\\}", "set"),
        ("\\begin{pmatrix}1\\\\2\\end{pmatrix}", "matrix"),
        ("5x-7y+11z+4=0", "equation"),
        ("x+y<3", "inequality"),
        ("1\\pm\\sqrt{2}", "list"),
    ],
)
def test_answer_kind(s, kind):
    assert answer_kind(s) == kind


@pytest.mark.parametrize(
    "a, b",
    [
        ("4.5", "[1,2]"),
        ("\\frac{20000}{\\pi}", "x \\in [-2,7]"),
        ("3\\sqrt{5}", "(15,-29)"),
        ("(a+5)(b+2)", "(3,4]"),
        ("(C)", "288\\pi"),
        ("east", "2k+2"),
        ("60", "5x-7y+11z+4=0"),
        ("2\\sqrt{5}", "\\begin{pmatrix}1\\\\2\\end{pmatrix}"),
        ("32", "(-\\infty,2)\\cup(3,\\infty)"),
    ],
)
def test_kind_mismatches_need_no_sympy(a, b):
    for p, g in ((a, b), (b, a)):
        v = check(p, g)
        assert v.equivalent is False and v.reason == "kind_mismatch", (p, g, v)


@pytest.mark.parametrize(
    "a, b",
    [
        ("(C)", "C"),  # a choice letter and the letter: left to the symbolic step
        ("xxx", "x^3"),  # a "word" that is a product of the expression's variables
        ("(1,3)", "(1,2)\\cup[2,3)"),
        ("x", "y"),
    ],
)
def test_kinds_not_decided_when_they_could_be_equal(a, b):
    assert not kinds_differ(a, b) and not kinds_differ(b, a)


def test_membership_and_mixed_numbers():
    assert check("[-2,7]", "x \\in [-2,7]").equivalent
    assert check("137.5", "137 \\frac{1}{2}").equivalent


@pytest.mark.parametrize(
    "a, b, differ",
    [
        ("203", "x^5-x^4+x^3-x^2+x-1", True),
        ("12", "-\\frac{\\pi}{6}", True),
        ("(x+1)^2", "x^2+2x+1", False),
        ("n(n+1)/2", "\\frac{n^2+n}{2}", False),
        ("(x+1000)^4", "x^4+4000x^3+6000000x^2+4000000000x+1000000000000", False),
        ("84", "137\\frac{1}{2}", False),  # mixed number: not evaluated here
        ("x/2y", "x", False),  # ambiguous: not evaluated here
        ("\\sin^2 x+\\cos^2 x", "1", False),  # functions: the worker decides
        ("1+2i", "3", False),  # i and e: the worker decides
        ("2^{2^{2^{2^{2}}}}", "3", False),  # towers: the worker (and its budget) decide
    ],
)
def test_clearly_differ(a, b, differ):
    assert clearly_differ(a, b) is differ
    assert clearly_differ(b, a) is differ
