"""Our presets against verl's own `core_algos` (verl 0.9.1), at the settings docs/algorithms.md names.

Each loss test computes the loop's loss (`policy_loss` over 2 mini-batches of 2 micro-batches,
`normalisers` per mini-batch) and verl's engine-worker loss (policy loss fn + KL via `agg_loss`
with the mini-batch's global_batch_info, micro-batch losses summed) on one random ragged batch
(clipping and dual-clip binding, two all-equal groups, two overlong-filtered rows) and asserts the
mini-batch losses and the gradient w.r.t. the log-probs agree to float32 noise.
"""

from __future__ import annotations

import pytest
import torch
from parity_peers import (
    F32,
    algo_config,
    batch_of,
    grad,
    groups_of,
    our_loss,
    ragged,
    verl_actor,
    verl_loss,
    verl_rewards,
)

from trainer import advantages as adv_
from trainer import critic as critic_
from trainer import objective as obj
from trainer.algorithms import ALGORITHMS

SEEDS = (0, 1, 2)


def _close(ours, theirs, **tol):
    torch.testing.assert_close(ours, theirs, **(tol or F32))


def _assert_same(ours_parts, theirs_parts, b):
    for o, t in zip(ours_parts, theirs_parts, strict=True):
        _close(o.detach(), t.detach())
    _close(grad(sum(ours_parts), b.logp), grad(sum(theirs_parts), b.logp))


# ---------------------------------------------------------------- advantages
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("std", [True, False])
def test_grpo_advantages_match_verl_and_all_equal_groups_are_exactly_zero(verl, seed, std):
    b = ragged(seed)
    ours = adv_.group_advantages(b.rewards, std_normalize=std).reshape(-1)
    theirs, _ = verl.compute_grpo_outcome_advantage(
        verl_rewards(b), b.mask, b.index, epsilon=1e-6, norm_adv_by_std_in_grpo=std
    )
    informative = torch.arange(len(ours)) >= 2 * b.G  # groups 0 (all 0.7) and 1 (all 1.0) are all-equal
    _close(ours[informative], theirs[informative, 0])
    # by design: exactly 0 for an all-equal group; verl divides float32 rounding residue by std + 1e-6
    assert torch.equal(ours[~informative], torch.zeros(2 * b.G))
    assert theirs[~informative, 0].abs().max() < 0.1


def test_all_equal_non_dyadic_group_documented_figure(verl):
    """The issue's figure: eight rewards of 0.7 give |A| = 0.056 in verl's float32 arithmetic; 0 here."""
    r = torch.full((1, 8), 0.7)
    tok = torch.zeros(8, 3)
    tok[:, -1] = 0.7
    theirs, _ = verl.compute_grpo_outcome_advantage(tok, torch.ones(8, 3), [0] * 8, epsilon=1e-6)
    assert theirs.abs().max() > 0.01
    assert torch.equal(adv_.group_advantages(r), torch.zeros(1, 8))


@pytest.mark.parametrize("seed", SEEDS)
def test_rloo_advantages_match_verl(verl, seed):
    b = ragged(seed)
    theirs, _ = verl.compute_rloo_outcome_advantage(verl_rewards(b), b.mask, b.index)
    _close(adv_.rloo_advantages(b.rewards).reshape(-1), theirs[:, 0])


@pytest.mark.parametrize("seed", SEEDS)
def test_reinforce_pp_advantages_match_verl(verl, seed):
    b = ragged(seed)
    theirs, _ = verl.compute_reinforce_plus_plus_outcome_advantage(
        verl_rewards(b) * b.loss_mask, b.loss_mask, config=verl.VerlAlgoConfig(gamma=1.0)
    )
    ours = adv_.batch_normalised_advantages(b.rewards.reshape(-1), b.loss_mask)
    _close(ours, theirs)


@pytest.mark.parametrize("seed", SEEDS)
def test_ppo_gae_whitened_advantages_and_returns_match_verl(verl, seed):
    b = ragged(seed, filtered=0)
    a = algo_config("ppo")
    batch = batch_of(b, None)
    adv, returns, _ = critic_.critic_advantages(a, ALGORITHMS["ppo"], groups_of(b.rewards), batch, b.values,
                                                pretrain=False)  # fmt: skip
    t_adv, t_ret = verl.compute_gae_advantage_return(verl_rewards(b), b.values, b.mask, gamma=1.0, lam=0.95)
    _close(adv, t_adv * b.mask, rtol=1e-4, atol=1e-5)  # whitening over ~200 tokens: a few more ulps
    _close(returns, t_ret * b.mask)


