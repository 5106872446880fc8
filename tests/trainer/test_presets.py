"""Every preset runs the real train() loop: 2 steps on a toy verl Parquet, finite losses, moved weights.

Also: resume is exact for DCPO's per-prompt statistics and for the PPO critic (weights and optimiser),
and the PPO/VAPO config keys are validated.
"""

from __future__ import annotations

import json
import math

import pytest
import torch

from trainer.algorithms import ALGORITHMS
from trainer.config import ConfigError, build_config

PRESETS = list(ALGORITHMS)  # every row of the table, the 2026 family included


def _cfg(preset, train_path, out, model_path, *, steps=2, **algo):
    return build_config(
        {
            "preset": preset,
            "model": {"path": str(model_path)},
            "data": {"train": train_path, "max_prompt_len": 256},
            "rollout": {"n": 4, "max_new_tokens": 20},
            "algo": {"overlong_buffer": 3, **({"dynamic_sampling": False} if preset == "dapo" else {}), **algo},
            "optim": {"lr": 1e-3, "warmup_steps": 1},
            "train": {"steps": steps, "prompts_per_step": 3, "mini_batch_size": 6, "micro_batch_size": 3,
                      "epochs": 1, "out": str(out), "tensorboard": False},
        },
        preset=preset,
    )  # fmt: skip


def _params(path):
    from safetensors.torch import load_file

    return load_file(str(path / "model.safetensors"))


