"""Blind set CA (numeric science answers: Llama-3.3-70B on the PHYSICS benchmark, probes; issue 21), measured once on
arrival (0.719, 0 false positives). Reading its misses found two false-positive classes its JSON-list golds had hidden:
the parser drops a prime, so `M'` was `M` (`\\frac{M'}{M}` equal to 1, `\\sqrt{1 - M'/M}` equal to 0); and the angstrom
written `\\overset{\\circ}{A}` (or `\\mathring{A}`, `\\AA`) was no unit, so `4260 nm` equalled `4260 Å`."""

import pytest

from verifiers import check


@pytest.mark.parametrize(
    "response, gold, equal",
    [
        ("\\boxed{\\frac{M'}{M}}", "1", False),
        ("\\boxed{M' - M}", "0", False),
        ("\\boxed{\\frac{M'}{M}}", "\\frac{M'}{M}", True),
        ("\\boxed{2x' + 1}", "1 + 2x'", True),
        ("\\boxed{v''}", "v'", False),
        ("\\boxed{f'(2)}", "f'(2)", True),  # a derivative's prime stays what it was
    ],
)
def test_a_primed_variable_is_another_variable(response, gold, equal):
    assert check(response, gold).equivalent is equal


@pytest.mark.parametrize(
    "response, gold, equal",
    [
        ("4260 nm", "4260 \\, \\overset{\\circ}{A}", False),
        ("4260 Å", "4260 \\, \\overset{\\circ}{A}", True),
        ("4260 \\mathring{A}", "4260 Å", True),
        ("5 nm", "5 \\AA", False),
    ],
)
def test_the_angstrom_is_a_unit(response, gold, equal):
    assert check(response, gold).equivalent is equal


def test_an_equations_units_are_compared():
    gold = "d = 4260 \\, \\overset{\\circ}{A}"
    assert check("d = 4260 nm", gold).reason == "unit_mismatch"
    assert check("d = 4260 Å", gold).equivalent
