"""Classes from blind set BS (small models' GSM8K answers and GRPO rollouts, `The answer is:` probes; issue 21).

- `The answer is: sixty students` states its number in words before a noun the question names; `thirty percent` is
  a percent where the asking sentence asks one, and no value where it asks a price (`Forty percent` for a selling
  price stays unequal).
- A time written in two units (`2 hours 40 minutes`) is its amount in the smaller unit (160 minutes) when the question
  asks no unit; when it asks one (`how many minutes`), another way of writing it is a unit mismatch.
- `lb` and `oz` after a number are units; an `i.e.` clause after the value restates it (`5 lollipops each, i.e. 20 in
  total`: 5).
- An answer whose math spans are joined by `so` (`$f(x) = x^3 - 3x + 5$, so $f(-2) = ... = 3.$`) concludes in its
  last span.
"""

import pytest

import verifiers

CARLA = (
    "Carla is downloading a 200 GB file. Normally she can download 2 GB/minute, but 40% of the way through the "
    "download, Windows forces a restart to install updates, which takes 20 minutes. Then Carla has to restart the "
    "download from the beginning. How long does it take to download the file?"
)
WALK = "She walks for 5 minutes every hour at work, 8 hours a day. After 5 days, how many minutes has she walked?"


@pytest.mark.parametrize(
    ("pred", "gold", "question", "want"),
    [
        ("50 x 1.2 = 60 students.\nThe answer is: sixty students", "60",
         "Last year 50 students enrolled; this year 20% more. How many students are enrolled this year?", True),
        ("50 x 1.2 = 60 students.\nThe answer is: sixty students", "50",
         "Last year 50 students enrolled; this year 20% more. How many students are enrolled this year?", False),
        ("100% - 70% = 30%.\nThe answer is: thirty percent", "30",
         "One spray kills 50% of germs, another 25%, and 5% are killed by both. What percentage of germs is left?",
         True),
        ("The answer is: Forty percent.", "40", "A pen marked at $50 is sold at a 20% discount. Find the selling price.",
         False),
        ("80 / 2 = 40, 20, 200 / 2 = 100: 160 minutes.\nThe answer is: 2 hours 40 minutes", "160", CARLA, True),
        ("The answer is: 2 hours and 40 minutes", "160", CARLA, True),
        ("The answer is: 2 hours 40 minutes", "170", CARLA, False),
        ("The answer is: 2 hours 40 minutes", "2", CARLA, False),
        ("8 x 5 = 40 min a day; 5 days: 200 minutes.\nAnswer: 3 hours 20 minutes", "200", WALK, False),
        ("8 x 5 = 40 min a day; 5 days: 200 minutes.\nAnswer: 200 minutes", "200", WALK, True),
        ("400 oz / 16 = 25 pounds.\nThe answer is: 25 lb", "25",
         "What is the total weight, in pounds, when there are 16 ounces to a pound?", True),
        ("(25 - 5) / 4 = 5 each.\nThe answer is: 5 lollipops each, i.e. 20 in total.", "5",
         "Ray kept 5 of 25 lollipops and shared the rest equally with 4 friends. How many did each friend get?", True),
        ("(25 - 5) / 4 = 5 each.\nThe answer is: 5 lollipops each, i.e. 20 in total.", "20",
         "Ray kept 5 of 25 lollipops and shared the rest equally with 4 friends. How many did each friend get?",
         False),
        ("Use the remainder theorem.</think>\n<answer>$f(x) = x^3 - 3x + 5$, so $f(-2) = (-2)^3 - 3(-2) + 5 = -8 + 6 "
         "+ 5 = 3.$</answer>", "3", "Find the remainder when $x^3 - 3x + 5$ is divided by $x + 2.$", True),
        ("Use the remainder theorem.</think>\n<answer>$f(x) = x^3 - 3x + 5$, so $f(-2) = (-2)^3 - 3(-2) + 5 = -8 + 6 "
         "+ 5 = 3.$</answer>", "5", "Find the remainder when $x^3 - 3x + 5$ is divided by $x + 2.$", False),
    ],
)  # fmt: skip
def test_bs_classes(pred, gold, question, want):
    assert verifiers.check(pred, gold, question=question).equivalent is want
