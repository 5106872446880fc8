"""Classes found by blind sets AX (tool-calling transcripts, self-refine answers, answer-sheet rows) and AY (Korean
exams with circled options, the Gaokao in Chinese and English), each written from the texts themselves.

Every expected verdict follows from the text: `②` labels the option whose content is 1/2, so `2` is not it; a
gold `3` where every option is a fraction is option ③; `| 9 | A, C, D |` is item 9's answer; a gold written as a
sentence with one number is that number."""

import pytest

import verifiers
from verifiers.extract import extract

LOG = (
    "1보다 큰 두 실수 $a, b$가 $\\log_a b=3$을 만족시킬 때, $\\log_9 ab$의 값은? ① $\\frac{3}{8}$  ② $\\frac{1}{2}$  "
    "③ $\\frac{5}{8}$  ④ $\\frac{3}{4}$  ⑤ $\\frac{7}{8}$"
)
PROB = (
    "임의로 3명을 선택할 때, 적어도 한 명이 과목 B를 선택한 학생일 확률은? ① \\(\\frac{3}{4}\\)  ② \\(\\frac{4}{5}\\)  "
    "③ \\(\\frac{17}{20}\\)  ④ \\(\\frac{9}{10}\\)  ⑤ \\(\\frac{19}{20}\\)"
)
CONT = "연속일 때, 상수 a의 값은? ① 6  ② 7  ③ 8  ④ 9  ⑤ 10"
TANGENT = "직선 $y=5$가 곡선 $y=f(x)$에 접할 때, $f(2)$의 값은? ① 11  ② 12  ③ 13  ④ 14  ⑤ 15"
VECTOR = (
    "Given vector $a = (0, 1)$, $b = (2, x)$. If $b \\perp (b - 4a)$, then we have $x =$\n\nOption A: $-2$\n"
    "Option B: $-1$\nOption C: $1$\nOption D: $2$"
)
CONE = (
    "The radius and the height of the cone are both $\\sqrt{3}$. What is the volume of the cone?\n\nOption A: "
    "$2\\sqrt{3}\\pi$\nOption B: $3\\sqrt{3}\\pi$\nOption C: $6\\sqrt{3}\\pi$\nOption D: $9\\sqrt{3}\\pi$"
)
Z = (
    "Let z = 3 + 2i. Which statements are correct? A. $\\overline{z} = 3 - 2i$ B. $|z| = 5$ C. $z^2 = 5 + 12i$ "
    "D. $z \\ne 0$"
)


H_OPTIONS = (
    "The $$4$$-digit number $$6H74$$ is divisible by $$11$$. What is $$H$$?\nYou are provided with the following "
    "options for your answer:\nA. $$1$$ \nB. $$4$$ \nC. $$5$$ \nD. $$7$$ \nE. $$9$$"
)
SD = (
    "What is the standard deviation of the weights of the packed boxes?\nOptions:\nA. 28.000 pounds\nB. 1.950 pounds\n"
    "C. 2.500 pounds\nD. 4.085 pounds\nE. 3.012 pounds\nF. 3.500 pounds\nG. 5.290 pounds\nH. 2.021 pounds\n"
    "I. 2.250 pounds\nJ. 1.785 pounds"
)
TIMES = (
    "What number multiplied by 4 equals 36?\nOptions:\nA. 11\nB. 10\nC. 12\nD. 6\nE. 15\nF. 9\nG. 7\nH. 8\nI. 13\n"
    "J. 14"
)


