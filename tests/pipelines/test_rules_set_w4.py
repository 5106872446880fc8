"""Blind set W4 (multiple-choice items as quiz banks and exam files store them; issue 21), measured once on arrival
(wrong kept 5, 2 of them keys the labeller found wrong; right kept 44/145): a bare one-digit key among options the
source did not letter names an option by its value or by its position (quiz exports key by 0- or 1-based index), so
when the position is another option's the key is unresolved; a stem that is an empty template (option slots and a
note, no question) asks nothing."""

import pytest
from rule_outcome import offline


@pytest.mark.parametrize(
    "problem, key",
    [
        (
            "Solve: log₁₀ 1000 = ?\nOptions: 1 / 3 / 10 / 100",
            "1",
        ),  # the value 1, or the option at position 1 (3)?
        ("How many sides does a hexagon have?\nOptions: 4 / 5 / 6 / 8", "4"),  # 4, or the 4th option (8)?
    ],
)
def test_a_digit_key_among_unlettered_options_is_value_or_position(problem, key):
    assert offline(problem, key)["status"] != "kept"


@pytest.mark.parametrize(
    "problem, key, integer",
    [
        ("How many sides does a hexagon have?\n(A) 4 (B) 5 (C) 6 (D) 8", "6", "6"),  # lettered: a value
        ("How many days are in a week?\nOptions: 12 / 7 / 9 / 15", "7", "7"),  # no 7th or 8th option: a value
        (
            "How many days are in a week?\nOptions: ① 12 / ② 7 / ③ 9 / ④ 15",
            "2",
            "7",
        ),  # circled labels: `2` is ②
    ],
)
def test_a_value_key_stays_a_value_where_no_position_is_another_option(problem, key, integer):
    done = offline(problem, key)
    assert (done["status"], done["answer"]) == ("kept", integer), done["status"]


def test_an_empty_template_stem_asks_nothing():
    problem = "$A: $\n$B: $\n$C: $\n$D: $\n[Suggested time: 2 minutes]\nOptions: A: 10 / B: 2 / C: 3 / D: 4"
    assert offline(problem, "B")["status"] != "kept"
    done = offline(
        "$2^{10}$\nA. 1024 B. 512 C. 2048 D. 100", "A"
    )  # a stem that is all mathematics still asks
    assert (done["status"], done["answer"]) == ("kept", "1024")
