"""An unknown fixed only through its square (blind set R3, issue 21 item 4): `If $n^2 = 576$, what is $(n+1)^2$?`
is 625 for n = 24 and 529 for n = -24, and the statement does not choose. Every expected outcome follows from the
statement as written: a named sign, another equation with a number for its value, a curve, or an asked expression
that is even in the unknowns leaves one answer."""

import pytest
from rule_outcome import assert_kept_as, offline

from pipelines.classify import sign_unfixed


@pytest.mark.parametrize(
    ("problem", "key", "kept"),
    [
        ("If $n^2 = 576$, what is $(n+1)^2$?", "625", None),
        ("If $\\dfrac{x}{2} = \\dfrac{y}{3} = \\dfrac{z}{4}$ and $x^2 + y^2 + z^2 = 116$, what is $x + y + z$?",
         "18", None),
        ("If $x:y:z = 1:2:3$ and $x^2 + y^2 + z^2 = 56$, find $xyz$.", "48", None),
        # a sign named, another equation with a value, an even expression: one answer, the key is kept
        ("If $n$ is a positive integer and $n^2 = 576$, what is $(n+1)^2$?", "625", "625"),
        ("If $x + y + z = 10$ and $x^2 + y^2 + z^2 = 40$, find $xy + yz + zx$.", "30", "30"),
        ("If $x^2 = 16$, what is $x^2 + 1$?", "17", "17"),
    ],
)  # fmt: skip
def test_a_square_leaves_the_sign_open(problem, key, kept):
    assert_kept_as(offline(problem, key), kept)


@pytest.mark.parametrize(
    ("text", "open_"),
    [
        ("If $n^2 = 576$, what is $(n+1)^2$?", True),
        ("If $x^2 = 16$, what is $\\frac{x^4}{2}$?", False),  # even in x
        ("The circle $x^2+y^2=25$ meets the line $y = 3$. Find $x$.", False),  # a curve: another question
        ("Real numbers $x$ and $y$ satisfy $x^2+y^2=14x-4y-53$. What is $x+y$?", False),  # no number on the right
        ("Determine the value of $ab$ if $\\log_8a+\\log_4b^2=5$ and $\\log_8b+\\log_4a^2=7$.", False),
        ("Suppose integers $a < b < c$ satisfy $a^2 + b^2 + c^2 = 3083$. Find $c$.", True),  # (-c, -b, -a) too
        ("Suppose integers $a < b < c$ satisfy $a + b + c = 95$ and $a^2 + b^2 + c^2 = 3083$. Find $c$.", False),
    ],
)  # fmt: skip
def test_sign_unfixed(text, open_):
    assert sign_unfixed(text) is open_


@pytest.mark.parametrize(
    ("problem", "kept"),
    [
        # set T3 (Macedonian bank): "as shown in the picture" points at a figure the text lacks, as `as shown` does
        ("Седум идентични правоаголници се поставени на бројна оска еден до друг, како што е прикажано на сликата. "
         "Некои од броевите што одговараат на темињата се (-4), (-1), (+3) и ★. Која е вредноста на ★?", None),
        # "in the picture" alone, as in English, is not read as a missing figure: the numbers are in the text
        ("Авионот на сликата се наоѓа на висина од 8 537 метри над нивото на морето, додека подморницата се наоѓа "
         "248 метри под нивото на морето. Колку метри има меѓу авионот и подморницата?", "8785"),
    ],
)  # fmt: skip
def test_a_figure_shown_in_macedonian(problem, kept):
    done = offline(problem, "6" if kept is None else kept)
    assert_kept_as(done, kept)
    if kept is None:
        assert done["status"] == "rejected:needs_diagram", done["status"]


@pytest.mark.parametrize(
    ("problem", "key", "kept"),
    [
        # set U3: a key's combinatorics is its working, checked exactly (`7! = 5,040`: the working fixes the commas)
        ("In how many ways can 7 people stand in a line?", "7! = 5,040", "5040"),
        ("In how many ways can 6 books be chosen from 10?", "10C6 = 210", "210"),
        ("How many arrangements of the letters of MISSISSIPPI are there?", "11!/(4!×4!×2!) = 34,650", "34650"),
        ("How many committees of 3 can be chosen from 10 people?", "$C(10,3)=120$", "120"),
        ("How many committees of 3 can be chosen from 10 people?", "\\binom{10}{3} = 120", "120"),
        ("In how many ways can 6 books be chosen from 10?", "10C6 = 200", None),  # the working gives 210
        # a number that is a coefficient in an option is not that option's value
        ("Which expression is equivalent to (3x^4)^3?\nOptions: A. 3x¹² / B. 9x¹² / C. 27x⁷ / D. 27x¹²", "3", None),
    ],
)  # fmt: skip
def test_a_keys_combinatorics_and_an_options_coefficient(problem, key, kept):
    assert_kept_as(offline(problem, key), kept)
