"""Losses against hand-computed values on a toy batch of two groups with known log-probabilities."""

from __future__ import annotations

import math

import pytest
import torch

from trainer.critic import value_loss
from trainer.objective import (
    aggregate,
    clipped_token_loss,
    dcpo_bounds,
    dcpo_token_loss,
    dual_clip_mask,
    entropy_from_logits,
    gspo_seq_loss,
    kl_penalty,
    masked_mean,
    ntp_loss,
    token_logprobs,
)

LN = math.log


def _leaf(x):
    return torch.tensor(x, dtype=torch.float32, requires_grad=True)


# ---------------------------------------------------------------- DAPO clip-higher, every region


@pytest.mark.parametrize(
    # ratio, advantage, expected loss, expected d loss / d logp, clipped low, clipped high
    "ratio, adv, loss, grad, lo, hi",
    [
        (0.5, 1.0, -0.5, -0.5, False, False),  # A>0, below band: unclipped, pushes up
        (1.0, 1.0, -1.0, -1.0, False, False),  # A>0, inside
        (2.0, 1.0, -1.28, 0.0, False, True),  # A>0, above 1+eps_high: clipped, no gradient
        (0.5, -1.0, 0.8, 0.0, True, False),  # A<0, below 1-eps_low: clipped, no gradient
        (1.0, -1.0, 1.0, 1.0, False, False),  # A<0, inside
        (2.0, -1.0, 2.0, 2.0, False, False),  # A<0, above band: unclipped (pessimistic), pushes down
    ],
)
def test_dapo_clip_regions(ratio, adv, loss, grad, lo, hi):
    logp = _leaf([[LN(ratio)]])
    out, clip_low, clip_high = clipped_token_loss(
        logp, torch.zeros(1, 1), torch.tensor([[adv]]), eps_low=0.2, eps_high=0.28
    )
    out.sum().backward()
    assert out.item() == pytest.approx(loss, abs=1e-6)
    assert logp.grad.item() == pytest.approx(grad, abs=1e-6)
    assert clip_low.item() is lo and clip_high.item() is hi


def test_clip_higher_is_asymmetric():
    # ratio 1.25: inside DAPO's [0.8, 1.28] but clipped by GRPO's symmetric [0.8, 1.2]
    logp, old, adv = torch.tensor([[LN(1.25)]]), torch.zeros(1, 1), torch.ones(1, 1)
    dapo, _, hi_dapo = clipped_token_loss(logp, old, adv, eps_low=0.2, eps_high=0.28)
    grpo, _, hi_grpo = clipped_token_loss(logp, old, adv, eps_low=0.2, eps_high=0.2)
    assert dapo.item() == pytest.approx(-1.25) and not hi_dapo.item()
    assert grpo.item() == pytest.approx(-1.2) and hi_grpo.item()


# Toy batch: two groups (G = 2) of responses, T = 3, response lengths 3, 1 | 2, 3.
#   group 0: A = +1 (ratios 1, 2, 0.5), A = -1 (ratio 1)
#   group 1: A = +1 (ratios 1, 1), A = -1 (ratios 0.5, 1, 2) and that last response was truncated
MASK = torch.tensor([[1, 1, 1], [1, 0, 0], [1, 1, 0], [1, 1, 1]])
RATIOS = [[1.0, 2.0, 0.5], [1.0, 1.0, 1.0], [1.0, 1.0, 1.0], [0.5, 1.0, 2.0]]
ADV = torch.tensor([1.0, -1.0, 1.0, -1.0])
OLD = torch.log(torch.tensor([[0.5, 0.25, 0.5], [0.5, 0.5, 0.5], [0.9, 0.9, 0.9], [0.1, 0.5, 0.4]]))


def _toy_losses():
    logp = (OLD + torch.log(torch.tensor(RATIOS))).requires_grad_(True)
    adv_tok = ADV[:, None].expand(4, 3)
    loss, lo, hi = clipped_token_loss(logp, OLD, adv_tok, eps_low=0.2, eps_high=0.28)
    return logp, loss, lo, hi