@pytest.mark.parametrize(
    ("pred", "gold", "question", "equal"),
    [
        # circled digits label options: `②` is the option 1/2, not the number 2
        ("log_9 ab = 2 이다.", "②", LOG, False),
        ("log_9 ab = 1/2 이므로 답 ②", "②", LOG, True),
        ("따라서 답은 ① 3/8입니다.", "②", LOG, False),
        # a gold stored as the option's number, where no option is that number
        ("확률 = 1 − 84/560 = 476/560", "3", PROB, True),
        ("확률 = 1 − 84/560 = 476/560, 답 ③", "3", PROB, True),
        ('{"answer": 3, "reasoning": "..."}', "3", PROB, True),  # the option's number, repeated
        ("확률 = 4/5", "3", PROB, False),
        ("a = 7 (답 ③)", "2", CONT, False),  # the value is option ②'s, the letter is ③
        ("a = 7 (답 ②)", "2", CONT, True),
        # an option's value left as a computation
        ("a = 1/3 이므로 f(2) = 2^3 + 2^2 - 2 + 4", "④", TANGENT, False),
        ("a = 1/3 이므로 f(2) = 14", "④", TANGENT, True),
        # `Option A:` lines are options
        ("So, the correct answer is:\n\nOption D: \\(2\\)", "D", VECTOR, True),
        ("So, the correct answer is:\n\nOption C: \\(1\\)", "D", VECTOR, False),
        # a letter after a line that states a value no option has
        ("Thể tích hình nón là 3π.\nĐáp án B.", "B", CONE, False),
        ("Thể tích hình nón là 3√3π.\nĐáp án B.", "B", CONE, True),
        # `<ans>` tags, an answer sheet's row
        ("<think>60 - 40 = 20 cups.</think>\n<ans>20</ans>", "20", "How many cups?", True),
        ("<think>60 - 40 = 20 cups.</think>\n<ans>21</ans>", "20", "How many cups?", False),
        ("| 9 | A, C, D |", "ACD", Z, True),
        ("| 9 | A, C |", "ACD", Z, False),
        ("| 12 | $\\dfrac{\\sqrt{66}}{6}$ |", "$\\sqrt{\\dfrac{11}{6}}$", "The eccentricity is ____.", True),
        # number words in a marked answer line
        ("**Final Answer:** He still has two lego sets.", "2", "How many lego sets does he still have?", True),
        ("**Final Answer:** He still has three lego sets.", "2", "How many lego sets does he still have?", False),
        # a bold letter with its value in brackets, options not given
        ("> **答案：A**（$x = 2, y = -3$）", "A", "则（选择题）", True),
        ("> **答案：A**（$x = 2, y = -3$）", "B", "则（选择题）", False),
        # sets AZ and BA: a computation after the answer with another result; a letter after `####`
        ("<answer>4284</answer>\n(9 × 476 = 4248)", "4284", "What is 9 × 476?", False),
        ("<answer>4284</answer>\n(9 × 476 = 4284)", "4284", "What is 9 × 476?", True),
        ("`2676`", "2676", "What is 2676?", True),
        ("By problem, the option corresponding to 9 is E.\nSo our selection is option E. #### E", "E", H_OPTIONS, True),
        ("By problem, the option corresponding to 9 is E.\nSo our selection is option E. #### D", "E", H_OPTIONS, False),
        # a conclusion whose number is another option's content contradicts the letter
        ("9 − H ≡ 0 (mod 11)... so H = 7. The answer is E.", "E", H_OPTIONS, False),
        ("6 - 7 + H - 4 ≡ 0 (mod 11)... so H = 9. The answer is E.", "E", H_OPTIONS, True),
        # set BB: MMLU-Pro's ten options A-J
        ("The answer is (H) 4.085 pounds.", "H", SD, False),  # H is 2.021 pounds
        ("The answer is (H) 2.021 pounds.", "H", SD, True),
        ("SD = sqrt(4.085) ≈ 2.021 pounds. The answer is (h).", "H", SD, True),
        ("The answer is (B) and (H).", "B", SD, False),
        ("The answer is D or F.", "D", SD, False),
        ("36 ÷ 4 = 9. The answer is (F), which is 6.", "F", TIMES, False),
        ("36 ÷ 4 = 9. The answer is (F), which is 9.", "F", TIMES, True),
        ("The answer is 9, which is (G).", "F", TIMES, False),
    ],
)  # fmt: skip
def test_what_the_response_commits_to(pred, gold, question, equal):
    v = verifiers.check(pred, gold, question=question, timeout=5)
    assert v.equivalent is equal, v


@pytest.mark.parametrize(
    ("pred", "gold", "equal"),
    [("270", "The book has 270 pages in total.", True), ("271", "The book has 270 pages in total.", False),
     ("10", "The sides of the rectangle are 10 cm and 7 cm.", False)],
)  # fmt: skip
def test_a_gold_sentence_with_one_number_is_that_number(pred, gold, equal):
    assert verifiers.check(pred, gold, timeout=5).equivalent is equal


def test_an_upper_case_bracketed_label_is_no_bracketed_value():
    assert (
        "TOOL CALL" not in extract("[TOOL CALL] multiply(a=90, b=3) -> 270\nThe book has 270 pages.").answers
    )
