"""`dapo build`: typed config with helpful errors, and whole builds into real Parquet."""

import json
import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml

from mathdata.export import dapo_prompt
from mathdata.store import read_table
from pipelines.build import ConfigError, build, load_config

ROOT = Path(__file__).parents[2]
DAPO = ROOT / ".venv" / "bin" / "dapo"
TEMPLATE_HEAD, TEMPLATE_TAIL = dapo_prompt("{}").split("{}")


def _write(tmp_path: Path, cfg: dict) -> Path:
    path = tmp_path / "cfg.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


def _synthetic(n: int = 60) -> dict:
    return {"kind": "synthetic", "n": n, "seed": 3, "kinds": ["add", "mul"]}


@pytest.mark.parametrize(
    ("cfg", "message"),
    [
        (
            {"sources": [{"kind": "import", "name": "x", "path": "a.jsonl", "mappings": {}}]},
            "unknown key 'mappings' in sources[0]: did you mean 'mapping'?",
        ),
        (
            {"sources": [_synthetic()], "dedupe": {}},
            "unknown key 'dedupe' in (top level): did you mean 'dedup'?",
        ),
        (
            {"sources": [_synthetic()], "llm": {"concurency": 4}},
            "unknown key 'concurency' in llm: did you mean 'concurrency'?",
        ),
        ({"sources": [{"kind": "scrape"}]}, "sources[0]: kind must be one of aops, import, synthetic"),
        ({"sources": [{"n": 3}]}, "sources[0]: add `kind: aops | import | synthetic`"),
        ({"sources": []}, "sources: List should have at least 1 item"),
        (
            {"sources": [{"kind": "synthetic", "n": -1}]},
            "sources[0].n: Input should be greater than or equal to 0",
        ),
    ],
)
def test_config_errors_name_the_key_and_the_fix(tmp_path, cfg, message):
    with pytest.raises(ConfigError) as err:
        load_config(_write(tmp_path, cfg))
    assert message in str(err.value)
    assert str(tmp_path / "cfg.yaml") in str(err.value)


