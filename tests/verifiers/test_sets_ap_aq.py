"""Blind verifier sets AP (R1-format rollouts, probes on forms) and AQ (tutor-style responses of small instruct models,
probes on quantities), 2026-11-30: the classes each set showed, labelled from the texts. A tutor's closing remarks
(`That's it! Do you have any questions?`) are not the answer; a computation written with thousands groups is one
value, not a list; an answer line's sentence gives its one bold value; two boxes joined by `or` on an answer line are
a hedge there too; an order, an angle unit, an amount of money or a period the question fixes must be kept; a gold
stored as sympy's printout (`Interval(0, oo)`) is the set it prints."""

import pytest

import verifiers

GSM_EGGS = (
    "Janet’s ducks lay 16 eggs per day. She eats three for breakfast every morning and bakes muffins for her friends "
    "every day with four. She sells the remainder at the farmers' market daily for $2 per fresh duck egg. How much in "
    "dollars does she make every day at the farmers' market?"
)
SALARY = (
    "Jill gets paid $20 per hour to teach and $30 to be a cheerleading coach. If she works 50 weeks a year, 35 hours a "
    "week as a teacher and 15 hours a week as a coach, what's her annual salary?"
)
DRINK = (
    "I have 10 liters of orange drink that are two-thirds water and I wish to add it to 15 liters of pineapple drink "
    "that is three-fifths water. But as I pour it, I spill one liter of the orange drink. How much water is in the "
    "remaining 24 liters?"
)


@pytest.mark.parametrize(
    ("pred", "gold", "equal"),
    [
        ("Let's calculate:\n\n8 - 3 = 5\n\nSo, there are **5** birds left on the tree!\n\n"
         "Do you have any questions about this process?", "5", True),
        ("12 ÷ 3 = 4\n\nSo, each friend gets 4 cookies!\n\nThat's it!", "4", True),
        ("So, each friend gets 4 cookies!\n\nThat's it! Does this make sense?", "5", False),
        # a remark with a number in it is no closing remark: its number is not dropped, nor read
        ("So, each friend gets 4 cookies!\n\nThat's it! You should have enough for 5 friends.", "5", False),
    ],
)  # fmt: skip
def test_closing_remarks_are_not_the_answer(pred, gold, equal):
    assert verifiers.check(pred, gold, timeout=5).equivalent is equal


@pytest.mark.parametrize(
    ("pred", "gold", "equal"),
    [
        ("The final answer is:\n\n5,000 - 1,456 = 3,544", "3,544", True),
        ("Answer: 5,000 - 1,456 = 3,544", "3544", True),
        ("Answer: 5,000 - 1,456 = 3,544", "1456", False),
        ("Answer: **Answer:** There will be **84 crayons** in total, spread across the 7 boxes.", "84", True),
        ("Answer: There will be **84 crayons** in total, spread across the 7 boxes.", "7", False),
        ("18 ÷ 3 = 6\n\nAnd that's it! The answer is:\n\n2/3 of 9 is equal to 6.", "6", True),
        ("You will need \\( 3 \\frac{3}{4} \\) cups of flour.", "3 3/4 cups", True),
        ("Answer: 15/4", "3 3/4 cups", True),
        ("Answer: 3/4", "3 3/4 cups", False),
    ],
)  # fmt: skip
def test_values_written_in_sentences_groups_and_mixed_numbers(pred, gold, equal):
    assert verifiers.check(pred, gold, timeout=5).equivalent is equal


@pytest.mark.parametrize(
    ("pred", "gold", "equal"),
    [
        ("x = 3/2 or x = -1/8.\n\nAnswer: $\\boxed{\\frac{3}{2}}$ or $\\boxed{-\\frac{1}{8}}$", "-1/8", False),
        ("Answer: $\\boxed{-\\frac{1}{8}}$", "-1/8", True),
        ("Each leg is $10\\sqrt2$, so the area is $\\frac12(10\\sqrt2)^2$.\n\n**100**", "100", True),
        ("$2^6\\cdot3^3\\cdot11^3 = 132^3$.\n\n**132.**", "132", True),
        ("He would use 9 pages. Check: 9 × 5 = 45 cards.", "45", False),  # the check restates, it does not answer
        ("x = 5.\nCheck: the answer is 6", "6", True),  # a check that states the answer is read
        ("I think it is 5.</think>\n\nAssistant: the number is \\boxed{-4}.", "-4", True),
    ],
)  # fmt: skip
def test_hedges_bold_last_lines_checks_and_labels(pred, gold, equal):
    assert verifiers.check(pred, gold, timeout=5).equivalent is equal


