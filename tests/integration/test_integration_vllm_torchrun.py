"""rollout.engine: vllm under torchrun --nproc_per_node 2 (gloo, CPU): one engine on rank 0 samples for both ranks.

Rank 0 starts vLLM with torchrun's variables hidden (its workers form their own group), samples every
generation batch, and broadcasts it; each rank scores its slice; weight sync gathers the full state dict.
Runs tests/integration/vllm_train_check.py under the vLLM venv's python, as the one-process test does.
The results are read from the files each rank writes (`result.json.rank<r>`), not from the shared stdout
pipe: two ranks' long lines interleave there (a CI run once saw them joined on one line).
"""

from __future__ import annotations

import json
import math
import site
import socket
import subprocess

import pytest
import yaml
from test_integration_vllm_train import REPO, SCRIPT, _toy_parquet

pytestmark = pytest.mark.integration


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("fsdp", [False, True], ids=["replicated", "fsdp2"])
def test_two_ranks_share_one_vllm_engine(fsdp, vllm_py, make_vllm_env, tiny_model_dir, tmp_path):
    cfg = {
        # ppo: GAE advantages r - V are nonzero even when every reward is equal (a random model answers
        # nothing right), so step 1 moves the weights and the sync after it can be checked
        "preset": "ppo",
        "model": {"path": str(tiny_model_dir)},
        "data": {"train": _toy_parquet(tmp_path / "train.parquet"), "max_prompt_len": 128},
        "rollout": {"engine": "vllm", "n": 4, "max_new_tokens": 16, "vllm_kwargs": {"dtype": "float32"}},
        "algo": {"overlong_buffer": 4, "tis_cap": 2.0},
        "optim": {"lr": 1e-3, "warmup_steps": 1},
        "train": {"steps": 2, "prompts_per_step": 3, "mini_batch_size": 6, "out": str(tmp_path / "run"),
                  "tensorboard": False, "device": "cpu", "fsdp": fsdp},
    }  # fmt: skip
    (tmp_path / "run.yaml").write_text(yaml.safe_dump(cfg))
    env = make_vllm_env(tmp_path / "tmp")
    env.update(PYTHONPATH=str(REPO), DAPO_MAIN_SITE=site.getsitepackages()[0], OMP_NUM_THREADS="1",
               GLOO_SOCKET_IFNAME="lo")  # fmt: skip
    cmd = [str(vllm_py), "-m", "torch.distributed.run", "--nnodes", "1", "--nproc_per_node", "2",
           "--master_addr", "127.0.0.1", "--master_port", str(_free_port()), str(SCRIPT), str(tmp_path / "run.yaml"), str(tmp_path / "result.json")]  # fmt: skip
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900, env=env, cwd=str(tmp_path))
    skip = [ln for ln in proc.stdout.splitlines() if ln.startswith("SKIP: ")]
    if skip:
        pytest.skip(f"vLLM venv cannot run the loop: {skip[0][6:]}")
    results = sorted(tmp_path.glob("result.json.rank*"))
    assert proc.returncode == 0 and [p.name[-5:] for p in results] == ["rank0", "rank1"], (
        proc.stdout[-4000:] + "\n" + proc.stderr[-8000:]
    )
    rows = json.loads(results[0].read_text())["rows"]
    assert [r["step"] for r in rows] == [1, 2]  # rank 0 alone logs
    for r in rows:
        assert math.isfinite(r["loss"]) and r["updates"] == 2
        assert 0 <= r["logprob_gap_mean"] < 0.5, r  # vLLM's samples scored by the (sharded) trainer
    run = tmp_path / "run"
    assert (run / "checkpoints/latest").read_text() == "step-000002"
    # step 1 moved the weights, and step 2's samples still match the trainer's logprobs: vLLM sampled
    # with the updated (gathered, reloaded) weights, not the stale ones
    from safetensors.torch import load_file

    w0, w1 = (
        load_file(str(tiny_model_dir / "model.safetensors")),
        load_file(str(run / "checkpoints/step-000001/model.safetensors")),
    )
    assert max(float((w1[k] - w0[k]).abs().max()) for k in w1) > 1e-4
    assert rows[1]["logprob_gap_max"] < 1e-3, rows[1]
    assert (run / "vllm/policy-sync/model.safetensors").exists()  # the gathered weights reached vLLM
    print({k: rows[-1][k] for k in ("logprob_gap_mean", "logprob_gap_max", "acc", "gen_batches")})
