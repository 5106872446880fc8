"""Decontamination of paraphrased copies (issue 21): the character 6-gram layer catches copies the
word 8-grams miss, the metadata layer names an item whatever the text says, and a judge settles
the borderline pairs. The recall figures on the whole planted set are bench/pipelines_decontam.py's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mathdata.decontam import (
    contest_key,
    decontaminate,
    math_anchor,
    ngram_texts,
    question_swapped,
    word_verdict,
)
from mathdata.schema import new_record, to_table

PLANTED = Path(__file__).resolve().parents[2] / "bench" / "data" / "decontam_paraphrased.jsonl"


def _rows(texts, **meta):
    return [
        new_record(source="s", original_problem=t, source_key=f"k{i}", **meta) for i, t in enumerate(texts)
    ]


def test_fuzzy_layer_catches_reworded_copies_the_word_ngrams_miss():
    copies = [json.loads(x) for x in PLANTED.read_text().splitlines()]
    reworded = [c for c in copies if c["kind"] in ("reworded", "copy") and c["benchmark"] == "aime24"]
    table = to_table(_rows([c["text"] for c in reworded]))
    before, _ = decontaminate(table, "aime24", fuzzy=False)
    after, report = decontaminate(table, "aime24")
    missed_before = [i for i, s in enumerate(before.column("status").to_pylist()) if s == "kept"]
    assert len(missed_before) >= 3  # the word n-grams alone lose these copies
    status = after.column("status").to_pylist()
    caught = [i for i in missed_before if status[i] == f"contaminated:{reworded[i]['item']}"]
    assert len(caught) >= len(missed_before) - 1
    methods = [h["method"] for h in report["hits"] if h["row"] in caught]
    assert set(methods) <= {"fuzzy", "words"} and methods.count("fuzzy") >= len(caught) - 1


def test_fuzzy_layer_leaves_clean_problems_on_the_same_topic_alone():
    clean = [
        "Let $x$ and $y$ be real numbers with $x + y = 10$ and $xy = 21$. Find $x^2 + y^2$.",
        "Alice and Bob play a game with a pile of 20 stones. On each turn a player removes 1, 2 or 3 stones, "
        "and the player who removes the last stone loses. Who wins with perfect play, and how?",
        "Find the number of positive integers $n \\le 1000$ such that $n^2 + 1$ is divisible by $5$.",
    ]
    table, report = decontaminate(to_table(_rows(clean)))
    assert table.column("status").to_pylist() == ["kept"] * 3 and report["by_method"] == {}


@pytest.mark.parametrize(
    ("meta", "want"),
    [
        (
            {"competition": "AIME I", "year": 2024, "problem_number": "3"},
            "contaminated:aime24:2024 AIME I #3",
        ),
        ({"competition": "2025 AIME II", "problem_number": "1"}, "contaminated:aime25:aime25.jsonl#L16"),
        (
            {"source_ref": "https://artofproblemsolving.com/wiki/index.php/2023_AMC_12A_Problems/Problem_5"},
            "contaminated:amc23:2023 AMC 12A #5",
        ),
        (
            {"competition": "MATH", "source_ref": "hendrycks_math test/algebra/2584.json"},
            "contaminated:math500:test/algebra/2584.json",
        ),
        ({"competition": "AIME", "year": 2024, "problem_number": "3"}, "kept"),  # I or II? names no item
        ({"competition": "AMC 10A", "year": 2023, "problem_number": "5"}, "kept"),  # not in amc23 (AMC 12)
        ({"competition": "AIME I", "year": 2023, "problem_number": "3"}, "kept"),
    ],
)
def test_metadata_names_the_item_whatever_the_text(meta, want):
    table, report = decontaminate(to_table(_rows(["Compute the sum of the first ten odd numbers."], **meta)))
    assert table.column("status").to_pylist() == [want]
    if want != "kept":
        assert report["hits"][0]["method"] == "metadata"


def test_contest_key_reads_the_usual_spellings():
    assert contest_key("AIME I", 2024, "7") == ("AIME", "I", 2024, 7)
    assert contest_key("AMC 12B", "2023", 4) == ("AMC", "12B", 2023, 4)
    assert contest_key(None, None, None, "2024 AIME II Problem 9") == ("AIME", "II", 2024, 9)
    assert contest_key("USAMO", 2024, 1) is None


# half of an item's statement followed by another story: a pair a judge has to settle
OTHER_STORY = (
    "A farmer plants rows of apple trees along a river and waters them every evening with a bucket that "
    "leaks slowly, so that each trip loses some water on the way back from the river to the orchard."
)


def test_a_judge_settles_borderline_pairs():
    """A borderline pair is reported, not marked; a judge's YES marks it, its NO leaves it kept."""
    from mathdata.benchmarks import load_benchmark

    items = load_benchmark("aime24").column("original_problem").to_pylist()
    table = to_table(_rows([t[: int(len(t) * 0.45)] + " " + OTHER_STORY for t in items[:8]]))
    _, plain = decontaminate(table, "aime24")
    rows = {b["row"] for b in plain["borderline"]}
    assert rows and not rows & {h["row"] for h in plain["hits"]}
    asked: list = []

    def judge(pairs):
        asked.extend(pairs)
        return [True] * len(pairs)

    judged, report = decontaminate(table, "aime24", judge=judge)
    assert len(asked) == len(rows) and all(OTHER_STORY in a and b in items for a, b in asked)
    assert {h["row"] for h in report["hits"] if h["method"] == "judge"} == rows
    assert all(judged.column("status")[r].as_py().startswith("contaminated:aime24:") for r in rows)
    no, report = decontaminate(table, "aime24", judge=lambda pairs: [False] * len(pairs))
    assert all(no.column("status")[r].as_py() == "kept" for r in rows) and len(report["borderline"]) == len(
        rows
    )


