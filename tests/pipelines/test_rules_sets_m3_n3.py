"""Blind rule sets M3 (non-English worksheets: German physics, Spanish chemistry, Japanese word problems) and N3
(science, engineering economics, MATHCOUNTS), 2026-11-30. Their classes: a science statement written in another
language, with a physics text's unit markup (`\\qty{20}{\\degreeCelsius}`) or in degrees Celsius is a science
statement (its key depends on constants and rounding), and "most nearly" asks for an approximation.
Every expected outcome follows from the statement and key as written: 6 g in 46 g of solution is 13.04...%, not 13%;
1013 Pa at 20 °C heated to 80 °C is 1220.3 Pa with the 273.15 of the Kelvin scale; the tractor's uniform annual cost
is 812.07 dollars, and "most nearly" is the statement's own word that the key is rounded."""

import pytest
from rule_outcome import assert_kept_as, offline

from pipelines.classify import science_signals


@pytest.mark.parametrize(
    ("problem", "key"),
    [
        ("Calcula el porcentaje en masa de una disolución de 6 g de cloruro de potasio en 40 g de agua.", "13%"),
        ("En un recipiente de 10,0 litros se introduce determinada cantidad de gas. La temperatura es de "
         "\\qty{20}{\\degreeCelsius} y la presión de 1013 Pa. ¿Cuál será la presión si la temperatura se eleva hasta "
         "\\qty{80}{\\degreeCelsius}?", "1220 Pa"),
        ("Die Dichte von Eis beträgt 0,92 g/cm^3. Welche Masse hat ein Eiswürfel von 10 cm^3?", "9,2 g"),
        ("Ein Körper wird mit einer Kraft von 15 N über eine Strecke von 5 m gezogen. Welche Arbeit wird verrichtet?",
         "75 J"),
    ],
)  # fmt: skip
def test_a_science_statement_in_another_language_is_never_a_rule_rewrite(problem, key):
    assert offline(problem, key)["status"] != "kept"
    assert {"science unit", "science data"} & set(science_signals(problem)), science_signals(problem)


@pytest.mark.parametrize(
    ("text", "science"),
    [
        ("La temperatura es de \\qty{20}{\\degreeCelsius} y la presión de 1013 Pa.", True),
        ("Ein Körper legt in der Zeit :math:`t=\\unit[6]{s}` eine Strecke von :math:`s=\\unit[36]{m}` zurück.", True),
        ("Die Temperatur steigt von 20 ℃ auf 80 ℃.", True),
        # Ohm's law with its numbers given is exact arithmetic: a unit alone is no constant (set C3 keeps these)
        ("If current is 2 A and resistance is 5 Ω, voltage is:\nOptions: 10 V / 7 V / 2.5 V", False),
        ("Compute the smallest positive integer $N$ such that $20 N$ is a multiple of 14.", False),
    ],
)  # fmt: skip
def test_a_physics_texts_unit_markup_and_celsius_are_science_units(text, science):
    assert ("science unit" in science_signals(text)) is science


@pytest.mark.parametrize(
    ("problem", "key", "kept"),
    [
        ("A tractor costs $6,000. After 8 years it has a salvage value of $4,000. Maintenance costs are $250 per "
         "year. If the interest rate is 6%, the equivalent uniform annual cost is most nearly:", "$852", False),
        ("A company borrows $150,000 today at 6% nominal annual interest. The monthly payment of a 5-year loan is "
         "most nearly:", "$2,900", False),
        ("A book costs $12 and a pen costs $3. How much do they cost together?", "$15", True),
    ],
)  # fmt: skip
def test_most_nearly_asks_for_an_approximation(problem, key, kept):
    assert (offline(problem, key)["status"] == "kept") is kept


# Blind set O3 (2026-11-30, competition answer keys): a key's own label in Korean and Portuguese (`답 : 5`,
# `*Resposta: (C) 4*`) and a markdown checklist's ticked option (`* [x] 3`) name the answer; the label or tick is no
# part of it. Outcomes follow from the keys: option C of `1 / 2 / 4 / 8 / 16` is 4.
SUBSETS = "How many subsets does S have?\nOptions: 1 / 2 / 4 / 8 / 16"


@pytest.mark.parametrize(
    ("problem", "key", "kept"),
    [
        (SUBSETS, "*Resposta: (C) 4*", "4"),
        (SUBSETS, "Resposta: (C) 4", "4"),
        (SUBSETS, "**Answer:** C", "4"),
        (SUBSETS, "* [x] 4", "4"),
        (SUBSETS, "- [x] 16", "16"),
        (SUBSETS, "*Resposta: (C) 8*", None),  # the letter and its written value disagree: nothing keyed
        (SUBSETS, "* [x] 5", None),  # no such option
        ("Find the length AR.", "답 : 5", "5"),
        ("Find the length AR.", "정답: 36", "36"),
    ],
)
def test_a_keys_label_and_a_ticked_option_name_the_answer(problem, key, kept):
    done = offline(problem, key)
    assert_kept_as(done, kept)


# Blind set Q3 (2026-11-30, university problem sets): a question that asks for a form of a number the statement gives
# (its prime factorisation) and a key that reads a clock (`7 PM`) have no integer to keep: 120's factorisation is the
# product 2^3·3·5, not 120, and `7 PM` is a time of day.
@pytest.mark.parametrize(
    ("problem", "key", "kept"),
    [
        ("Find the prime factorization of \n\na. $120$", "$2^3 \\cdot 3 \\cdot 5$", False),
        ("Write 360 as a product of prime powers.", "2^3 * 3^2 * 5", False),
        ("What time does a 12-hour clock read 80 hours after it reads 11:00 AM?", "7 PM", False),
        ("The train leaves at 9:15 and arrives at 11:45. When does it arrive?", "11:45", False),
        ("How many prime factors does 120 have, counted with multiplicity?", "5", True),
        ("A clock chimes 3 times an hour. How many chimes in 7 hours?", "21", True),
    ],
)
def test_a_form_asked_or_a_clock_reading_is_no_integer(problem, key, kept):
    assert (offline(problem, key)["status"] == "kept") is kept
