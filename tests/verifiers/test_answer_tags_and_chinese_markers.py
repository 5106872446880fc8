"""Markers real model outputs use that were read as no answer (a blind set of 200 real outputs, 2026-11-29:
24 false negatives, 0 false positives): the R1-style `<answer>...</answer>` tag, Chinese answer
sentences (答案是 / 答案为 / 故选 / 正确答案是), zero-shot-CoT's "the answer (arabic numerals) is", and a
gold that gives the choice letter with its option (`A（$10\\rm i$）`). Labels follow from the texts."""

from __future__ import annotations

import pytest

import verifiers

SELF_CORRECTED = (
    "所以正确答案是A. $\\{1,4,9\\}$。这里有一个错误，正确答案应该是D. $\\{2,3,5\\}$，因为前面算错了。"
    "因此，正确答案是D. $\\{2,3,5\\}$。"
)


@pytest.mark.parametrize(
    ("pred", "gold", "equivalent"),
    [
        ("<think>3 + 4 = 7, 16 - 7 = 9, 9 x 2 = 18</think> <answer>18</answer>", "18", True),
        ("<think>...</think> <answer>18</answer>", "17", False),
        ("</think> <answer> she earns $2 \\times 9 = \\$18 $. </answer>", "18", True),  # an escaped dollar
        ("</think> <answer> she earns $2 \\times 9 = 18$ dollars. </answer>", "18", True),
        ("</think>\n<answer>\nThe answer is 18.\n</answer>", "18", True),
        ("<answer>18</answer> Hmm, or maybe 17.", "18", True),  # words after the tag are not read
        ("\\boxed{17} then, checking again: <answer>18</answer>", "18", True),  # the later marker
        # the tag never closes: the sampler dropped its stop string `</answer>` (vLLM's default), see
        # test_an_unclosed_answer_tag_is_read_unless_cut_off
        ("<think>so it is 18</think> <answer>18", "18", True),
        ("<think>so it is 18</think> <answer>18", "17", False),
        ("Therefore, the answer (arabic numerals) is 7. \n\nI hope this helps!", "7", True),
        ("Therefore, the answer (arabic numerals) is 7. \n\nI hope this helps!", "8", False),
        ("因此，正确答案是选项B。", "B", True),
        ("因此，正确答案是选项B。", "C", False),
        ("故选：B", "B", True),
        ("所以答案为 $12$。", "12", True),
        ("所以答案为 $12$。", "13", False),
        ("答案：12", "12", True),
        (SELF_CORRECTED, "D（$\\{2,3,5\\}$）", True),
        (SELF_CORRECTED, "A", False),
        ("计算得 $10\\rm i$，故选A。", "A（$10\\rm i$）", True),
        ("\\boxed{10i}", "A（$10\\rm i$）", True),
        ("\\boxed{B}", "A（$10\\rm i$）", False),
        ("所以 $z_{\\min}=-\\frac{7}{2}$，答案为 $-\\frac{7}{2}$。", "D（$z_{\\min}=-\\frac{7}{2}$）", True),
    ],
)
def test_answer_tags_chinese_sentences_and_letter_with_option(pred: str, gold: str, equivalent: bool) -> None:
    v = verifiers.check(pred, gold, timeout=5)
    assert v.equivalent is equivalent, (pred, gold, v)


@pytest.mark.parametrize(
    ("pred", "gold", "equivalent"),
    [
        # `\$` is a dollar sign, not a math delimiter: the span `5 and gets \` was read as 5
        ("She pays \\$5 and gets \\$3 back, so she spent \\$2.", "5", False),
        ("She pays \\$5 and gets \\$3 back. The answer is \\$2.", "2", True),
        ("So $x = \\frac{1}{2}$ and the cost is \\$3.", "3", True),
        ("The area is $12$.", "12", True),
    ],
)
def test_an_escaped_dollar_is_currency_not_a_math_delimiter(pred: str, gold: str, equivalent: bool) -> None:
    assert verifiers.check(pred, gold, timeout=5).equivalent is equivalent


