"""Our presets against TRL's own loss code (TRL 1.16), at the settings docs/algorithms.md names.

The losses are `GRPOTrainer._compute_loss` / `RLOOTrainer._compute_loss` themselves (see
parity_peers: a trainer made with `object.__new__`, a stub forward returning the test's log-probs).
TRL's advantages are computed inline in `_generate_and_score_completions` (generation, reward
functions and gathering around them), so the advantage tests state those lines with TRL's own
`nanstd`, and first check that TRL's source still contains them.
"""

from __future__ import annotations

import inspect

import pytest
import torch
from parity_peers import (
    F32,
    algo_config,
    batch_of,
    grad,
    our_loss,
    ragged,
    trl_grpo_loss,
    trl_grpo_trainer,
    trl_rloo_loss,
)

from trainer import advantages as adv_
from trainer import objective as obj
from trainer.algorithms import ALGORITHMS

SEEDS = (0, 1, 2)


def _assert_same(ours_parts, theirs_parts, b):
    for o, t in zip(ours_parts, theirs_parts, strict=True):
        torch.testing.assert_close(o.detach(), t.detach(), **F32)
    torch.testing.assert_close(grad(sum(ours_parts), b.logp), grad(sum(theirs_parts), b.logp), **F32)


def _adv(name, b, **over):
    a = algo_config(name, **over)
    return ALGORITHMS[name].advantage(
        a, b.rewards, [str(i) for i in range(len(b.rewards))], b.loss_mask, None
    )


# ---------------------------------------------------------------- advantages
def _source_has(cls, method, *lines):
    src = inspect.getsource(getattr(cls, method))
    for line in lines:
        assert line in src, f"TRL's {cls.__name__}.{method} no longer contains {line!r}: re-read it"


@pytest.mark.parametrize("seed", SEEDS)
def test_grpo_advantages_relation_to_trl_std_plus_1e4(trl, seed):
    """TRL: (R - mean) / (std + 1e-4); ours: std + 1e-6. Equal with eps=1e-4, and at our default
    A_trl = A_ours (std + 1e-6) / (std + 1e-4); all-equal groups are exactly 0 here, ~0 in TRL."""
    from trl.trainer.utils import nanstd

    _source_has(trl.GRPOTrainer, "_generate_and_score_completions",
                "std_rewards = nanstd(rewards.view(-1, num_generations), dim=1)",
                "advantages = rewards - mean_grouped_rewards", "advantages = advantages / (std_rewards + 1e-4)")  # fmt: skip
    b = ragged(seed)
    std = nanstd(b.rewards, dim=1)[:, None]
    theirs = (b.rewards - b.rewards.mean(1, keepdim=True)) / (std + 1e-4)
    informative = torch.arange(len(b.rewards)) >= 2
    torch.testing.assert_close(
        adv_.group_advantages(b.rewards, eps=1e-4)[informative], theirs[informative], **F32
    )
    ours = adv_.group_advantages(b.rewards)
    torch.testing.assert_close((ours * (std + 1e-6) / (std + 1e-4))[informative], theirs[informative], **F32)
    assert torch.equal(ours[~informative], torch.zeros(2, b.G))
    assert theirs[~informative].abs().max() < 1e-2


@pytest.mark.parametrize("seed", SEEDS)
def test_rloo_advantages_match_trl_rloo_trainer_without_kl_in_reward(trl, seed):
    _source_has(trl.RLOOTrainer, "_generate_and_score_completions",
                "baselines = (grouped_sum - grouped_rewards) / (scorable_counts - 1)",
                "advantages = rewards - baselines", "rewards = rewards - self.beta * kl")  # fmt: skip
    b = ragged(seed)
    theirs = b.rewards - (b.rewards.sum(1, keepdim=True) - b.rewards) / (b.G - 1)
    torch.testing.assert_close(adv_.rloo_advantages(b.rewards), theirs, **F32)


# ---------------------------------------------------------------- losses
@pytest.mark.parametrize("seed", SEEDS)
def test_grpo_with_k3_kl_matches_trl_without_its_kl_bias_correction(trl, seed):
    """TRL 1.16 multiplies the k3 term by the ratio by default (use_bias_correction_kl=True, the
    DeepSeek-V3.2 unbiased KL gradient); our kl_coef/k3 is its use_bias_correction_kl=False."""
    b = ragged(seed)
    a = algo_config("grpo", kl_coef=0.001, kl_kind="k3")
    assert (obj.kl_penalty(b.logp, b.ref, "k3") < 10).all()  # TRL's k3 has no clamp; ours binds past 10
    adv = _adv("grpo", b)
    ours, _ = our_loss(a, batch_of(b, adv), b.logp, minibatches=2, micro=2)
    kw = {"minibatches": 2, "micro": 2, "loss_type": "grpo", "epsilon": 0.2, "beta": 0.001}
    _assert_same(ours, trl_grpo_loss(trl, b, adv, use_bias_correction_kl=False, **kw)[0], b)
    default, _ = trl_grpo_loss(trl, b, adv, **kw)
    assert not torch.allclose(grad(sum(ours), b.logp), grad(sum(default), b.logp))


