"""Countdown answers (verifiers.countdown): an equation over the given numbers, judged as the game's
reference scorer judges it (TinyZero's countdown.compute_score: the last <answer>, each given number once,
the target's value), never by the last number the response writes. Set BX showed the class: 26 of 34 real
eval rows ended in `= target` after an expression that computes something else."""

import numpy as np
import pytest

from verifiers import check
from verifiers.countdown import countdown_task, judge, task_text
from verifiers.verl import compute_score

PROMPT = (
    "Using the numbers [79, 17, 60], create an equation that equals 36. Use each number exactly once. "
    "Only use +, -, *, / and parentheses. Finally return <answer> equation </answer>."
)
TINYZERO = (
    "Using the numbers [2, 2, 3], create an equation that equals 7. You can use basic arithmetic operations "
    "(+, -, *, /) and each number can only be used once."
)


@pytest.mark.parametrize(
    "response, solved",
    [
        ("<answer> (79 - 60) + 17 </answer>", True),
        ("<answer>79 - 60 + 17 = 36</answer>", True),  # the expression, then the target it claims
        ("<answer>36 = 17 + (79 - 60)</answer>", True),
        ("Try it.\n<answer> (79 − 60) + 17 </answer>", True),  # a Unicode minus is a minus
        ("\\boxed{17 - 60 + 79}", True),  # no tag: the last box
        ("<answer>17 + 79 - 60.</answer>", True),
        ("<answer> 79 - 60 = 19, 19 + 17 = 36 </answer>", False),  # a chain of steps, not one expression
        ("<answer> 79 + 17 - 60 = 36 </answer>", True),
        ("<answer> 79 + 17 + 60 = 36 </answer>", False),  # writes the target, computes 156
        ("<answer> 19 + 17 = 36 </answer>", False),  # 19 was not given; 79 and 60 unused
        ("<answer> 36 </answer>", False),  # the target alone uses no given number
        ("<answer> 79 - 60 + 17 = 35 </answer>", False),  # claims another value than the target
        ("<answer> (79 - 60) + 17 + 0 </answer>", False),  # 0 is another number
        ("<answer> 79 / (60 - 60) + 17 </answer>", False),
        (
            "<answer>(79 - 60) + 17</answer> ... no, <answer>79 + 60 - 17</answer>",
            False,
        ),  # the last tag counts
        ("<answer>79 + 60 - 17</answer> ... no, <answer>(79 - 60) + 17</answer>", True),
        ("<answer> 79 - 60 + 17 </answer> or maybe <answer> 79 + 17 </answer>", False),
        ("<answer> x = 79 - 60 + 17 </answer>", False),
        ("<answer> 79 ** 1 - 60 + 17 </answer>", False),  # a power is not among the operations
        ("The answer is 36.", False),
    ],
)
def test_countdown_answers_are_judged_as_equations(response, solved):
    assert check(response, "36", question=PROMPT).equivalent is solved


def test_repeated_numbers_count_with_their_multiplicity():
    assert check("<answer>2 * 2 + 3</answer>", "7", question=TINYZERO).equivalent
    assert not check(
        "<answer>2 * 3 + 1</answer>", "7", question=TINYZERO
    ).equivalent  # 1 not given, one 2 unused
    assert check("<answer>2 + 2 + 3</answer>", "7", question=TINYZERO).equivalent
    assert not check("<answer>2 * 2 * 3</answer>", "7", question=TINYZERO).equivalent  # 12


def test_division_is_exact_not_floating():
    prompt = "Using the numbers [1, 3, 3], create an equation that equals 1, each number used once."
    assert check("<answer>(1 / 3) * 3</answer>", "1", question=prompt).equivalent
    assert countdown_task(prompt).numbers == (1, 3, 3)
    assert judge("<answer>3 / (3 - 1)</answer>", 1, countdown_task(prompt))[1] == "countdown_value"


def test_reasons_name_what_failed():
    task = countdown_task(PROMPT)
    assert judge("<answer> 79 - 60 = 19, 19 + 17 = 36 </answer>", 36, task)[1] == "countdown_chain"
    assert judge("<answer> 19 + 17 </answer>", 36, task)[1] == "countdown_numbers"
    assert judge("<answer> 79 + 17 + 60 = 36 </answer>", 36, task)[1] == "countdown_value"
    assert judge("<answer> 79 + 17 - 60 = 35 </answer>", 36, task)[1] == "countdown_target"
    assert judge("no tag here", 36, task)[1] == "no_answer"


