"""The 2026 family, each against numbers worked out by hand from the paper's formula (plain `math` in
the test, never the function under test).

sapo: Gao et al. 2025 (arXiv 2511.20347), eq. of the soft gate f(r) = (4/tau) sigmoid(tau (r - 1));
dppo_tv / dppo_kl: arXiv 2602.04879 (Binary-TV / Binary-KL masks; prime-rl's default loss);
maxrl: Tajwar et al. 2026 (arXiv 2602.02710), A = (r - mean) / mean; reinforce_pp_baseline: Hu et al.
2025 and verl's `reinforce_plus_plus_baseline`; OPSM and the unbiased KL: DeepSeek-V3.2 (2025).
"""

from __future__ import annotations

import math

import pytest
import torch

from trainer import objective as obj
from trainer.advantages import maxrl_advantages, reinforce_pp_baseline_advantages
from trainer.algorithms import ALGORITHMS, advantages, list_presets
from trainer.batch import Batch
from trainer.config import ConfigError, build_config

FAMILY = ("sapo", "dppo_tv", "dppo_kl", "maxrl", "reinforce_pp_baseline")
THE_13 = ("grpo", "dapo", "dr_grpo", "gspo", "dcpo", "ppo", "vapo", "rloo", "reinforce_pp", "cispo", "gmpo",
          "clip_cov", "kl_cov")  # fmt: skip