# short items (under 60 masked 6-grams): the numbers-kept containment and the math anchor layer
def test_short_reworded_and_renumbered_copies_are_caught_by_the_short_item_layer():
    copies = [
        "Positive real values $x$ and $y$ obey $y^3=x^2$ and $(y-x)^2=4y^2$. Find $x+y$?",  # reworded
        "Positive real numbers $x$ and $y$ satisfy $y^7=x^2$ and $(y-x)^2=4y^6$. What is $x+y$?",  # numbers
        "What is the number of ordered pairs of positive reals $(a,b)$ fulfil the formula\n"
        "\\[(1+2a)(2+2b)(2a+b) = 32ab?\\]",
    ]
    table = to_table(_rows(copies))
    before, _ = decontaminate(table, fuzzy=False)
    assert before.column("status").to_pylist() == ["kept"] * 3
    after, report = decontaminate(table)
    assert after.column("status").to_pylist() == [
        "contaminated:amc23:2023 AMC 12A #10",
        "contaminated:amc23:2023 AMC 12A #10",
        "contaminated:amc23:2023 AMC 12A #23",
    ]
    assert {h["method"] for h in report["hits"]} == {"fuzzy"}


def test_math_anchor_counts_the_math_tokens_of_the_longest_shared_run():
    item = "positive real numbers x and y satisfy y 3 x 2 and y x 2 4 y 2 what is x y"
    copy = "positive real values x and y obey y 3 x 2 and y x 2 4 y 2 find x y"
    assert math_anchor(item, copy) == 10  # "y 3 x 2 and y x 2 4 y 2": 10 of its 11 tokens are math
    assert math_anchor(item, "what is the value of positive real numbers") == 0


def test_short_item_layer_leaves_same_topic_problems_alone():
    """Real clean problems (OlympiadBench, a Gaokao-style inequality set) that came closest to a
    short MATH-500 item on the first planted set: same stem or same formula family, other numbers."""
    clean = [
        "Let $T=23$ . Compute the units digit of $T^{2023}+T^{20}-T^{23}$.",
        "Compute $\\sin ^{2} 4^{\\circ}+\\sin ^{2} 8^{\\circ}+\\sin ^{2} 12^{\\circ}+\\cdots+\\sin ^{2} 176^{\\circ}$.",
        "The solution set of the inequality $3 x - 1 > 8$ is ____?",
        "If the solution set of the inequality $3 x + a > 2$ is $x > 1$, then $a$ is ____.",
        "Let $N=\\left\\lfloor(3+\\sqrt{5})^{34}\\right\\rfloor$. Compute the remainder when $N$ is divided by 100 .",
    ]
    table, report = decontaminate(to_table(_rows(clean)))
    assert table.column("status").to_pylist() == ["kept"] * len(clean), report["hits"]