# set AG (held-out, 2026-11-29): small RL models' answer lines as they come, each with its question
@pytest.mark.parametrize(
    ("question", "pred", "gold", "equivalent"),
    [
        # an answer sentence with one new number, closed by a tag it never opened
        ("Henry drove 40 miles. How far did he travel between stops?",
         "x = 40 - 15 = 25.\nAnswer: Henry traveled 25 miles between his first and second stops. </answer>", "25", True),
        ("How many jewels does Siobhan have?", "25 - 2 = 23.\nAnswer: Siobhan has 23 jewels. </answer>", "23", True),
        ("How many jewels does Siobhan have?", "25 - 2 = 23.\nAnswer: Siobhan has 24 jewels. </answer>", "23", False),
        # an answer tag that holds a sentence: its one new number
        ("Tom had 30 dollars and sets cost 15. How many lego sets?",
         "30 / 15 = 2 </think>\n<answer> User still has 2 lego sets. </answer>", "2", True),
        # the R1 tag with its `<` lost, at a line's start
        ("How many dozen eggs?", "84 / 12 = 7 </think>\nanswer> 7 dozen eggs </answer>", "7", True),
        ("How long ago was the son born?", "37 - 23 = 14.\nanswer> 14", "14", True),
        ("How long ago was the son born?", "37 - 23 = 14.\nanswer> 15", "14", False),
        # an end-of-sequence token glued to the answer
        ("What was the original price?", "x = 26.\nAnswer: $26.00<end>", "26", True),
        # number words on the answer line, then what they count (the question's word or a unit)
        ("Trey runs 4 more laps than Bethany. How many more laps can Bethany run compared to Quinn?",
         "10 - 5.\n\nFinal answer: five laps", "5", True),
        ("How much does he spend on yogurt over 30 days?", "15 packs.\n\nFinal answer: seventy-five dollars", "75", True),
        ("How much does he spend?", "Final answer: two thirds", "2", False),  # a fraction, not two
        ("How many eggs?", "Final answer: seven dozen", "7", False),  # 84 eggs, not 7
    ],
)  # fmt: skip
def test_answer_lines_of_small_models(question: str, pred: str, gold: str, equivalent: bool) -> None:
    v = verifiers.check(pred, gold, timeout=5, question=question)
    assert v.equivalent is equivalent, (pred, gold, v)


def test_a_chinese_or_written_as_latex_text_joins_solutions():
    assert verifiers.check(
        "(x-2)(x-3)=0\n\n\\boxed{x=3 \\text{ 或 } x=2}", "x=2 或 x=3", timeout=5
    ).equivalent
    assert not verifiers.check("\\boxed{x=3 \\text{ 或 } x=1}", "x=2 或 x=3", timeout=5).equivalent


@pytest.mark.parametrize(
    ("pred", "gold", "equivalent"),
    [
        # Math-Shepherd's step tag `ки` after each step (set AH's openr outputs): no part of the answer
        (
            "So $6 + 9i$. ки\nStep 1: So the final answer is $\\boxed{6+9i}$. The answer is: 6+9i ки\n\n",
            "6+9i",
            True,
        ),
        ("Step 2: The answer is: \\frac{14}{3}ки", "\\frac{14}{3}", True),
        ("Step 2: The answer is: \\frac{14}{5} ки", "\\frac{14}{3}", False),
    ],
)
def test_math_shepherd_step_tags(pred: str, gold: str, equivalent: bool) -> None:
    assert verifiers.check(pred, gold, timeout=5).equivalent is equivalent


@pytest.mark.parametrize(
    ("pred", "gold", "equivalent"),
    [
        # set AJ: an answer asked as a question and retracted at once is no commitment, however often it repeats
        ("We compute.\n" + "Let me reconsider. So the answer is 52? Wait, no.\n" * 6 + "Wait, no. Let me reconsider.", "52", False),
        ("So the answer is 52? Wait, no, it is 48.", "52", False),
        ("So the answer is 52? Yes: the answer is 52.", "52", True),
        ("So the answer is 52.", "52", True),
    ],
)  # fmt: skip
def test_an_answer_asked_as_a_question_is_no_commitment(pred: str, gold: str, equivalent: bool) -> None:
    assert verifiers.check(pred, gold, timeout=5).equivalent is equivalent