def test_config_file_problems(tmp_path):
    with pytest.raises(ConfigError, match="config file .* not found"):
        load_config(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("sources: [unclosed\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(bad)


def test_examples_parse():
    for name in ("demo", "offline", "endpoint"):
        cfg = load_config(ROOT / "examples" / f"{name}.yaml")
        assert cfg.sources


def assert_files_hold_their_split(folder: Path, kept: list[dict], *, complete: bool = True) -> list[dict]:
    """Every export file is named after the one split it holds; the train file(s) share no id with
    any other split; together they are the kept records (`complete`). Returns the rows of all files."""
    split_of = {r["id"]: r["split"] or "train" for r in kept}
    rows: list[dict] = []
    for path in sorted(folder.glob("*.parquet")):
        name = path.name.split(".")[0].split("-")[0]
        got = pq.read_table(path).to_pylist()
        ids = [r["extra_info"]["id"] if "extra_info" in r else r["id"] for r in got]
        assert {split_of[i] for i in ids} == {name}, (path, {split_of[i] for i in ids})
        rows += got
    ids_by_split: dict = {}
    for r in rows:
        i = r["extra_info"]["id"] if "extra_info" in r else r["id"]
        ids_by_split.setdefault(split_of[i], set()).add(i)
    held_out = set().union(*(v for k, v in ids_by_split.items() if k != "train"))
    assert not ids_by_split.get("train", set()) & held_out
    if complete:
        assert set().union(*ids_by_split.values()) == set(split_of)
    return rows


def _check_outputs(out: Path) -> dict:
    records = read_table(out / "records")
    ids = records.column("id").to_pylist()
    assert len(ids) == len(set(ids))
    kept = [r for r in records.to_pylist() if r["status"] == "kept"]
    verl = assert_files_hold_their_split(out / "verl", kept)
    assert len(verl) == len(kept) > 0
    for row in verl:
        truth = row["reward_model"]["ground_truth"]
        assert re.fullmatch(r"-?(0|[1-9][0-9]*)", truth), truth
        content = row["prompt"][0]["content"]
        assert content.startswith(TEMPLATE_HEAD) and content.endswith(TEMPLATE_TAIL)
    card = (out / "README.md").read_text()
    assert f"**{len(kept):,} kept problems**" in card
    return {"records": records.to_pylist(), "verl": verl}


def test_demo_build_and_rebuild(tmp_path):
    cfg = load_config(ROOT / "examples" / "demo.yaml")
    cfg.sources[0].n = 80
    res = build(cfg, tmp_path / "out", progress=False)
    got = _check_outputs(tmp_path / "out")
    assert res.kept == len(got["verl"]) >= 75
    assert all(r["source"].startswith("synthetic:") for r in got["records"])
    again = build(cfg, tmp_path / "out", progress=False)  # everything resumed, nothing redone
    assert [s.processed for s in again.stages] == [0, 0, 0, 0]
    assert again.counts == res.counts
    # `dapo data card out/records` makes the build's own card (it dropped files, sources, steps, reports)
    from mathdata.card import store_reports, write_store_card

    records = tmp_path / "out" / "records"
    remade = write_store_card(
        records, tmp_path / "card", name=cfg.name, reports=store_reports(records)
    ).read_text()
    built = (tmp_path / "out" / "README.md").read_text()
    drop_date = lambda text: re.sub(r"on \d{4}-\d{2}-\d{2}", "", text)  # noqa: E731
    assert drop_date(remade) == drop_date(built) and "## Files" in built
    cfg.sources[0].n = 81
    with pytest.raises(ConfigError, match="different config"):
        build(cfg, tmp_path / "out", progress=False)


def test_build_with_llm_and_solver_against_scripted_server(server, tmp_path):
    rows = [
        {
            "question": "Find all pairs (x, y) of positive integers with x^2 - y^2 = 15.",
            "answer": "(8,7), (4,1)",
        },
        {
            "question": "What is 1/2 + 1/8? Express your answer as a common fraction.",
            "answer": "\\frac{5}{8}",
        },
    ]
    data = tmp_path / "in.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    reply = (
        "<format>pairs</format><problem>Find the sum of x+y over all pairs (x, y) of positive integers "
        "with x^2 - y^2 = 15.</problem><solution>15 + 5</solution><answer>20</answer>"
    )
    server.script(
        "Answer: 0",
        rules=[
            {"match": "Original answer:", "content": reply},
            {"match": "x+y over all pairs", "content": "Answer: 20"},
            {"match": "relatively prime", "content": "Answer: 13"},
        ],
    )
    cfg = {
        "name": "llm-test",
        "sources": [{"kind": "import", "name": "tiny", "path": str(data)}, _synthetic(4)],
        "llm": {"base_url": server.base_url, "model": "scripted", "backoff_s": 0.01},
        "rewrite": {"llm": True},
        "validate": {"solver": {"enabled": True, "k": 3}},
        "dedup": {"near": False},
    }
    res = build(_write(tmp_path, cfg), tmp_path / "out", progress=False)
    by_q = {r["original_problem"][:12]: r for r in read_table(tmp_path / "out" / "records").to_pylist()}
    pairs = by_q["Find all pai"]
    assert pairs["transform"] == "llm" and pairs["answer"] == "20" and pairs["status"] == "kept"
    assert json.loads(pairs["checks"])["solver_k_n"] == "3/3"
    frac = by_q["What is 1/2 "]
    assert frac["transform"] == "fraction" and frac["answer"] == "13" and frac["status"] == "kept"
    synth = [r for r in by_q.values() if r["source"].startswith("synthetic")]
    assert synth and all(r["status"].startswith("solver_disagrees: 0/3") for r in synth)
    usage = res.llm_usage
    assert usage["completions"] == 1 + 3 * 2 + 3 * len(synth)  # one rewrite, k=3 solver draws per record
    assert usage["requests"] == usage["completions"] + usage["retries"]
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["llm_usage"]["requests"] == res.llm_usage["requests"]
    # a second build into a new folder with the same cache would be free: the cache is per --out,
    # so rebuild in place instead and check no request is made
    server.script("Answer: 0")
    again = build(_write(tmp_path, cfg), tmp_path / "out", progress=False)
    assert server.stats()["requests"] == 0 and again.counts == res.counts


@pytest.mark.slow
@pytest.mark.timeout(660)  # the build's own 600 s limit
def test_offline_example_builds_a_corpus(tmp_path):
    out = tmp_path / "corpus"
    t0 = time.perf_counter()
    proc = subprocess.run(
        [str(DAPO), "build", str(ROOT / "examples" / "offline.yaml"), "--out", str(out), "--offline", "-q"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = _check_outputs(out)
    kept = [r for r in got["records"] if r["status"] == "kept"]
    assert len(kept) >= 300
    sources = {r["source"].split(":")[0] for r in kept}
    assert {"aops_wiki", "import", "synthetic"} <= sources
    rejects = [r for r in got["records"] if r["status"] != "kept"]
    assert rejects and all(r["status"].strip() for r in rejects)
    assert time.perf_counter() - t0 < 600


@pytest.mark.slow
@pytest.mark.timeout(900)  # two kills of up to 120 s each, then the build's own 600 s limit
def test_dapo_build_survives_kill_9(tmp_path):
    cfg = _write(
        tmp_path,
        {
            "name": "kill",
            "chunk_size": 25,
            "sources": [
                {"kind": "import", "name": "ob", "path": str(ROOT / "data/sources/olympiadbench.jsonl")}
            ],
        },
    )
    out = tmp_path / "out"
    cmd = [str(DAPO), "build", str(cfg), "--out", str(out), "-q"]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    killed = 0
    for stage in ("3_rewrite", "4_validate"):  # kill as soon as the stage has written its first shard
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        deadline = time.time() + 120
        while proc.poll() is None and time.time() < deadline:
            if list((out / "stages" / stage).glob("*.parquet")):
                os.kill(proc.pid, signal.SIGKILL)
                killed += 1
                break
            time.sleep(0.02)
        proc.wait()
    assert killed, "the build finished before it could be killed"
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    records = read_table(out / "records")
    ids = records.column("id").to_pylist()
    assert len(ids) == len(set(ids)) == 675
    for stage in ("1_acquire", "2_classify", "3_rewrite", "4_validate"):
        stage_ids = read_table(out / "stages" / stage).column("id").to_pylist()
        assert len(stage_ids) == len(set(stage_ids)) == 675


def test_cli_build_limit_and_errors(tmp_path):
    from typer.testing import CliRunner

    from dapo_cli import app

    runner = CliRunner()
    res = runner.invoke(
        app,
        ["build", str(ROOT / "examples" / "demo.yaml"), "--out", str(tmp_path / "o"), "--limit", "20", "-q"],
    )
    assert res.exit_code == 0, res.output
    assert len(read_table(tmp_path / "o" / "records")) == 40  # --limit caps each source: 20 train + 20 test
    bad = _write(tmp_path, {"sources": [_synthetic()], "exports": {}})
    res = runner.invoke(app, ["build", str(bad), "--out", str(tmp_path / "p")])
    assert res.exit_code == 2
    assert "unknown key 'exports' in (top level): did you mean 'export'?" in res.output


def test_cli_rules_report():
    from typer.testing import CliRunner

    from dapo_cli import app

    res = CliRunner().invoke(
        app, ["rules-report", str(ROOT / "data" / "sources" / "olympiadbench.jsonl"), "--json"]
    )
    assert res.exit_code == 0, res.output
    report = json.loads(res.output)
    assert report["rewritten"] + report["needs_llm"] + report["rejected"] == report["total"] == 675


def test_no_test_id_reaches_a_training_file(tmp_path):
    """`dapo build` then every export, as a user runs them: no file named train holds a test id."""
    from typer.testing import CliRunner

    from dapo_cli import app

    cfg = _write(
        tmp_path,
        {
            "name": "leak-check",
            "sources": [
                {"kind": "synthetic", "n": 40, "seed": 0, "kinds": ["add", "sub"], "split": "train"},
                {"kind": "synthetic", "n": 15, "seed": 1, "kinds": ["add", "sub"], "split": "test"},
            ],
            "rewrite": {"rules": False, "llm": False},
            "decontaminate": {"enabled": False},
        },
    )
    runner = CliRunner()
    res = runner.invoke(app, ["build", str(cfg), "--out", str(tmp_path / "o"), "-q"])
    assert res.exit_code == 0, res.output
    kept = [r for r in read_table(tmp_path / "o" / "records").to_pylist() if r["status"] == "kept"]
    test_ids = {r["id"] for r in kept if r["split"] == "test"}
    assert len(test_ids) >= 10 and len(kept) - len(test_ids) >= 30
    assert sorted(p.name for p in (tmp_path / "o" / "verl").iterdir()) == ["test.parquet", "train.parquet"]
    assert_files_hold_their_split(tmp_path / "o" / "verl", kept)
    card = (tmp_path / "o" / "README.md").read_text()
    assert "| `verl/train.parquet` | train |" in card and "data.val_files=verl/test.parquet" in card

    records = str(tmp_path / "o" / "records")
    for fmt in ("verl", "trl"):
        folder = tmp_path / fmt
        res = runner.invoke(app, ["data", "export", fmt, records, str(folder)])
        assert res.exit_code == 0, res.output
        assert sorted(p.name for p in folder.iterdir()) == ["test.parquet", "train.parquet"]
        assert_files_hold_their_split(folder, kept)
        # --split selects the rows of that split (it used to relabel every row)
        for split in ("train", "test"):
            one = tmp_path / f"{fmt}-{split}" / f"{split}.parquet"
            res = runner.invoke(app, ["data", "export", fmt, records, str(one), "--split", split])
            assert res.exit_code == 0, res.output
            assert_files_hold_their_split(one.parent, kept, complete=False)
            assert pq.read_table(one).num_rows == sum((r["split"] or "train") == split for r in kept)
        # a file named train never takes rows of another split
        res = runner.invoke(app, ["data", "export", fmt, records, str(tmp_path / "bad" / "train.parquet")])
        assert (
            res.exit_code == 1 and "named after split 'train'" in res.output and "--split train" in res.output
        )
        assert not (tmp_path / "bad").exists() or not list((tmp_path / "bad").iterdir())
    assert pq.read_table(tmp_path / "trl" / "test.parquet").column("split").to_pylist() == ["test"] * len(
        test_ids
    )


def test_an_empty_source_file_is_named_and_nothing_is_written(tmp_path):
    (tmp_path / "empty.jsonl").write_text("")
    cfg = _write(tmp_path, {"sources": [{"kind": "import", "name": "e", "path": "empty.jsonl"}]})
    with pytest.raises(
        ValueError, match=r"empty\.jsonl: no rows \(an empty file or split\); fix: point `path`"
    ):
        build(cfg, tmp_path / "out", progress=False)
    assert not (tmp_path / "out").exists()  # no build.json, no stages: the corrected rerun starts clean
    cfg = _write(tmp_path, {"sources": [{"kind": "synthetic", "n": 0}]})
    with pytest.raises(ConfigError, match="no records: every source is empty \\(synthetic n=0\\)"):
        build(cfg, tmp_path / "out", progress=False)
    assert not (tmp_path / "out").exists()


def test_the_old_rewrite_llm_section_still_reads_with_a_one_line_deprecation(capsys):
    """`rewrite: {llm: {enabled, cross_check, <endpoint>}}` reads as `llm:` plus `rewrite: {llm, cross_check}`."""
    from pipelines.build import BuildConfig

    old = BuildConfig.model_validate(
        {
            "sources": [_synthetic()],
            "rewrite": {"llm": {"enabled": True, "cross_check": True, "model": "m", "concurrency": 3}},
        }
    )
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "deprecated" in err and "llm:" in err
    new = BuildConfig.model_validate(
        {
            "sources": [_synthetic()],
            "llm": {"model": "m", "concurrency": 3},
            "rewrite": {"llm": True, "cross_check": True},
        }
    )
    assert old == new and capsys.readouterr().err == ""


def test_each_use_asks_its_own_model_through_one_client(tmp_path):
    from verifiers.llm import LLMClient, LLMSettings

    s = LLMSettings(
        base_url="http://127.0.0.1:9", model="base", models={"solver": "big", "decontam_judge": "j"}
    )
    client = LLMClient(s, cache_dir=tmp_path)
    assert [
        client.for_use(u).model for u in ("rewrite", "solver", "difficulty", "judge", "decontam_judge")
    ] == [
        "base",
        "big",
        "base",
        "base",
        "j",
    ]
    assert client.for_use("solver").usage is client.usage
    with pytest.raises(ValueError, match="unknown use 'rewritten'"):
        client.for_use("rewritten")


def test_a_build_that_keeps_nothing_says_why_per_source_and_writes_no_export(tmp_path):
    """All rows without an answer: the build ended in "no kept records to export (...)" naming neither
    the source nor the cause, and left an empty verl/ folder."""
    rows = [{"problem": f"What is {k} + 1?"} for k in range(5)]
    (tmp_path / "noans.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    cfg = _write(tmp_path, {"sources": [{"kind": "import", "name": "na", "path": "noans.jsonl"}]})
    with pytest.raises(ValueError, match=r"kept none of its 5 rows.*import:na: rejected:no_answer \(5\)"):
        build(cfg, tmp_path / "out", progress=False)
    assert not (tmp_path / "out" / "verl").exists() and (tmp_path / "out" / "records").is_dir()