PLANTED_V2 = PLANTED.with_name("decontam_paraphrased_v2.jsonl")
# Measured once on the second planted set, written before the short-item layer (bench/results/
# pipelines_decontam_paraphrased_v2.json): 573/600 = 0.955. The tiny-item rule was added after
# reading those misses: 584/600 = 0.973 (..._v2_after_tiny.json); the word layer, tuned on v1 and
# v2 (development data by then): 597/600 = 0.995. Held-out figures are v3's (bench/results).
V2_RECALL_FLOOR = 0.99


def test_recall_on_the_second_planted_set_holds_its_measured_floor():
    copies = [json.loads(x) for x in PLANTED_V2.read_text().splitlines()]
    assert len(copies) >= 500 and sum(c["short"] for c in copies) >= len(copies) / 2
    table, _ = decontaminate(to_table(_rows([c["text"] for c in copies])))
    status = table.column("status").to_pylist()
    right = sum(s == f"contaminated:{c['item']}" for s, c in zip(status, copies, strict=True))
    assert right / len(copies) >= V2_RECALL_FLOOR


def test_a_tiny_item_inside_a_preamble_is_caught_and_a_longer_text_around_it_is_not():
    """Items under 20 numbers-kept 6-grams: the whole item text inside a row at most 3x + 40
    characters long is a copy; the same words inside a long other problem are not."""
    rows = [
        "Q: What is $1^{(2^{235423523})}$?\nA:",
        "This exercise comes from a high-school algebra review sheet. Evaluate $(1+2i)6-3i$.",
        "Write $\\frac{3}{20}$ as a percent.",
        "A bakery sells 20 loaves a day and 3 of them are rye. Over a week the baker records the share "
        "of rye loaves every day, and on Sunday writes 3/20 as a decimal on the board next to the till.",
    ]
    table, _ = decontaminate(to_table(_rows(rows)))
    assert table.column("status").to_pylist() == [
        "contaminated:math500:test/prealgebra/1747.json",
        "contaminated:math500:test/algebra/1098.json",
        "kept",
        "kept",
    ]


# the word layer: short items reworded around their math, or with one number changed
def test_word_layer_catches_short_copies_reworded_or_renumbered_and_leaves_near_misses_alone():
    copies = [
        "What does $(1+2i)6-3i$ equal?",  # reworded: "Evaluate $(1+2i)6-3i$."
        "Express $555_{10}$ in base $7$.",  # one number changed (base 5)
        "Convert $\\frac{67}{160}$ to a terminating decimal.",  # one number changed (57)
        "Find $x$: $\\frac{x}2 + \\frac{x}3 = 5$.",  # reworded: "Solve for $x$: ..."
    ]
    near_misses = [
        "Express $300_{10}$ in base $6$.",  # same template, its numbers changed
        "Express $555_{5}$ in base $10$.",  # the other conversion
        "Convert $\\frac{33}{80}$ to a terminating decimal.",
        "Write $\\frac{3}{20}$ as a percent.",  # another ask of "Write 3/20 as a decimal."
        "What is $(-1)^{(3^{2024})}$?",
        "Expand $(u+4)(u-1)(u-3)(u+6)$.",  # "Simplify $(u+4)(u-1) - (u-3)(u+6)$."
        "Solve \\[\\frac{|x^2 - 81|}{x^2 - 36x} > 0.\\]",  # the item asks for < 0
        "Find the smallest value of $x$ that satisfies the equation $|5x-1|=x+3$.",  # item: largest
    ]
    table = to_table(_rows(copies + near_misses))
    before, _ = decontaminate(table, fuzzy=False)
    assert before.column("status").to_pylist()[: len(copies)] == ["kept"] * len(copies)
    after, report = decontaminate(table)
    assert after.column("status").to_pylist() == [
        "contaminated:math500:test/algebra/1098.json",
        "contaminated:math500:test/number_theory/847.json",
        "contaminated:math500:test/number_theory/410.json",
        "contaminated:math500:test/prealgebra/505.json",
    ] + ["kept"] * len(near_misses)
    assert {h["method"] for h in report["hits"]} == {"words"}


