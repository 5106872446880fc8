"""The classes behind set C's false positives (issue 22, precision first), each tried on answers
other than set C's: a cut-off final box or math span is no answer, a later bold value corrects an
earlier one, `a^b!` is ambiguous,
an equation equals the list of all its roots, a comma is never a decimal point, a single letter keeps its case.
And the recall fixes that came with them must not buy a false positive."""

from __future__ import annotations

import pytest

import verifiers


@pytest.mark.parametrize(
    ("pred", "gold", "equivalent"),
    [
        # a final box that never closes: the answer was cut off, an earlier box is not it
        ("Case n=2 gives \\boxed{8}. Summing all cases, the total is \\boxed{8 + ", "8", False),
        ("So $\\boxed{\\frac{1}{2}}$, and in general \\fbox{", "\\frac12", False),
        ("\\boxed{3} then \\boxed{\\frac{1}{\\boxed{2}}", "3", False),
        ("\\boxed{7}", "7", True),  # a closed final box still counts
        # the response stops inside a math span it opened: nothing is read from its prose
        ("The two answers are $3$ and $", "3", False),
        ("so the area is \\(12\\) plus \\(", "12", False),
        ("The area is $12$.", "12", True),
        ("The price is $18.", "18", True),  # a currency sign opens no span
        ("The total is 2,500.50$", "2500.5", True),
        # a later bold value corrects the answer sentence: the last one wins
        ("The answer is **12**. Wait, I double counted: **10**.", "10", True),
        ("The answer is **12**. Wait, I double counted: **10**.", "12", False),
        ("The answer is **12**.", "12", True),
        # a factorial right after an exponent is ambiguous: equal only to itself
        ("3^2!", "(3^2)!", False),
        ("3^2!", "3^{2!}", False),
        ("x**n!", "(x^n)!", False),
        ("3^2!", "3^2!", True),
        ("3^{2!}", "9", True),  # braced: no ambiguity
        # a comma is not a decimal point
        ("2,5", "2.5", False),
        ("3.75", "3,75", False),
        ("2,500", "2500", True),  # a thousands group still is one
        # single letters are variables: case matters; words do not
        ("y", "Y", False),
        ("Y", "Y", True),
        ("\\text{Yes}", "yes", True),
        # Python's ** is a power, and a one-cell bracketless matrix is its cell
        ("(a-b)**2", "a^2-2ab+b^2", True),
        ("(a-b)**2", "a^2-b^2", False),
        ("t**-1", "\\frac{1}{t}", True),
        ("\\begin{matrix}12\\end{matrix}", "12", True),
        ("\\begin{matrix}1 & 2\\end{matrix}", "1", False),
        ("\\begin{pmatrix}12\\end{pmatrix}", "12", False),
        # an equation against all its roots, either way round; a missing, extra or double root is no match
        ("t^2-1=0", "t=1 \\text{ or } t=-1", True),
        ("t=-1 or t=1", "t^2=1", True),
        ("x^2-5x+6=0", "x=3, x=2", True),
        ("x^2-5x+6=0", "x=3", False),
        ("x^3=x", "x=1 or x=-1", False),
        ("x^2-2x+1=0", "x=1", False),
        ("x^2=1", "y=1 or y=-1", False),
        ("x^2=-1", "x=1 or x=-1", False),
    ],
)
def test_class(pred: str, gold: str, equivalent: bool) -> None:
    assert verifiers.check(pred, gold, timeout=5.0).equivalent is equivalent, verifiers.check(pred, gold)


@pytest.mark.parametrize(
    ("question", "pred", "gold", "equivalent"),
    [
        # set AG: `30%` answers "how many elves" with another quantity (a share), not the count 30
        (
            "Nissa hires 60 elves. A third quit, then 10 more quit. How many elves are left?",
            "Answer: 30%",
            "30",
            False,
        ),
        (
            "An engine runs between 300 C and 80 C. Calculate its Carnot efficiency.",
            "\\boxed{0.38\\%}",
            "0.38",
            False,
        ),
        # a question that names percent in any form, or a gold that writes it, keeps `x%` equal to x
        ("What percent of the elves are left?", "Answer: 30%", "30", True),
        ("50 छात्रों में से 10 अनुपस्थित हैं। कितने प्रतिशत छात्र अनुपस्थित हैं?", "उत्तर 20% है।", "20", True),
        ("Wanafunzi 20 kati ya 80 walipata alama A. Ni asilimia ngapi?", "Jibu ni 25%.", "25", True),
        ("What is the probability of rain?", "Answer: 30%", "0.3", True),  # x/100: the same value
        # set AH: the form a question names, in words or as a sum left undone
        ("Evaluate $27^{-1/3} + 32^{-2/5}$. Express your answer as a common fraction.",
         "$$\\boxed{\\frac{1}{3}+\\frac{1}{4}}$$", "\\frac{7}{12}", False),
        ("Express your answer as a common fraction.", "\\boxed{\\frac{7}{12}}", "\\frac{7}{12}", True),
        ("Express your answer as a common fraction.", "\\boxed{-\\frac{3}{4}}", "-\\frac{3}{4}", True),  # a sign
        ("Write the equation of the line in slope-intercept form.", "It is $\\boxed{2x + y = 1}$.", "y=-2x+1", False),
        ("Write the equation of the line in slope-intercept form.", "It is $\\boxed{y = -2x + 1}$.", "y=-2x+1", True),
        # set AI: an amount in cents for a question priced in dollars is another amount (300 cents is 3 dollars)
        ("A pound of onions costs $1.50. How much do 200 pounds cost?", "#### 300 cents", "300", False),
        ("A pound of onions costs $1.50. How much do 200 pounds cost?", "#### 300 dollars", "300", True),
        ("A pencil costs 25 cents. How many cents do 12 pencils cost?", "#### 300 cents", "300", True),
    ],
)  # fmt: skip
def test_what_the_question_asks_decides(question: str, pred: str, gold: str, equivalent: bool) -> None:
    """Sets AG, AH, AI: a percent, a form or a unit the question names (or does not) decides an equal number."""
    v = verifiers.check(pred, gold, timeout=5, question=question)
    assert v.equivalent is equivalent, (pred, gold, v)
