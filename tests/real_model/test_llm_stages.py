"""The build's LLM stages and the verifier's judge through llama.cpp's server, with real weights.

Issue 24 parts 1, 3 and 4 on a handful of problems (the figures come from bench/results/real_model.md,
on 30 and 50): the LLM rewrite with a format retry and solver agreement (Qwen2.5-Coder-1.5B-Instruct),
the difficulty stage and the judge on the rules' negatives of real completions (SmolLM2-135M-Instruct,
fast enough to sample here). What is asserted is what must hold whatever a weak model writes: every
record ends with a reason from the known set, nothing unverified is kept, counts add up.
"""

from __future__ import annotations

import json

import pytest

from bench import real_model as rm

pytestmark = [pytest.mark.real_model, pytest.mark.timeout(3600)]

# two OlympiadBench problems the rules leave to an LLM (an irrational form, several answers)
OLYMPIAD_IDS = {"2645", "2370"}
REASONS = {"kept", "llm_unparsed", "llm_error", "solver_disagrees", "solver_unavailable", "llm_budget"}


def _server_model(name: str):
    pytest.importorskip(
        "llama_cpp.server.app",
        reason="llama-cpp-python[server] missing; run: bash scripts/real_model_setup.sh",
    )
    try:
        return rm.model_file(name)
    except FileNotFoundError as e:
        pytest.skip(str(e))


def _build_env(monkeypatch, url: str, model: str) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", url)
    monkeypatch.setenv("DAPO_LLM_MODEL", model)
    monkeypatch.setenv("DAPO_JUDGE_MODEL", model)
    monkeypatch.setenv("OPENAI_API_KEY", "none")


def test_llm_rewrite_with_solver_agreement_keeps_only_what_it_verified(tmp_path, run_dapo, monkeypatch):
    model = _server_model(rm.QWEN_FILE)
    src = rm.SOURCES / "olympiadbench.jsonl"
    if not src.exists():
        pytest.skip(f"{src} missing (the shared sources)")
    rows = [
        line
        for line in src.read_text().splitlines()
        if line.strip() and str(json.loads(line)["id"]) in OLYMPIAD_IDS
    ]
    (tmp_path / "olympiadbench.jsonl").write_text("\n".join(rows) + "\n")
    cfg = {"name": "t", "sources": [{"kind": "import", "name": "olympiadbench", "path": "olympiadbench.jsonl"}],
           "llm": {**rm.REWRITE_LLM, "max_tokens": 256}, "rewrite": {"rules": True, "llm": True},
           "validate": {"consistency": True, "solver": {"enabled": True, "k": 1, "temperature": 0.7}},
           "dedup": {"enabled": False}, "decontaminate": {"enabled": False}, "export": {"verl": False}}  # fmt: skip
    (tmp_path / "build.yaml").write_text(json.dumps(cfg))
    with rm.llama_server(model, alias="qwen", log=tmp_path / "server.log") as url:
        _build_env(monkeypatch, url, "qwen")
        run_dapo("build", str(tmp_path / "build.yaml"), "--out", str(tmp_path / "out"))
    rep = rm.rewrite_report(tmp_path / "out", tmp_path / "kept.jsonl")
    assert rep["sent_to_llm"] == 2
    assert sum(rep["by_reason"].values()) == 2
    assert {r.split(":")[0] for r in rep["by_reason"]} <= REASONS
    kept = [json.loads(line) for line in (tmp_path / "kept.jsonl").read_text().splitlines()]
    assert len(kept) == rep["kept"]
    for row in kept:  # kept means parsed, an integer, and the solver sample agreed
        assert row["rewritten_answer"].lstrip("-").isdigit() and row["rewritten_problem"]
    assert rep["solver_agreement"].get("1/1", 0) >= rep["kept"]


def test_difficulty_and_judge_on_real_completions(tmp_path, run_dapo, monkeypatch):
    model = _server_model(rm.SMOL_FILE)
    cfg_path = rm.write_difficulty_config(tmp_path / "cfg", per_source=2, n=2, max_tokens=96)
    ev = tmp_path / "ev"
    with rm.llama_server(model, alias="smollm2", n_ctx=2048, log=tmp_path / "server.log") as url:
        _build_env(monkeypatch, url, "smollm2")
        run_dapo("build", str(cfg_path), "--out", str(tmp_path / "diff"))
        run_dapo("eval", "--endpoint", url, "--model", "smollm2", "--bench", "math500", "--limit", "4", "--k", "1",
                 "--temperature", "0", "--max-tokens", "192", "--concurrency", "1", "--timeout", "900",
                 "--out", str(ev), "--no-progress")  # fmt: skip
        judged = rm.judge_rule_negatives([ev], {"base_url": url, "model": "smollm2", "concurrency": 1,
                                                "call_timeout_s": 300, "max_retries": 1}, tmp_path / "flips.jsonl")  # fmt: skip
    diff = rm.difficulty_report(tmp_path / "diff")
    assert diff["problems_rated"] >= 3  # 2 MAWPS + 2 GSM8K, the rules keep at least 3
    assert set(diff["histogram"]) <= {0.0, 0.5, 1.0}
    assert diff["llm_usage"]["requests"] + diff["llm_usage"]["cache_hits"] >= 2 * diff["problems_rated"]
    assert judged["sent_to_judge"] <= judged["rule_negatives"] <= 4
    assert sum(judged["judge_reasons"].values()) == judged["sent_to_judge"]
    flips = (tmp_path / "flips.jsonl").read_text().splitlines()
    assert len(flips) == judged["flipped"] == judged["judge_reasons"].get("judge_match", 0)