def test_toy_batch_token_losses_and_clip_fractions():
    _, loss, lo, hi = _toy_losses()
    expected = torch.tensor([[-1.0, -1.28, -0.5], [1.0, 1.0, 1.0], [-1.0, -1.0, -1.0], [0.8, 1.0, 2.0]])
    torch.testing.assert_close(loss, expected)
    # 9 real tokens; one clipped high (row 0, ratio 2), one clipped low (row 3, ratio 0.5)
    assert masked_mean(lo, MASK).item() == pytest.approx(1 / 9)
    assert masked_mean(hi, MASK).item() == pytest.approx(1 / 9)


def test_token_vs_sequence_aggregation():
    _, loss, _, _ = _toy_losses()
    # real tokens: row0 -1, -1.28, -0.5 | row1 1 | row2 -1, -1 | row3 0.8, 1, 2 ; sum = 0.02
    tok = aggregate(loss, MASK, "token_mean")
    assert tok.item() == pytest.approx(0.02 / 9, abs=1e-6)
    # per-sequence means: -2.78/3, 1, -1, 3.8/3 -> mean over 4 sequences
    seq = aggregate(loss, MASK, "seq_mean_token_mean")
    assert seq.item() == pytest.approx((-2.78 / 3 + 1 - 1 + 3.8 / 3) / 4, abs=1e-6)
    # DCPO: per-sequence token means summed (over 2 prompts when constant=2)
    assert aggregate(loss, MASK, "seq_sum_token_mean").item() == pytest.approx(4 * seq.item(), abs=1e-6)
    assert aggregate(loss, MASK, "seq_sum_token_mean", constant=2).item() == pytest.approx(
        2 * seq.item(), abs=1e-6
    )
    # Dr.GRPO: token sum over a constant G x max length = 2 x 3 (per group)
    assert aggregate(loss, MASK, "token_sum_constant", constant=6).item() == pytest.approx(0.02 / 6, abs=1e-6)


def test_token_level_weighs_long_responses_more():
    # The point of DAPO's token-level loss: a long response's tokens count individually, whereas
    # the per-sequence mean shrinks each token's weight in a long response.
    logp, loss, _, _ = _toy_losses()
    g_tok = torch.autograd.grad(aggregate(loss, MASK, "token_mean"), logp, retain_graph=True)[0]
    g_seq = torch.autograd.grad(aggregate(loss, MASK, "seq_mean_token_mean"), logp)[0]
    # row 2 (2 tokens, ratio 1, A = +1): token level -1/9 per token; sequence level -1/(2*4)
    assert g_tok[2, 0].item() == pytest.approx(-1 / 9, abs=1e-6)
    assert g_seq[2, 0].item() == pytest.approx(-1 / 8, abs=1e-6)
    # row 1 (1 token, ratio 1, A = -1): token level 1/9; sequence level 1/4
    assert g_tok[1, 0].item() == pytest.approx(1 / 9, abs=1e-6)
    assert g_seq[1, 0].item() == pytest.approx(1 / 4, abs=1e-6)


def test_masked_truncation_rows_have_zero_weight():
    # overlong filtering: the truncated response (row 3) gets an all-zero mask row
    logp, loss, _, _ = _toy_losses()
    mask = MASK.clone()
    mask[3] = 0
    out = aggregate(loss, mask, "token_mean")
    assert out.item() == pytest.approx((-1 - 1.28 - 0.5 + 1 - 2) / 6, abs=1e-6)
    (g,) = torch.autograd.grad(out, logp)
    assert torch.all(g[3] == 0) and torch.all(g[1, 1:] == 0)  # filtered row and padding get nothing
    # the sequence mean does not count the empty row among its sequences
    seq = aggregate(loss, mask, "seq_mean_token_mean")
    assert seq.item() == pytest.approx((-2.78 / 3 + 1 - 1) / 3, abs=1e-6)


