"""Blind set O4 (Hindi, Marathi, Nepali, Arabic and Persian banks, Zambian and Zimbabwean school tests; issue 21),
measured once on arrival: a weight asked of a mass (`What is the weight of an object with a mass of 5 kg on Earth?`,
`the weight of a 15 kg object on Earth`) needs g, which the statement does not give, so an integer key (49, 147) is a
rounding of m*g a solver must confirm; a weight in kilograms asked as a sum is no physics."""

import pytest
from rule_outcome import offline


@pytest.mark.parametrize(
    "problem, key",
    [
        ("What is the weight of an object with a mass of 5 kg on Earth?", "49"),
        ("What is the weight of a 15 kg object on Earth?", "147"),
        ("An object has a mass of 8 kg. What does it weigh in newtons?", "78"),
    ],
)
def test_a_weight_asked_of_a_mass_needs_g(problem, key):
    assert offline(problem, key)["status"].startswith("needs_llm: science/applied statement")


def test_a_weight_summed_in_kilograms_is_no_physics():
    done = offline("Three bags weigh 5 kg, 7 kg and 8 kg. What is their total weight in kg?", "20")
    assert (done["status"], done["answer"]) == ("kept", "20")


# the ZIMSEC revision guide bolds its keys: `\mathbf{14}` had been read as a symbol named 14
@pytest.mark.parametrize(
    "problem, key, value",
    [
        ("Work out 6 + 8.", "$\\mathbf{14}$", "14"),
        ("What is 3 - 11?", "$\\mathbf{-8}$", "-8"),
        ("What is 3 + 4?", "\\textbf{+7}", "7"),
    ],
)
def test_a_bold_key_is_its_value(problem, key, value):
    done = offline(problem, key)
    assert (done["status"], done["answer"]) == ("kept", value), done["status"]
