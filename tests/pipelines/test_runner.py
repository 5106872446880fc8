"""The stage runner: Parquet in, Parquet out, and kill -9 at any moment loses and duplicates nothing."""

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mathdata.schema import new_record
from mathdata.store import read_table, write_records
from pipelines.runner import read_records, run_stage, summary_table

CHILD = """
import asyncio, random, sys
from pipelines.runner import read_records, run_stage

async def process(rec):
    await asyncio.sleep(random.random() * 0.2)  # slow enough that every kill lands mid-run
    if rec["original_problem"].endswith("7."):
        return {**rec, "status": "rejected: ends in seven"}
    return {**rec, "problem": rec["original_problem"] + " Find n.", "answer": rec["original_answer"]}

src, out = sys.argv[1], sys.argv[2]
run_stage("work", read_records(src), out, process, chunk_size=20, window=16)
print("DONE")
"""


def _inputs(tmp_path: Path, n: int) -> Path:
    src = tmp_path / "in"
    write_records(
        src,
        [
            new_record(source="test", original_problem=f"Problem {i}.", original_answer=str(i))
            for i in range(n)
        ],
    )
    return src


def _child(src: Path, out: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", CHILD, str(src), str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _check_complete(src: Path, out: Path) -> None:
    table = read_table(out)
    ids = table.column("id").to_pylist()
    assert len(ids) == len(set(ids)), "a record was written twice"
    assert set(ids) == set(read_table(src).column("id").to_pylist()), "a record was lost"
    for row in table.to_pylist():
        if row["original_problem"].endswith("7."):
            assert row["status"] == "rejected: ends in seven"
        else:
            assert row["status"] == "kept" and row["answer"] == row["original_answer"]


def test_stage_processes_everything_and_keeps_rejects(tmp_path):
    src = _inputs(tmp_path, 40)
    stats = run_stage(
        "work",
        read_records(src),
        tmp_path / "out",
        lambda r: {**r, "problem": "p", "answer": "1"},
        chunk_size=8,
    )
    assert stats.processed == 40 and stats.resumed == 0 and stats.status["kept"] == 40
    again = run_stage("work", read_records(src), tmp_path / "out", lambda r: 1 / 0)
    assert again.processed == 0 and again.resumed == 40  # nothing redone, nothing called
    from rich.console import Console

    console = Console(record=True, width=200)
    console.print(summary_table([stats, again]))
    text = console.export_text()
    assert "work" in text and "kept" in text and "40" in text


def test_a_failing_record_is_kept_with_the_error(tmp_path):
    src = _inputs(tmp_path, 5)

    def process(rec):
        if rec["original_answer"] == "3":
            raise RuntimeError("boom")
        return rec

    stats = run_stage("work", read_records(src), tmp_path / "out", process)
    assert stats.errors == 1
    statuses = {r["original_answer"]: r["status"] for r in read_records(tmp_path / "out")}
    assert statuses["3"] == "error:work: RuntimeError: boom" and statuses["0"] == "kept"


def test_shards_are_written_off_the_event_loop(tmp_path, monkeypatch):
    """A slow shard write must not stall the records in flight (an LLM stage's requests)."""
    import threading

    import mathdata.store

    src = _inputs(tmp_path, 40)
    real_write = mathdata.store.write_records
    loop_thread = threading.get_ident()
    writers: list[int] = []

    def slow_write(path, records):
        writers.append(threading.get_ident())
        time.sleep(0.3)
        return real_write(path, records)

    monkeypatch.setattr(mathdata.store, "write_records", slow_write)

    finished: list[float] = []

    async def process(rec):
        await asyncio.sleep(0.05)
        finished.append(time.perf_counter())
        return {**rec, "problem": rec["original_problem"], "answer": rec["original_answer"]}

    t0 = time.perf_counter()
    stats = run_stage("work", read_records(src), tmp_path / "out", process, chunk_size=10, window=10)
    assert stats.processed == 40 and len(read_table(tmp_path / "out")) == 40
    assert len(writers) == 4 and loop_thread not in writers
    # four rounds of 0.05 s: about 0.2 s while the writes (0.3 s each) go on; writing on the
    # event loop would have held the last three rounds back by three writes, past 1.1 s
    assert max(finished) - t0 < 0.7


def test_a_failed_write_stops_the_stage(tmp_path, monkeypatch):
    import mathdata.store

    src = _inputs(tmp_path, 200)
    calls = []

    def failing_write(path, records):
        calls.append(len(records))
        raise OSError("disk full")

    monkeypatch.setattr(mathdata.store, "write_records", failing_write)

    async def process(rec):
        await asyncio.sleep(0.01)
        return rec

    with pytest.raises(OSError, match="disk full"):
        run_stage("work", read_records(src), tmp_path / "out", process, chunk_size=10, window=5)
    assert sum(calls) < 200  # it stopped taking records soon after the failure


@pytest.mark.slow
def test_kill_9_at_random_moments_loses_and_duplicates_nothing(tmp_path):
    src = _inputs(tmp_path, 600)
    out = tmp_path / "out"
    kills = 0
    for delay in (0.9, 1.3, 1.1, 1.6):
        proc = _child(src, out)
        time.sleep(delay)
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
            kills += 1
        proc.wait(timeout=30)
    assert kills >= 1, "the child finished before any kill; slow the process down"
    partial = len(read_table(out)) if out.exists() else 0
    proc = _child(src, out)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 0, stderr
    assert "DONE" in stdout
    _check_complete(src, out)
    assert partial < 600 or kills == 0
    print(json.dumps({"kills": kills, "rows_before_final_run": partial}))
