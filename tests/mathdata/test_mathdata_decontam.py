import json
import random
import re

import datasets
import pyarrow as pa
import pytest

from mathdata.benchmarks import read_jsonl
from mathdata.decontam import decontaminate, load_references
from mathdata.export import to_verl
from mathdata.schema import SchemaError, new_record, to_table

ROOT = __import__("pathlib").Path(__file__).resolve().parents[2]
NAMES = ["Aya", "Alice", "Bob", "Jen", "Rose", "Patrick", "Tanya", "Maria", "Carlos", "Kevin", "Lily", "Hao"]


def lightly_edit(problem: str, rng: random.Random) -> str:
    """Every number changed, the people renamed, 'Find' reworded."""
    problem = re.sub(r"\d+", lambda m: str(int(m.group()) + rng.randint(1, 9)), problem)
    for name in NAMES:
        problem = re.sub(rf"\b{name}\b", rng.choice(["Zoe", "Quentin", "Priya", "Omar"]), problem)
    return problem.replace("Find", "Determine")


@pytest.fixture(scope="module")
def clean_rows():
    rows = [
        new_record(source="import:olympiadbench", original_problem=r["question"])
        for r in read_jsonl(ROOT / "data/sources/olympiadbench.jsonl")
    ]
    rows += [
        new_record(source="import:gsm8k", original_problem=r["question"])
        for r in read_jsonl(ROOT / "data/sources/gsm8k_test.jsonl")[:400]
    ]
    return rows


def test_lightly_edited_aime24_items_are_caught_and_named(aime24, clean_rows):
    rng = random.Random(7)
    originals = aime24.to_pylist()
    edited = [
        new_record(source="import:web", original_problem=lightly_edit(r["original_problem"], rng))
        for r in originals
    ]
    changed = sum(
        e["original_problem"] != o["original_problem"] for e, o in zip(edited, originals, strict=True)
    )
    assert changed >= 28  # one or two items have no number, name or "Find" to edit
    table, report = decontaminate(to_table(edited + clean_rows))
    status = table.column("status").to_pylist()
    expected = [
        f"contaminated:aime24:{r['year']} {r['competition']} #{r['problem_number']}" for r in originals
    ]
    assert status[: len(edited)] == expected
    assert all(s == "kept" for s in status[len(edited) :])
    assert report["contaminated"] == 30 and report["by_benchmark"] == {"aime24": 30}
    assert "aime24:2024 AIME I #1" in report["items_hit"] and "aime24:2024 AIME II #15" in report["items_hit"]
    assert {h["id"] for h in report["hits"]} == {e["id"] for e in edited}


def test_rewritten_problem_column_is_checked_too(aime24):
    item = aime24.to_pylist()[4]
    rec = new_record(
        source="import:x",
        original_problem="placeholder statement unrelated",
        problem=item["original_problem"],
        answer="1",
    )
    table, report = decontaminate(to_table([rec]), ["aime24"])
    assert table.column("status")[0].as_py().startswith("contaminated:aime24:2024 AIME I #")


def test_user_references_jsonl_parquet_dataset_and_verl(tmp_path, aime24):
    refs = [
        {
            "unique_id": "mine/1",
            "problem": "A frog jumps along the integers starting at zero; each jump moves it one or two units to the right. In how many ways can it reach 10?",
        }
    ]
    jsonl = tmp_path / "myeval.jsonl"
    jsonl.write_text("\n".join(json.dumps(r) for r in refs))
    pq_path = tmp_path / "myeval_pq.parquet"
    pa.Table.from_pylist(refs).to_pandas().to_parquet(pq_path)
    dsdir = tmp_path / "myeval_ds"
    datasets.Dataset.from_list(refs).save_to_disk(str(dsdir))
    verl = to_verl(aime24, tmp_path / "aime_verl.parquet")
    cand = to_table(
        [
            new_record(
                source="import:x",
                original_problem="A frog jumps along the integers starting at zero; each jump moves it one or two units to the right. In how many ways can it reach 12?",
            )
        ]
    )
    for ref, name in ((jsonl, "myeval"), (pq_path, "myeval_pq"), (dsdir, "myeval_ds")):
        table, report = decontaminate(cand, [ref])
        assert table.column("status")[0].as_py() == f"contaminated:{name}:mine/1", ref
    bench, items, texts = load_references([verl])
    assert (
        len(texts) == 30 and texts[0] == aime24.column("original_problem")[0].as_py()
    )  # raw_problem, not the template
    from mathdata.decontam import _load_references

    assert _load_references([verl])[3] == aime24.column("answer").to_pylist()  # the answer rule's side
    assert _load_references([jsonl])[3] == [None]
    with pytest.raises(SchemaError, match="no problem text column"):
        decontaminate(cand, [pa.table({"x": [1]})])
    with pytest.raises(SchemaError, match="not a bundled benchmark"):
        decontaminate(cand, ["nope"])


def test_bundled_sets_do_not_hit_each_other():
    from mathdata.benchmarks import load_benchmark

    table, report = decontaminate(load_benchmark("aime25"), ["aime24", "amc23", "math500"])
    assert report["contaminated"] == 0 and report["checked"] == 30


def test_rejected_rows_keep_their_status(aime24):
    rec = new_record(
        source="import:x", original_problem=aime24.column("original_problem")[0].as_py(), status="llm_failed"
    )
    table, report = decontaminate(to_table([rec]), ["aime24"])
    assert table.column("status").to_pylist() == ["llm_failed"] and report["checked"] == 0


def test_a_shared_stem_with_a_short_item_is_not_contamination():
    """MATH-500's 'Find the number of ordered pairs $(a,b)$ of integers such that $|a + bi| \\le 5.$'
    shares only its opening words with this different problem; a short item needs half its n-grams."""
    row = new_record(
        source="t",
        original_problem=r"Find the number of ordered pairs $(a, b)$ of positive integers such that "
        r"\[\frac{1}{a} + \frac{1}{b} = \frac{1}{12}.\]",
    )
    out, report = decontaminate(to_table([row]))
    assert out.column("status").to_pylist() == ["kept"], report["hits"]
    copied = new_record(
        source="t",
        original_problem=r"Find the number of ordered pairs $(a,b)$ of integers such that $|a + bi| \le 5.$",
    )
    out, report = decontaminate(to_table([copied]))
    assert report["items_hit"] == ["math500:test/intermediate_algebra/232.json"]
