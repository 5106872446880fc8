"""`dapo build --engine ray` on a real local Ray cluster (2 CPUs, started and stopped here).

The same config must give the same corpus on both engines (records by id, every column but the
acquisition time; export rows), including planted exact and near duplicates, a chain of
variants that leader clustering splits, and copied benchmark items. Faults: a Ray worker killed
mid-stage is retried without duplicating rows; a driver killed with -9 and rerun skips the
shards it finished.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from mathdata.store import read_table, write_records
from pipelines.build import build
from pipelines.engine import build_differences
from pipelines.steps import Step

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def cluster():
    """A real Ray cluster of 2 CPUs for this module; yields its address for other drivers."""
    import ray

    ray.init(num_cpus=2, include_dashboard=False, logging_level=logging.WARNING)
    # test-local step classes travel by value (the workers cannot import this test module)
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    try:
        yield ray.get_runtime_context().gcs_address
    finally:
        ray.shutdown()


def _write(tmp: Path, cfg: dict, name: str = "cfg.yaml") -> Path:
    p = tmp / name
    p.write_text(yaml.safe_dump(cfg))
    return p


def _planted(tmp: Path) -> tuple[Path, dict]:
    """An import file with planted duplicates and contamination; returns it and what was planted."""
    from mathdata.benchmarks import load_benchmark

    rng = random.Random(7)
    # words without digits: dedup compares the numbers of two texts, so digits in words would
    # make every edited copy a different problem
    vocab = sorted({"".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(6)) for _ in range(400)})
    rows, planted = [], {"exact": 0, "near": 0, "contaminated": 0}
    for i in range(120):
        words = rng.sample(vocab, 34)
        a, b = rng.randint(2, 99), rng.randint(2, 99)
        text = " ".join(words[:17]) + f" with {a} and {b} " + " ".join(words[17:]) + "?"
        rows.append({"question": text, "answer": str(a + b)})
        if i % 10 == 0:  # an exact copy up to case and spacing
            rows.append({"question": "  " + text.upper().replace(" ", "  "), "answer": str(a + b)})
            planted["exact"] += 1
        if i % 10 == 1:  # a near copy: one word replaced
            w = text.split()
            w[5] = "changed"
            rows.append({"question": " ".join(w), "answer": str(a + b)})
            planted["near"] += 1
        if i % 10 == 2:  # a chain of variants, each one word further from the first
            w = text.split()
            for k in range(1, 6):
                w[2 * k + 1] = "chain" + "abcde"[k - 1]
                rows.append({"question": " ".join(w), "answer": str(a + b)})
            planted["near"] += 1
    for item in load_benchmark("aime24").to_pylist()[:4]:  # copied evaluation items
        rows.append({"question": item["original_problem"], "answer": item["original_answer"]})
        planted["contaminated"] += 1
    path = tmp / "planted.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path, planted


def test_same_corpus_with_planted_duplicates_and_contamination(cluster, tmp_path):
    data, planted = _planted(tmp_path)
    cfg = _write(
        tmp_path,
        {
            "name": "planted",
            "sources": [
                {"kind": "import", "name": "planted", "path": str(data)},
                {"kind": "synthetic", "n": 300, "seed": 3, "difficulty": [1, 2]},
            ],
            "chunk_size": 64,
        },
    )
    local = build(cfg, tmp_path / "local", progress=False)
    ray_res = build(cfg, tmp_path / "ray", progress=False, engine="ray")
    assert build_differences(tmp_path / "local", tmp_path / "ray") == []
    assert ray_res.counts == local.counts
    # the planted cases were found (so the equality above covers the dedup and decontam paths)
    assert local.counts.get("duplicate_of", 0) >= planted["exact"]
    assert local.counts.get("near_duplicate_of", 0) >= planted["near"]
    assert local.counts.get("contaminated", 0) >= planted["contaminated"]
    near = ray_res.reports["dedup"]["near"]
    assert near["engine"] == "ray" and near["split_chains"] >= 1
    assert near["verified_pairs"] == local.reports["dedup"]["near"]["verified_pairs"] > 0
    # outputs written as Parquet shards with the local schema
    import pyarrow.parquet as pq

    shards = sorted((tmp_path / "ray" / "verl").glob("train-*-of-*.parquet"))
    assert len(shards) > 1
    assert (
        pq.read_table(shards[0]).schema == pq.read_table(tmp_path / "local" / "verl" / "train.parquet").schema
    )
    assert (
        read_table(tmp_path / "ray" / "records").schema == read_table(tmp_path / "local" / "records").schema
    )


# two builds of 2,000+ rows: ~2 min idle, over the suite's 300 s on a loaded machine
@pytest.mark.timeout(1200)
def test_same_corpus_offline_example(cluster, tmp_path):
    cfg = ROOT / "examples" / "offline.yaml"
    local = build(cfg, tmp_path / "local", offline=True, progress=False)
    ray_res = build(cfg, tmp_path / "ray", offline=True, progress=False, engine="ray")
    assert build_differences(tmp_path / "local", tmp_path / "ray") == []
    assert ray_res.kept == local.kept > 2000


def test_llm_stages_keep_one_concurrency_limit_and_cache(cluster, server, tmp_path):
    rows = [
        {
            "question": "Find all pairs (x, y) of positive integers with x^2 - y^2 = 15.",
            "answer": "(8,7), (4,1)",
        },
        {"question": "Find the ordered pair (a, b) with a + b = 3 and a - b = -1.", "answer": "(1, 2)"},
    ]
    data = tmp_path / "in.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    reply = (
        "<format>pairs</format><problem>Find the sum of x+y over all pairs (x, y) of positive integers "
        "with x^2 - y^2 = 15.</problem><solution>15 + 5</solution><answer>20</answer>"
    )
    rules = [  # the first rule that matches answers
        {"match": "x+y over all pairs", "content": "Answer: 20"},  # solver draws for the rewritten pair
        {"match": "Find all pairs (x, y)", "content": reply},
        {"match": "Original answer:", "action": "malformed"},  # the other rewrite: an llm_error reason
    ]
    cfg = _write(
        tmp_path,
        {
            "name": "llm",
            "sources": [
                {"kind": "import", "name": "tiny", "path": str(data)},
                {"kind": "synthetic", "n": 40},
            ],
            "llm": {
                "base_url": server.base_url,
                "model": "scripted",
                "backoff_s": 0.01,
                "max_retries": 1,
                "concurrency": 2,
            },
            "rewrite": {"llm": True},
            "validate": {"solver": {"enabled": True, "k": 3}},
            "difficulty": {"enabled": True, "n": 2},
            "chunk_size": 8,
        },
    )
    server.script("Answer: 0", rules=rules, latency=0.05)
    local = build(cfg, tmp_path / "local", progress=False)
    local_stats = server.stats()
    server.script("Answer: 0", rules=rules, latency=0.05)
    ray_res = build(cfg, tmp_path / "ray", progress=False, engine="ray")
    stats = server.stats()
    assert build_differences(tmp_path / "local", tmp_path / "ray") == []
    assert stats["max_inflight"] <= 2  # one limit for every worker: the actor's semaphore
    assert stats["requests"] == local_stats["requests"] == local.llm_usage["requests"] > 40
    assert {k: ray_res.llm_usage[k] for k in ("completions", "failures")} == {
        k: local.llm_usage[k] for k in ("completions", "failures")
    }
    statuses = {r["status"].split(":")[0] for r in read_table(tmp_path / "ray" / "records").to_pylist()}
    assert "llm_error" in statuses and "solver_disagrees" in statuses
    import pyarrow.parquet as pq

    exported = pq.read_table(tmp_path / "ray" / "verl").to_pylist()
    assert exported and all(r["extra_info"]["difficulty"]["n"] == 2 for r in exported)
    # the cache is on disk by content hash: rebuilding in place asks the server nothing
    server.script("Answer: 0", rules=rules)
    again = build(cfg, tmp_path / "ray", progress=False, engine="ray")
    assert server.stats()["requests"] == 0 and again.counts == ray_res.counts


class DieOnce(Step):
    """Parity of the answer; kills its own Ray worker (SIGKILL) the first time it sees `victim`."""

    name, section = "parity", "classify"

    def __init__(self, victim: str, marker: str):
        super().__init__(None)
        self.victim, self.marker = victim, marker

    def process(self, record: dict) -> dict:
        if record["id"] == self.victim and not os.path.exists(self.marker):
            Path(self.marker).touch()
            os.kill(os.getpid(), signal.SIGKILL)
        odd = int(record["answer"]) % 2
        return {**record, "status": "rejected: odd" if odd else "kept"}


def test_worker_killed_mid_stage_is_retried_without_duplicates(cluster, tmp_path):
    from pipelines.ray_engine import RayEngine
    from pipelines.sources.synthetic import generate

    records = list({r["id"]: r for r in generate(240, seed=5, difficulty=3)}.values())[:200]
    assert len(records) == 200
    src = tmp_path / "in"
    for start in range(0, 200, 50):  # 4 input shards: each task reads one and runs 5 batches of 10
        write_records(src, records[start : start + 50])
    ids = [r["id"] for r in read_table(src).to_pylist()]
    victim, marker = ids[75], tmp_path / "killed"  # mid-way through the second shard
    step = DieOnce(victim, str(marker))
    with RayEngine() as eng:
        stats = asyncio.run(
            eng.run_stage(step, src, tmp_path / "out", chunk_size=10, window=4, progress=None)
        )
    assert marker.exists()  # the worker did die
    out = read_table(tmp_path / "out").to_pylist()
    assert len(out) == len({r["id"] for r in out}) == 200  # every record once
    expected = {r["id"]: ("rejected: odd" if int(r["answer"]) % 2 else "kept") for r in records}
    assert {r["id"]: r["status"] for r in out} == expected
    assert stats.total == 200 and stats.errors == 0


def _stage_ids(out: Path) -> dict[str, list[str]]:
    return {
        d.name: read_table(d, columns=["id"]).column("id").to_pylist()
        for d in sorted((out / "stages").iterdir())
        if any(d.glob("*.parquet"))
    }


# the test's own waits (240 s to the kill, 1200 s for the rerun) plus a local build: the suite's 300 s
# cap cut a rerun that a loaded 2-core machine made slow (CI beside two training runs; 58 s idle, >600 s there)
@pytest.mark.timeout(2400)
def test_driver_killed_and_rerun_skips_finished_shards(cluster, tmp_path):
    cfg = _write(
        tmp_path,
        {
            "name": "kill",
            "sources": [{"kind": "synthetic", "n": 6000, "seed": 11, "difficulty": [1, 2, 3]}],
            "chunk_size": 100,
        },
    )
    out = tmp_path / "ray"
    cmd = [
        sys.executable,
        "-m",
        "dapo_cli",
        "build",
        str(cfg),
        "--out",
        str(out),
        "-q",
        "--engine",
        "ray",
        "--address",
        cluster,
    ]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 240
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            classify = out / "stages" / "2_classify"
            if classify.exists() and any(classify.glob("part-*.parquet")):
                break
            time.sleep(0.05)
        assert proc.poll() is None, f"the build ended before it could be killed: {proc.stderr.read()[-2000:]}"
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(30)
    assert proc.returncode == -signal.SIGKILL
    before = _stage_ids(out)
    assert not (out / "records").exists()
    assert 0 < len(before["2_classify"]) < 6000
    rerun = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=1200)
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    summary = json.loads((out / "summary.json").read_text())
    stages = {s["name"]: s for s in summary["stages"]}
    assert stages["classify"]["resumed"] >= len(before["2_classify"])  # finished shards were skipped
    assert stages["classify"]["processed"] == stages["classify"]["total"] - stages["classify"]["resumed"] > 0
    for name, ids in _stage_ids(out).items():
        assert len(ids) == len(set(ids)), f"{name} holds a record twice"
    build(cfg, tmp_path / "local", progress=False)
    assert build_differences(tmp_path / "local", out) == []