@pytest.mark.parametrize(
    "mode, kw",
    [
        ("token_mean", "num_tokens"),
        ("seq_mean_token_mean", "num_seqs"),
        ("token_sum_constant", "constant"),
        ("seq_sum_token_mean", "constant"),
        ("token_sum", None),  # no normaliser: sums add up by themselves
        ("seq_mean_token_sum", "num_seqs"),
    ],
)
def test_accumulation_over_micro_batches_equals_full_batch(mode, kw):
    torch.manual_seed(0)
    B, T = 8, 6
    logp = torch.randn(B, T, requires_grad=True)
    old = logp.detach() + 0.3 * torch.randn(B, T)
    adv = torch.randn(B, 1).expand(B, T)
    mask = (torch.arange(T)[None] < torch.randint(1, T + 1, (B, 1))).long()
    mask[5] = 0  # a filtered row
    glob = {
        "num_tokens": float(mask.sum()),
        "num_seqs": float((mask.sum(1) > 0).sum()),
        "constant": float(B * T),
        None: None,
    }[kw]

    def run(rows):
        loss, _, _ = clipped_token_loss(logp[rows], old[rows], adv[rows], eps_low=0.2, eps_high=0.28)
        return aggregate(loss, mask[rows], mode, **({kw: glob} if kw else {}))

    full = run(slice(0, B))
    (g_full,) = torch.autograd.grad(full, logp)
    parts = [run(slice(0, 3)), run(slice(3, B))]  # uneven split on purpose
    (g_acc,) = torch.autograd.grad(parts[0] + parts[1], logp)
    torch.testing.assert_close(parts[0] + parts[1], full)
    torch.testing.assert_close(g_acc, g_full)
    # and the default (local) normaliser would NOT be exact for the means
    if mode in ("token_mean", "seq_mean_token_sum"):
        loc = [
            aggregate(
                clipped_token_loss(logp[r], old[r], adv[r], eps_low=0.2, eps_high=0.28)[0], mask[r], mode
            )
            for r in (slice(0, 3), slice(3, B))
        ]
        assert not torch.allclose(sum(loc) / 2, full)


def test_aggregate_rejects_unknown_mode():
    with pytest.raises(ValueError, match="token_mean"):
        aggregate(torch.zeros(1, 1), torch.ones(1, 1), "mean")


# ---------------------------------------------------------------- GSPO


def test_gspo_sequence_ratio_and_clip():
    # row 0: A=+1, log ratios [0.002, 0] -> s = e^0.001 > 1+4e-4: clipped high, loss -(1+4e-4)
    # row 1: A=-1, log ratios [-0.002, <padding 5.0>] -> s = e^-0.002 < 1-3e-4: clipped low, loss 1-3e-4
    # row 2: A=+1, log ratios [1e-4, 1e-4, 1e-4] -> s = e^1e-4 inside: loss -s, gradient -s/3 per token
    old = torch.log(torch.tensor([[0.5, 0.5, 0.5], [0.3, 0.3, 0.3], [0.2, 0.2, 0.2]]))
    delta = torch.tensor([[0.002, 0.0, 0.0], [-0.002, 5.0, 0.0], [1e-4, 1e-4, 1e-4]])
    logp = (old + delta).requires_grad_(True)
    mask = torch.tensor([[1, 1, 0], [1, 0, 0], [1, 1, 1]])
    loss, lo, hi = gspo_seq_loss(logp, old, torch.tensor([1.0, -1.0, 1.0]), mask)
    torch.testing.assert_close(
        loss, torch.tensor([-(1 + 4e-4), 1 - 3e-4, -math.exp(1e-4)]), atol=1e-7, rtol=0
    )
    assert lo.tolist() == [False, True, False] and hi.tolist() == [True, False, False]
    (g,) = torch.autograd.grad(loss.sum(), logp)
    assert torch.all(g[:2] == 0)
    torch.testing.assert_close(g[2], torch.full((3,), -math.exp(1e-4) / 3))
    # per-sequence loss averaged over sequences through aggregate
    seq = aggregate(loss[:, None], torch.ones(3, 1), "seq_mean_token_mean")
    assert seq.item() == pytest.approx(loss.mean().item())


# ---------------------------------------------------------------- DCPO


def test_dcpo_bounds_hand_values():
    q = torch.tensor([1.0, 0.8, 0.64, 0.5, 0.01, 0.001])
    low, high = dcpo_bounds(torch.log(q))
    # low = .5+.5 sqrt(max(1-.64/q, 0)); high = .5+.5 sqrt(1+.8/q), capped at 10
    torch.testing.assert_close(low, torch.tensor([0.8, 0.5 + 0.5 * math.sqrt(0.2), 0.5, 0.5, 0.5, 0.5]))
    torch.testing.assert_close(
        high,
        torch.tensor(
            [
                0.5 + 0.5 * math.sqrt(1.8),
                0.5 + 0.5 * math.sqrt(2.0),
                0.5 + 0.5 * math.sqrt(2.25),
                0.5 + 0.5 * math.sqrt(2.6),
                5.0,
                10.0,
            ]
        ),
    )


