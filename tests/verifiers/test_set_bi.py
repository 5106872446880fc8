"""Classes from blind set BI (issue 21): step lists that end under an answer heading (PRM800K), a box and an
option letter that disagree, a measure where a count is asked, and an answer line a later check contradicts."""

import pytest

import verifiers

PENCIL = "Three pencils and a jumbo eraser cost $1.24. Five pencils and a jumbo eraser cost $1.82. In cents, what is the cost of a pencil?"  # fmt: skip


@pytest.mark.parametrize(
    "pred",
    [
        "So $2p=0.58$ and $p=0.29$.\nThat means a pencil costs 29 cents.\n\n# Answer\n\n29",
        "So the pencil costs 29 cents.\n\n## Answer\n29\n",
        "So the pencil costs 29 cents.\n\n**Answer**\n\n29",
        "So the pencil costs 29 cents.\n\n### Final Answer\n\n$29$",
    ],
)
def test_the_value_under_an_answer_heading_is_the_answer(pred):
    assert verifiers.check(pred, "29", question=PENCIL).equivalent


@pytest.mark.parametrize(
    ("pred", "gold"),
    [
        ("So the pencil costs 29 cents.\n\n# Answer\n\n30", "29"),  # the heading's value, compared
        (
            "# Answer\n\n29\n\nWait, let me redo the subtraction: 1.82 - 1.24 is 0.60, so 30.",
            "29",
        ),  # not the end
        ("So $p = 29$.\n\n**Final Answer:**\n\n#### 31", "29"),  # a `####` line under it is read as such
    ],
)
def test_an_answer_heading_is_read_only_as_the_last_word(pred, gold):
    assert not verifiers.check(pred, gold, question=PENCIL).equivalent


AMC = (
    "Team A and Team B play until one wins 2 games. ... What is $m + n$? \n\n$\\textbf{(A) } 10 \\qquad \\textbf{(B) } "
    "11 \\qquad \\textbf{(C) } 12 \\qquad \\textbf{(D) } 13 \\qquad \\textbf{(E) } 14$"
)


@pytest.mark.parametrize(
    ("pred", "want"),
    [
        ("Therefore,$$\\boxed{m+n=6+21=27}.$$\nThe answer is E.", False),  # 27 is no option; E is 14
        ("Therefore, our solution is $m+n=\\boxed{92}$. The answer is E.", False),
        ("Therefore, $m+n=\\boxed{14}$. The answer is E.", True),  # the box is the letter's option
        ("Therefore, $p = \\boxed{\\frac{1}{2}(6-\\sqrt{22})}$, so $m + n = 14$. The answer is E.", True),
    ],
)
def test_a_box_before_the_letter_must_be_the_letters_option(pred, want):
    assert verifiers.check(pred, "E", question=AMC).equivalent is want


ROBE = "A robe takes 2 bolts of blue fiber and half that much white fiber.  How many bolts in total does it take?"


@pytest.mark.parametrize(
    ("pred", "want"),
    [
        ("2 + 1 = 3 </think> <answer> 3 quarts </answer>", False),  # a measure where a count is asked
        ("2 + 1 = 3 </think> <answer> 3 bolts </answer>", True),
        ("2 + 1 = 3 </think> <answer> 3 </answer>", True),
        ("Answer: There are $\\textbf{3 bolts}$ in total.", True),
    ],
)
def test_a_measure_is_not_a_count_of_things(pred, want):
    assert verifiers.check(pred, "3", question=ROBE).equivalent is want


SPRINTS = "James runs 3 sprints 3 times a week. He runs 60 meters each sprint. How many total meters does he run a week?"


@pytest.mark.parametrize(
    ("pred", "want"),
    [
        (
            "Answer: 540\nCheck: he runs 3 x 60 = 180 meters each day, so his weekly total is 180 meters.",
            False,
        ),
        (
            "Answer: 540\nCheck: he runs 3 x 60 = 180 meters each day, so his weekly total is 540 meters.",
            True,
        ),
        ("Answer: 540\nHe runs 180 meters each day.", True),  # a step restated, no other total
        ("Answer: 540", True),
    ],
)
def test_an_answer_line_a_later_check_contradicts_is_two_answers(pred, want):
    assert verifiers.check(pred, "540", question=SPRINTS).equivalent is want
