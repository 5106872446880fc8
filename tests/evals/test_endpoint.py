"""`dapo eval --endpoint` against the scripted OpenAI server (a real process on loopback).

Scripted answers give exact metric values, worked out by hand in SCENARIO below; faults (429,
500, garbled bodies, hangs) must not change them; a killed run resumes without asking the server
again for the samples it stored (the server counts requests).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

REPO = Path(__file__).resolve().parents[2]

# k = 5 samples per problem. Each rule answers one request of its problem (`times: 1`), so every
# problem gets exactly its five scripted responses, in whatever order the requests land.
PROBLEMS = [
    {"id": "p1", "problem": "PROBLEM-ONE: what is one half?", "answer": "\\frac{1}{2}"},
    {"id": "p2", "problem": "PROBLEM-TWO: what is seven?", "answer": "7"},
    {"id": "p3", "problem": "PROBLEM-THREE: what is twelve?", "answer": "12"},
]
SCENARIO = {
    # three correct halves written three ways, and two wrong 3s: exact-string voting would elect 3
    "PROBLEM-ONE": [("Answer: 0.5", 10, "stop"), ("Answer: 1/2", 10, "stop"), ("Answer: \\frac{1}{2}", 10, "stop"),
                    ("Answer: 3", 10, "stop"), ("Answer: 3", 10, "stop")],
    # one correct 7; wrong 1/2 and 0.5 are one class of two and win the vote; one response has no answer
    "PROBLEM-TWO": [("Answer: 1/2", 20, "stop"), ("Answer: 0.5", 20, "stop"), ("Answer: 7", 20, "stop"),
                    ("Answer: 9", 20, "stop"), ("I am not sure.\nLet me stop here.", 20, "stop")],
    # all wrong, two cut at max_tokens
    "PROBLEM-THREE": [("Answer: 13", 30, "stop")] * 3 + [("Answer: 13", 30, "length")] * 2,
}  # fmt: skip
# By hand: per-problem accuracy 3/5, 1/5, 0/5
EXPECTED = {
    "n_problems": 3,
    "n_samples": 15,
    "avg@5": 0.8 / 3,
    "avg@5_se": 0.1763834,  # sqrt(((1/3)^2 + (1/15)^2 + (4/15)^2) / 2 / 3)
    "pass@1": 0.8 / 3,
    "pass@4": 1.8 / 3,  # P1: 1 (only two wrong), P2: 1 - C(4,4)/C(5,4) = 0.8, P3: 0
    "pass@5": 2 / 3,
    "maj@5": 1 / 3,  # P1's halves win; P2's wrong halves win; P3 has only 13
    "no_answer_rate": 1 / 15,
    "truncation_rate": 2 / 15,
    "mean_length": 20.0,  # (5*10 + 5*20 + 5*30) / 15
}


def _rules(faults: list[dict] | None = None) -> list[dict]:
    rules = list(faults or [])
    for match, replies in SCENARIO.items():
        for content, tokens, finish in replies:
            rules.append(
                {"match": match, "times": 1, "content": content, "tokens": tokens, "finish_reason": finish}
            )
    return rules


def _bench(tmp_path: Path) -> Path:
    f = tmp_path / "scripted.jsonl"
    f.write_text("".join(json.dumps(p) + "\n" for p in PROBLEMS))
    return f


def _check(metrics: dict) -> None:
    for key, want in EXPECTED.items():
        assert metrics[key] == pytest.approx(want, abs=1e-6), key
    assert "pass@16" not in metrics


def _run(server, tmp_path, out, **kw):
    from evals.benchmarks import load_benchmark_problems
    from evals.endpoint import EndpointSampler
    from evals.prompts import PromptSpec
    from evals.runner import EvalConfig, run_eval
    from evals.store import SamplingParams

    sampler = EndpointSampler(server.base_url, "scripted", concurrency=kw.pop("concurrency", 8),
                              timeout_s=kw.pop("timeout_s", 30.0), max_retries=kw.pop("max_retries", 4),
                              backoff_s=0.05)  # fmt: skip
    cfg = EvalConfig(out=out, params=SamplingParams(k=5, temperature=1.0, top_p=0.7, max_tokens=64),
                     prompt=PromptSpec.make(), progress=False, model="scripted", **kw)  # fmt: skip
    return run_eval([load_benchmark_problems(str(_bench(tmp_path)))], sampler, cfg), sampler


def test_exact_metrics_on_scripted_answers(server, tmp_path):
    server.script("Answer: 0", rules=_rules())
    report, sampler = _run(server, tmp_path, tmp_path / "out")
    _check(report["benchmarks"]["scripted"])
    _check(report["overall"])
    assert server.stats()["requests"] == 15 and sampler.usage["retries"] == 0
    rows = pq.read_table(tmp_path / "out" / "samples.parquet").to_pylist()
    assert len(rows) == 15
    assert set(rows[0]) >= {
        "problem_id",
        "sample_index",
        "response",
        "extracted_answer",
        "correct",
        "reason",
        "length",
    }
    p2 = sorted((r["extracted_answer"] or "-", r["correct"]) for r in rows if r["problem_id"] == "p2")
    assert p2 == [("-", False), ("0.5", False), ("1/2", False), ("7", True), ("9", False)]
    assert {r["reason"] for r in rows if r["problem_id"] == "p2" and r["extracted_answer"] is None} == {
        "no_answer"
    }
    rep = json.loads((tmp_path / "out" / "report.json").read_text())
    assert rep["grader"]["name"].startswith("dapo-toolkit verifiers") and rep["grader"]["version"]
    assert rep["prompt"]["name"] == "dapo" and "PROBLEM-ONE" in rep["prompt"]["example"][0]["content"]
    assert (tmp_path / "out" / "pass_at_k.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    md = (tmp_path / "out" / "report.md").read_text()
    # every metric ± its standard error over the 3 problems: pass@4 per problem (1, 0.8, 0): squares
    # of deviations from 0.6 sum to 0.56, sqrt(0.56 / 2 / 3) = 0.306; pass@5 (1, 1, 0) and maj@5 (1, 0, 0):
    # sqrt(0.6667 / 2 / 3) = 0.333
    assert ("| scripted | 3 | 26.7 ± 17.6 | 26.7 ± 17.6 | 60.0 ± 30.6 | 66.7 ± 33.3 | 33.3 ± 33.3 | 6.7 | 13.3 "
            "| 20 |") in md  # fmt: skip


def test_faults_are_retried_and_change_nothing(server, tmp_path):
    faults = [
        {"match": "PROBLEM-ONE", "action": "429", "times": 3, "retry_after": 0},
        {"match": "PROBLEM-TWO", "action": "500", "times": 3},
        {"match": "PROBLEM-THREE", "action": "malformed", "times": 2},
        {"match": "PROBLEM-ONE", "action": "hang", "times": 1, "hang_s": 4},
    ]
    server.script("Answer: 0", rules=_rules(faults))
    report, sampler = _run(server, tmp_path, tmp_path / "out", timeout_s=1.0, max_retries=6)
    _check(report["overall"])
    by = server.stats()["by_action"]
    assert by == {"429": 3, "500": 3, "malformed": 2, "hang": 1, "reply": 15}
    assert sampler.usage["retries"] == 9 and sampler.usage["completions"] == 15


def test_concurrency_is_bounded(server, tmp_path):
    server.script("Answer: 0", rules=_rules(), latency=0.1)
    try:
        _run(server, tmp_path, tmp_path / "out", concurrency=3)
        assert server.stats()["max_inflight"] == 3  # 15 requests of 0.1 s: the bound is reached
    finally:
        server.script("Answer: 0", latency=0.0)


def test_cli_end_to_end_completion_mode_and_a_permanent_failure(server, tmp_path):
    from dapo_cli import app

    server.script("Answer: 0", rules=_rules())
    out = tmp_path / "cli"
    args = ["eval", "--endpoint", server.base_url, "--model", "scripted", "--bench", f"s={_bench(tmp_path)}",
            "--k", "5", "--max-tokens", "64", "--mode", "completion", "--out", str(out), "--no-progress",
            "--json", str(tmp_path / "m.json")]  # fmt: skip
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0, r.output
    assert "| s | 3 | 26.7 ± 17.6 |" in r.output and "15 samples drawn, 0 from the store" in r.output
    rep = json.loads((out / "report.json").read_text())
    assert rep["prompt"]["mode"] == "completion" and isinstance(rep["prompt"]["example"], str)
    _check(rep["overall"])
    flat = json.loads((tmp_path / "m.json").read_text())
    assert flat["cons@5"] == flat["maj@5"] == pytest.approx(1 / 3)
    # the same command again: everything from the store, not one request
    server.reset()
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0 and "0 samples drawn, 15 from the store" in r.output
    assert server.stats()["requests"] == 0
    again = json.loads((out / "report.json").read_text())
    assert again["samples"]["graded_now"] == 0 and again["overall"] == rep["overall"]  # verdicts kept too
    # other settings into the same --out: refused with the fix
    r = CliRunner().invoke(app, [*args, "--temperature", "0.6"])
    assert r.exit_code == 2 and "temperature: 1.0 then, 0.6 now" in r.output and "--fresh" in r.output
    # a server that keeps failing: one line, and the samples that arrived are kept for the resume
    server.script("Answer: 0", rules=[{"match": "PROBLEM-TWO", "action": "500"}])
    r = CliRunner().invoke(app, ["eval", "--endpoint", server.base_url, "--model", "scripted", "--bench",
                                 str(_bench(tmp_path)), "--k", "2", "--max-retries", "1", "--concurrency", "1",
                                 "--out", str(tmp_path / "fail"), "--no-progress"])  # fmt: skip
    assert r.exit_code == 2, r.output
    assert "retried up to 1 times" in r.output and "rerun the same command to resume" in r.output
    assert "Traceback" not in r.output
    assert (tmp_path / "fail" / "samples.jsonl").read_text().count("\n") >= 2  # p1's two samples came first


def test_kill_and_resume_does_not_ask_again(server, tmp_path):
    """SIGKILL a real `dapo eval` process mid-run; the rerun asks only for what was not stored."""
    server.script("Answer: 4", rules=[{"match": "PROBLEM-ONE", "content": "Answer: 1/2"}], latency=0.15)
    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "dapo_cli", "eval", "--endpoint", server.base_url, "--model", "scripted",
           "--bench", str(_bench(tmp_path)), "--k", "8", "--concurrency", "2", "--out", str(out),
           "--no-progress", "--grade-workers", "0"]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    try:
        proc = subprocess.Popen(
            cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True
        )
        store = out / "samples.jsonl"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if store.exists() and store.read_text().count("\n") >= 6:
                break
            time.sleep(0.02)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        time.sleep(0.3)  # let requests the dead client left in flight finish on the server
        first = server.stats()["requests"]
        stored = sum(1 for line in store.read_text().splitlines() if line.endswith("}"))
        assert 6 <= stored < 24 and first >= stored
        server.reset()
        r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stdout + r.stderr
        assert server.stats()["requests"] == 24 - stored  # nothing stored was asked for again
        assert f"{24 - stored} samples drawn, {stored} from the store" in r.stdout
        rep = json.loads((out / "report.json").read_text())
        # p1 (gold 1/2) always right, p2 (7) and p3 (12) always "4": exact whatever the split of the work
        assert rep["overall"]["avg@8"] == pytest.approx(1 / 3) and rep["overall"]["maj@8"] == pytest.approx(
            1 / 3
        )
        rows = pq.read_table(out / "samples.parquet").to_pylist()
        assert sorted((r["problem_id"], r["sample_index"]) for r in rows) == [
            (p["id"], i) for p in PROBLEMS for i in range(8)
        ]
    finally:
        server.script("Answer: 0", latency=0.0)


def test_preflight_names_the_served_models_and_an_unreachable_server(server, tmp_path):
    import socket

    from dapo_cli import app

    base = [
        "eval",
        "--bench",
        "aime24",
        "--limit",
        "1",
        "--k",
        "1",
        "--out",
        str(tmp_path / "o"),
        "--no-progress",
    ]
    r = CliRunner().invoke(app, [*base, "--endpoint", server.base_url, "--model", "qwen"])
    assert r.exit_code == 2 and "does not serve model 'qwen'; it serves: scripted" in r.output
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    t = time.monotonic()
    r = CliRunner().invoke(app, [*base, "--endpoint", f"http://127.0.0.1:{port}/v1", "--model", "m"])
    assert r.exit_code == 2 and f"cannot reach http://127.0.0.1:{port}/v1" in r.output
    assert time.monotonic() - t < 30  # at once, not after six backed-off retries
    assert "Traceback" not in r.output


def test_a_rerun_with_every_sample_stored_needs_no_server(tmp_path):
    """The report of a finished run is rebuilt from its store after the server has gone away."""
    from scripted_server import ScriptedServer

    from dapo_cli import app

    out = tmp_path / "run"
    with ScriptedServer() as srv:
        srv.script("Answer: 0", rules=_rules())
        args = ["eval", "--endpoint", srv.base_url, "--model", "scripted", "--bench", f"s={_bench(tmp_path)}",
                "--k", "5", "--out", str(out), "--no-progress"]  # fmt: skip
        r = CliRunner().invoke(app, args)
        assert r.exit_code == 0 and "15 samples drawn" in r.output, r.output
        first = json.loads((out / "report.json").read_text())["overall"]
    r = CliRunner().invoke(app, args)  # the server process has exited
    assert r.exit_code == 0 and "0 samples drawn, 15 from the store" in r.output, r.output
    assert json.loads((out / "report.json").read_text())["overall"] == first
    # one sample more than stored: now the server is needed, and its absence is named at once
    r = CliRunner().invoke(app, [*args[:-3], "--k", "6", *args[-3:]])
    assert r.exit_code == 2 and "cannot reach" in r.output, r.output