@pytest.mark.parametrize(
    ("pred", "gold", "question", "equal"),
    [
        ("Answer: 15, 14, 6, 4", "{4, 6, 14, 15}", "What are the four integers in increasing order?", False),
        ("Answer: 4, 6, 14, 15", "{4, 6, 14, 15}", "What are the four integers in increasing order?", True),
        ("Answer: 15, 14, 6, 4", "{4, 6, 14, 15}", "What are the four integers?", True),
        # an angle asked as such takes either unit; a real variable keeps the gold's
        ("Answer: $x = \\frac{4\\pi}{15}$", "48^\\circ", "What is the value of $x$ in the diagram?", False),
        ("Answer: $48^\\circ$", "48^\\circ", "What is the value of $x$ in the diagram?", True),
        ("【答案】$150^\\circ$", "$\\frac{5\\pi}{6}$", "当函数取得最大值时, $x=(\\quad)$.", False),
        ("The final answer is $\\frac{\\pi}{2}$.", "$90^{\\circ}$", "则 AB 与 AC 的夹角为 $(\\quad)$.", True),
        ("$(3, 90^\\circ)$", "\\left( 3, \\frac{\\pi}{2} \\right)", "Convert to polar coordinates $(r,\\theta)$.", True),
        ("Therefore the answer is $\\boxed{\\frac{2\\pi}{3}}$.", "120^\\circ",
         "Find the degree measure of the least positive angle $\\theta$ for which ...", False),
        ("6 + 9 = 15\nThere are 15 gallons of water.", "15.0", DRINK, False),
        ("6 + 9 = 15\nThere are 15 liters of water.", "15.0", DRINK, True),
        ("16 − 3 − 4 = 9 eggs remain, and at $2 each that is 18.\nAnswer: She sells 18 eggs.", "18", GSM_EGGS, False),
        ("Answer: She makes 18 dollars.", "18", GSM_EGGS, True),
        ("1750 × 20 + 750 × 30 = 57,500.\nHer salary is $57,500 per month.", "57500.0", SALARY, False),
        ("1750 × 20 + 750 × 30 = 57,500.\nHer salary is $57,500 per year.", "57500.0", SALARY, True),
    ],
)  # fmt: skip
def test_the_quantity_the_question_fixes(pred, gold, question, equal):
    assert verifiers.check(pred, gold, timeout=5, question=question).equivalent is equal


@pytest.mark.parametrize(
    ("pred", "gold", "equal"),
    [
        ("Answer: $[-2, 7]$", "Eq(x, Interval(-2, 7))", True),
        ("Answer: $(-2, 7)$", "Eq(x, Interval(-2, 7))", False),
        ("Answer: $[0, \\infty)$", "Interval(0, oo)", True),  # sympy opens an infinite end
        ("Answer: $[0, \\infty)$", "Interval.open(0, oo)", False),
        (
            "Answer: $(-\\infty, -2) \\cup (3, \\infty)$",
            "Union(Interval.open(-oo, -2), Interval.open(3, oo))",
            True,
        ),
    ],
)
def test_a_gold_stored_as_sympy_printout_is_the_set_it_prints(pred, gold, equal):
    assert verifiers.check(pred, gold, timeout=5).equivalent is equal


def test_an_inequality_is_not_interval_notation_when_it_is_asked():
    q = "Solve $(x-7)(x+2) \\le 0$. Express your answer in interval notation."
    assert not verifiers.check("so the solution is $-2 \\le x \\le 7$.", "[-2,7]", question=q).equivalent
    assert verifiers.check("Answer: $\\left[-2, 7\\right]$", "[-2,7]", question=q).equivalent
