"""Asynchronous rollouts (train.max_staleness): the bound per sample, exact resume, the behaviour-policy ratio."""

import json
import math

import pytest
import torch

from trainer.algorithms import ALGORITHMS
from trainer.async_rollout import batch_version, within_bound
from trainer.batch import make_batch
from trainer.config import build_config
from trainer.data import Prompt
from trainer.objective import policy_loss
from trainer.reward import RewardResult
from trainer.rollout import Sample
from trainer.sampling import Group


def _cfg(train_path, out, model_path, *, k, steps=4, **algo):
    return build_config(
        {
            "preset": "dapo",
            "model": {"path": str(model_path)},
            "data": {"train": train_path, "max_prompt_len": 256},
            "rollout": {"n": 4, "max_new_tokens": 16},
            "algo": {
                "overlong_buffer": 4,
                "keep_surplus": True,
                "max_gen_batches": 4,
                "on_max_gen_batches": "train",
                "tis_cap": 2.0,
                # the toy policy rarely answers right: groups differ by length penalty only, which the
                # reward filter keeps (the acc filter would leave no group to train on)
                "filter_metric": "reward",
                **algo,
            },
            "optim": {"lr": 1e-3, "warmup_steps": 1},
            "train": {
                "steps": steps,
                "prompts_per_step": 2,
                "gen_prompts": 8,
                "mini_batch_size": 4,
                "epochs": 2,
                "out": str(out),
                "tensorboard": False,
                "max_staleness": k,
            },
        }  # fmt: skip
    )


def _jsonl(path):
    return [json.loads(x) for x in path.read_text().splitlines()]


def _params(path):
    from safetensors.torch import load_file

    return load_file(str(path / "model.safetensors"))


def test_schedule_is_fixed_by_the_bound_and_older_carries_are_dropped():
    assert [batch_version(j, 0) for j in range(4)] == [0, 1, 2, 3]
    assert [batch_version(j, 2) for j in range(5)] == [0, 0, 0, 1, 2]
    groups = [Group(Prompt(str(v), [], "1", ""), [], [], version=v) for v in (0, 1, 2, 3)]
    kept, dropped = within_bound(groups, 4, 2)
    assert [g.version for g in kept] == [2, 3] and dropped == 2


def test_async_bound_holds_per_sample_and_a_killed_run_resumes_exactly(toy_verl, tmp_path, sft_dir):
    from trainer.loop import train

    k = 1
    a = train(_cfg(toy_verl, tmp_path / "a", sft_dir[0], k=k), progress=False)
    rows = _jsonl(a / "metrics.jsonl")
    rolls = _jsonl(a / "rollouts.jsonl")
    assert [r["step"] for r in rows] == [1, 2, 3, 4]
    for r, roll in zip(rows, rolls, strict=True):
        step = r["step"] - 1  # the policy version being trained
        ages = [step - g["version"] for g in roll["groups"]]
        assert ages and all(0 <= x <= k for x in ages), (step, ages)  # every sample within the bound
        # the fixed schedule; a carried group only while the previous batch had the same version (warm-up)
        assert all(g["version"] == batch_version(step, k) for g in roll["groups"])
        assert r["staleness_max"] == max(ages) and r["staleness_mean"] == pytest.approx(sum(ages) / len(ages))
        for key in (
            "is_weight_mean",
            "is_weight_max",
            "rc_masked_share",
            "stale_dropped",
            "producer_gen_time",
        ):
            assert key in r, key
    for prev, r in zip(rows, rows[1:], strict=False):
        if r["step"] - 1 > k:  # the previous batch's surplus is k + 1 versions old: dropped, and counted
            assert r["carried_groups"] == 0 and r["stale_dropped"] == prev["surplus_groups"]
        else:
            assert r["stale_dropped"] == 0 and r["carried_groups"] == min(prev["surplus_groups"], 2)
    assert rows[1]["staleness_max"] == 1  # step 1 trains on version 0's samples
    assert rows[1]["is_weight_max"] != 1.0  # the learner moved away from the sampling policy

    # killed after step 1: the in-flight batch of step 2 is in the checkpoint, the run resumes exactly
    b_cfg = _cfg(toy_verl, tmp_path / "b", sft_dir[0], k=k)
    train(b_cfg, progress=False, max_steps=1)
    state = json.loads((tmp_path / "b/checkpoints/step-000001/trainer_state.json").read_text())
    assert [d["step"] for d in state["inflight"]] == [1] and state["inflight"][0]["version"] == 0
    train(b_cfg, progress=False, resume=True)
    assert _jsonl(tmp_path / "b/rollouts.jsonl") == rolls
    pa, pb = _params(a / "checkpoints/step-000004"), _params(tmp_path / "b/checkpoints/step-000004")
    for key in pa:
        assert torch.equal(pa[key], pb[key]), key


