"""Blind sets AL, AN and AO's classes. AL: the s1 format's answer section (`<|im_start|>think ... <|im_start|>answer
Final Answer: ...`) is the response, a percent is no answer to a question that asks how many of something even when
its statement speaks of percentages, and a concluding sentence in number words names the count the question asks for.
AN: `Simplify` asks for simplest radicals, an answer label inside the box, number words after `is` on an answer line, a
code block or a table row as the answer line's value. AO: options written inline after a full-width question mark.
Each verdict follows from the text and the question, decided before the code ran on it."""

from __future__ import annotations

import pytest

import verifiers

S1 = (
    "<|im_start|>think\nTotal = 50 + 105 + 65 + 35 = 255\nPoints missing = 400 - 255 = 145\n"
    "The solution seems consistent.\n<|im_start|>answer\nFinal Answer: The final answer is $\\boxed{{{0}}}$"
)


@pytest.mark.parametrize(
    ("text", "gold", "equal"),
    [
        (S1.format(145), "145", True),
        (S1.format(146), "145", False),
        ("<|im_start|>think\nI think it is 145.\n<|im_start|>answer\n", "145", False),
        ("<|im_start|>think\nSo the answer is 145.", "145", False),
        (
            "Points missing = 400 - 255 = 145\n<|im_start|>answer\nFinal Answer: The final answer is $\\boxed{145}$",
            "145",
            True,
        ),
    ],
)
def test_the_s1_answer_section_is_the_response(text, gold, equal):
    assert verifiers.check(text, gold).equivalent is equal


ENROLLED = (
    "Last year there were 50 students enrolled in a calligraphy class. This year, there was a 20% increase in "
    "enrollment. How many students are enrolled this year in the calligraphy class?"
)


@pytest.mark.parametrize(
    ("text", "gold", "question", "equal"),
    [
        ("50 + 0.2 \\times 50 = 60.\n\n\\boxed{60\\%}", "60", ENROLLED, False),
        ("50 + 0.2 \\times 50 = 60.\n\n\\boxed{60}", "60", ENROLLED, True),
        (
            "\\boxed{25\\%}",
            "25",
            "A shirt costs $20 and is sold for $25. By how many percent did the price rise?",
            True,
        ),
        ("\\boxed{20\\%}", "20", "Of 50 students, 10 wear glasses. What percent wear glasses?", True),
    ],
)
def test_a_percent_is_no_count(text, gold, question, equal):
    assert verifiers.check(text, gold, question=question).equivalent is equal


STEPS = "Elliott walks 10,000 steps a day and has 2,000 left after his jog. How many steps did Elliott take during his jog?"


@pytest.mark.parametrize(
    ("text", "gold", "equal"),
    [
        (
            "10,000 - 2,000 - 5,000 - 1,000 = 2,000.\n\nElliott took two thousand steps during his jog.",
            "2000",
            True,
        ),
        (
            "10,000 - 2,000 - 5,000 - 1,000 = 2,000.\n\nElliott took two thousand steps during his jog.",
            "3000",
            False,
        ),
        ("I tried two ways to count the steps.", "2", False),
    ],
)
def test_a_concluding_sentence_in_number_words(text, gold, equal):
    assert verifiers.check(text, gold, question=STEPS).equivalent is equal


# set AN: radicals under "Simplify", an answer label inside the box, the value after `is` in number words on an
# answer line, an answer line whose value is a code block, and a table row labelled Answer
@pytest.mark.parametrize(
    ("text", "gold", "question", "equal"),
    [
        ("\\sqrt{50}+\\sqrt{18} = \\sqrt{128}.\n\n\\boxed{\\sqrt{128}}", "8\\sqrt{2}", "Simplify $\\sqrt{50} + \\sqrt{18}$.", False),
        ("\\boxed{8\\sqrt{2}}", "8\\sqrt{2}", "Simplify $\\sqrt{50} + \\sqrt{18}$.", True),
        ("\\boxed{\\frac{\\sqrt{3}}{3}}", "\\frac{\\sqrt{3}}{3}", "Simplify $\\frac{1}{\\sqrt{3}}$.", True),
        ("So $E_0 = 12$.\n\n### **最终答案：**\n\n$$\n\\boxed{\\text{Answer: } 12}\n$$", "12", None, True),
        ("So $E_0 = 12$.\n\n$$\\boxed{\\text{Answer: } 13}$$", "12", None, False),
        ("$9^9 \\equiv 5$.\n\nAnswer: the remainder is five.", "5", "What is the remainder when $9^9$ is divided by 8?", True),
        ("$9^9 \\equiv 5$.\n\nAnswer: the remainder is five.", "4", "What is the remainder when $9^9$ is divided by 8?", False),
        ("Eight pairs cost 8 dollars each.\n\nFinal answer:\n```\n64\n```", "64", None, True),
        ("Eight pairs cost 8 dollars each.\n\nFinal answer:\n```\n63\n```", "64", None, False),
        ("| item | value |\n|---|---|\n| pairs | 8 |\n| **Answer** | **64** |", "64", None, True),
        ("| item | value |\n|---|---|\n| pairs | 64 |\n| **Answer** | **8** |", "64", None, False),
    ],
)  # fmt: skip
def test_set_an_forms(text, gold, question, equal):
    assert verifiers.check(text, gold, question=question).equivalent is equal


F_GROWS = (
    "已知函数 $f(x)$ 的定义域为 $R$ ，$f(x) > f(x-1) + f(x-2)$，且当 $x < 3 时 f(x) = x$ ， 则下列结论中一定正确的是？ "
    "A. $f(10) > 100$ B. $f(20) > 1000$ C. $f(10) < 1000$ D. $f(20) < 10000$"
)


# set AO: options written inline after a full-width question mark are options (a letter's content answers it, a
# letter with another option's content does not), and `\text{B. } [-1, 0]` is letter B with its content
@pytest.mark.parametrize(
    ("text", "gold", "equal"),
    [
        ("\\boxed{B.\\ f(10) < 1000}", "B", False),
        ("\\boxed{B.\\ f(20) > 1000}", "B", True),
        ("\\boxed{f(20) > 1000}", "B", True),
        ("\\boxed{f(10) < 1000}", "B", False),
    ],
)
def test_inline_options_after_a_full_width_question_mark(text, gold, equal):
    assert verifiers.check(text, gold, question=F_GROWS).equivalent is equal


def test_a_letter_in_text_braces_keeps_its_content():
    from verifiers import forms

    assert forms.choice("\\text{B. } [-1, 0]") == ("B", "[-1, 0]")
    assert forms.choice("B. [-1, 0]") == ("B", "[-1, 0]")