@pytest.mark.parametrize("seed", SEEDS)
def test_value_loss_matches_verl(verl, seed):
    b = ragged(seed, filtered=0)
    vpreds = (b.values + 0.8 * torch.randn_like(b.values)).requires_grad_()
    returns = b.values + torch.randn_like(b.values)
    ours = critic_.value_loss(vpreds, b.values, returns, b.mask, clip=0.5)
    theirs = verl.compute_value_loss(vpreds, returns, b.values, b.mask, cliprange_value=0.5)[0]
    _close(ours, theirs)
    _close(grad(ours, vpreds), grad(theirs, vpreds))


# ---------------------------------------------------------------- pieces
@pytest.mark.parametrize("ours,theirs", [("k1", "kl"), ("k2", "mse"), ("k3", "low_var_kl")])
def test_kl_estimators_match_verl_including_the_k3_clamp(verl, ours, theirs):
    g = torch.Generator().manual_seed(0)
    logp = (-4 * torch.rand(64, generator=g)).requires_grad_()
    ref = logp.detach() + 3 * torch.randn(64, generator=g)  # some k3 > 10: the clamp binds
    assert ours != "k3" or (obj.kl_penalty(logp, ref, "k3") >= 10).any()
    o, t = obj.kl_penalty(logp, ref, ours), verl.kl_penalty(logp, ref, theirs)
    _close(o, t)
    _close(grad(o.sum(), logp), grad(t.sum(), logp))


@pytest.mark.parametrize(
    "mode,verl_mode", [("token_mean", "token-mean"), ("seq_mean_token_mean", "seq-mean-token-mean"),
                       ("token_sum_constant", "seq-mean-token-sum-norm")],
)  # fmt: skip
def test_aggregation_modes_match_verl_agg_loss_with_global_batch_info(verl, mode, verl_mode):
    b = ragged(3)
    loss_tok = b.logp * torch.randn_like(b.old)
    info = {"dp_size": 1, "batch_num_tokens": int(b.loss_mask.sum()), "global_batch_size": len(b.mask),
            "loss_scale_factor": b.T}  # fmt: skip
    o = obj.aggregate(loss_tok, b.loss_mask, mode, num_tokens=info["batch_num_tokens"],
                      num_seqs=len(b.mask), constant=len(b.mask) * b.T)  # fmt: skip
    t = verl.agg_loss(loss_tok, b.loss_mask, verl_mode, **info)
    _close(o, t)
    _close(grad(o, b.logp), grad(t, b.logp))


# ---------------------------------------------------------------- each preset's loss
# preset -> (our overrides, verl actor settings); advantages are ours (their parity is tested above)
CLIPPED = {
    "grpo": ({"clip_ratio_c": 3.0, "kl_coef": 0.001, "kl_kind": "k3"},
             {"eps_low": 0.2, "eps_high": 0.2, "agg": "seq-mean-token-mean"}, "low_var_kl"),
    "dapo": ({}, {"eps_low": 0.2, "eps_high": 0.28, "agg": "token-mean", "clip_ratio_c": 10.0}, None),
    "dr_grpo": ({"clip_ratio_c": 3.0}, {"eps_low": 0.2, "eps_high": 0.2, "agg": "seq-mean-token-sum-norm"}, None),
    "ppo": ({"clip_ratio_c": 3.0}, {"eps_low": 0.2, "eps_high": 0.2, "agg": "token-mean"}, None),
    "rloo": ({"clip_ratio_c": 3.0}, {"eps_low": 0.2, "eps_high": 0.2, "agg": "token-mean"}, None),
    "reinforce_pp": ({"clip_ratio_c": 3.0}, {"eps_low": 0.2, "eps_high": 0.2, "agg": "token-mean"}, None),
}  # fmt: skip


def _our_adv(name, b):
    a = algo_config(name)
    if ALGORITHMS[name].critic:  # token advantages: any [N, T] tensor exercises the loss
        return adv_.whiten(torch.randn_like(b.old), b.loss_mask)
    return ALGORITHMS[name].advantage(
        a, b.rewards, [str(i) for i in range(len(b.rewards))], b.loss_mask, None
    )


def _tok(adv, b):
    return adv if adv.dim() == 2 else adv[:, None] * b.loss_mask


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", list(CLIPPED))
def test_clipped_presets_match_verl_vanilla_loss(verl, name, seed):
    ours_over, actor_kw, kl_type = CLIPPED[name]
    b = ragged(seed)
    a = algo_config(name, **ours_over)
    adv = _our_adv(name, b)
    dual = obj.dual_clip_mask(b.logp, b.old, _tok(adv, b), a.clip_ratio_c) & (b.loss_mask > 0)
    assert dual.any(), "the batch must reach the dual-clip zone for this test to mean anything"
    actor = verl_actor(verl, **actor_kw, use_kl_loss=kl_type is not None, kl_loss_type=kl_type or "low_var_kl",
                       loss_scale_factor=b.T if name == "dr_grpo" else None)  # fmt: skip
    ours, _ = our_loss(a, batch_of(b, adv), b.logp, minibatches=2, micro=2)
    theirs, _ = verl_loss(verl, actor, b, _tok(adv, b), minibatches=2, micro=2, kl_type=kl_type,
                          kl_coef=a.kl_coef)  # fmt: skip
    _assert_same(ours, theirs, b)


