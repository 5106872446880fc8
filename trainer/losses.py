"""Policy, value and auxiliary losses for the GRPO family, GSPO, DCPO, PPO and VAPO.

Every policy loss returns *per-token* (or per-sequence) losses to be minimised, unmasked; the
mask and the normaliser are applied once, in `aggregate`, so that the choice of token set
(micro-batch, group, whole batch) is one setting and gradient accumulation stays exact.
Shapes: [B, T] over response tokens, right-padded, mask 1 on real tokens.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor

AGG_MODES = ("token_mean", "seq_mean_token_mean", "seq_sum_token_mean", "token_sum_constant")
MAX_LOG_RATIO = 20.0  # exp(20) ~ 5e8: far outside any clip band, and no inf (whose backward is 0 * inf = nan)


def _ratio(logp: Tensor, old_logp: Tensor) -> Tensor:
    return torch.exp((logp - old_logp).clamp(-MAX_LOG_RATIO, MAX_LOG_RATIO))


def masked_mean(x: Tensor, mask: Tensor) -> Tensor:
    """Mean of x over mask == 1 (0 when the mask is empty); for metrics like clip fractions."""
    mask = mask.to(x.dtype) if x.is_floating_point() else mask.float()
    return (x * mask).sum() / mask.sum().clamp(min=1)


def _ppo_surrogate(ratio: Tensor, clipped: Tensor, adv: Tensor) -> Tensor:
    # -min(r A, clip(r) A): the pessimistic bound; the clipped branch has zero gradient in r.
    return -torch.minimum(ratio * adv, clipped * adv)


def clipped_token_loss(
    logp: Tensor, old_logp: Tensor, adv: Tensor, *, eps_low: float, eps_high: float
) -> tuple[Tensor, Tensor, Tensor]:
    """PPO/GRPO/DAPO token loss -min(r A, clip(r, 1-eps_low, 1+eps_high) A); DAPO's clip-higher is eps_high > eps_low.

    Returns (loss [B,T], clip_low [B,T], clip_high [B,T]); a flag marks a token whose gradient the
    clip removed: A < 0 with r below the band (clip_low) or A > 0 with r above it (clip_high).
    """
    ratio = _ratio(logp, old_logp)  # [B, T]
    clipped = ratio.clamp(1.0 - eps_low, 1.0 + eps_high)
    loss = _ppo_surrogate(ratio, clipped, adv)
    clip_low = (ratio < 1.0 - eps_low) & (adv < 0)
    clip_high = (ratio > 1.0 + eps_high) & (adv > 0)
    return loss, clip_low, clip_high


def dcpo_bounds(old_logp: Tensor, *, eps_low: float = 0.16, eps_high: float = 0.2, ratio_cap: float = 10.0):
    """DCPO's per-token ratio band from the old probability q.

    low = 0.5 + 0.5 sqrt(max(1 - 4 eps_low / q, 0)), high = 0.5 + 0.5 sqrt(1 + 4 eps_high / q),
    high capped at `ratio_cap`. Rare tokens (small q) get a wider band, so exploration on them is
    not clipped away the way a fixed band clips it.
    """
    q = torch.exp(old_logp).clamp(min=1e-12)
    low = 0.5 + 0.5 * torch.sqrt((1.0 - 4.0 * eps_low / q).clamp(min=0.0))
    high = (0.5 + 0.5 * torch.sqrt(1.0 + 4.0 * eps_high / q)).clamp(max=ratio_cap)
    return low, high


def dcpo_token_loss(
    logp: Tensor,
    old_logp: Tensor,
    adv: Tensor,
    *,
    eps_low: float = 0.16,
    eps_high: float = 0.2,
    ratio_cap: float = 10.0,
) -> tuple[Tensor, Tensor, Tensor]:
    """DCPO token loss: the clipped surrogate with dynamic-adaptive bounds, the ratio itself capped at `ratio_cap`.

    The cap bounds the loss of negative-advantage tokens whose ratio exploded (the unclipped
    branch would otherwise grow without limit); capped tokens count as clip_high.
    """
    ratio = _ratio(logp, old_logp)
    low, high = dcpo_bounds(old_logp, eps_low=eps_low, eps_high=eps_high, ratio_cap=ratio_cap)
    capped = ratio.clamp(max=ratio_cap)
    clipped = torch.maximum(torch.minimum(ratio, high), low)
    loss = _ppo_surrogate(capped, clipped, adv)
    clip_low = (ratio < low) & (adv < 0)
    clip_high = ((ratio > high) & (adv > 0)) | (ratio > ratio_cap)
    return loss, clip_low, clip_high


def gspo_seq_loss(
    logp: Tensor,
    old_logp: Tensor,
    adv_seq: Tensor,
    mask: Tensor,
    *,
    eps_low: float = 3e-4,
    eps_high: float = 4e-4,
) -> tuple[Tensor, Tensor, Tensor]:
    """GSPO: one ratio per response, s_i = exp(mean_t log r_{i,t}), clipped to [1-eps_low, 1+eps_high].

    The length-normalised sequence ratio matches the sequence-level reward, so a few outlier
    tokens cannot dominate; hence the tiny band. Returns (loss [B], clip_low [B], clip_high [B]).
    Aggregate with `aggregate(loss[:, None], has_tokens[:, None], "seq_mean_token_mean")`.
    """
    mask = mask.float()
    n = mask.sum(dim=1).clamp(min=1)  # [B]
    log_s = ((logp - old_logp) * mask).sum(dim=1) / n
    s = torch.exp(log_s.clamp(-MAX_LOG_RATIO, MAX_LOG_RATIO))  # [B]
    clipped = s.clamp(1.0 - eps_low, 1.0 + eps_high)
    loss = _ppo_surrogate(s, clipped, adv_seq)
    return loss, (s < 1.0 - eps_low) & (adv_seq < 0), (s > 1.0 + eps_high) & (adv_seq > 0)


def aggregate(
    loss_tok: Tensor,
    mask: Tensor,
    mode: str,
    *,
    num_tokens: float | None = None,
    num_seqs: float | None = None,
    constant: float | None = None,
) -> Tensor:
    """Reduce per-token losses [B, T] to the scalar that is back-propagated.

    - token_mean: sum over masked tokens / num_tokens (default: this call's mask.sum()). DAPO's
      token-level loss. Passing the count of the whole token set (mini-batch or batch) makes
      micro-batch gradient accumulation equal to one big batch.
    - seq_mean_token_mean: each response's token mean, summed, / num_seqs (default: responses with
      at least one unmasked token). GRPO's original objective.
    - seq_sum_token_mean: each response's token mean, summed, / constant (default 1). DCPO's
      "only token mean" loss: no averaging across responses; pass the number of prompts as
      `constant` to average over prompts while summing within a group.
    - token_sum_constant: sum over masked tokens / constant (default B x T). Dr.GRPO: a
      constant normaliser (G x max response length) so length does not re-weight responses.
    Rows with an all-zero mask (e.g. filtered overlong responses) contribute nothing.
    """
    mask = mask.to(loss_tok.dtype)
    masked = loss_tok * mask
    if mode == "token_mean":
        denom = mask.sum().clamp(min=1) if num_tokens is None else max(float(num_tokens), 1.0)
        return masked.sum() / denom
    if mode in ("seq_mean_token_mean", "seq_sum_token_mean"):
        tok = mask.sum(dim=1)  # [B]
        seq = masked.sum(dim=1) / tok.clamp(min=1)
        if mode == "seq_mean_token_mean":
            denom = (tok > 0).sum().clamp(min=1) if num_seqs is None else max(float(num_seqs), 1.0)
            return seq.sum() / denom
        return seq.sum() / (1.0 if constant is None else float(constant))
    if mode == "token_sum_constant":
        c = float(mask.numel()) if constant is None else float(constant)
        if c <= 0:
            raise ValueError(f"aggregate(mode='token_sum_constant') needs constant > 0, got {c}")
        return masked.sum() / c
    raise ValueError(f"unknown loss aggregation mode {mode!r}; use one of {', '.join(AGG_MODES)}")


def kl_penalty(logp: Tensor, ref_logp: Tensor, kind: str = "k3") -> Tensor:
    """Per-token KL(pi || ref) estimate from sampled tokens (Schulman's estimators).

    k1 = log pi - log ref (unbiased, high variance, can be negative); k3 = exp(d) - d - 1 with
    d = log ref - log pi (unbiased, always >= 0, what GRPO uses). d is clamped to [-20, 20] so a
    rare token far from the reference cannot produce inf.
    """
    if kind == "k1":
        return logp - ref_logp
    if kind == "k2":
        return 0.5 * (logp - ref_logp) ** 2
    if kind == "k3":
        d = (ref_logp - logp).clamp(-20.0, 20.0)
        return torch.exp(d) - d - 1.0
    raise ValueError(f"unknown KL estimator {kind!r}; use 'k1', 'k2' or 'k3'")


def value_loss(
    values: Tensor,
    old_values: Tensor,
    returns: Tensor,
    mask: Tensor,
    *,
    clip: float = 0.5,
    num_tokens: float | None = None,
) -> Tensor:
    """PPO's clipped value loss: 0.5 * max((V - R)^2, (V_old + clip(V - V_old, +-clip) - R)^2), token mean.

    The clip keeps the critic from jumping far from the values the advantages were computed with.
    """
    v_clipped = old_values + (values - old_values).clamp(-clip, clip)
    per_tok = 0.5 * torch.maximum((values - returns) ** 2, (v_clipped - returns) ** 2)
    return aggregate(per_tok, mask, "token_mean", num_tokens=num_tokens)


def ntp_loss(logp: Tensor, mask: Tensor, correct: Tensor, *, num_tokens: float | None = None) -> Tensor:
    """VAPO's next-token-prediction loss on correct responses: -sum log pi over their tokens / their token count.

    Imitating the group's own correct samples is an extra, dense learning signal (weight mu, 0.1).
    `correct` is [B] bool; `num_tokens` (the correct-token count of the whole batch) keeps it exact
    under gradient accumulation.
    """
    m = mask.to(logp.dtype) * correct.to(logp.dtype).reshape(-1, 1)
    denom = m.sum().clamp(min=1) if num_tokens is None else max(float(num_tokens), 1.0)
    return -(logp * m).sum() / denom


def token_logprobs(logits: Tensor, targets: Tensor) -> Tensor:
    """log softmax(logits)[target] for [B, T, V] logits and [B, T] targets, computed in float32.

    gather - logsumexp avoids materialising the full [B, T, V] log-softmax.
    """
    logits = logits.float()
    picked = logits.gather(-1, targets.long().unsqueeze(-1)).squeeze(-1)
    return picked - torch.logsumexp(logits, dim=-1)


def entropy_from_logits(logits: Tensor) -> Tensor:
    """Per-token entropy of softmax(logits) [B, T, V] -> [B, T]; the DAPO paper's collapse monitor."""
    logits = logits.float()
    logp = F.log_softmax(logits, dim=-1)
    return -(logp.exp() * logp).sum(dim=-1)
