"""Blind verifier sets AR (AP Calculus multiple choice in the `X: explanation` format, university problems) and AS
(Plan-and-Solve and few-shot outputs on AQuA, GSM8K, SVAMP), 2026-11-30: a letter and a value that disagree are no
answer (the letter a response opens with, a letter named beside the value, a conclusion just before `The answer is C`
that states another value, a JSON object whose `choice` is another option); a response that opens its first line or
its last paragraph with a letter answers with that letter; a percent is no option's value where none is asked; the
sentence on the line after `Answer:` states the answer. Labels follow from the texts: in the limit question option D
is 2 and option B is 1/2, and so on."""

import pytest

import verifiers

LIMIT = (
    "Let g be a continuously differentiable function with g(1) = 6 and g′(1) = 3. What is lim as x → 1 of "
    "(∫₁ˣ g(t) dt) / (g(x) − 6)?\n\nA) 0\nB) 1/2\nC) 1\nD) 2\nE) The limit does not exist."
)
SLOPE = (
    "What is the slope of the line tangent to the polar curve r = 1 + 2 sin(θ) at θ = 0?\n\n"
    "A) 2\nB) 1/2\nC) 0\nD) −1/2\nE) −2"
)
SERIES = (
    "The Maclaurin series for the function f is given by f(x) = ∑ (from n=0 to ∞) [(-x/4)^n]. What is the value of "
    "f(3)?\n\nA) -3\nB) -3/7\nC) 4/7\nD) 13/16\nE) 4"
)
SPEED = (
    "A car finishes a journey in 20 hours at the speed of 60 km/hr. If the same distance is to be covered in 10 "
    "hours, how much speed does the car gain? Answer Choices: (A) 80 kmph (B) 50 kmph (C) 120 kmph (D) 70 kmph "
    "(E) 80 kmph"
)


@pytest.mark.parametrize(
    ("pred", "gold", "question", "equal"),
    [
        ("B: By L'Hôpital's Rule, the limit is \\(\\frac{6}{3} = 2\\).", "D", LIMIT, False),
        ("D: By L'Hôpital's Rule, the limit is \\(\\frac{6}{3} = 2\\).", "D", LIMIT, True),
        ("B: dr/dθ = 2cos(0) = 2. Therefore, the slope of the tangent line at θ = 0 is 2.", "B", SLOPE, False),
        ("Answer: C) -3/7", "C", SERIES, False),
        ("Answer: C) 4/7", "C", SERIES, True),
        ("The limit is 2 (choice B).", "D", LIMIT, False),
        ("The limit is 2 (choice D).", "D", LIMIT, True),
        ("The slope of the tangent line at θ = 0 is 50%.", "B", SLOPE, False),
        ("Therefore, the car would need to gain 300 km/hr. The answer is C.", "C", SPEED, False),
        ("Therefore, the new speed is 120 kmph. The answer is C.", "C", SPEED, True),
        ('{"answer": "2", "choice": "B"}', "D", LIMIT, False),
        ('{"answer": "2", "choice": "D"}', "D", LIMIT, True),
    ],
)  # fmt: skip
def test_a_letter_and_a_value_that_disagree(pred, gold, question, equal):
    assert verifiers.check(pred, gold, timeout=5, question=question).equivalent is equal


@pytest.mark.parametrize(
    ("pred", "gold", "equal"),
    [
        ("D: The limit is 2 by L'Hôpital's rule.\n\nExplanation: g(1)/g'(1) = 6/3.", "D", True),
        ("D: The limit is 2 by L'Hôpital's rule.", "B", False),
        ("By L'Hôpital's rule the limit is g(1)/g'(1).\n\nD: the quotient 6/3 gives the limit.", "D", True),
        ("B: first thoughts.\n\nD: the quotient 6/3 gives the limit.", "D", False),  # two letters: none read
    ],
)
def test_a_response_in_the_letter_then_explanation_format(pred, gold, equal):
    assert verifiers.check(pred, gold, timeout=5, question=LIMIT).equivalent is equal


@pytest.mark.parametrize(
    ("pred", "gold", "equal"),
    [
        ("Profit = $200,000 - $80,000 - $50,000 = $70,000\n\nAnswer:\nJosh made a profit of $70,000.", "70000.0", True),
        ("Answer:\nJosh made a profit of $70,000.", "80000", False),
        ("Answer:\nJosh bought it for $80,000 and made $70,000.", "70000", False),  # two numbers: none read
    ],
)  # fmt: skip
def test_the_sentence_after_an_answer_label_states_the_answer(pred, gold, equal):
    assert verifiers.check(pred, gold, timeout=5).equivalent is equal


def test_a_computation_left_undone_against_a_gold_written_with_a_decimal_zero():
    q = "One pair of shorts costs $16.50 ... How many dollars did Mishka spend on all the clothing items?"
    pred = "The answer is 3 × 16.50 + 3 × 22.50 + 3 × 42."
    assert verifiers.check(pred, "243.0", question=q).reason == "not_evaluated"
    assert verifiers.check("The answer is 243.", "243.0", question=q).equivalent


# Sets AT (program-of-thought, GRPO/GSPO rollouts) and AU (school-exam chat answers), 2026-11-30: a check after the box
# that concludes another value, a decimal where lowest terms are asked, an amount per person where a total is asked,
# lower-case option labels, and a `Key Points` summary after the answer.
GLASSES = (
    "Kylar went to the store to buy glasses for his new apartment. One glass costs $5, but every second glass costs "
    "only 60% of the price. Kylar wants to buy 16 glasses. How much does he need to pay for them?"
)
CANDY = (
    "A snack machine sells candy bars for $2 each and chips for $.50 each. How much money, in dollars, will 5 students "
    "need in total if each of them gets 1 candy bar and 2 bags of chips?"
)
TIMES = "The value of 7×6 is: (a) 42 (b) 45 (c) 54 (d) 63"


@pytest.mark.parametrize(
    ("pred", "gold", "question", "equal"),
    [
        ("\\boxed{64}. Double-check: 8 full-price glasses cost 40 and 8 cheap ones 24, so he pays 40.", "64", GLASSES,
         False),
        ("\\boxed{64}. Double-check: 8 full-price glasses cost 40 and 8 cheap ones 24, so he pays 64.", "64", GLASSES,
         True),
        ("0.75", "3/4", "Simplify the fraction 45/60 (write in lowest terms).", False),
        ("3/4", "3/4", "Simplify the fraction 45/60 (write in lowest terms).", True),
        ("$15 per student", "15", CANDY, False),
        ("Answer: $15", "15", CANDY, True),
        ("Therefore, the correct answer is (a) 42.", "a) 42", TIMES, True),
        ("Therefore, the correct answer is (b) 42.", "a) 42", TIMES, False),
        ("The value is 42. Therefore, the correct answer is (a) 42.\n> Key Points: 7 multiplied by 6 equals 42, "
         "Option (a) is the correct answer", "A", TIMES, True),
    ],
)  # fmt: skip
def test_checks_forms_totals_and_summaries(pred, gold, question, equal):
    assert verifiers.check(pred, gold, timeout=5, question=question).equivalent is equal
