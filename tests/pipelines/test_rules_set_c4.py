"""Keys printed from binary floating point (blind set C4, issue 21): Math23K stores the value of its equation as a
double (`59.99999999999999`, `676.0000000000003`, `14.399999999999999`). A double printed to its full precision names
one small fraction, so a whole or terminating value is read as written so; a repeating one (`0.6666666666666667`)
stays as written, and a statement whose own numbers are float prints has its literal arithmetic as its answer. A
whole number before a bracketed fraction is a mixed number or a product whatever brackets its parts (`7((2)/(3))`)."""

import pytest
from rule_outcome import assert_kept_as, offline

from pipelines.rules import float_rendering

BOOKS = "图书馆里有一些科技书和文艺书，其中科技书占(4/5)，如果用文艺书换走科技书20本，那么科技书占全部的(8/15)，问原来科技书有多少本？"  # fmt: skip
PRICE = "某商品按定价的95%卖出可得利润84元，若按定价的80%出售，则亏损36元，则商品的购入价=多少元．"


@pytest.mark.parametrize(
    ("problem", "key", "kept"),
    [(BOOKS, "59.99999999999999", "60"), (PRICE, "676.0000000000003", "676"), (PRICE, "676", "676")],
)
def test_a_whole_value_printed_as_a_float_is_that_integer(problem, key, kept):
    assert_kept_as(offline(problem, key), kept)


@pytest.mark.parametrize(
    ("key", "read"),
    [
        ("14.399999999999999", "14.4"),
        ("4.375000000000001", "4.375"),
        ("-2.5000000000000004", "-2.5"),
        ("0.6666666666666667", None),  # repeating: stays as written
        ("3.141592653589793", None),  # no small fraction
        ("14.4", None),  # no float print
        ("0.12345678901", None),
    ],
)
def test_what_a_float_print_stands_for(key, read):
    assert float_rendering(key) == read


def test_a_statement_of_float_prints_keeps_its_literal_arithmetic():
    problem = (
        "Carefully following a recipe , Kenny used exactly 0.16666666666666666 cup of oil and 1.1666666666666667 "
        "cups of water . How many cups of liquid did Kenny use in all ?"
    )
    assert_kept_as(offline(problem, "1.3333333333333333"), None)
    assert_kept_as(
        offline("The lamp is 1.5000000000000002 feet taller. What is 2 + 1?", "3.0000000000000004"), None
    )


@pytest.mark.parametrize("key", ["7((2)/(3))", "7(2/3)", "3(\\frac{3}{4})"])
def test_a_whole_number_before_a_bracketed_fraction_is_not_decided(key):
    assert_kept_as(offline("3-2 / 6의 몫에 5를 더하면 결과 =?", key), None)
