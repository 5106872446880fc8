"""Classes from blind set BO (reflection traces, Chinese answers after a reflection step, issue 21).

- A count of the question's things where a percentage is asked is another quantity (`Final answer: 60 students` for
  "What percentage of the students ...?"); `60%` or `60 percent` is the percentage.
- Money per another period than the one asked is another quantity, also after a box (`\\boxed{\\$460} per hour` for
  "her earnings for this week").
- A Chinese answer label in bold (`**最终答案**：540 米`) opens an answer sentence, and the one bold value of a
  Chinese answer sentence is its value (`Janet 每天在农贸市场赚取 **18 美元**。`).
"""

import pytest

import verifiers

DANCE = (
    "In a dance class of 20 students, 20% enrolled in contemporary dance, 25% of the remaining enrolled in jazz "
    "dance, and the rest enrolled in hip-hop dance. What percentage of the entire students enrolled in hip-hop dance?"
)


@pytest.mark.parametrize(
    ("pred", "want"),
    [
        ("The hip-hop share is 60% of the class.\n\nFinal answer: 60 students", False),
        ("Final answer: 60%", True),
        ("Final answer: 60 percent", True),
        ("Final answer: 60", True),
    ],
)
def test_a_count_where_a_percentage_is_asked(pred, want):
    assert verifiers.check(pred, "60", question=DANCE).equivalent is want


WAGE = (
    "Eliza's rate per hour for the first 40 hours she works each week is $10. She also receives an overtime pay of "
    "1.2 times her regular hourly rate. If Eliza worked for 45 hours this week, how much are her earnings for this week?"
)


@pytest.mark.parametrize(
    ("pred", "want"),
    [
        ("40 × $10 + 5 × $12 = $400 + $60.\n\n\\boxed{\\$460} per hour", False),
        ("40 × $10 + 5 × $12 = $400 + $60.\n\n\\boxed{\\$460} per week", True),
        ("40 × $10 + 5 × $12 = $400 + $60.\n\n\\boxed{\\$460}", True),
    ],
)
def test_money_per_another_period_than_asked(pred, want):
    assert verifiers.check(pred, "460", question=WAGE).equivalent is want


@pytest.mark.parametrize(
    ("pred", "gold", "want"),
    [
        ("2. **每周总距离**：3 × 180 = 540 米\n\n**最终答案**：540 米", "540", True),
        ("**最终答案**：Janet 每天在农贸市场赚取 **18 美元**。", "18", True),
        ("**最终答案**：Janet 每天在农贸市场赚取 **18 美元**。", "16", False),
        ("**最终答案**：Wendi 喂 **20 杯**，剩下 **5 杯**。", "20", False),  # two bold values: not one answer
    ],
)
def test_a_bold_chinese_answer_label_and_its_bold_value(pred, gold, want):
    assert verifiers.check(pred, gold).equivalent is want