def test_other_questions_are_untouched():
    assert countdown_task("What is 79 - 60 + 17?") is None
    assert check("The answer is 36.", "36", question="What is 79 - 60 + 17?").equivalent
    assert countdown_task(task_text([5, 6], 30)).numbers == (5, 6)
    assert countdown_task("Using the numbers [5, 6], make 30.") is None  # no rule of the game: a word problem


def test_verl_takes_tinyzero_ground_truth():
    """TinyZero's parquet rows store {"target", "numbers"} as the ground truth (numbers as a numpy array once
    pandas read them): the task comes from it, no prompt needed."""
    truth = {"target": 36, "numbers": np.array([79, 17, 60])}
    assert compute_score("countdown", "<answer>(79 - 60) + 17</answer>", truth)["acc"]
    wrong = compute_score("countdown", "<answer> 79 + 17 + 60 = 36 </answer>", truth)
    assert not wrong["acc"] and wrong["reason"] == "countdown_value"


def test_a_task_stored_as_json_text_is_the_gold():
    """The same task written to Parquet as a string (`'{"target": 36, "numbers": [79, 17, 60]}'`): judged as the
    game, by `check` without a prompt and by verl's reward; the target alone is no answer, an object without
    the numbers is no task."""
    truth = '{"target": 36, "numbers": [79, 17, 60]}'
    assert check("<answer>(79 - 60) + 17</answer>", truth).reason == "countdown_match"
    assert check("<answer>36</answer>", truth).reason == "countdown_numbers"
    assert (
        compute_score("countdown", "<answer>60 - (79 - 17) + 38</answer>", truth)["reason"]
        == "countdown_numbers"
    )
    assert compute_score("countdown", "<answer>17 + 79 - 60</answer>", truth)["acc"]
    assert check("<answer>(79 - 60) + 17</answer>", '{"target": 36}').reason == "gold_invalid"


@pytest.mark.parametrize(
    "prompt",
    [
        "Use numbers and basic arithmetic operations (+ - * /) to obtain 24.\nInput: 4 5 6 10",  # Tree-of-Thoughts
        "You are solving an arithmetic puzzle.\nUse the numbers 4, 5, 6, 10 exactly once each.\nYour goal is to make 24.",
        "Given these integers: 4 5 6 10. Build one expression that equals 24. Every input number must be used exactly once.",
    ],
)
def test_the_24_game_in_its_wordings(prompt):
    assert countdown_task(prompt).numbers == (4, 5, 6, 10) and countdown_task(prompt).target == 24
    assert (
        check("Answer: (10 - 4) * (6 - 5) * 4 = 24", "24", question=prompt).equivalent is False
    )  # 4 used twice
    assert (
        check("Answer: (10 - 6) * (5 - 4) * 4 = 24", "24", question=prompt).equivalent is False
    )  # computes 16
    assert (
        check("Answer: 4 * (10 - 6) + 5 + 6 - 3 = 24", "24", question=prompt).equivalent is False
    )  # 3 not given
    assert check("<answer>(10 - 6) * 5 + 4</answer>", "24", question=prompt).equivalent is True


@pytest.mark.parametrize(
    "response, solved",
    [
        ("Answer: 6 x 8 / (9 - 7) = 24", True),  # x between operands is times
        ("Answer: 8(9 - 7) + 6 = 22", False),  # claims another value
        ("Final answer: (9 - 7) * 8 + 6 - 0 = 22", False),  # 0 not given
        ("<think>6 * 8 / (9 - 7) = 24</think>", False),  # only thought, never answered
        ("So we can get 24 by computing 6 * 8 / (9 - 7).", True),  # the last line that writes an expression
        ("Answer: (9 - 7) * 8 + 6 = 22\nWait, that is 22. Correct answer: 6 * 8 / (9 - 7) = 24", True),
        (
            "Answer: 6 * 8 / (9 - 7) = 24\nActually, let me use (9 - 7) * 8 + 6 instead.",
            False,
        ),  # the correction counts
        ("<answer>6 * 8 / (9 - 7)</answer> or <answer>(9 - 7) * 8 + 6</answer>", False),  # a hedge
        ("答案：6 × 8 ÷ (9 − 7) = 24", True),
        ("Answer: \\frac{6 \\times 8}{9 - 7}", True),
    ],
)
def test_answers_to_the_24_game(response, solved):
    prompt = "Use numbers and basic arithmetic operations (+ - * /) to obtain 24.\nInput: 6 7 8 9"
    assert check(response, "24", question=prompt).equivalent is solved