def _sig(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


def _grad(loss: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    (g,) = torch.autograd.grad(loss.sum(), x)
    return g


# ---------------------------------------------------------------- sapo
def test_sapo_soft_gate_values_and_gradients():
    # tokens: (A, r) = (+1, 1), (-2, 1.5), (+1, 3); tau_pos 1.0, tau_neg 1.05
    ratios, adv = [1.0, 1.5, 3.0], [1.0, -2.0, 1.0]
    old = torch.log(torch.tensor([[0.2, 0.2, 0.1]]))
    logp = (old + torch.log(torch.tensor([ratios]))).requires_grad_()
    loss, cl, ch = obj.sapo_token_loss(logp, old, torch.tensor([adv]), tau_pos=1.0, tau_neg=1.05)
    taus = [1.0, 1.05, 1.0]
    # loss = -A (4/tau) s, s = sigmoid(tau (r - 1)); d loss / d log pi = -A 4 s (1 - s) r
    want = [-a * 4 / t * _sig(t * (r - 1)) for a, t, r in zip(adv, taus, ratios, strict=True)]
    want_g = [
        -a * 4 * _sig(t * (r - 1)) * (1 - _sig(t * (r - 1))) * r
        for a, t, r in zip(adv, taus, ratios, strict=True)
    ]
    assert loss[0].tolist() == pytest.approx(want, rel=1e-5)
    assert want[0] == pytest.approx(-2.0)  # the gate is 2 / tau at r = 1
    g = _grad(loss, logp)[0]
    assert g.tolist() == pytest.approx(want_g, rel=1e-5)
    assert g[0].item() == pytest.approx(-1.0)  # at r = 1: PPO's gradient -A
    assert g[2].item() == pytest.approx(-4 * _sig(2) * (1 - _sig(2)) * 3)  # r = 3: PPO's clip gives 0 here
    assert not cl.any() and not ch.any()


def test_sapo_negative_temperature_damps_negative_updates_faster():
    # same |A| and r = 1.5: a larger tau_neg gives a smaller gradient on the A < 0 token
    old = torch.log(torch.tensor([[0.2, 0.2]]))
    logp = (old + math.log(1.5)).requires_grad_()
    loss, _, _ = obj.sapo_token_loss(logp, old, torch.tensor([[1.0, -1.0]]), tau_pos=1.0, tau_neg=3.0)
    g = _grad(loss, logp)[0]
    assert abs(g[1]) == pytest.approx(4 * _sig(1.5) * (1 - _sig(1.5)) * 1.5, rel=1e-5)
    assert abs(g[1]) < abs(g[0])


# ---------------------------------------------------------------- dppo
def _dppo(p, q, adv, divergence, delta, cap=20.0):
    old = torch.log(torch.tensor([q]))
    logp = torch.log(torch.tensor([p])).requires_grad_()
    loss, cl, ch = obj.dppo_token_loss(logp, old, torch.tensor([adv]), divergence=divergence, delta_low=delta,
                                       delta_high=delta, ratio_cap=cap)  # fmt: skip
    return loss[0], _grad(loss, logp)[0], cl[0].tolist(), ch[0].tolist()


def test_dppo_tv_masks_by_the_probability_gap_in_the_advantage_direction():
    p = [0.7, 0.6, 0.3, 0.9, 0.05, 0.1]
    q = [0.5, 0.5, 0.5, 0.5, 0.01, 0.001]
    a = [1.0, 1.0, -1.0, -1.0, 1.0, -1.0]
    loss, g, cl, ch = _dppo(p, q, a, "tv", 0.15)
    # 0: A>0, p-q = 0.2 > 0.15 -> masked; 1: 0.1 -> kept, grad -A r = -1.2; 2: A<0, p-q = -0.2 -> masked;
    # 3: A<0 but p rose (0.4): not the advantage's direction -> kept, grad -A r = +1.8;
    # 4: rare token, r = 5 (PPO's clip would drop it), p-q = 0.04 -> kept, grad -5;
    # 5: A<0, p-q = +0.099 -> kept; r = 100 truncated to the cap 20 -> grad +20
    assert g.tolist() == pytest.approx([0.0, -1.2, 0.0, 1.8, -5.0, 20.0], rel=1e-5)
    assert ch == [True, False, False, False, False, False] and cl == [False, False, True, False, False, False]
    # the loss value is -A sg(min(r, cap)) log pi: kept token 1 = -1.2 log 0.6
    assert loss[1].item() == pytest.approx(-1.2 * math.log(0.6), rel=1e-5) and loss[0].item() == 0.0


def test_dppo_kl_masks_by_the_binary_kl():
    def bkl(q, p):  # KL(Bernoulli(q) || Bernoulli(p))
        return q * math.log(q / p) + (1 - q) * math.log((1 - q) / (1 - p))

    assert bkl(0.5, 0.7) == pytest.approx(0.0872, abs=1e-4) and bkl(0.5, 0.6) == pytest.approx(
        0.0204, abs=1e-4
    )
    p, q, a = [0.7, 0.6, 0.1, 0.3], [0.5, 0.5, 0.5, 0.5], [1.0, 1.0, 1.0, -1.0]
    _, g, cl, ch = _dppo(p, q, a, "kl", 0.05)
    # 0: A>0, p up, KL 0.087 > 0.05 -> masked; 1: KL 0.020 -> kept (grad -r = -1.2);
    # 2: A>0 but p went down -> kept whatever the KL (grad -0.2); 3: A<0, p down, KL(0.5||0.3) = 0.087 -> masked
    assert bkl(0.5, 0.3) > 0.05
    assert g.tolist() == pytest.approx([0.0, -1.2, -0.2, 0.0], rel=1e-5)
    assert ch == [True, False, False, False] and cl == [False, False, False, True]


def test_dppo_rejects_an_unknown_divergence():
    with pytest.raises(ValueError, match="'tv' or 'kl'"):
        obj.dppo_token_loss(torch.zeros(1, 1), torch.zeros(1, 1), torch.ones(1, 1), divergence="js",
                            delta_low=0.1, delta_high=0.1)  # fmt: skip


# ---------------------------------------------------------------- maxrl
def test_maxrl_divides_by_the_group_success_rate():
    s = torch.tensor([[1.0, 0, 0, 0], [1, 1, 0, 0], [1, 1, 1, 1], [0, 0, 0, 0]])
    # group 0: mean 1/4 -> (1 - 1/4) / (1/4) = 3 and (0 - 1/4) / (1/4) = -1; group 1: mean 1/2 -> +-1;
    # all right / all wrong (mean 0, the case the formula leaves undefined): 0
    assert maxrl_advantages(s).tolist() == [[3, -1, -1, -1], [1, 1, -1, -1], [0, 0, 0, 0], [0, 0, 0, 0]]
    with pytest.raises(ValueError, match="rewards >= 0"):
        maxrl_advantages(torch.tensor([[1.0, -1.0]]))


def test_maxrl_preset_maps_plus_minus_one_rewards_to_success():
    from types import SimpleNamespace

    a = build_config(preset="maxrl").algo
    groups = [SimpleNamespace(rewards=[1.0, -1.0, -1.0, -1.0], prompt=SimpleNamespace(key="k0"))]
    assert advantages(a, groups, torch.ones(4, 2)).tolist() == [3, -1, -1, -1]


def test_maxrl_refuses_the_overlong_penalty():
    with pytest.raises(ConfigError, match="maxrl divides by the group's success rate"):
        build_config({"algo": {"overlong_penalty": True}}, preset="maxrl")


# ---------------------------------------------------------------- reinforce_pp_baseline
def test_reinforce_pp_baseline_group_mean_then_batch_whitening():
    # groups [1, -1] and [1, 1]: centred 1, -1, 0, 0; response lengths 1, 2, 1, 1 (5 tokens)
    mask = torch.tensor([[1.0, 0], [1, 1], [1, 0], [1, 0]])
    adv = reinforce_pp_baseline_advantages(torch.tensor([[1.0, -1.0], [1.0, 1.0]]), mask)
    tokens = [1, -1, -1, 0, 0]
    mean = sum(tokens) / 5  # -0.2
    std = math.sqrt(sum((x - mean) ** 2 for x in tokens) / 4)  # unbiased: sqrt(2.8 / 4)
    want = [[(1 - mean) / std, 0], [(-1 - mean) / std] * 2, [(0 - mean) / std, 0], [(0 - mean) / std, 0]]
    assert adv.tolist() == [pytest.approx(row, rel=1e-5) for row in want]
    assert want[0][0] == pytest.approx(1.4343, abs=1e-4)


def test_an_all_equal_group_gets_exactly_zero_before_whitening():
    # mean([0.7] * 8) is not exactly 0.7 in float32; the centred rewards must still be exactly 0
    r = torch.tensor([[0.7] * 8, [1.0, -1.0] * 4])
    adv = reinforce_pp_baseline_advantages(r, torch.ones(16, 1))
    assert torch.all(adv[:8] == adv[0]) and adv[:8].unique().numel() == 1
    assert (maxrl_advantages(torch.tensor([[0.7] * 8])) == 0).all()


# ---------------------------------------------------------------- options: OPSM, unbiased KL, entropy bonus
def _batch(logp, adv, *, engine=None, mask=None):
    B, T = logp.shape
    mask = torch.ones(B, T) if mask is None else mask
    z = torch.zeros(B, T, dtype=torch.long)
    return Batch(ids=z, attn=z + 1, pos=z, resp=z, mask=mask, loss_mask=mask,
                 engine_logp=logp.detach() if engine is None else engine, group=torch.zeros(B, dtype=torch.long),
                 truncated=torch.zeros(B, dtype=torch.bool), acc=torch.zeros(B, dtype=torch.bool), adv=adv,
                 old=logp.detach())  # fmt: skip


def test_off_policy_sequence_mask_hand_values():
    logp = torch.tensor([[-1.5, -2.5], [-1.5, -2.5], [-1.0, -2.1]])
    beh = torch.tensor([[-1.0, -2.0], [-1.0, -2.0], [-1.0, -2.0]])
    # KL_i = mean_t (log pi_beh - log pi): 0.5, 0.5, 0.05
    keep = obj.off_policy_sequence_mask(
        logp, beh, torch.tensor([-1.0, 1.0, -1.0]), torch.ones(3, 2), delta=0.1
    )
    assert keep.tolist() == [0.0, 1.0, 1.0]  # only the negative, far off-policy response is dropped


@pytest.mark.parametrize("preset", ["grpo", "gspo", "reinforce_pp_baseline"])
def test_off_policy_mask_through_the_loss(preset):
    """algo.off_policy_mask: the dropped response gets no gradient, the others keep theirs; any preset."""
    cfg = build_config({"algo": {"off_policy_mask": 0.1}}, preset=preset)
    logp = torch.tensor([[-1.5, -2.5], [-1.5, -2.5], [-1.0, -2.1]], requires_grad=True)
    beh = torch.tensor([[-1.0, -2.0], [-1.0, -2.0], [-1.0, -2.0]])
    adv = torch.tensor([-1.0, 1.0, -1.0])
    if preset == "reinforce_pp_baseline":
        adv = adv[:, None].expand(3, 2).contiguous()  # token advantages: the row's sign is read
    mb = _batch(logp, adv, engine=beh)
    norm = obj.normalisers(cfg.algo, mb, mb, 1, G=3, max_len=2)
    loss, st = obj.policy_loss(cfg.algo, ALGORITHMS[preset], logp, mb, norm)
    loss.backward()
    assert (logp.grad[0] == 0).all() and (logp.grad[1:] != 0).all()
    assert st["opsm_masked"] == 2.0  # the dropped response's two tokens


def test_unbiased_kl_is_the_ratio_times_k3():
    old, ref = torch.tensor([[-1.0]]), torch.tensor([[-1.2]])
    logp = torch.tensor([[-0.8]], requires_grad=True)
    kl = obj.unbiased_kl(logp, old, ref, "k3")
    r, d = math.exp(-0.8 + 1.0), -1.2 + 0.8  # ratio and log ref - log pi
    k3 = math.exp(d) - d - 1
    assert kl.item() == pytest.approx(r * k3, rel=1e-5)
    # d/dlogp [r k3] = r k3 + r (1 - exp(d)): the ratio carries gradient
    assert _grad(kl, logp).item() == pytest.approx(r * k3 + r * (1 - math.exp(d)), rel=1e-5)


def test_kl_unbiased_through_the_loss_and_its_validation():
    logp = torch.tensor([[-0.8, -1.0]], requires_grad=True)
    mb = _batch(logp, torch.tensor([0.0])).with_(
        old=torch.tensor([[-1.0, -1.0]]), ref=torch.tensor([[-1.2, -1.0]])
    )
    out = {}
    for unbiased in (False, True):
        cfg = build_config({"algo": {"kl_coef": 0.5, "kl_unbiased": unbiased}}, preset="grpo")
        norm = obj.normalisers(cfg.algo, mb, mb, 1, G=1, max_len=2)
        out[unbiased] = obj.policy_loss(cfg.algo, ALGORITHMS["grpo"], logp, mb, norm)[0].item()
    k3 = math.exp(-0.4) + 0.4 - 1  # token 1 has pi = pi_ref: KL 0; A = 0: no policy term
    assert out[False] == pytest.approx(0.5 * k3 / 2, rel=1e-5)  # seq mean of the token mean
    assert out[True] == pytest.approx(0.5 * math.exp(0.2) * k3 / 2, rel=1e-5)
    with pytest.raises(ConfigError, match="set algo.kl_coef > 0"):
        build_config({"algo": {"kl_unbiased": True}}, preset="grpo")


def test_entropy_bonus_is_subtracted_with_the_loss_aggregation():
    logp = torch.tensor([[-1.0, -2.0], [-0.5, -3.0]], requires_grad=True)
    mask = torch.tensor([[1.0, 1.0], [1.0, 0.0]])
    ent = torch.tensor([[0.5, 1.0], [2.0, 9.0]], requires_grad=True)  # 9.0 sits on padding
    mb = _batch(logp, torch.tensor([1.0, -1.0]), mask=mask)
    losses = {}
    for coef in (0.0, 0.1):
        cfg = build_config({"algo": {"entropy_coef": coef}}, preset="dapo")  # token_mean over 3 tokens
        norm = obj.normalisers(cfg.algo, mb, mb, 1, G=2, max_len=2)
        losses[coef] = obj.policy_loss(cfg.algo, ALGORITHMS["dapo"], logp, mb, norm, entropy=ent)[0]
    assert (losses[0.1] - losses[0.0]).item() == pytest.approx(-0.1 * (0.5 + 1.0 + 2.0) / 3, rel=1e-5)
    g = _grad(losses[0.1], ent)
    assert g.reshape(-1).tolist() == pytest.approx([-0.1 / 3, -0.1 / 3, -0.1 / 3, 0.0], rel=1e-5)
    with pytest.raises(ValueError, match="needs this pass's entropy"):
        obj.policy_loss(cfg.algo, ALGORITHMS["dapo"], logp, mb, norm)


def test_entropy_bonus_sign_raises_the_entropy():
    """verl's convention, loss -= coef * entropy: a descent step on the bonus alone makes the distribution flatter."""
    logits = torch.tensor([[[3.0, 0.0, -1.0]]], requires_grad=True)
    h0 = obj.entropy_from_logits(logits).item()
    (-0.1 * obj.entropy_from_logits(logits)).sum().backward()
    h1 = obj.entropy_from_logits(logits.detach() - 1.0 * logits.grad).item()
    assert h1 > h0


# ---------------------------------------------------------------- aggregation: token_sum, seq_mean_token_sum
def test_token_sum_and_seq_mean_token_sum_hand_values():
    loss = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]])
    mask = torch.tensor([[1.0, 1.0, 0.0], [1.0, 1.0, 1.0], [0.0, 0.0, 0.0]])  # row 2 filtered
    assert obj.aggregate(loss, mask, "token_sum").item() == 1 + 2 + 4 + 5 + 6
    # two non-empty responses: (3 + 15) / 2
    assert obj.aggregate(loss, mask, "seq_mean_token_sum").item() == 9.0
    assert obj.aggregate(loss, mask, "seq_mean_token_sum", num_seqs=6).item() == 3.0


