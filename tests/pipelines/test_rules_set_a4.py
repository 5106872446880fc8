"""Keys that are worked solutions (blind set A4, issue 21): training corpora store MATH's `solution` or a
MetaMathQA-style response as the answer. The solution names its answer by its dataset's convention (the answer box,
or a last line `The answer is: 36` / `#### 36`), so that is the key, not a number found in the working; boxes of
different values, or a box and an answer line that disagree, are several answers."""

import pytest
from rule_outcome import assert_kept_as, offline

from pipelines.rules import Miss, solution_answer


@pytest.mark.parametrize(
    ("problem", "key", "kept"),
    [
        (
            "How many vertical asymptotes does the graph of $y=\\frac{2}{x^2+x-6}$ have?",
            "The denominator of the rational function factors into $x^2+x-6=(x-2)(x+3)$. Since the numerator is "
            "always nonzero, there is a vertical asymptote whenever the denominator is $0$, which occurs for $x = 2$ "
            "and $x = -3$.  Therefore, the graph has $\\boxed{2}$ vertical asymptotes.",
            "2",
        ),
        (
            "What is the 100th term of the arithmetic sequence 6, 10, 14, 18, ...?",
            "The common difference is $10 - 6 = 4$, so the 100th term is $6+99\\cdot 4=\\boxed{402}$.",
            "402",
        ),
        (
            "There are 8 people. In how many ways can 4 of them be chosen for a committee?",
            "Order does not matter, so this is a combination. Choosing $4$ out of $8$ is $\\binom{8}{4}=\\boxed{70}.$",
            "70",
        ),
        (
            "Alissa used discarded paper to make notepads for her friends. Barbara has 24 earrings and gives half to "
            "Alissa, whose collection is then three times what she received. How many earrings does Alissa have now?",
            "Barbara gave half of her 24 earrings to Alissa, so Alissa received 1/2*24 = 12 earrings.\n"
            "After receiving 12 earrings, Alissa's total number of collections became 3*12 = 36 earrings.\n"
            "The answer is 36",
            "36",
        ),
    ],
)
def test_a_worked_solution_key_is_read_at_its_answer(problem, key, kept):
    assert_kept_as(offline(problem, key), kept)


@pytest.mark.parametrize(
    ("key", "read"),
    [
        ("So the share of the whole class that passed is exactly $\\boxed{25}\\%$ of it.", "25%"),
        ("We count the men first and then the women, so the total number of ways is\n#### 72", "72"),
        ("\\boxed{12}", None),  # a bare box: no written solution, the rules read it as it is
        ("$\\boxed{12}$ \\text{ cm}", None),
        ("The answer is 5", None),  # no working before the answer line
    ],
)
def test_what_a_solution_key_names(key, read):
    assert solution_answer(key) == read


@pytest.mark.parametrize(
    "key",
    [
        "The two equations yield $x=\\boxed{\\frac{3}{2}}$ and $x=\\boxed{-\\frac{1}{8}}$ as the solutions here.",
        "Adding the two amounts of money together gives us $\\boxed{14}$ in all.\nThe answer is: 15",
    ],
)
def test_a_solution_naming_two_values_is_several_answers(key):
    assert isinstance(solution_answer(key), Miss)
    assert_kept_as(offline("Find the value asked for in the problem.", key), None)