@pytest.mark.parametrize("seed", SEEDS)
def test_no_dual_clip_equals_verl_with_the_cap_out_of_reach(verl, seed):
    """Our default (clip_ratio_c: null) is verl's vanilla loss with clip_ratio_c beyond any ratio;
    against verl's default 3.0 it differs exactly on the dual-clip tokens."""
    b = ragged(seed)
    a = algo_config("grpo")
    adv = _our_adv("grpo", b)
    ours, _ = our_loss(a, batch_of(b, adv), b.logp, minibatches=2, micro=2)
    far = verl_actor(verl, eps_low=0.2, eps_high=0.2, agg="seq-mean-token-mean", clip_ratio_c=1e30)
    _assert_same(ours, verl_loss(verl, far, b, _tok(adv, b), minibatches=2, micro=2)[0], b)
    default = verl_actor(verl, eps_low=0.2, eps_high=0.2, agg="seq-mean-token-mean")
    theirs, _ = verl_loss(verl, default, b, _tok(adv, b), minibatches=2, micro=2)
    assert not torch.allclose(grad(sum(ours), b.logp), grad(sum(theirs), b.logp))
    differs = (grad(sum(ours), b.logp) - grad(sum(theirs), b.logp)).abs() > 1e-6
    assert torch.equal(differs, obj.dual_clip_mask(b.logp, b.old, _tok(adv, b), 3.0) & (b.loss_mask > 0))


@pytest.mark.parametrize("seed", SEEDS)
def test_gspo_matches_verl(verl, seed):
    b = ragged(seed, spread=1e-3)  # sequence ratios around the 3e-4 / 4e-4 band: some in, some out
    a = algo_config("gspo")
    adv = _our_adv("gspo", b)
    actor = verl_actor(verl, loss_mode="gspo", eps_low=3e-4, eps_high=4e-4, agg="seq-mean-token-mean")
    ours, _ = our_loss(a, batch_of(b, adv), b.logp, minibatches=2, micro=2)
    theirs, _ = verl_loss(verl, actor, b, _tok(adv, b), minibatches=2, micro=2)
    g = grad(sum(ours), b.logp)
    assert (g != 0).any() and ((g == 0) & (b.loss_mask > 0)).any()  # some sequences clipped, some not
    _assert_same(ours, theirs, b)


@pytest.mark.parametrize("seed", SEEDS)
def test_cispo_matches_verl(verl, seed):
    b = ragged(seed)
    a = algo_config("cispo")
    adv = _our_adv("cispo", b)
    actor = verl_actor(verl, loss_mode="cispo", eps_low=1.0, eps_high=0.28, agg="token-mean")
    ours, _ = our_loss(a, batch_of(b, adv), b.logp, minibatches=2, micro=2)
    _assert_same(ours, verl_loss(verl, actor, b, _tok(adv, b), minibatches=2, micro=2)[0], b)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("micro", [1, 2])
def test_gmpo_matches_verl_geo_mean_times_its_micro_batch_count(verl, seed, micro):
    """verl's geo_mean takes torch.mean over the micro-batch's rows and the engine sums micro-batch
    losses, so verl's loss is ours times the number of (equal) micro-batches per mini-batch."""
    b = ragged(seed, spread=0.3)
    a = algo_config("gmpo")
    adv = _our_adv("gmpo", b)
    actor = verl_actor(verl, loss_mode="geo_mean", eps_low=0.4, eps_high=0.4, agg="token-mean")
    ours, _ = our_loss(a, batch_of(b, adv), b.logp, minibatches=2, micro=micro)
    theirs, _ = verl_loss(verl, actor, b, _tok(adv, b), minibatches=2, micro=micro)
    _assert_same([o * micro for o in ours], theirs, b)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", ["clip_cov", "kl_cov"])
