"""Blind set I4 (word-problem datasets, aptitude banks, percent tables; issue 21):

- a question that asks for one stated number in another form (`Value of 33.33%?`, `Convert 0.125 to a fraction.`,
  `What is 0.72 as a percentage?`) has that number as its answer: a key that is not exactly it is rejected, as an
  approximation when the stated decimal is cut or rounded from the key (`33.33%` keyed `1/3`), as a contradiction
  otherwise (`28.56%` keyed `2/7`: 2/7 is 28.571...%, not cut to 28.56);
- a Korean statement that opens on "the number above" (`위의 숫자에서 ...`) or names "the previous problem" (`앞의
  문제`) has lost its context; `책상 위의 사과` ("the apples on the desk") is no reference.
"""

import pytest
from rule_outcome import assert_kept_as, offline


@pytest.mark.parametrize(
    ("problem", "key", "reason"),
    [
        ("Value of 33.33%?", "1/3", "cut or rounded"),
        ("Value of 14.28%?", "1/7", "cut or rounded"),
        ("Value of 4.166%?", "1/24", "cut or rounded"),
        ("Value of 66.66%?", "2/3", "cut or rounded"),
        ("Value of 28.56%?", "2/7", "contradicts"),
        ("Convert 1/3 to a decimal.", "0.333", "cut or rounded"),
        ("Express 45% as a fraction in lowest terms.", "9/25", "contradicts"),
    ],
)
def test_a_conversion_keyed_with_another_number_is_rejected(problem, key, reason):
    done = offline(problem, key)
    assert done["status"].startswith("rejected") and reason in done["status"], done["status"]


@pytest.mark.parametrize(
    ("problem", "key", "kept"),
    [
        ("Value of 16.66% or 16 2/3%?", "1/6", "7"),  # the exact alternative is the value
        ("Value of 12.5%?", "1/8", "9"),
        ("Value of 150%?", "3/2", "5"),
        ("What is 0.72 as a percentage?", "72%", "72"),
        ("Write 2.5 as a fraction.", "5/2", "7"),
    ],
)
def test_a_conversion_keyed_with_its_own_number_is_kept(problem, key, kept):
    assert_kept_as(offline(problem, key), kept)


@pytest.mark.parametrize(
    "problem",
    [
        "위의 숫자에서 a와 b는 각각 십 자리와 단위 자리를 나타냅니다. 위의 숫자를 45로 나눌 수 있다면 bxa의 가능한 최대 값은 얼마입니까?",
        "앞의 문제에서 구한 수에 3을 더하면 얼마입니까?",
    ],
)
def test_a_korean_reference_to_what_came_before_is_lost_context(problem):
    assert offline(problem, "35")["status"] == "rejected:refers_to_other_problem"


def test_on_the_desk_is_no_reference():
    done = offline("책상 위의 사과는 5개이고, 바구니에는 7개가 있습니다. 사과는 모두 몇 개입니까?", "12")
    assert done["status"] != "rejected:refers_to_other_problem", done["status"]
