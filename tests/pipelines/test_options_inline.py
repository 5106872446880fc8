"""Options written after the question on the same line (`... forest? Options: 845 / 833 / 800 / 793`), as quiz files
joined with their option arrays store them (blind set A5, measured once on 3f44063: 143 wrong rewrites kept, 115 of
them an index key read as a value): the `Options:` header is read there too, so an index key is an option's position
(or unresolved), never the number it looks like."""

import pytest
from rule_outcome import offline

from pipelines.classify import find_choices


@pytest.mark.parametrize(
    "problem, key",
    [
        (
            "A divisor leaves remainder 24; twice the number leaves 11. The divisor? Options: 13 / 59 / 35 / 37",
            "3",
        ),
        ("이차방정식 2x^2 - 5x + 3 = 0 의 두 근의 합은? Options: 5/2 / 3/2 / -5/2", "0"),
        ("피타고라스의 수 (3, 4, x)일 때 x는? (빗변) Options: 5 / 6 / 7", "0"),
        (
            "Parrots and tigers: 858 heads and 1,846 legs. Parrots? Options: 1. 845 / 2. 833 / 3. 800 / 4. 793",
            "3",
        ),
    ],
)
def test_an_index_key_after_inline_options_is_not_a_value(problem, key):
    assert offline(problem, key)["status"] != "kept"


def test_inline_options_are_choices_and_a_value_key_names_one():
    problem = "What is 6 × 7? Options: 40 / 42 / 44 / 48"
    assert find_choices(problem)[1] == {"A": "40", "B": "42", "C": "44", "D": "48"}
    done = offline(problem, "42")
    assert (done["status"], done["answer"]) == ("kept", "42"), done["status"]


def test_prose_options_are_no_header():
    """`three options:` in a sentence is prose, not an options line"""
    assert (
        find_choices("A menu has three options: soup, salad and bread. How many meals of two dishes?") is None
    )
