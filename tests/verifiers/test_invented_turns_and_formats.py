"""Classes of blind set T (small models' real outputs): the verdict each text below deserves follows from the
text itself and was decided before the code ran on it.

- A turn the model invented after its answer (`User: ...`, `Assistant: ...`, `# Query:`) is the next message of
  an imagined conversation: its answers answer other questions. `Question:` / `Q:` (a few-shot prompt's next item)
  ends the response only when the text before it already has an answer.
- `[; x ;]` is an inline-math delimiter some models learned from web text.
- An `<answer>` tag that never closes is read by a finished box after it; otherwise its content is the answer
  when it is whole (a stop string dropped), and nothing when it stops mid-line or the response was cut off.
- An answer-first format (`$450` on the first line, then `Explanation:`) commits to its first line.
- With the question known, a concluding sentence with several numbers names the one the question does not hold.
"""

from __future__ import annotations

import pytest

import verifiers
from verifiers import extract


@pytest.fixture(scope="module", autouse=True)
def _warm():
    verifiers.warmup()


def test_an_invented_user_turn_ends_the_response():
    text = (
        "The roots are -2 and 7, so the answer is $[-2, 7]$.\n"
        "User: What is x in 2x + 3 = 7?\nAssistant: <think> 2x = 4 </think> Answer: $x = 2$"
    )
    assert extract(text).answer == "[-2, 7]"
    assert verifiers.check(text, "[-2,7]").equivalent
    assert not verifiers.check(text, "2").equivalent


def test_an_answer_given_only_inside_an_invented_turn_is_not_this_responses_answer():
    text = (
        "Let me think about the costs first.\n\nAssistant: User: How much did the house cost?\nAnswer: 130000"
    )
    assert not verifiers.check(text, "130000").equivalent


def test_a_repeated_few_shot_query_after_the_answer_is_cut():
    text = (
        "The correct answer is B.\n```\n\n# Query:\n```Answer the following multiple choice question.\n"
        "Question: Find the degree.\nA. 0\nB. 4\nC. 2\nD. 6\nAnswer:```\n\n# Answer:\n```\nThe correct answer is B.\n```"
    )
    assert verifiers.check(text, "B").equivalent
    assert not verifiers.check(text, "C").equivalent


def test_a_next_question_cuts_only_after_an_answer():
    answered = "So the answer is 18.\n\nQuestion: Tom has 3 apples and buys 5 more. Answer: 8"
    assert extract(answered).answer == "18"
    restated = "Question: what is 2+3?\nWe add them.\nAnswer: 5"
    assert extract(restated).answer == "5"  # nothing before the restated question: not cut


def test_a_user_turn_at_the_very_start_is_not_an_invented_turn():
    assert extract("User: solve 2+2\nAnswer: 4").answer == "4"


@pytest.mark.parametrize(
    ("text", "gold", "equal"), [("<answer> [; 9; ] </answer>", "9", True), ("[;9;]", "8", False)]
)
def test_semicolon_bracket_math_delimiters(text, gold, equal):
    assert verifiers.check(text, gold).equivalent is equal


def test_an_unclosed_answer_tag_followed_by_a_finished_box_is_read_by_the_box():
    text = "</think> <answer> Therefore, the distance covered by each train in the two days is \\boxed{230} miles."
    assert verifiers.check(text, "230").equivalent
    redone = "<answer>76.6666666666667<end answer>\nLet me redo it: the average is 240/3 = 80.\n\\boxed{80}"
    assert verifiers.check(redone, "80").equivalent
    cut = "</think> <answer> The total is 4 * 45 + 20 * 15 = "
    assert extract(cut).answers == ()  # cut off inside its answer: nothing read
    assert not verifiers.check("<answer> 12 and then \\boxed{12", "12").equivalent  # the box never closes


