import json
from collections import Counter

import pyarrow.parquet as pq
import pytest
import typer
from typer.testing import CliRunner

from mathdata.benchmarks import load_benchmark
from mathdata.catalog import connect, query, stats
from mathdata.cli import register
from mathdata.store import shard_files, write_records

app = typer.Typer()
register(app)
runner = CliRunner()


@pytest.fixture
def bench_store(tmp_path):
    s = tmp_path / "bench"
    write_records(s, load_benchmark("aime24"))
    write_records(s, load_benchmark("math500"))
    write_records(s, load_benchmark("amc23"))
    return s


def test_stats_match_the_data(bench_store):
    from mathdata.store import read_table

    t = read_table(bench_store)
    s = stats(bench_store)
    assert s["rows"] == len(t) == 570
    assert s["by_source"] == dict(Counter(t.column("source").to_pylist()))
    assert s["by_status"] == dict(Counter(t.column("status").to_pylist()))
    assert s["reject_reasons"] == {"non_integer_answer": 167}
    ints = [int(a) for a in t.column("answer").to_pylist() if a is not None]
    assert (s["answer"]["min"], s["answer"]["max"], s["answer"]["integer_answers"]) == (
        min(ints),
        max(ints),
        len(ints),
    )
    assert s["by_year"]["2024"] == 30 and s["by_year"]["2023"] == 40
    assert s["by_competition"]["AIME I"] == 15
    p = s["problem_length_chars"]
    assert p["p50"] <= p["p90"] <= p["p99"] <= p["max"]


def test_duckdb_reads_the_shards_in_place(bench_store):
    con = connect(bench_store)
    plan = "\n".join(r[1] for r in con.execute("EXPLAIN SELECT count(*) FROM records").fetchall())
    assert "READ_PARQUET" in plan.upper() or "PARQUET_SCAN" in plan.upper()
    t = query(
        bench_store,
        "SELECT competition, count(*) AS n FROM records WHERE year = 2024 GROUP BY ALL ORDER BY 1",
    )
    assert t.to_pylist() == [{"competition": "AIME I", "n": 15}, {"competition": "AIME II", "n": 15}]


def test_cli_stats_and_sql(bench_store):
    r = runner.invoke(app, ["data", "stats", str(bench_store), "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["rows"] == 570
    r = runner.invoke(app, ["data", "stats", str(bench_store)])
    assert r.exit_code == 0 and "benchmark:math500" in r.output and "non_integer_answer" in r.output
    r = runner.invoke(
        app,
        [
            "data",
            "sql",
            str(bench_store),
            "SELECT count(*) AS n FROM records WHERE status = 'kept'",
            "--format",
            "json",
        ],
    )
    assert r.exit_code == 0 and json.loads(r.output) == [{"n": 403}]
    r = runner.invoke(app, ["data", "sql", str(bench_store), "SELEC nonsense"])
    assert r.exit_code == 1 and "syntax error" in r.output


def test_empty_store_stats(tmp_path):
    (tmp_path / "e").mkdir()
    s = stats(tmp_path / "e")
    assert s["rows"] == 0 and s["problem_length_chars"]["sample_rows"] == 0


def test_foreign_file_refused_by_catalog(tmp_path):
    import pyarrow as pa

    pq.write_table(pa.table({"question": ["x"]}), tmp_path / "foreign.parquet")
    r = runner.invoke(app, ["data", "sql", str(tmp_path / "foreign.parquet"), "SELECT 1"])
    assert r.exit_code == 1 and "not a mathdata records file" in r.output


def test_cli_truncated_shard_is_a_clear_error(bench_store):
    f = shard_files(bench_store)[1]
    f.write_bytes(f.read_bytes()[:100])
    r = runner.invoke(app, ["data", "stats", str(bench_store)])
    assert r.exit_code == 1 and f.name in r.output and "truncated" in r.output


def test_cli_pipeline_dedup_decontam_export_card(tmp_path):
    s1, s2, s3 = tmp_path / "s1", tmp_path / "s2", tmp_path / "s3"
    assert runner.invoke(app, ["data", "import-benchmark", "aime24", str(s1)]).exit_code == 0
    assert runner.invoke(app, ["data", "import-benchmark", "aime25", str(s1)]).exit_code == 0
    r = runner.invoke(app, ["data", "dedup", str(s1), str(s2)])
    assert r.exit_code == 0, r.output
    assert json.loads((s2 / "_dedup_report.json").read_text())["kept_in"] == 60
    assert pq.read_table(s2 / "_dedup_clusters.parquet").column_names == [
        "id",
        "cluster_id",
        "kind",
        "similarity",
    ]
    r = runner.invoke(app, ["data", "decontam", str(s2), str(s3), "--ref", "aime24"])
    assert r.exit_code == 0 and "30 contaminated rows of 60 checked" in r.output
    r = runner.invoke(app, ["data", "export", "verl", str(s3), str(tmp_path / "v.parquet"), "--repeat", "2"])
    assert r.exit_code == 0 and pq.read_metadata(tmp_path / "v.parquet").num_rows == 60  # aime25 only, x2
    r = runner.invoke(app, ["data", "card", str(s3), "--name", "demo", "--out", str(tmp_path / "card")])
    assert r.exit_code == 0
    text = (tmp_path / "card" / "README.md").read_text()
    assert "| contaminated | 30 |" in text and "aime24 (30)" in text
    r = runner.invoke(app, ["data", "import-benchmark", "nope", str(s1)])
    assert r.exit_code == 1 and "unknown benchmark" in r.output


def test_length_percentiles_exact_or_sampled(bench_store, monkeypatch):
    from mathdata.store import read_table

    t = read_table(bench_store, columns=["problem", "original_problem"])
    lengths = sorted(
        len(p or o)
        for p, o in zip(
            t.column("problem").to_pylist(), t.column("original_problem").to_pylist(), strict=True
        )
    )
    exact = stats(bench_store, exact_lengths=True)["problem_length_chars"]
    assert exact["exact"] and exact["sample_rows"] == 570 and exact["max"] == lengths[-1]
    import mathdata.catalog

    monkeypatch.setattr(mathdata.catalog, "SAMPLE_ROWS", 100)  # row groups of 100 rows, for the test
    sampled = stats(bench_store, sample_groups=1)["problem_length_chars"]
    assert not sampled["exact"] and sampled["sample_rows"] == 30 + 100 + 40  # first 100 rows of each shard


def test_sql_reads_the_exports_it_wrote(tmp_path, bench_store):
    """`dapo data sql` on a verl or TRL export (file or folder of split files), as written by
    `dapo data export`: the rows are the view `records`, with the export's columns."""
    for fmt in ("verl", "trl"):
        folder = tmp_path / fmt
        r = runner.invoke(app, ["data", "export", fmt, str(bench_store), str(folder)])
        assert r.exit_code == 0, r.output
        assert [p.name for p in folder.iterdir()] == ["test.parquet"]  # the bundled sets are test splits
        split = "extra_info.split" if fmt == "verl" else "split"
        for target in (folder, folder / "test.parquet"):
            r = runner.invoke(
                app,
                [
                    "data",
                    "sql",
                    str(target),
                    f"SELECT {split} AS s, count(*) AS n FROM records GROUP BY 1",
                    "--format",
                    "json",
                ],
            )
            assert r.exit_code == 0, r.output
            kept = sum(
                s == "kept" for s in pq.read_table(bench_store, columns=["status"]).column(0).to_pylist()
            )
            assert json.loads(r.output) == [{"s": "test", "n": kept}]