def test_staleness_zero_stays_in_process_and_on_policy(toy_verl, tmp_path, sft_dir):
    from trainer.loop import train

    out = train(_cfg(toy_verl, tmp_path / "s", sft_dir[0], k=0, steps=2), progress=False)
    rows = _jsonl(out / "metrics.jsonl")
    assert all("stale_dropped" not in r for r in rows)  # no producer
    for r, roll in zip(rows, _jsonl(out / "rollouts.jsonl"), strict=True):
        step = r["step"] - 1
        fresh = [g for g in roll["groups"] if g["version"] == step]
        carried = [g for g in roll["groups"] if g["version"] != step]
        assert len(carried) == r["carried_groups"] and all(g["version"] < step for g in carried)
        assert len(fresh) + len(carried) == len(roll["groups"])


def _one_group(logp_engine: list[float]) -> Group:
    s = Sample([5, 6], [7, 8, 9], logp_engine, False, "")
    s2 = Sample([5, 6], [7, 8, 9], logp_engine, False, "")
    return Group(
        Prompt("p", [5, 6], "1", ""),
        [s, s2],
        [RewardResult(1.0, 1.0, None, "", 0.0), RewardResult(-1.0, 0.0, None, "", 0.0)],
    )


@pytest.mark.parametrize("mode", ["engine", "decoupled"])
def test_ratio_uses_the_behaviour_logprobs(mode):
    """Hand-computed: one response of 3 tokens with advantage +1 (the second row carries no loss)."""
    behav = [-1.0, -2.0, -0.5]  # the stale policy that sampled (Batch.engine_logp)
    prox = torch.tensor([[-1.2, -1.5, -0.5]])  # the learner's policy at the step (recomputed pi_old)
    theta = torch.tensor([[-0.9, -1.4, -0.8]])  # this forward pass
    over = {"old_logprobs": "engine"} if mode == "engine" else {"tis_cap": 1.5}
    cfg = build_config(
        {"preset": "dapo", "rollout": {"n": 2}, "algo": over, "train": {"prompts_per_step": 1}}
    )
    b = make_batch([_one_group(behav)], 0, overlong_filter=True).select(torch.tensor([0]))
    old = b.engine_logp if mode == "engine" else prox
    b = b.with_(adv=torch.tensor([1.0]), old=old)
    norm = {"tokens": 3.0, "seqs": 1, "groups": 1, "ntp_tokens": 0.0, "group_tokens": torch.tensor([3.0]),
            "constant": 1.0}  # fmt: skip
    loss, _ = policy_loss(cfg.algo, ALGORITHMS["dapo"], theta, b, norm)
    want = 0.0
    for t in range(3):
        if mode == "engine":  # PPO ratio against the sampling policy, clipped to [0.8, 1.28]
            r, w = math.exp(theta[0, t] - behav[t]), 1.0
        else:  # decoupled: clip against the proximal policy, times min(pi_prox / pi_behav, cap)
            r, w = math.exp(theta[0, t] - prox[0, t]), min(math.exp(prox[0, t] - behav[t]), 1.5)
        want += -w * min(r * 1.0, min(max(r, 0.8), 1.28) * 1.0)
    assert float(loss) == pytest.approx(want / 3, rel=1e-6)


def test_async_config_needs_a_correction_and_no_fsdp():
    from trainer.config import ConfigError

    with pytest.raises((ValueError, ConfigError), match="choose the correction"):
        build_config({"train": {"max_staleness": 1}})
    # the producer process runs the vLLM engine (tests/integration/test_integration_vllm_train.py)
    build_config({"rollout": {"engine": "vllm"}, "algo": {"tis_cap": 2.0}, "train": {"max_staleness": 1}})
    with pytest.raises((ValueError, ConfigError), match=r"train.max_staleness > 0 with train.fsdp"):
        build_config({"algo": {"tis_cap": 2.0}, "train": {"max_staleness": 1, "fsdp": True}})
    build_config({"algo": {"old_logprobs": "engine"}, "train": {"max_staleness": 2}})
    build_config({"train": {"max_staleness": 0, "fsdp": True}})  # the synchronous loop shards as before


@pytest.mark.slow
def test_a_spawned_producer_samples_what_a_forked_one_does(toy_verl, tmp_path, sft_dir, monkeypatch):
    """The start method a CUDA run takes (spawn: a forked child cannot use its parent's CUDA context),
    checked on CPU: the same batches, token for token, and the same weights as the forked producer."""
    import trainer.async_rollout as ar
    from trainer.loop import train

    assert ar.producer_start_method() == "fork"  # CPU, Linux
    a = train(_cfg(toy_verl, tmp_path / "fork", sft_dir[0], k=1, steps=3), progress=False)
    monkeypatch.setattr(torch.cuda, "is_initialized", lambda: True)
    assert ar.producer_start_method() == "spawn"
    b = train(_cfg(toy_verl, tmp_path / "spawn", sft_dir[0], k=1, steps=3), progress=False)
    assert _jsonl(b / "rollouts.jsonl") == _jsonl(a / "rollouts.jsonl")
    pa, pb = _params(a / "checkpoints/step-000003"), _params(b / "checkpoints/step-000003")
    assert all(torch.equal(pa[k], pb[k]) for k in pa)
