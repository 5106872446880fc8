"""Classes from blind set BL (issue 21): a `# <answer>` last line (AQuA-RAT prompts that ask for one), and MathQA
rationales that end on a lower-case option letter (`the answer is c.`, `therefore , d`) against a lower-case gold."""

import pytest

import verifiers

TRADER = "A trader sold an article at a profit of 20% for Rs.360. What is the cost price of the article? ['A)270', 'B)300', 'C)280', 'D)320', 'E)315']"  # fmt: skip


@pytest.mark.parametrize(
    ("pred", "gold", "want"),
    [
        ("360 = 1.20x, x = 300. Therefore, the cost price of the article is Rs.300.  # 300", "300", True),
        ("360 = 1.20x, so x = 300.\n# 300", "300", True),
        ("#15", "15", True),
        ("The final concentration is 0.325125 = 32.51%.  # 32.51%", "32.51%", True),
        (
            "Distance = 11 mph × 0.35 hours = 3.85 miles.  Therefore, the answer is: # 3.85 miles",
            "3.85 miles",
            True,
        ),
        ("360 = 1.20x, x = 300.  # 320", "300", False),
        ("So the prize goes to the contestant #3", "300", False),  # `#3` inside a sentence is no marker
    ],
)
def test_a_value_after_a_hash_that_ends_the_response_is_its_answer(pred, gold, want):
    assert verifiers.check(pred, gold, question=TRADER if gold == "300" else None).equivalent is want


BOTTLES = (
    "running at the same constant rate , 6 identical machines can produce a total of 360 bottles per minute . at this "
    "rate , how many bottles could 10 such machines produce in 4 minutes ?\nOptions: a ) 648 , b ) 1800 , c ) 2400 , "
    "d ) 10800 , e ) 10900"
)


@pytest.mark.parametrize(
    ("pred", "want"),
    [
        ("In 4 minutes, they can produce 600 * 4 = 2400 bottles. The answer is c.", True),
        ("10 machines produce 600 a minute , 2400 in 4 minutes . therefore , c", True),
        ("10 machines produce 600 a minute , 2400 in 4 minutes . therefore , d", False),
        ("In 4 minutes, they can produce 600 * 4 = 2400 bottles. The answer is b.", False),
    ],
)
def test_a_mathqa_rationale_ending_on_a_lower_case_letter_names_that_option(pred, want):
    assert verifiers.check(pred, "c", question=BOTTLES).equivalent is want
