"""Blind set N4 (number theory and counting banks; issue 21), measured once on arrival, then its classes, each written
here from its statement:

- a key labelled `Final Answer:` (`Final Answer: **144**`) or wrapped in a quiz page's HTML (`<strong>Answer:</strong>
  3613<sub>10</sub><br/>`) is read at its value; a base-10 subscript names a decimal numeral.
- a count written in combinatorics notation (`C(100, 15)`, `26P3`, `\\binom{10}{6}`) is that count, exactly.
- a numeral in another base is no integer: a key with a base subscript (`12_5`, `1000111_{2}`), a conversion asked into
  a base by name or number (`Hexadecimal to binary`, `Convert 7 to base 5.`) or a blank with the base under it
  (`$$194=\\_\\_\\_\\__5$$`); a conversion to decimal is an integer.
"""

import pytest
from rule_outcome import offline


@pytest.mark.parametrize(
    "problem, key, value",
    [
        ("Find the greatest common factor of 432 and 720.", "Final Answer: **144**", "144"),
        (
            "Convert 111000011101 from binary to decimal.",
            "<strong>Answer:</strong> 3613<sub>10</sub><br/>",
            "3613",
        ),
        (
            "In how many ways can a committee of 15 be chosen from 100 people?",
            "C(100, 15)",
            "253338471349988640",
        ),
        (
            "How many 3-letter codes with distinct letters can be made from 26 letters?",
            "**Answer**: 26P3",
            "15600",
        ),
        ("In how many ways can 6 of 10 books be chosen?", "\\binom{10}{6}", "210"),
        ("Convert 1011 from binary to decimal.", "11", "11"),
    ],
)
def test_labelled_html_and_counting_keys_are_read_at_their_value(problem, key, value):
    done = offline(problem, key)
    assert (done["status"], done["answer"]) == ("kept", value), done["status"]


@pytest.mark.parametrize(
    "problem, key",
    [
        ("Hexadecimal to binary: 0xff", "255"),
        ("Convert 7 to base 5.", "12"),
        ("Convert 7 to base 5.", "12_5"),
        ("$$194=\\_\\_\\_\\__5$$", "Final Answer: **1234**"),
        ("Convert 71 into binary.", "<strong>Answer:</strong> 1000111<sub>2</sub>"),
        ("What is 3 + 4 in base 5?", "12_{5}"),
    ],
)
def test_a_numeral_in_another_base_is_no_integer(problem, key):
    assert offline(problem, key)["status"] != "kept"


def test_a_base_subscript_on_a_key_is_never_dropped():
    assert offline("What is 3 + 4?", "12_5")["status"].startswith("needs_llm: a numeral in base 5")
