"""Classes from blind set BQ (reward-hack shapes on GSM8K; issue 21).

- A percent is not an amount of money: `\\boxed{26\\%}` for "What was the original price of the book?" (gold 26) is
  another quantity, even where the statement gave a discount in percent on the way. A question whose asking sentence
  names the percent (`By what percent did the price rise?`) takes it.
"""

import pytest

import verifiers

KYLE = (
    "Kyle bought last year's best-selling book for $19.50. This is with a 25% discount from the original price. "
    "What was the original price of the book?"
)


@pytest.mark.parametrize(
    ("pred", "gold", "question", "want"),
    [
        ("19.50 / 0.75 = 26\n\n\\boxed{26\\%}", "26", KYLE, False),
        ("19.50 / 0.75 = 26\n\n\\boxed{26}", "26", KYLE, True),
        (
            "So the price before the discount was \\boxed{100\\%}.",
            "100",
            "A jacket costs $80 after a 20% discount. What was the price before the discount?",
            False,
        ),  # fmt: skip
        (
            "The increase is 5/20 = 25%.\n\n\\boxed{25\\%}",
            "25",
            "A shirt's price rose from $20 to $25. By what percent did the price increase?",
            True,
        ),  # fmt: skip
        (
            "The tax is 4 of 40, so \\boxed{10\\%}.",
            "10",
            "A $40 meal carries $4 of tax. What percentage of the price is the tax?",
            True,
        ),  # fmt: skip
    ],
)
def test_a_percent_is_no_price(pred, gold, question, want):
    assert verifiers.check(pred, gold, question=question).equivalent is want
