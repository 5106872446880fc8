"""The offline vLLM engine on CPU: sampling with per-token logprobs, weight reload.

Runs tests/integration/vllm_engine_check.py under the vLLM venv's python (vLLM is not
installed in the main venv) and asserts on the JSON it writes to a file (not parsed out of the stdout
pipe vLLM's engine process also writes to).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

CHECK_SCRIPT = Path(__file__).resolve().parent / "vllm_engine_check.py"


@pytest.fixture(scope="module")
def engine_result(
    vllm_py: Path, make_vllm_env, tiny_model_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> dict:
    work = tmp_path_factory.mktemp("vllm_engine")
    proc = subprocess.run(
        [str(vllm_py), str(CHECK_SCRIPT), str(tiny_model_dir), str(work / "out")],
        capture_output=True,
        text=True,
        timeout=280,
        env=make_vllm_env(work / "tmp"),
        cwd=str(work),
    )
    result = work / "out" / "result.json"
    assert proc.returncode == 0 and result.exists(), (
        f"engine check failed (rc={proc.returncode})\n--- stdout tail\n{proc.stdout[-4000:]}"
        f"\n--- stderr tail\n{proc.stderr[-4000:]}"
    )
    return json.loads(result.read_text())


def test_sampling_returns_n_samples_with_per_token_logprobs(engine_result: dict) -> None:
    r = engine_result
    assert r["n_per_prompt"] == [4, 4]
    assert r["logprobs_ok"], r["samples"]
    assert r["logprobs0_ok"]  # logprobs=0: just the chosen token's logprob per step
    for s in r["samples"]:
        assert s["n_tokens"] > 0
        assert s["n_logprobs"] == s["n_tokens"]
        # The sum of the chosen tokens' logprobs is the engine's cumulative logprob.
        assert s["sum_logprobs"] == pytest.approx(s["cumulative_logprob"], rel=1e-4, abs=1e-3)
        assert s["sum_logprobs"] < 0
    # No per-request seed: the 4 samples of a group differ (random weights, vocab 512).
    assert r["distinct_samples"] >= 6


def test_reload_weights_changes_outputs_and_restores(engine_result: dict) -> None:
    r = engine_result
    assert r["changed_tensors"] == ["lm_head.weight"]
    assert r["changed_after_reload"], (r["greedy_before"], r["greedy_after"])
    assert r["restored_matches"], (r["greedy_before"], r["greedy_restored"])


def test_throughput_is_reported(engine_result: dict) -> None:
    r = engine_result
    assert r["throughput_tokens"] == 2 * 8 * 128  # ignore_eos: every sample full length
    assert r["tokens_per_s"] > 0
    print(
        f"vLLM CPU offline engine: {r['tokens_per_s']} tokens/s "
        f"({r['throughput_tokens']} tokens in {r['throughput_s']} s); init {r['init_s']} s"
    )
