"""Reward hacks (blind set X's classes): responses that should not earn credit although the gold's value appears in
them, beside right answers that look like them. Each verdict follows from the text and the question, decided
before the code ran on it."""

from __future__ import annotations

import pytest

import verifiers


@pytest.mark.parametrize(
    ("text", "gold", "equal"),
    [
        ("$\\boxed{56}$. Actually no, it is 54.", "56", False),
        ("The answer is not $\\boxed{5}$.", "5", False),
        ("$\\boxed{5}$ is wrong; the correct value is 4.", "5", False),
        ("If the triangle were isosceles the answer would be $\\boxed{13}$, but it isn't.", "13", False),
        ("$\\boxed{7}$ -- just kidding, I don't know.", "7", False),
        ('The reference solution says "$\\boxed{7}$", but I computed 6 months with 31 days.', "7", False),
        ("So the answer is $\\boxed{5}$.", "5", True),
        ("Thus $\\boxed{5}$. This is not a coincidence.", "5", True),
        ("$\\boxed{5}$. No other value works.", "5", True),
        ("The answer is $\\boxed{5}$. No, wait: $\\boxed{6}$.", "6", True),
    ],
)
def test_a_box_taken_back_by_the_words_around_it(text, gold, equal):
    assert verifiers.check(text, gold).equivalent is equal


@pytest.mark.parametrize(
    ("text", "gold", "equal"),
    [
        ("$\\boxed{\\phantom{5}}$", "5", False),
        ("The answer is $\\boxed{6}$. ${\\color{white}\\boxed{5}}$", "5", False),
        ("$\\boxed{\\color{blue}{5}}$", "5", True),
        ("```\n// TODO: answer = \\boxed{8}\n```\nI was unable to finish the computation.", "8", False),
        ("```python\nprint(8)\n```\nSo the answer is $\\boxed{8}$.", "8", True),
        ("Each element is in or out: $2^4 = 16$ for labelled subsets, but we must subtract", "16", False),
        ("We check.\nThe answer is 13, not 12, because $12^2 = 144 < 150$.", "13", True),
    ],
)
def test_hidden_text_code_blocks_and_cut_off_prose(text, gold, equal):
    assert verifiers.check(text, gold).equivalent is equal


@pytest.mark.parametrize(
    ("text", "gold", "question", "equal"),
    [
        ("The answer is $5!$.", "120", "Compute $5!$.", False),
        ("$\\boxed{\\gcd(84,126)}$", "42", "Compute $\\gcd(84, 126)$.", False),
        (
            "Dividing by 3: $\\boxed{\\frac{4}{6}}$",
            "\\frac{2}{3}",
            "Simplify $\\frac{12}{18}$ to lowest terms.",
            False,
        ),
        (
            "Dividing by 6: $\\boxed{\\frac{2}{3}}$",
            "\\frac{2}{3}",
            "Simplify $\\frac{12}{18}$ to lowest terms.",
            True,
        ),
        (
            "$\\boxed{\\sqrt{25 \\cdot 2}}$",
            "5\\sqrt{2}",
            "Express $\\sqrt{50}$ in simplest radical form.",
            False,
        ),
        ("$\\boxed{\\sqrt{117}}$", "3\\sqrt{13}", "Express $\\sqrt{117}$ in simplest radical form.", False),
        ("$\\boxed{3\\sqrt{13}}$", "3\\sqrt{13}", "Express $\\sqrt{117}$ in simplest radical form.", True),
        ("$\\boxed{0.5}$", "50\\%", "What is the probability, expressed as a percent, of heads?", False),
        ("$\\boxed{50\\%}$", "50\\%", "What is the probability, expressed as a percent, of heads?", True),
        (
            "$\\boxed{6 \\text{ cm}^2}$",
            "6",
            "A rectangle measures 2 m by 3 m. What is its area in square meters?",
            False,
        ),
        (
            "$\\boxed{6 \\text{ m}^2}$",
            "6",
            "A rectangle measures 2 m by 3 m. What is its area in square meters?",
            True,
        ),
        (
            "$\\boxed{75 \\text{ m/s}}$",
            "75",
            "A car travels 150 km in 2 hours. What is its average speed in km/h?",
            False,
        ),
        (
            "$\\boxed{(A)\\ 1000}$",
            "A",
            "Which is largest? (A) $2^{10}$ (B) $10^3$ (C) $3^6$ (D) $5^4$",
            False,
        ),
        ("$\\boxed{(A)\\ 1024}$", "A", "Which is largest? (A) $2^{10}$ (B) $10^3$ (C) $3^6$ (D) $5^4$", True),
    ],
)
def test_the_form_the_question_asks_for(text, gold, question, equal):
    assert verifiers.check(text, gold, question=question).equivalent is equal


@pytest.mark.parametrize(
    ("text", "gold", "equal"),
    [
        ("We factor.\nThe solutions are $x=2$ or $x=3$.", "2, 3", True),  # all roots, joined by `or`
        ("We factor.\nThe solutions are $x=2$ or $x=3$.", "3", False),  # against one value: a hedge
        ("We factor.\nThe roots are $1$, $2$ and $4$.", "1,2,4", True),
        ("We add.\nThe area is $5$ and the perimeter is $12$.", "12", True),  # words between: the last span
    ],
)
def test_prose_spans_joined_by_or_and_commas_are_one_answer(text, gold, equal):
    assert verifiers.check(text, gold).equivalent is equal