def test_dcpo_loss_regions():
    # q=1, r=1.5, A=+1: above high (1.1708) -> clipped; q=0.01, r=1.5, A=+1: inside [0.5, 5] (DAPO
    # would clip it); q=0.001, r=20, A=-1: ratio capped at 10 -> loss 10, no gradient;
    # q=1, r=0.5, A=-1: below low 0.8 -> loss 0.8, clipped low.
    old = torch.log(torch.tensor([[1.0, 0.01, 0.001, 1.0]]))
    logp = (old + torch.log(torch.tensor([[1.5, 1.5, 20.0, 0.5]]))).requires_grad_(True)
    adv = torch.tensor([[1.0, 1.0, -1.0, -1.0]])
    loss, lo, hi = dcpo_token_loss(logp, old, adv)
    torch.testing.assert_close(loss, torch.tensor([[-(0.5 + 0.5 * math.sqrt(1.8)), -1.5, 10.0, 0.8]]))
    assert lo.tolist() == [[False, False, False, True]] and hi.tolist() == [[True, False, True, False]]
    (g,) = torch.autograd.grad(loss.sum(), logp)
    torch.testing.assert_close(g, torch.tensor([[0.0, -1.5, 0.0, 0.0]]))
    _, _, dapo_hi = clipped_token_loss(logp, old, adv, eps_low=0.2, eps_high=0.28)
    assert dapo_hi[0, 1].item()


# ---------------------------------------------------------------- KL, value, NTP, logits helpers


def test_kl_estimators():
    logp, ref = torch.tensor([LN(0.5)]), torch.tensor([LN(0.25)])
    assert kl_penalty(logp, ref, "k1").item() == pytest.approx(LN(2))
    assert kl_penalty(logp, ref, "k3").item() == pytest.approx(0.5 + LN(2) - 1)
    assert kl_penalty(ref, ref, "k3").item() == 0.0
    assert kl_penalty(logp, ref, "k2").item() == pytest.approx(0.5 * LN(2) ** 2)
    assert torch.isfinite(kl_penalty(torch.tensor([0.0]), torch.tensor([-1e4]), "k3")).all()
    with pytest.raises(ValueError, match="k1"):
        kl_penalty(logp, ref, "k9")


def test_k3_is_clamped_at_10_like_verls_low_var_kl():
    logp = _leaf([0.0, 0.0])
    ref = torch.tensor([-1.0, 3.0])  # k3 = e^-1 + 1 - 1 = 0.3679; e^3 - 3 - 1 = 16.09 -> 10
    kl = kl_penalty(logp, ref, "k3")
    assert kl.tolist() == pytest.approx([math.exp(-1), 10.0], rel=1e-6)
    kl.sum().backward()
    assert logp.grad.tolist() == pytest.approx([1 - math.exp(-1), 0.0], rel=1e-6)  # clamped: no gradient


def test_dual_clip_caps_negative_advantage_tokens_at_c_times_abs_a():
    # ratios 5, 2, 5 with A = -1, -1, +1; c = 3: only the first token (A < 0, r > c) is capped
    old = torch.zeros(1, 3)
    logp = _leaf([[LN(5), LN(2), LN(5)]])
    adv = torch.tensor([[-1.0, -1.0, 1.0]])
    loss, lo, hi = clipped_token_loss(logp, old, adv, eps_low=0.2, eps_high=0.28, clip_ratio_c=3.0)
    assert loss[0].tolist() == pytest.approx([3.0, 2.0, -1.28])  # uncapped: [5, 2, -1.28]
    loss.sum().backward()
    assert logp.grad[0].tolist() == pytest.approx(
        [0.0, 2.0, 0.0]
    )  # the cap removes the first token's gradient
    assert dual_clip_mask(logp, old, adv, 3.0).tolist() == [[True, False, False]]
    assert not dual_clip_mask(logp, old, adv, None).any()
    assert not lo.any() and hi.tolist() == [[False, False, True]]
    uncapped, _, _ = clipped_token_loss(logp, old, adv, eps_low=0.2, eps_high=0.28)
    assert uncapped[0].tolist() == pytest.approx([5.0, 2.0, -1.28])