# Set AP (2026-11-30, blind): 20 R1-format responses stored without their closing tag, every one labelled by its
# content. A sampler stopped at `</answer>` drops the stop string unless told to keep it (vLLM's
# `include_stop_str_in_output=False`), so the tag's whole content is the answer; a response the caller knows was
# cut off at its token limit (`cut_off=True`), or whose content stops mid-line, is not read.
@pytest.mark.parametrize(
    ("text", "gold", "cut_off", "equal"),
    [
        ("... the solutions are $x=-3$ and $x=2$. </think> <answer> 2 ", "2", False, True),
        ("... the solutions are $x=-3$ and $x=2$. </think> <answer> 2 ", "-3", False, False),
        ("... the solutions are $x=-3$ and $x=2$. </think> <answer> 2 ", "2", True, False),
        ("</think> <answer> a_100 = 6 + (100 - 1)4 = 6 + 396 = 402. ", "402", False, True),
        ("</think> <answer> $\\sqrt{(-8)^2 + 6^2} = \\sqrt{100} = 10$. ", "10", False, True),
        ("the rate is 7%.</think>\nAssistant: <answer>7", "7", False, True),
        (
            "</think> <answer> The range of $f(x) = \\sqrt{x^2}$ is $[0, \\infty)$. ",
            "[0,\\infty)",
            False,
            True,
        ),
        ("</think> <answer> $\\frac{1", "1", False, False),  # stops inside its math
        ("</think> <answer> The total is 4 * 45 + 20 * 15 = ", "200", False, False),
    ],
)
def test_an_unclosed_answer_tag_is_read_unless_cut_off(text, gold, cut_off, equal):
    assert verifiers.check(text, gold, cut_off=cut_off).equivalent is equal


@pytest.mark.parametrize(
    ("text", "gold", "equal"),
    [
        (
            "$450\nExplanation: 40 hours x $10 = $400\n5 hours x $12 = $60\nTotal = $400 + $60 = $460",
            "460",
            False,
        ),
        (
            "$450\nExplanation: 40 hours x $10 = $400\n5 hours x $12 = $60\nTotal = $400 + $60 = $460",
            "450",
            True,
        ),
        ("1800 meters\nExplanation:  60 meters x 3 sprints x 3 times a week = 1800 meters", "1800", True),
    ],
)
def test_an_answer_first_format_commits_to_its_first_line(text, gold, equal):
    assert verifiers.check(text, gold).equivalent is equal


def test_a_first_line_of_words_before_an_explanation_is_no_headline():
    text = "Let me see\nExplanation: the sum is 3 + 4.\nSo the answer is 7."
    assert extract(text).answer == "7"


QUESTION = (
    "Kylar went to buy 16 glasses. One glass costs $5, every second one 60% of that. How much does he pay?"
)


@pytest.mark.parametrize(
    ("text", "gold", "question", "equal"),
    [
        ("We add up.\n\nTherefore, Kylar needs to pay $64 for the 16 glasses.", "64", QUESTION, True),
        ("We add up.\n\nTherefore, Kylar needs to pay $64 for the 16 glasses.", "16", QUESTION, False),
        (
            "We add up.\n\nTherefore, Kylar needs to pay $64 for the 16 glasses.",
            "64",
            None,
            False,
        ),  # no question
        (
            "We add up.\n\nTherefore, Kylar pays $64 for 12 of the glasses.",
            "64",
            QUESTION,
            False,
        ),  # two new numbers
        (
            "We add up.\n\nTherefore, Kylar does not pay $64 for the 16 glasses.",
            "64",
            QUESTION,
            False,
        ),  # negation
        (
            "We add up.\n\nTherefore, Kylar pays at least $60 for the 16 glasses.",
            "60",
            QUESTION,
            False,
        ),  # qualified
        (
            "196 = 2^2 * 7^2, so (2+1)(2+1) = 9. <answer>Therefore, there are 9 positive divisors of 196.</answer>",
            "9",
            "How many positive whole-number divisors does 196 have?",
            True,
        ),
    ],
)
def test_a_concluding_sentence_read_with_its_question(text, gold, question, equal):
    assert verifiers.check(text, gold, question=question).equivalent is equal


@pytest.mark.parametrize(
    "text",
    ["Answer: 8 + 5", "Answer: 8 x 5", "Answer: 8 * 5 apples", "Answer: 8 to 5", "Therefore, 8-5 of them."],
)
def test_arithmetic_or_a_range_is_never_read_as_its_first_number(text):
    question = "She has 5 apples and buys some more. How many now?"
    assert not verifiers.check(text, "8", question=question).equivalent


# set U: structured answers and critics' verdicts
JSON_RESPONSE = (
    'Here is the solution in the requested JSON format:\n\n```json\n{\n    "reasoning": "a + b = 5 and ab = 9,\n'
    '       so (a-1)(b-1) = 9 - 5 + 1 = 5.",\n    "answer": "5"\n}\n```'
)


@pytest.mark.parametrize(
    ("text", "gold", "equal"),
    [
        (JSON_RESPONSE, "5", True),
        (JSON_RESPONSE, "9", False),
        ('{"reasoning": "C(8,2) ways.", "answer": 28}', "28", True),  # a number, not a string
        ('{"final_answer": "\\\\frac{1}{2}"}', "\\frac12", True),
        ('{"reasoning": "the total is 12", "answer": ""}', "12", False),  # an empty field is no answer
        ('{"reasoning": "the total is 12", "answer": "1', "12", False),  # cut off inside the field
    ],
)
def test_a_json_answer_field(text, gold, equal):
    assert verifiers.check(text, gold).equivalent is equal