def test_cov_presets_match_verl_on_policy(verl, name, seed):
    """On-policy (pi = pi_old), one micro-batch: our selection from pi_old over the rollout batch is
    verl's from the current policy over the micro-batch, and the same seed draws the same tokens."""
    b = ragged(seed)
    b.logp = b.old.clone().requires_grad_()
    ratio = 0.05  # ~15 tokens instead of the presets' 1: more tokens treated apart, same code path
    a = algo_config(name, cov_ratio=ratio)
    adv = _our_adv(name, b)
    sel = ALGORITHMS[name].select(b.old, _tok(adv, b), b.loss_mask, a, torch.Generator().manual_seed(seed))
    assert sel.sum() > 1
    ours, _ = our_loss(a, batch_of(b, adv, selected=sel), b.logp)
    pl = ({"clip_cov_ratio": ratio, "clip_cov_lb": 1.0, "clip_cov_ub": 5.0} if name == "clip_cov"
          else {"kl_cov_ratio": ratio, "ppo_kl_coef": 1.0})  # fmt: skip
    actor = verl_actor(verl, loss_mode=name, eps_low=0.2, eps_high=0.2, agg="token-mean", policy_loss=pl)
    torch.manual_seed(seed)  # verl's clip_cov draws with the global generator
    _assert_same(ours, verl_loss(verl, actor, b, _tok(adv, b))[0], b)


# ---------------------------------------------------------------- rollout correction (trainer/correction.py)
def _engine(b, seed):
    return b.old + 0.4 * torch.randn(b.old.shape, generator=torch.Generator().manual_seed(seed + 100))


def _verl_rs(band):
    """Our band [lo, hi] on rho = pi_old / pi_engine as verl's k1 rejection option: verl's token_k1 is
    -log rho and its "lower_upper" threshold bounds pi_engine / pi_old, so the band inverts."""
    kind, (lo, hi) = band
    return ("token_k1" if kind == "token" else "seq_mean_k1"), f"{1 / hi}_{1 / lo}"


BANDS = [None, ("token", (0.5, 2.0)), ("seq", (0.8, 1.25))]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("level", ["token", "sequence"])
@pytest.mark.parametrize("band", BANDS, ids=["no-band", "token-band", "seq-band"])
def test_rollout_correction_weights_and_masks_match_verl(verl, seed, level, band):
    from trainer.correction import correction_weights

    b = ragged(seed)
    engine = _engine(b, seed)
    rs, thr = _verl_rs(band) if band else (None, None)
    w_v, mask_v, _ = verl.rollout_corr.compute_rollout_correction_and_rejection_mask(
        b.old,
        engine,
        b.loss_mask,
        rollout_is=level,
        rollout_is_threshold=2.0,
        rollout_rs=rs,
        rollout_rs_threshold=thr,
    )
    bands = {} if band is None else {f"{band[0]}_band": band[1]}
    w, keep = correction_weights(b.old, engine, b.loss_mask, is_level=level, is_cap=2.0, **bands)
    _close(w * b.loss_mask, w_v.batch["rollout_is_weights"])
    assert torch.equal(keep * b.loss_mask, mask_v.float())
    assert band is None or (keep * b.loss_mask).sum() < b.loss_mask.sum()  # the band removed something


@pytest.mark.parametrize("seed", SEEDS)
def test_rollout_rejection_leaves_verls_token_count_and_stays_in_ours(verl, seed):
    """Differs by design: verl's rejection rewrites response_mask, so rejected tokens leave the
    token-mean denominator; ours zeroes their loss and keeps counting them. token_mean: verl's loss
    is ours times (trained tokens / tokens kept)."""
    b = ragged(seed)
    engine = _engine(b, seed)
    a = algo_config("dapo", tis_cap=2.0, rc_token_band=(0.5, 2.0))
    adv = _our_adv("dapo", b)
    ours, _ = our_loss(a, batch_of(b, adv, engine=engine), b.logp, micro=2)
    rs, thr = _verl_rs(("token", (0.5, 2.0)))
    w_v, mask_v, _ = verl.rollout_corr.compute_rollout_correction_and_rejection_mask(
        b.old,
        engine,
        b.loss_mask,
        rollout_is="token",
        rollout_is_threshold=2.0,
        rollout_rs=rs,
        rollout_rs_threshold=thr,
    )
    actor = verl_actor(verl, eps_low=0.2, eps_high=0.28, agg="token-mean", clip_ratio_c=10.0)
    actor.global_batch_info.update(
        dp_size=1, batch_num_tokens=int(mask_v.sum()), global_batch_size=len(b.mask)
    )
    fn = verl.get_policy_loss_fn("vanilla")
    theirs = sum(
        fn(old_log_prob=b.old[r], log_prob=b.logp[r], advantages=_tok(adv, b)[r], response_mask=mask_v[r],
           loss_agg_mode="token-mean", config=actor, rollout_is_weights=w_v.batch["rollout_is_weights"][r])[0]
        for r in torch.arange(len(b.mask)).tensor_split(2)
    )  # fmt: skip
    scale = mask_v.sum() / b.loss_mask.sum()
    assert scale < 1
    _close((theirs * scale).detach(), sum(ours).detach())
    _close(grad(theirs, b.logp) * scale, grad(sum(ours), b.logp))
