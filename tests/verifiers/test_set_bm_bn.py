"""Classes from blind sets BM (Program-of-Thought and tool-integrated outputs) and BN (golds and answers whose written
form carries the difficulty), issue 21.

- A one-line ```output block that ends a response is what its program printed: the answer (ToRA's and Qwen's
  tool-integrated format; a block marked only by following the program's block too). A multi-line output, or
  prose after the block, is read as before.
- A number printed from binary floating point stands for the whole or terminating value it rounds
  (`26.000000000000004` is 26, `0.30000000000000004` is 0.3); a repeating value stays as written.
- A bracketed check or aside that ends the last sentence after its value is no answer (`(7 x 9 = 63)`,
  `(and 40 silver)`, `(Check: ...)`); an alternative in brackets (`(or x = -2)`) is still a hedge, and where the
  sentence states no value before the brackets they hold it.
- A sentence after a code block is read by itself.
- An area in another unit than the question works in is another quantity (`350 square kilometers` for square miles),
  also when the value was read by the question-aware reading.
- A fraction gold answered by fractions left uncombined, even before a rounding (`1/9 - 15/16 ≈ -0.826`), is not
  evaluated.
"""

import pytest

import verifiers

PROGRAM = "```python\ndef solution():\n    return (16 - 3 - 4) * 2\n```\n"
EGGS = (
    "Janet's ducks lay 16 eggs per day. She eats three for breakfast and bakes muffins with four. She sells the "
    "remainder for $2 per egg. How much in dollars does she make every day?"
)


@pytest.mark.parametrize(
    ("pred", "gold", "want"),
    [
        (PROGRAM + "```output\n18\n```", "18", True),
        (PROGRAM + "```output\n18.0\n```\n", "18", True),
        (PROGRAM + "```\n18.0\n```", "18", True),  # an unmarked block right after the program's
        (PROGRAM + "```output\n17\n```", "18", False),
        (PROGRAM + "```output\n18\n19\n```", "18", False),  # several lines printed: no one answer
        (PROGRAM + "```output\n18\n```\nSo she makes $20 a day.", "18", False),  # prose after it decides
        (PROGRAM + "```output\n3/4\n```", "\\frac{3}{4}", True),
    ],
)
def test_a_printed_value_that_ends_the_response_is_the_answer(pred, gold, want):
    assert verifiers.check(pred, gold).equivalent is want


@pytest.mark.parametrize(
    ("pred", "gold", "want"),
    [
        ("So the original price was $26.000000000000004.", "26", True),
        ("The answer is 0.30000000000000004.", "0.3", True),
        ("The answer is 25.999999999999996.", "26", True),
        ("The answer is 0.6666666666666666.", "\\frac{2}{3}", False),  # repeating: as written
        ("The answer is 26.000000000004.", "26", False),  # not a double's rounding of 26
    ],
)
def test_a_float_print_is_the_value_it_stands_for(pred, gold, want):
    assert verifiers.check(pred, gold).equivalent is want


@pytest.mark.parametrize(
    ("pred", "gold", "question", "want"),
    [
        (
            "Total 41 + 22 = 63 sodas, and 63 / 9 = 7, so he fills 7 shelves (7 x 9 = 63).",
            "7",
            "How many shelves would he fill up?",
            True,
        ),
        ("Tom has 30 red marbles (and 12 blue).", "30", "How many red marbles does Tom have?", True),
        (
            "He needs to pay 64 dollars. (Check: 8 x 5 = 40 and 8 x 3 = 24.)",
            "64",
            "How much does he need to pay for them?",
            True,
        ),
        ("So x = 3 (or x = -2).", "3", "Solve for x.", False),  # an alternative in brackets: a hedge
        ("réponse est (35 + 70 = 105).", "105", None, True),  # the brackets hold the value
        (PROGRAM + "She makes 18 dollars a day.", "18", EGGS, True),  # the sentence after the code, by itself
    ],
)
def test_a_check_or_aside_after_the_value_is_no_answer(pred, gold, question, want):
    assert verifiers.check(pred, gold, question=question).equivalent is want


AREA = "Plain B has 200 square miles and plain A has 50 square miles less. How many square miles do they have in total?"


@pytest.mark.parametrize(
    ("pred", "want"),
    [
        ("Total 150 + 200 = 350.\nThe plains have 350 square kilometers in total.", False),
        ("The plains have 350 km^2 in total.", False),
        ("Total 150 + 200 = 350.\nThe plains have 350 square miles in total.", True),
        ("The answer is 350.", True),
    ],
)
def test_an_area_in_another_unit_is_another_quantity(pred, want):
    assert verifiers.check(pred, "350", question=AREA).equivalent is want


COS = (
    "Given that $\\cos a = \\frac{1}{3}$ and $\\cos b = \\frac{1}{4},$ compute $\\cos (a + b) \\cos (a - b).$"
)


@pytest.mark.parametrize(
    ("pred", "want"),
    [
        ("cos(a+b)cos(a-b) = cos^2 a - sin^2 b = 1/9 - 15/16 ≈ -0.826.", False),
        ("The answer is $\\frac{1}{9} - \\frac{15}{16}$.", False),
        ("The answer is $-\\frac{119}{144}$.", True),
        ("The answer is $1 - \\frac{263}{144}$.", True),  # a whole number and a fraction, as a mixed number
    ],
)
def test_fractions_left_uncombined_are_not_evaluated(pred, want):
    assert verifiers.check(pred, "-\\frac{119}{144}", question=COS).equivalent is want
