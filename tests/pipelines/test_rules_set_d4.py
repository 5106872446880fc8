"""Questions that are not the statement's (blind set D4, issue 21): MiP-style variants of SVAMP swap in another
problem's `how many` question, so the key answers a problem that is not there; a question that shares no word with the
setup before it defers (a solver must confirm). Counts any setup may ask (`how many ways`) and measures (`how many mL`)
are asked of any setup. A scatter plot the statement does not carry is data outside it."""

import pytest
from rule_outcome import assert_kept_as, offline

from pipelines.classify import question_unrelated_to_setup


@pytest.mark.parametrize(
    ("problem", "key"),
    [
        (
            "In a school there are 458 more girls than boys. If there are 692 girls How many peaches are in the basket?",
            "30",
        ),
        (
            "Paco had 26 salty cookies and 17 sweet cookies. He ate 14 sweet cookies and 9 salty cookies. How many pencils does she have?",
            "84",
        ),  # fmt: skip
        (
            "3 birds were sitting on the fence. 6 more storks and 2 more birds came to join them. How many cookies did Helen bake till last night?",
            "450",
        ),  # fmt: skip
        (
            "The scatterplot shows 5 measurements of the body length of a seal from an age of 1 year to 6 years old. For "
            "a seal at an age of 3 years old, what is the body length predicted by the line of best fit, to the nearest cm?",
            "100",
        ),
    ],
)
def test_a_question_the_statement_does_not_set_up_defers(problem, key):
    assert_kept_as(offline(problem, key), None)


@pytest.mark.parametrize(
    ("problem", "key"),
    [
        (
            "Paco had 26 salty cookies and 17 sweet cookies. He ate 14 sweet cookies. How many sweet cookies are left?",
            "3",
        ),
        ("A box holds 12 eggs. How many boxes are needed for 60 eggs?", "5"),
        (
            "My school's math team has 8 members and my coach needs to select 4 of them. In how many ways can she do that?",
            "70",
        ),  # fmt: skip
        ("Order: 250 mg. Available: 125 mg per 5 mL. How many mL will you give?", "10"),
        ("There are 6 girls and 4 boys in the park. How many more girls than boys are in the park?", "2"),
    ],
)
def test_a_question_the_statement_sets_up_is_kept(problem, key):
    assert question_unrelated_to_setup(problem) is None
    assert_kept_as(offline(problem, key), key)