def _tokens(text: str) -> list[str]:
    return ngram_texts([text]).to_pylist()[0].split()


def test_word_verdict_needs_the_math_run_the_words_and_something_left_after_a_number_change():
    item = _tokens("Convert $\\frac{57}{160}$ to a terminating decimal.")
    assert word_verdict(item, _tokens("Write $\\frac{57}{160}$ as a terminating decimal.")) == "reworded"
    assert word_verdict(item, _tokens("Convert $\\frac{57}{170}$ to a terminating decimal.")) == "renumbered"
    assert word_verdict(item, _tokens("Convert $\\frac{57}{160}$ to a percent.")) is None  # a word gone
    assert word_verdict(item, _tokens("Convert $\\frac{51}{170}$ to a terminating decimal.")) is None
    # one rare number changed and nothing distinctive left: any power of 1 would match
    power = _tokens("What is $1^{(2^{235423523})}$?")
    assert word_verdict(power, _tokens("What is $1^{(2^{235423526})}$?")) is None


def test_question_swapped_sees_opposite_asks_and_turned_inequalities_not_synonyms():
    assert question_swapped("Find the largest $x$ with $x^2<5$.", "Find the smallest $x$ with $x^2<5$.")
    assert question_swapped("Solve $x^2-1<0$.", "Solve $x^2-1>0$.")
    assert question_swapped("What is the sum of the roots?", "What is the product of the roots?")
    assert not question_swapped(
        "Find the largest $x$ with $x^2<5$.", "What is the greatest $x$ where $x^2 < 5$?"
    )
    assert not question_swapped("Solve $x \\le 3$.", "Solve $x <= 3$.")
    assert not question_swapped(
        "The polynomial $p$ is a factor of $q$.",
        "The polynomial $p$ is a divisor of $q$. Enter the least one.",
    )


def test_planted_copies_carry_their_items_answer_only_where_the_edit_keeps_it():
    """The bench gives a copy its item's answer by the writers' instructions: reworded and context
    copies keep it, a mixed copy keeps it unless its note says a number changed, number copies and
    negatives have none; clean rows read their source's answer field."""
    from bench.pipelines_decontam import read_planted, source_answer
    from mathdata.benchmarks import load_benchmark

    v4 = PLANTED.with_name("decontam_paraphrased_v4.jsonl")
    rows = [json.loads(x) for x in v4.read_text().splitlines()]
    copies, negatives = read_planted(v4)
    answer = {r["original_problem"]: r["original_answer"] for r in load_benchmark("math500").to_pylist()}
    for row, c in zip([r for r in rows if r["kind"] != "negative"], copies, strict=True):
        keeps = row["kind"] in ("reworded", "context") or (
            row["kind"] == "mixed" and "number changed" not in row.get("note", "")
        )
        want = answer.get(row["original"].strip()) if keeps else None
        if row["benchmark"] == "math500.jsonl" or not keeps:
            assert c.get("answer") == want, row["id"]
    assert sum(c.get("answer") is not None for c in copies) == 150  # 60 + 60 + 30 of v4's copies
    assert all("answer" not in c for c in negatives)  # v4's rows carry none; solved ones come from a file
    from bench.pipelines_decontam import read_negative_answers

    solved = read_negative_answers(PLANTED.with_name("decontam_negative_answers.jsonl"))
    _, negatives = read_planted(v4, solved)
    assert [c["answer"] for c in negatives[:2]] == ["12\\sqrt{2293}", "156"]  # v4-0241, v4-0242 as solved
    assert len(negatives) == 60 and all(c.get("answer") for c in negatives)
    assert source_answer({"answer": "She makes 9 * 2 = <<9*2=18>>18 dollars.\n#### 18"}) == "18"
    assert source_answer({"final_answer": ["$\\frac{11}{36}$"]}) == "$\\frac{11}{36}$"
    assert source_answer({"target": 43.0}) == "43.0" and source_answer({"question": "q"}) is None
