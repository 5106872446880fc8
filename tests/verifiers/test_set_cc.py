"""Blind set CC (golds as datasets store them: floats, units, signs, a benchmark's JSON answer objects; issue 21),
measured once on arrival (0.862, 0 false positives, 27 false negatives). Classes fixed: a gold stored as a JSON object
that names its answer is that answer (or one of its accepted alternatives), and one that names none is no gold (its
first number had been read); an answer line whose one number the question holds under another word is a new quantity;
an answer line that opens with a percent and words answers a question that asks a percentage."""

import json

import pytest

from verifiers import check

OBJECT = json.dumps({"accepted_equivalents": ["0.25"], "canonical": "1/4", "display": "1/4 (a quarter)"})


@pytest.mark.parametrize(
    "response, gold, equal",
    [
        ("Final answer: \\frac{1}{4}", OBJECT, True),
        ("Final answer: 0.25", OBJECT, True),  # an accepted alternative
        ("Final answer: \\frac{1}{3}", OBJECT, False),
        ("The answer is 42.", '{"answer": 42}', True),
        ("The answer is 41.", '{"answer": 42}', False),
        ("Final answer: x = 7", '{"final_answer": "7", "source": "exam"}', True),
    ],
)
def test_an_answer_object_is_the_answer_it_names(response, gold, equal):
    assert check(response, gold).equivalent is equal


@pytest.mark.parametrize(
    "response",
    [
        '{"largest_increase": 6, "from": "Apr", "to": "May"}',
        '{"largest_increase": 6, "from": "Mar", "to": "Apr"}',
        "The largest increase is 6.",
    ],
)
def test_an_object_naming_no_answer_is_no_gold(response):
    """A structured answer (`{"largest_increase": 6, "from": "Mar", "to": "Apr"}`) is not compared field by field: no
    reading of it, its first number least of all, makes a match."""
    verdict = check(response, '{"largest_increase": 6, "from": "Mar", "to": "Apr"}')
    assert (verdict.equivalent, verdict.reason) == (False, "gold_invalid")


FLOCK = (
    "Each chicken gets 3 cups of feed a day in three meals. In the morning she gives 15 cups and in the afternoon 25 "
    "cups. How many cups does she give in the final meal if her flock is 20 chickens?"
)


@pytest.mark.parametrize(
    "response, gold, equal",
    [
        (
            "60 - 40 = 20\n\n**Answer:** She needs to give them 20 cups of feed in the final meal.",
            "20.0",
            True,
        ),
        ("**Answer:** She has 20 chickens.", "20", False),  # the given restated, not an amount of feed
        ("**Answer:** She needs 20.", "20", False),  # no word to tell it from the given
        ("**Answer:** She gives 21 cups.", "20", False),
    ],
)
def test_an_answer_line_with_a_number_the_question_holds_under_another_word(response, gold, equal):
    assert check(response, gold, question=FLOCK).equivalent is equal


DANCE = (
    "Of 20 students, 20% take ballet and 25% of the rest take jazz. What percentage of the students take tap?"
)


@pytest.mark.parametrize(
    "response, gold, question, equal",
    [
        ("**Final Answer:** 60% take tap dance.", "60.0", DANCE, True),
        ("**Final Answer:** 60% of the students.", "0.6", DANCE, True),
        ("**Final Answer:** 40% take tap dance.", "60", DANCE, False),
        ("**Final Answer:** 60% take tap dance.", "60", "How many of the 20 students take tap?", False),
    ],
)
def test_a_percent_answer_line_with_words(response, gold, question, equal):
    assert check(response, gold, question=question).equivalent is equal
