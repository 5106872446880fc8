"""train() with rollout.engine: vllm on CPU: 2 steps, weight sync after the update, logprob gap, TIS.

Runs tests/integration/vllm_train_check.py under the vLLM venv's python with PYTHONPATH = the repo;
skips (with the reason) when that interpreter cannot import what the loop needs.

Robust to a slow, shared machine: vLLM's CPU start-up alone can take minutes under load, so the
test's own time limit (pytest-timeout, 300 s by default for the suite) is raised above the child's,
and a child that runs out of time fails with what it printed. The result is read from files the
child writes (its RESULT_JSON file and the run's metrics.jsonl), not parsed out of a stdout pipe
that vLLM's engine process writes to as well: a long line there can be split by another writer.
"""

from __future__ import annotations

import json
import math
import site
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]
SCRIPT = Path(__file__).resolve().parent / "vllm_train_check.py"
MARKER = "RESULT_JSON: "
CHILD_TIMEOUT_S = 1500  # vLLM start-up + 2 steps: ~1-2 min on a quiet 2-core box, many more under load


def _toy_parquet(path: Path) -> str:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = []
    for i in range(16):
        a, b = i % 7 + 1, i % 5 + 2
        rows.append(
            {
                "data_source": "toy",
                "prompt": [{"role": "user", "content": f"What is {a} + {b}? Answer: "}],
                "ability": "math",
                "reward_model": {"style": "rule", "ground_truth": str(a + b)},
                "extra_info": {
                    "index": i,
                    "id": f"t{i}",
                    "source": "toy",
                    "raw_problem": "",
                    "split": "train",
                },
            }
        )
    pq.write_table(pa.Table.from_pylist(rows), path)
    return str(path)


def _config(tmp_path: Path, model_dir: Path, *, steps: int, **train) -> dict:
    return {
        "preset": "dapo",
        "model": {"path": str(model_dir)},
        "data": {"train": _toy_parquet(tmp_path / "train.parquet"), "max_prompt_len": 128},
        "rollout": {"engine": "vllm", "n": 4, "max_new_tokens": 16},
        "algo": {
            "overlong_buffer": 4,
            "dynamic_sampling": False,
            "override": ["dynamic_sampling"],
            "tis_cap": 2.0,
        },
        "optim": {"lr": 1e-3, "warmup_steps": 1},
        "train": {
            "steps": steps,
            "prompts_per_step": 2,
            "out": str(tmp_path / "run"),
            "tensorboard": False,
            **train,
        },  # fmt: skip
    }


def _train_in_vllm_venv(cfg: dict, tmp_path: Path, vllm_py, make_vllm_env) -> tuple[list[dict], str]:
    """Run train(cfg) under the vLLM venv's python; (the run's metrics rows, what the child said)."""
    (tmp_path / "run.yaml").write_text(yaml.safe_dump(cfg))
    env = make_vllm_env(tmp_path / "tmp")
    env["PYTHONPATH"] = str(REPO)
    env["DAPO_MAIN_SITE"] = site.getsitepackages()[0]  # pyarrow / math_verify, after vLLM's own stack
    result = tmp_path / "result.json"
    try:
        proc = subprocess.run([str(vllm_py), str(SCRIPT), str(tmp_path / "run.yaml"), str(result)],
                              capture_output=True, text=True, timeout=CHILD_TIMEOUT_S, env=env, cwd=str(tmp_path))  # fmt: skip
    except subprocess.TimeoutExpired as e:
        pytest.fail(
            f"the vLLM training child ran over {CHILD_TIMEOUT_S}s; its output:\n{_tail(e.stdout)}\n{_tail(e.stderr)}"
        )
    skip = [ln for ln in proc.stdout.splitlines() if ln.startswith("SKIP: ")]
    if skip:
        pytest.skip(f"vLLM venv cannot run the loop: {skip[0][6:]}")
    said = f"exit {proc.returncode}; stdout:\n{_tail(proc.stdout, 4000)}\nstderr:\n{_tail(proc.stderr)}"
    assert proc.returncode == 0 and result.exists(), said
    out = Path(json.loads(result.read_text())["out"])
    from trainer.metrics import read_metrics

    return read_metrics(out / "metrics.jsonl"), said  # the run's own log, one row per finished step


@pytest.mark.timeout(CHILD_TIMEOUT_S + 120)
def test_two_train_steps_with_the_vllm_engine(vllm_py, make_vllm_env, tiny_model_dir, tmp_path):
    cfg = _config(tmp_path, tiny_model_dir, steps=2)
    rows, said = _train_in_vllm_venv(cfg, tmp_path, vllm_py, make_vllm_env)
    assert [r["step"] for r in rows] == [1, 2], f"{rows}\n{said}"
    for r in rows:
        assert math.isfinite(r["loss"])
        # engine (vLLM) vs trainer logprobs on the sampled tokens: logged, small but not exactly 0
        assert 0 <= r["logprob_gap_mean"] < 0.5, r
        assert r["logprob_gap_max"] >= r["logprob_gap_mean"]
    assert (tmp_path / "run/vllm/policy-sync/model.safetensors").exists()  # weights synced after step 1
    print(
        {
            k: rows[-1][k]
            for k in ("logprob_gap_mean", "logprob_gap_max", "prob_gap_mean", "engine_trainer_kl")
        }
    )


@pytest.mark.timeout(CHILD_TIMEOUT_S + 120)
def test_async_rollouts_from_a_vllm_engine_in_the_producer(vllm_py, make_vllm_env, tiny_model_dir, tmp_path):
    """train.max_staleness 1 with rollout.engine vllm: the producer process owns the vLLM engine and
    reloads each published version into it; the learner trains on batches one version old, corrected
    against the engine's own log-probabilities (decoupled PPO, algo.tis_cap)."""
    cfg = _config(tmp_path, tiny_model_dir, steps=3, max_staleness=1)
    rows, said = _train_in_vllm_venv(cfg, tmp_path, vllm_py, make_vllm_env)
    assert [r["step"] for r in rows] == [1, 2, 3], f"{rows}\n{said}"
    # batch j is sampled by version max(0, j - 1): staleness 0 at the first step, then exactly 1
    assert [r["staleness_max"] for r in rows] == [0, 1, 1], rows
    # batches 1, 2 are version 0's (the engine's start); batch 3 is version 1's, which the producer loaded
    # into the engine first (it raises if it samples with another version): the reload wrote policy-sync.
    # (Its content cannot tell versions 0 and 1 apart here: the toy's step-1 groups all score the same,
    # so step 1 changes no weight.)
    assert (tmp_path / "run/vllm/policy-sync/model.safetensors").exists()
    assert not (tmp_path / "run/vllm/policy-sync.tmp").exists()
    for r in rows:
        assert math.isfinite(r["loss"]) and r["producer_gen_time"] > 0
        # the IS weight pi_proximal / pi_behaviour with vLLM's logprobs as the behaviour: logged, finite
        assert math.isfinite(r["is_weight_max"]) and r["is_weight_max"] > 0, r
        assert 0 <= r["logprob_gap_mean"] < 1.0, r


def _tail(text, n: int = 6000) -> str:
    if isinstance(text, bytes):
        text = text.decode(errors="replace")
    return (text or "")[-n:]


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-m", "integration", "-s"]))
