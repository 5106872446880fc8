"""Blind set Q4 (benchmark files as evaluation code keeps them: JEEBench, MatSciBench, SciEval, GSM-Hard, SVAMP,
MathQA, AGIEval; issue 21), measured once on arrival: MathQA's annotated programs store the key as the program that
computes it and its printed value (`n0 = 5.0 ... answer = t3 - 100.0\\nprint(answer)\\n#### 38`): the value after
`####` is the key, as GSM8K's is; and crystal geometry (an angle between lattice directions, a ratio of surface
energies in an FCC metal, a Burgers vector) is materials science, whose options are computed values rounded."""

import pytest
from rule_outcome import offline

PROGRAM = "n0 = 6.0\nn1 = 360.0\nn2 = 10.0\nn3 = 4.0\nt0 = n1 / n0\nt1 = n3 * t0\nanswer = n2 * t1\nprint(answer)\n#### 2400"


def test_a_program_key_is_the_value_it_prints():
    done = offline(
        "running at the same constant rate , 6 identical machines can produce a total of 360 bottles per minute . "
        "at this rate , how many bottles could 10 such machines produce in 4 minutes ?",
        PROGRAM,
    )
    assert (done["status"], done["answer"]) == ("kept", "2400"), done["status"]


def test_a_program_printing_a_float_is_still_a_float():
    done = offline(
        "what will be the difference between simple and compound interest at 14 % per annum on a sum of rs . 1000 "
        "after 4 years ?",
        "n0 = 14.0\nn1 = 1000.0\nt0 = n0 / 100.0\nt1 = t0 + 1.0\nanswer = n1 * t1\nprint(answer)\n#### 128.96016000000077",
    )
    assert done["status"] != "kept"


def test_a_single_assignment_is_no_program():
    # `x = 4` then `#### 4`: one equation, not a program (an equation key stays the rules' as before)
    done = offline("Solve 2x = 8.", "x = 4\n#### 5")
    assert done["answer"] != "5"


@pytest.mark.parametrize(
    "problem, key",
    [
        (
            "In a cubic crystal with a lattice parameter a, if the Burgers vector of a dislocation is (a/2)[1 1 0] and "
            "the dislocation line runs along the [112] direction, what is the angle (in degrees) between them?\n"
            "Options: A. 47.0 / B. 55.0 / C. 65.0 / D. 59.0",
            "B",
        ),
        (
            "For a FCC metal, calculate the ratio of surface energy of {111} surface to {100} surface if only the "
            "nearest neighbor broken bonds contribute. (Round off to two decimal places).\n"
            "Options: A. 1.10 / B. 0.87 / C. 0.97 / D. 0.62",
            "B",
        ),
    ],
)
def test_crystal_geometry_is_materials_science(problem, key):
    # (an integer option of such a statement, `54` for 54.74 degrees, is still kept: NOT_SEEN_Q4)
    assert offline(problem, key)["status"] != "kept"


@pytest.mark.parametrize(
    "problem, key",
    [
        ("Billy and Crystal each have a bag of 9 balls. How many balls do they have together?", "18"),
        ("How many lattice points lie on the segment from (0, 0) to (12, 18), endpoints included?", "7"),
    ],
)
def test_a_name_or_a_lattice_point_is_no_science(problem, key):
    done = offline(problem, key)
    assert (done["status"], done["answer"]) == ("kept", key), done["status"]