def _rows(run):
    return [json.loads(x) for x in (run / "metrics.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("preset", PRESETS)
def test_preset_trains_two_steps(preset, toy_verl, tmp_path, sft_dir):
    from trainer.loop import train

    extra = {"value_pretrain_steps": 1} if preset == "vapo" else {}
    run = train(_cfg(preset, toy_verl, tmp_path / preset, sft_dir[0], **extra), progress=False)
    rows = _rows(run)
    assert [r["step"] for r in rows] == [1, 2]
    policy_rows = [r for r in rows if not r.get("value_pretrain")]
    assert policy_rows and all(
        math.isfinite(r["loss"]) and math.isfinite(r["grad_norm"]) for r in policy_rows
    )
    assert all(r["entropy"] is not None and math.isfinite(r["entropy"]) for r in policy_rows)
    assert "logprob_gap_mean" in policy_rows[-1]  # engine (HF) vs trainer, logged each step
    start, end = _params(sft_dir[0]), _params(run / "checkpoints/step-000002")
    assert any(not torch.equal(start[k], end[k]) for k in end), "the policy did not move"
    if preset in ("ppo", "vapo"):
        assert all(math.isfinite(r["value_loss"]) for r in rows)
        assert all(0 <= r["gae_lambda_policy"] <= 1 for r in rows)  # logged: near 0 means one-step TD
        if preset == "ppo":
            assert all(r["gae_lambda_policy"] == pytest.approx(0.95) for r in rows)
        assert (run / "checkpoints/step-000002/critic/model.safetensors").exists()
    if preset == "vapo":
        assert rows[0]["value_pretrain"] == 1 and "loss" not in rows[0]  # step 1 trains the critic only
        p1 = _params(run / "checkpoints/step-000001")
        assert all(torch.equal(start[k], p1[k]) for k in p1)  # ... and leaves the policy untouched
    if preset == "kl_cov":  # kl_cov always penalises at least one token; clip_cov only those inside its band
        assert all(0 < r["selected_share"] <= 1 for r in policy_rows)
    if preset == "clip_cov":
        assert all(0 <= r["selected_share"] <= 1 for r in policy_rows)


@pytest.mark.parametrize("preset", ["grpo", "gmpo"])
def test_entropy_top_quantile_with_any_preset(preset, toy_verl, tmp_path, sft_dir):
    """algo.entropy_top_quantile 0.2: about a fifth of the trained tokens get policy gradient, and the policy moves."""
    from trainer.loop import train

    run = train(
        _cfg(preset, toy_verl, tmp_path / preset, sft_dir[0], entropy_top_quantile=0.2), progress=False
    )
    rows = _rows(run)
    assert [r["step"] for r in rows] == [1, 2]
    assert all(0.1 <= r["pg_token_share"] <= 0.35 for r in rows), [r["pg_token_share"] for r in rows]
    start, end = _params(sft_dir[0]), _params(run / "checkpoints/step-000002")
    assert any(not torch.equal(start[k], end[k]) for k in end)


def test_the_2026_options_train_together(toy_verl, tmp_path, sft_dir):
    """OPSM, the entropy bonus, the unbiased KL and seq_mean_token_sum on one preset: 2 real steps."""
    from trainer.loop import train

    opts = {"off_policy_mask": 0.0, "entropy_coef": 0.01, "kl_coef": 0.01, "kl_unbiased": True,
            "loss_agg": "seq_mean_token_sum"}  # fmt: skip
    run = train(_cfg("grpo", toy_verl, tmp_path / "opts", sft_dir[0], **opts), progress=False)
    rows = _rows(run)
    assert [r["step"] for r in rows] == [1, 2]
    assert all(math.isfinite(r["loss"]) and 0 <= r["opsm_masked_share"] <= 1 for r in rows)
    assert all(r["kl_ref"] >= 0 for r in rows)
    start, end = _params(sft_dir[0]), _params(run / "checkpoints/step-000002")
    assert any(not torch.equal(start[k], end[k]) for k in end)


@pytest.mark.parametrize("preset", ["dcpo", "ppo"])
def test_resume_restores_dcpo_stats_and_the_critic(preset, toy_verl, tmp_path, sft_dir):
    from safetensors.torch import load_file

    from trainer.loop import train

    a = train(_cfg(preset, toy_verl, tmp_path / "a", sft_dir[0]), progress=False)
    b_cfg = _cfg(preset, toy_verl, tmp_path / "b", sft_dir[0])
    train(b_cfg, progress=False, max_steps=1)
    b = train(b_cfg, progress=False, resume=True)  # state comes only from the checkpoint
    ca, cb = a / "checkpoints/step-000002", b / "checkpoints/step-000002"
    pa, pb = _params(ca), _params(cb)
    for k in pa:
        assert torch.equal(pa[k], pb[k]), k
    sa, sb = (json.loads((c / "trainer_state.json").read_text()) for c in (ca, cb))
    if preset == "dcpo":
        assert sa["dcpo"]["stats"] and sa["dcpo"] == sb["dcpo"]
        # a prompt seen in both steps has count 2 only if the stats survived the restart
        assert max(v[0] for v in sb["dcpo"]["stats"].values()) >= 1
    else:
        va = load_file(str(ca / "critic/model.safetensors"))
        vb = load_file(str(cb / "critic/model.safetensors"))
        v1 = load_file(str(b / "checkpoints/step-000001/critic/model.safetensors"))
        assert any(not torch.equal(va[k], v1[k]) for k in va)  # the critic trained in step 2
        for k in va:
            assert torch.equal(va[k], vb[k]), k
        oa, ob = (torch.load(c / "critic_optimizer.pt", weights_only=True) for c in (ca, cb))
        assert oa["state"].keys() == ob["state"].keys()
        for i in oa["state"]:
            assert torch.equal(oa["state"][i]["exp_avg"], ob["state"][i]["exp_avg"])


@pytest.mark.parametrize(
    ("preset", "algo", "msg"),
    [
        ("dapo", {"gamma": 0.99}, "only applies to the critic presets"),
        ("grpo", {"value_pretrain_steps": 3}, "only applies to the critic presets"),
        ("ppo", {"alpha": 0.1}, "ppo does not use algo.alpha: it is vapo's"),
        ("vapo", {"lam": 0.9}, "vapo does not use algo.lam"),
        ("ppo", {"gamma": 0.0}, "gamma must be in"),
        ("ppo", {"lam": 1.5}, "lam must be in"),
        ("ppo", {"value_clip": 0.0}, "value_clip must be > 0"),
        ("ppo", {"critic_lr": -1.0}, "critic_lr must be > 0"),
        ("vapo", {"ntp_coef": -0.1}, "ntp_coef must be >= 0"),
        ("vapo", {"value_pretrain_steps": 50}, "leaves no policy update"),
        ("dapo", {"tis_cap": 0.0}, "tis_cap must be > 0"),
        ("gspo", {"tis_cap": 2.0}, "drop tis_cap for gspo"),
        ("dapo", {"tis_cap": 2.0, "old_logprobs": "engine"}, "weights every token by 1"),
    ],
)
def test_critic_and_tis_keys_are_validated(preset, algo, msg):
    with pytest.raises(ConfigError, match=msg):
        build_config({"algo": algo, "train": {"steps": 20}}, preset=preset)


def test_critic_presets_have_their_defaults():
    ppo, vapo = build_config(preset="ppo"), build_config(preset="vapo")
    assert (ppo.algo.gamma, ppo.algo.lam, ppo.algo.value_clip, ppo.algo.ntp_coef) == (1.0, 0.95, 0.5, 0.0)
    assert (vapo.algo.eps_low, vapo.algo.eps_high, vapo.algo.alpha, vapo.algo.ntp_coef) == (
        0.2,
        0.28,
        0.05,
        0.1,
    )
    assert vapo.algo.loss_agg == "token_mean" and vapo.algo.value_pretrain_steps > 0