@pytest.mark.parametrize(
    ("text", "gold", "equal"),
    [
        (
            "Step 2 adds the times.\n\nFinal Judgement: incorrect\n\nFirst Error Step: 1\n\nError Analysis: ...",
            "wrong",
            True,
        ),
        ("Step 2 adds the times.\n\nFinal Judgement: incorrect", "correct", False),
        ("The answer is $18.\nJudgement: Correct.", "Correct", True),
        ("The answer is $18.\nJudgement: Correct.", "wrong", False),
    ],
)
def test_a_critics_judgement_line(text, gold, equal):
    assert verifiers.check(text, gold).equivalent is equal


# set V: multi-part Gaokao answers, named quantities, bold answers, headings and remarks
@pytest.mark.parametrize(
    ("text", "gold", "equal"),
    [
        (
            "由勾股定理得 $AC=3\\sqrt2$。\n所以，所成角的正弦值为 $\\frac{\\sqrt{6}}{3}$。",
            "（1）证明见解析；（2）\\(\\dfrac{\\sqrt{6}}{3}\\)",
            True,
        ),
        (
            "由勾股定理得 $AC=3\\sqrt2$。\n所以，所成角的正弦值为 $\\frac{\\sqrt{3}}{3}$。",
            "（1）证明见解析；（2）\\(\\dfrac{\\sqrt{6}}{3}\\)",
            False,
        ),
        (
            "（1）$\\cos A = \\dfrac{1}{3}$；（2）$CE = 3\\sqrt{5}$",
            "（1）\\(\\cos A=\\dfrac13\\)。\n\n（2）\\(CE=3\\sqrt5\\)。",
            True,
        ),
        (
            "（1）$\\cos A = \\dfrac{1}{3}$；（2）$CE = 2\\sqrt{5}$",
            "（1）\\(\\cos A=\\dfrac13\\)。\n\n（2）\\(CE=3\\sqrt5\\)。",
            False,
        ),
        ("答案：$\\boxed{0}$", "\\[ \\mathbb{E}[W_\\tau] = 0, \\]", True),
        ("$\\boxed{\\mathbb{E}[\\tau]}$", "\\[ \\mathbb{E}[W_\\tau^2] = \\mathbb{E}[\\tau]. \\]", True),
        ("$\\boxed{1}$", "x^2+y^2=1", False),  # an equation of a curve is no named quantity
        ("The correct answer is (H) False, True.", "H", True),
        ("The correct answer is (H) False, True.", "G", False),
        ("Thus the value is $\\boldsymbol{\\frac{\\sqrt{6}}{3}}$.", "\\frac{\\sqrt6}{3}", True),
        ("#### (2) 求周长\n解得 $a=2$, $c=1$.\n故周长为 $3+\\sqrt{2}$。", "3+\\sqrt{2}", True),
        (
            "由 $a+c=3$ 得。\n故周长为 $L=3+\\sqrt2$.\n\n（注：三边长为 $1,\\ \\sqrt2,\\ 2$。）",
            "3+\\sqrt{2}",
            True,
        ),
    ],
)
def test_multi_part_and_named_answers(text, gold, equal):
    assert verifiers.check(text, gold).equivalent is equal


@pytest.mark.parametrize(
    ("answer", "equal"),
    [("(6-2x)(6+2x)", False), ("4(3-x)(3+x)", True), ("-4(x-3)(x+3)", True)],
)
def test_factor_completely_means_no_common_factor_left_in_a_factor(answer, equal):
    question = "Factor $36-4x^2$ completely."
    assert verifiers.check(f"\\boxed{{{answer}}}", "4(3-x)(3+x)", question=question).equivalent is equal
    assert verifiers.check(
        f"\\boxed{{{answer}}}", "4(3-x)(3+x)"
    ).equivalent  # without the question: equal values


# set W: a program followed by the value it printed (PaL)
PAL = (
    "def solution():\n    money_initial = 60\n    spent = money_initial / 4\n    result = 2 * money_initial - spent - 20\n"
    "    return result\n>>> 85.0"
)


@pytest.mark.parametrize(("text", "gold", "equal"), [(PAL, "85", True), (PAL, "80", False)])
def test_a_programs_printed_value(text, gold, equal):
    assert verifiers.check(text, gold).equivalent is equal