# ---------------------------------------------------------------- the table, validation, listing
def test_list_presets_lists_the_13_and_the_2026_family():
    from typer.testing import CliRunner

    from dapo_cli import app

    res = CliRunner().invoke(app, ["train", "--list-presets"])
    assert res.exit_code == 0, res.output
    names = [ln.split()[0] for ln in res.output.splitlines() if ln.strip() and not ln[0].isspace()]
    assert names == [*THE_13, *FAMILY]  # a preset's line; its settings follow indented
    assert [ln.split()[0] for ln in list_presets().splitlines() if not ln[0].isspace()][-5:] == list(FAMILY)


@pytest.mark.parametrize(
    ("preset", "algo", "msg"),
    [
        ("sapo", {"sapo_tau_neg": 0.0}, "sapo_tau_pos / sapo_tau_neg must be > 0"),
        ("dapo", {"sapo_tau_pos": 2.0}, "dapo does not use algo.sapo_tau_pos: it is sapo's"),
        ("dapo", {"dppo_ratio_cap": 5.0}, "it is dppo_tv / dppo_kl's"),
        ("dppo_kl", {"dppo_ratio_cap": 0.0}, "dppo_ratio_cap must be > 0"),
        ("ppo", {"off_policy_mask": 0.1}, "GAE advantages differ per token"),
        ("grpo", {"off_policy_mask": -1.0}, "off_policy_mask is a KL threshold >= 0"),
        ("grpo", {"entropy_coef": -0.1}, "entropy_coef must be >= 0"),
        ("grpo", {"loss_agg": "token-sum"}, "loss_agg"),
    ],
)
def test_family_keys_are_validated(preset, algo, msg):
    with pytest.raises(ConfigError, match=msg):
        build_config({"algo": algo}, preset=preset)


