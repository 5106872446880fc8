"""Interest compounded per period (blind set V3, issue 21 item 2): P(1 + r/n)^(nt) is a whole number of dollars
only by chance, so a free-response key written whole (`$11,539` for 10000 x 1.012^12 = 11538.95...) is a rounding
the question did not ask for. An exam's options are chosen to come out exact, and a question asking for the rate
or the time keys no amount: both stay rule rewrites."""

import pytest
from rule_outcome import assert_kept_as, offline


@pytest.mark.parametrize(
    ("problem", "key", "kept"),
    [
        (
            "You deposit $10,000 at a bank that pays 4.8% annual interest compounded quarterly. How much will you "
            "have after 3 years?",
            "$11,539",
            None,
        ),
        (
            "Find the compound interest on $5,000 at 6% per annum for 2 years, compounded monthly.",
            "$636",
            None,
        ),
        # the rate or the time asked: the key is no amount
        (
            "A sum of money invested at compound interest doubles in 5 years. In how many years will it become "
            "eight times itself?",
            "15",
            "15",
        ),
        # options: the keyed option's own value
        (
            "Albert invested Rs. 8000 in a fixed deposit for 2 years at compound interest rate 5 p.c.p.a. How much "
            "will Albert get on maturity?\nOptions: Rs. 8600 / Rs. 8620 / Rs. 8820 / None of these",
            "Rs. 8820",
            "8820",
        ),
        # simple interest is a product of the statement's numbers: no compounding, no rounding
        ("Find the simple interest on $800 at 5% per year for 3 years.", "$120", "120"),
    ],
)
def test_interest_compounded_per_period_defers_a_whole_amount(problem, key, kept):
    assert_kept_as(offline(problem, key), kept)
