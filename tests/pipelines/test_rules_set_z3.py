"""Science statements whose units say so (blind set Z3, issue 21 item 2): a value per mole (`M_Cu = 63.5 g/mol`,
`F = 96,485 C/mol`) or a unit to a negative power (`0.0693 s⁻¹`) makes the statement a science computation, so a key
computed from its data (rounded, `2.37 g` for 2.3693; or a ln 2 taken as 0.693, `10 s` for 10.002) is a solver's to
confirm, never a rule rewrite."""

import pytest
from rule_outcome import assert_kept_as, offline

from pipelines.classify import science_signals


@pytest.mark.parametrize(
    ("problem", "key"),
    [
        (
            "How many grams of Cu are deposited when 2.0 A flows for 1 hour through CuSO₄ solution? (Cu²⁺ + 2e⁻ → Cu, "
            "M_Cu = 63.5 g/mol, F = 96,485 C/mol)",
            "2.37 g",
        ),
        ("A first-order reaction has a rate constant of 0.0693 s⁻¹. What is the half-life?", "10 s"),
        ("A first-order reaction has a rate constant of $0.0693 s^{-1}$. What is the half-life?", "10 s"),
    ],
)
def test_science_units_defer_a_computed_key(problem, key):
    assert "science unit" in science_signals(problem)
    assert_kept_as(offline(problem, key), None)


@pytest.mark.parametrize(
    "text",
    [
        "A car travels 2 km in 5 min. How many metres per minute is that?",  # a rate in everyday units
        "Find $x^{-1}$ when $x = 4$.",  # a negative power of a variable
        "Solve $2^{-1} + 3 = x$.",
    ],
)
def test_everyday_rates_and_negative_powers_are_no_science_unit(text):
    assert "science unit" not in science_signals(text)
