import pyarrow as pa
import yaml

from mathdata.benchmarks import load_benchmark
from mathdata.card import size_category, write_card
from mathdata.decontam import decontaminate
from mathdata.dedup import dedup


def test_card_from_real_pipeline_reports(tmp_path):
    table = pa.concat_tables([load_benchmark("math500"), load_benchmark("aime24"), load_benchmark("aime24")])
    d = dedup(table)
    t, rep = decontaminate(d.table, ["aime25"])
    path = write_card(
        tmp_path / "demo",
        name="demo-set",
        table=t,
        steps=[{"name": "import", "rows": len(table)}, {"name": "dedup", "kept": d.report["kept_out"]}],
        dedup_report=d.report,
        decontam_report=rep,
        sources=["MATH-500 and AIME 2024 (bundled)"],
        license="mit",
    )
    assert path == tmp_path / "demo" / "README.md"
    text = path.read_text()
    head = yaml.safe_load(text.split("---\n")[1])
    kept = t.column("status").to_pylist().count("kept")
    assert head["license"] == "mit" and head["size_categories"] == [size_category(kept)]
    assert head["task_categories"] and head["configs"][0]["data_files"][0]["path"]
    for section in (
        "## Sources",
        "## Pipeline steps",
        "## Filters and reject reasons",
        "## Deduplication",
        "## Decontamination",
        "## Schema",
        "## Intended use",
        "## Limitations",
    ):
        assert section in text
    assert f"**{kept:,} kept problems** out of {len(table):,} records." in text
    assert f"{d.report['exact_dropped']:,} exact" in text and d.report["exact_dropped"] == 30
    assert "| non_integer_answer | 167 |" in text and "| duplicate_of | 30 |" in text
    assert "| `answer` | string |" in text
    assert "MATH-500 and AIME 2024 (bundled)" in text


def test_size_categories():
    assert [size_category(n) for n in (0, 999, 1000, 17_398, 1_791_700)] == [
        "n<1K",
        "n<1K",
        "1K<n<10K",
        "10K<n<100K",
        "1M<n<10M",
    ]


def test_committed_example_card_is_generated_not_hand_written(tmp_path):
    """data_cards/mathdata-benchmarks/README.md must equal a fresh `dapo data card-benchmarks` (date aside)."""
    import re
    from pathlib import Path

    from mathdata.card import bundled_benchmarks_card

    committed = Path(__file__).resolve().parents[2] / "data_cards" / "mathdata-benchmarks" / "README.md"
    fresh = bundled_benchmarks_card(tmp_path / "card").read_text()

    def undated(text):
        return re.sub(r"on \d{4}-\d{2}-\d{2}", "on <date>", text)

    assert undated(committed.read_text()) == undated(fresh)
    assert "| non_integer_answer | 167 |" in fresh and "0 of 433 checked rows" in fresh


def test_a_repeated_export_says_so_and_counts_rows_beside_problems(tmp_path):
    """export.repeat: 3 wrote 57 rows for 19 problems into train.parquet; the card said "train | 19"."""
    from mathdata.schema import new_record, to_table

    table = to_table(
        [new_record(source="s", original_problem=f"What is {k}+1?", answer=str(k + 1)) for k in range(4)]
    )
    text = write_card(tmp_path, name="r", table=table, steps=[], data_files={"train": "verl/train.parquet"},
                      repeat=3).read_text()  # fmt: skip
    assert "written 3 times in a row (`export.repeat: 3`)" in text
    assert "| `verl/train.parquet` | train | 4 | 12 |" in text


def test_the_card_names_the_language_the_problems_are_written_in(tmp_path):
    from mathdata.schema import new_record, to_table

    zh = [
        new_record(
            source="s", original_problem=f"小明有{k}个苹果，又买了1个，现在有几个？", answer=str(k + 1)
        )
        for k in range(4)
    ]
    en = [new_record(source="s", original_problem=f"What is {k}+1?", answer=str(k + 1)) for k in range(4)]
    for rows, want in ((zh, ["zh"]), (en, ["en"]), (zh + en, ["en", "zh"])):
        text = write_card(tmp_path, name="l", table=to_table(rows), steps=[]).read_text()
        assert yaml.safe_load(text.split("---\n")[1])["language"] == want
