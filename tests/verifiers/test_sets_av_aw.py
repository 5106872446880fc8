"""Classes found by blind sets AV (Sky-T1 on competition problems, probes on restatements after the answer) and AW
(MGSM, an agent's answers, probes in seven languages), each written from the response's own words.

Every expected verdict follows from the text: `Their profit was $78.` states 78; `2.43 × 10^{17}, so it has 18
digits` concludes 18 (digits asked); `6+12i-3i` is 6+9i with its like terms left apart where the question says
"Evaluate"; `\\frac{6}{q}-\\frac{2}{p}` has not done the subtraction the question asks for."""

import pytest

import verifiers
from verifiers.forms import like_terms_uncombined

PROFIT = "How much profit did he make?"
TOKENS = "Split 24 tokens equally among 3 people. How many does each get?"


@pytest.mark.parametrize(
    ("pred", "gold", "question", "equal"),
    [
        # a last `Tools used:` line lists what an agent used; the answer is before it
        ("After simplification, the expression becomes $\\frac{2(3p - q)}{pq}$.\n\nTools used: math_solver for "
         "step-by-step calculation, GSM8K_Retriever and Orca200k_Retriever for initial knowledge base search.",
         "\\frac{6p-2q}{pq}", "Subtract, then simplify.", True),
        ("Since t must be between 1 and 6, the day is $t = 3$.\n\nTools used: math_solver, web search (no result).",
         "3", "On which day did 160 students have the flu?", True),
        ("Since t must be between 1 and 6, the day is $t = 4$.\n\nTools used: math_solver, web search (no result).",
         "3", "On which day did 160 students have the flu?", False),
        # number words in a last sentence, before a noun of the question or a unit, or after `is` at its end
        ("He made a profit of seventy thousand dollars.", "70000", PROFIT, True),
        ("He made a profit of sixty thousand dollars.", "70000", PROFIT, False),
        ("Each person gets eight tokens.", "8", TOKENS, True),
        ("The pizza weighs 9/5 pounds, so m = 9, n = 5, and the requested difference m - n is four.", "4",
         "What is m-n?", True),
        ("So each person gets two thirds of a token.", "2", TOKENS, False),  # not one integer in words
        ("There are two ways, and each person gets eight tokens.", "8", TOKENS, False),  # two counts, no marker
        ("Each person gets eight tokens, or maybe nine tokens.", "8", TOKENS, False),
        # `was` / `were` before a value
        ("Revenue: 18 + 40 + 35 = 93 dollars. Cost: 15 dollars. Their profit was $78.", "78", PROFIT, True),
        ("Revenue: 18 + 40 + 35 = 93 dollars. Cost: 15 dollars. Their profit was $76.", "78", PROFIT, False),
        ("Answer:\nx = 27 bird families were left near the mountain.", "27",
         "How many bird families were left near the mountain?", True),
        # the clause that concludes after a computation
        ("8^5 · 5^{10} · 15^5 = 2^{15} · 3^5 · 5^{15} = 243 · 10^{15} = 2.43 × 10^{17}, so it has 18 digits.", "18",
         "How many digits are in the base-ten representation of $8^5 \\cdot 5^{10} \\cdot 15^5$?", True),
        ("The odd primes below 30 are 3, 5, 7, 11, 13, 17, 19, 23, 29, so the intersection has no more than 9 "
         "elements.", "9", "How many elements are in the intersection?", False),  # a bound, not a count
        # a size given after the answer restates it
        ("The difference is 2^{1009}, which is roughly 5.5 × 10^{303}.", "2^{1009}", "Find the difference.", True),
        ("The difference is 2^{1008}, which is roughly 2.7 × 10^{303}.", "2^{1009}", "Find the difference.", False),
        # like terms left apart where the question asks to evaluate
        ("Distributing the 6 gives 6 + 12i, and then we subtract 3i:\n\n\\boxed{6+12i-3i}", "6+9i",
         "Evaluate $(1+2i)6-3i$.", False),
        ("Distributing the 6 gives 6 + 12i, and then we subtract 3i:\n\n\\boxed{6+9i}", "6+9i",
         "Evaluate $(1+2i)6-3i$.", True),
        # the subtraction the question asks for, not carried out
        ("Simplify each fraction first: 12/(2q) = 6/q and 6/(3p) = 2/p.\nFinal answer: $\\dfrac{6}{q}-\\dfrac{2}{p}$",
         "\\frac{6p-2q}{pq}", "Subtract the rational expression, then simplify: $\\frac{12}{2q}-\\frac{6}{3p}$", False),
        ("Final answer: $\\dfrac{6p-2q}{pq}$", "\\frac{6p-2q}{pq}",
         "Subtract the rational expression, then simplify: $\\frac{12}{2q}-\\frac{6}{3p}$", True),
    ],
)  # fmt: skip
def test_what_the_response_commits_to(pred, gold, question, equal):
    v = verifiers.check(pred, gold, question=question, timeout=5)
    assert v.equivalent is equal, v


@pytest.mark.parametrize(
    ("answer", "gold", "uncombined"),
    [("6+12i-3i", "6+9i", True), ("3x+2x", "5x", True), ("6+9i", "6+9i", False), ("x+1", "1+x", False),
     ("2x+3", "3+2x", False), ("\\frac{1}{2}+\\frac{1}{3}", "\\frac{5}{6}", False)],
)  # fmt: skip
def test_like_terms_left_apart(answer, gold, uncombined):
    assert like_terms_uncombined(answer, gold) is uncombined