def test_presets_set_their_own_keys():
    assert build_config(preset="sapo").algo.sapo_tau_neg == 1.05
    tv, kl = build_config(preset="dppo_tv").algo, build_config(preset="dppo_kl").algo
    assert (tv.eps_low, tv.eps_high, kl.eps_low, kl.eps_high) == (0.15, 0.15, 0.05, 0.05)
    assert (
        build_config({"algo": {"loss_agg": "seq_mean_token_sum"}}, preset="grpo").algo.loss_agg
        == "seq_mean_token_sum"
    )
    for name in FAMILY:  # overlong settings explicit in the row, none of them inherited
        row = ALGORITHMS[name].preset
        assert row["overlong_filter"] is False and row["overlong_penalty"] is False, name


@pytest.mark.parametrize("loss_agg", ["token_sum", "seq_mean_token_sum"])
@pytest.mark.parametrize("preset", ["grpo", "sapo", "dppo_tv"])
def test_micro_batches_add_up_to_the_mini_batch_with_every_option(preset, loss_agg):
    """policy_loss with the mini-batch's normalisers: two micro-batches sum to the whole (loss and gradient),
    with OPSM, the entropy bonus and the unbiased KL all on."""
    torch.manual_seed(0)
    B, T = 6, 5
    cfg = build_config({"algo": {"loss_agg": loss_agg, "off_policy_mask": 0.05, "entropy_coef": 0.01,
                                 "kl_coef": 0.1, "kl_unbiased": True}}, preset=preset)  # fmt: skip
    logp = (torch.rand(B, T) * -2 - 0.05).requires_grad_()
    ent = torch.rand(B, T, requires_grad=True)
    mask = (torch.arange(T)[None] < torch.tensor([[5], [3], [1], [4], [2], [5]])).float()
    mask[4] = 0  # a filtered row
    mb = _batch(logp, torch.tensor([1.0, -1.0, -0.5, 0.5, 1.0, -1.0]), engine=logp.detach() + 0.3 * torch.randn(B, T),
                mask=mask).with_(old=logp.detach() + 0.2 * torch.randn(B, T), ref=logp.detach() - 0.1)  # fmt: skip
    norm = obj.normalisers(cfg.algo, mb, mb, 1, G=3, max_len=T)
    full = obj.policy_loss(cfg.algo, ALGORITHMS[preset], logp, mb, norm, entropy=ent)[0]
    g_full = torch.autograd.grad(full, (logp, ent))
    parts = [obj.policy_loss(cfg.algo, ALGORITHMS[preset], logp[r], mb.select(r), norm, entropy=ent[r])[0]
             for r in (torch.arange(0, 2), torch.arange(2, B))]  # fmt: skip
    g_acc = torch.autograd.grad(parts[0] + parts[1], (logp, ent))
    torch.testing.assert_close(parts[0] + parts[1], full)
    for a, b in zip(g_acc, g_full, strict=True):
        torch.testing.assert_close(a, b)
    assert obj.policy_loss(cfg.algo, ALGORITHMS[preset], logp, mb, norm, entropy=ent)[1]["opsm_masked"] > 0