@pytest.mark.parametrize("seed", SEEDS)
def test_dr_grpo_matches_trl(trl, seed):
    b = ragged(seed)
    adv = _adv("dr_grpo", b)
    ours, _ = our_loss(algo_config("dr_grpo"), batch_of(b, adv), b.logp, minibatches=2, micro=2)
    theirs, _ = trl_grpo_loss(trl, b, adv, minibatches=2, micro=2, loss_type="dr_grpo", epsilon=0.2, beta=0.0,
                              scale_rewards="none", max_completion_length=b.T)  # fmt: skip
    _assert_same(ours, theirs, b)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("minibatches,token_norm", [(1, "minibatch"), (2, "batch")])
def test_dapo_matches_trl_and_its_normaliser(trl, seed, minibatches, token_norm):
    """TRL's dapo divides by the generation batch's tokens x GA / steps_per_generation. One optimiser
    step per generation (steps_per_generation == GA) is our token_norm: minibatch; more steps per
    generation is our token_norm: batch (the batch's count scaled to one step's share).
    TRL has no dual-clip: our dapo with clip_ratio_c: null."""
    b = ragged(seed)
    a = algo_config("dapo", clip_ratio_c=None, token_norm=token_norm)
    adv = _adv("dapo", b)
    ours, _ = our_loss(a, batch_of(b, adv), b.logp, minibatches=minibatches, micro=2)
    theirs, _ = trl_grpo_loss(trl, b, adv, minibatches=minibatches, micro=2, loss_type="dapo", epsilon=0.2,
                              epsilon_high=0.28, beta=0.0, mask_truncated_completions=True)  # fmt: skip
    _assert_same(ours, theirs, b)
    if minibatches > 1:  # and it is not the per-mini-batch count verl's engine uses
        mini, _ = our_loss(
            algo_config("dapo", clip_ratio_c=None), batch_of(b, adv), b.logp, minibatches=2, micro=2
        )
        assert not torch.allclose(mini[0], theirs[0])


@pytest.mark.parametrize("seed", SEEDS)
def test_gspo_matches_trl_sequence_level(trl, seed):
    b = ragged(seed, spread=1e-3)
    adv = _adv("gspo", b)
    ours, _ = our_loss(algo_config("gspo"), batch_of(b, adv), b.logp, minibatches=2, micro=2)
    theirs, _ = trl_grpo_loss(trl, b, adv, minibatches=2, micro=2, loss_type="grpo", epsilon=3e-4,
                              epsilon_high=4e-4, importance_sampling_level="sequence", beta=0.0)  # fmt: skip
    _assert_same(ours, theirs, b)


@pytest.mark.parametrize("seed", SEEDS)
def test_cispo_matches_trl_with_epsilon_high_as_the_cap_itself(trl, seed):
    """TRL clamps the weight at epsilon_high itself (no 1 +): our eps_high 0.28 is TRL's 1.28.
    Its normaliser is dapo's: one optimiser step per generation here (token_norm: minibatch)."""
    b = ragged(seed)
    adv = _adv("cispo", b)
    ours, _ = our_loss(algo_config("cispo"), batch_of(b, adv), b.logp, minibatches=1, micro=2)
    kw = {"minibatches": 1, "micro": 2, "loss_type": "cispo", "beta": 0.0}
    _assert_same(ours, trl_grpo_loss(trl, b, adv, epsilon_high=1.28, **kw)[0], b)
    wrong, _ = trl_grpo_loss(trl, b, adv, epsilon_high=0.28, **kw)
    assert not torch.allclose(sum(ours), sum(wrong))


@pytest.mark.parametrize("seed", SEEDS)
def test_rloo_differs_from_trl_rloo_trainer_as_documented(trl, seed):
    """RLOOTrainer's loss is per sequence: ratio exp(sum_t log r), mean over responses. On-policy
    (r = 1) its gradient is ours (token mean) times tokens / responses; off-policy it differs in kind."""
    b = ragged(seed)
    b.logp = b.old.clone().requires_grad_()
    adv = _adv("rloo", b)
    ours, _ = our_loss(algo_config("rloo"), batch_of(b, adv), b.logp)
    theirs = trl_rloo_loss(trl, b, adv, beta=0.0, normalize_advantages=False)
    scale = b.loss_mask.sum() / len(b.loss_mask)
    torch.testing.assert_close(grad(sum(ours), b.logp) * scale, grad(theirs, b.logp), **F32)


def test_entropy_top_quantile_matches_trl_high_entropy_mask(trl):
    b = ragged(4)
    ent = torch.rand_like(b.old) * 3
    t = trl_grpo_trainer(trl, lambda ids: b.logp[ids[:, 0]], grad_accum=1, loss_type="grpo")
    theirs = t.get_high_entropy_mask(ent, b.loss_mask, 1 - 0.2)
    assert torch.equal(obj.entropy_top_mask(ent, b.loss_mask, 0.2).bool(), theirs)