def test_seq_mean_normaliser_counts_every_response_of_the_mini_batch():
    """An overlong-filtered (all-zero) row counts in seq-mean's denominator, as in verl's engine and TRL."""
    from types import SimpleNamespace

    from trainer.objective import normalisers

    class Rows(SimpleNamespace):
        def __len__(self):
            return self.loss_mask.shape[0]

    m = torch.tensor([[1.0, 1.0], [0.0, 0.0], [1.0, 0.0], [1.0, 1.0]])
    mb = Rows(loss_mask=m, group=torch.tensor([0, 0, 1, 1]), acc=torch.ones(4, dtype=torch.bool))
    a = SimpleNamespace(token_norm="minibatch", loss_agg="seq_mean_token_mean")
    norm = normalisers(a, mb, mb, 1, G=2, max_len=2)
    assert norm["seqs"] == 4 and norm["tokens"] == 5


def test_value_loss_clipped():
    # token 0: V=1, V_old=0, R=2: clipped V=0.5 -> 0.5*max(1, 2.25) = 1.125; token 1: 0.5*0.1^2 = 0.005
    values = torch.tensor([[1.0, 0.2, 7.0]], requires_grad=True)
    out = value_loss(
        values,
        torch.tensor([[0.0, 0.0, 0.0]]),
        torch.tensor([[2.0, 0.3, 0.0]]),
        torch.tensor([[1, 1, 0]]),
        clip=0.5,
    )
    assert out.item() == pytest.approx((1.125 + 0.005) / 2)
    (g,) = torch.autograd.grad(out, values)
    # token 0's clipped branch is the max and has no gradient wrt V; token 1: (V-R)/2 = -0.05
    torch.testing.assert_close(g, torch.tensor([[0.0, -0.05, 0.0]]))


def test_ntp_loss_only_correct_responses():
    logp = torch.tensor([[-1.0, -2.0], [-3.0, -4.0]])
    out = ntp_loss(logp, torch.tensor([[1, 1], [1, 0]]), torch.tensor([True, False]))
    assert out.item() == pytest.approx(1.5)
    assert ntp_loss(logp, torch.ones(2, 2), torch.tensor([False, False])).item() == 0.0


def test_token_logprobs_and_entropy():
    logits = torch.tensor([[[0.0, LN(3)], [0.0, 0.0]]])  # probs [.25,.75] and [.5,.5]
    lp = token_logprobs(logits, torch.tensor([[1, 0]]))
    torch.testing.assert_close(lp, torch.tensor([[LN(0.75), LN(0.5)]]))
    ent = entropy_from_logits(logits)
    torch.testing.assert_close(ent, torch.tensor([[-(0.25 * LN(0.25) + 0.75 * LN(0.75)), LN(2)]]))
    big = torch.randn(2, 5, 11)
    tgt = torch.randint(0, 11, (2, 5))
    ref = torch.log_softmax(big, -1).gather(-1, tgt[..., None]).squeeze(-1)
    torch.testing.assert_close(token_logprobs(big, tgt), ref)


@pytest.mark.parametrize("which", ["clip", "dcpo", "gspo"])
def test_extreme_ratios_stay_finite(which):
    # a token whose probability exploded since the rollout (log ratio 200) must not give inf/nan
    logp = torch.tensor([[200.0 - 5.0, -1.0]], requires_grad=True)
    old = torch.tensor([[-5.0, -1.0]])
    adv = torch.tensor([[-1.0, -1.0]])
    if which == "clip":
        loss = clipped_token_loss(logp, old, adv, eps_low=0.2, eps_high=0.28)[0].sum()
    elif which == "dcpo":
        loss = dcpo_token_loss(logp, old, adv)[0].sum()
    else:
        loss = gspo_seq_loss(logp, old, adv[:, 0], torch.ones(1, 2))[0].sum()
    (g,) = torch.autograd.grad(loss, logp)
    assert torch.isfinite(loss) and torch.isfinite(g).all()
