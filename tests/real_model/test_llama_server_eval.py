"""`dapo eval --endpoint` through llama.cpp's OpenAI-compatible server on loopback, with real weights.

Qwen2.5-Coder-1.5B-Instruct (Q4_K_M GGUF, its own chat template from the file) answers a few MATH-500
problems greedily; the report must carry real answers, lengths and rates (the figures for the issue
come from bench/results/real_model.md, on more problems).
"""

from __future__ import annotations

import json

import pytest

from bench import real_model as rm

pytestmark = [pytest.mark.real_model, pytest.mark.timeout(3600)]


def test_dapo_eval_endpoint_on_math500_through_llama_cpp(tmp_path, run_dapo):
    pytest.importorskip(
        "llama_cpp.server.app",
        reason="llama-cpp-python[server] missing; run: bash scripts/real_model_setup.sh",
    )
    try:
        model = rm.model_file(rm.QWEN_FILE)
    except FileNotFoundError as e:
        pytest.skip(str(e))
    out = tmp_path / "ev"
    with rm.llama_server(model, alias="qwen2.5-coder-1.5b", log=tmp_path / "server.log") as url:
        run_dapo("eval", "--endpoint", url, "--model", "qwen2.5-coder-1.5b", "--bench", "math500", "--limit", "3",
                 "--k", "1", "--temperature", "0", "--max-tokens", "384", "--concurrency", "1", "--timeout", "900",
                 "--out", str(out), "--no-progress", "--json", str(tmp_path / "ev.json"))  # fmt: skip
    res = json.loads((tmp_path / "ev.json").read_text())
    assert res["n_prompts"] == 3 and 0 <= res["avg@1"] <= 1
    rep = json.loads((out / "report.json").read_text())
    assert rep["sampler"]["kind"] == "endpoint"
    assert 0 < rep["overall"]["mean_length"] <= 384
