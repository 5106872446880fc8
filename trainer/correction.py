"""Rollout correction: what to do about the rollout engine and the trainer disagreeing on log-probabilities.

The engine (vLLM, or the HF sampler in another precision) samples token o_t with probability
pi_engine(o_t); the trainer recomputes pi_old(o_t) with its own kernels. With

    rho_t = pi_old(o_t) / pi_engine(o_t) = exp(log pi_old - log pi_engine)      (per token)

the rollouts are samples of pi_engine, not of pi_old, and the policy-gradient estimate is biased
unless each term is re-weighted. The modes (algo.rollout_correction, combinable with a cap):

- token IS (TIS, `token_is_weights`): each token's loss times min(rho_t, cap).
- sequence IS (`sequence_is_weights`): every token of response i times min(prod_t rho_t, cap),
  the importance weight of the whole response (unbiased for sequence-level rewards, higher variance).
- sequence masking (`sequence_band_mask`): a response whose geometric-mean ratio
  exp(mean_t log rho_t) leaves [low, high] gets zero loss weight (length-independent, unlike the
  product, so one band fits short and long responses).
- token rejection (`token_reject_mask`): a token whose rho_t leaves [low, high] gets zero loss
  weight; the rest of its response still trains.

Logged every step (`mismatch_sums`): the k3 estimate of KL(pi_engine || pi_old), E[rho - 1 - log rho],
and the chi-square divergence chi^2(pi_old || pi_engine) = E_engine[(rho - 1)^2], both over the
sampled response tokens, and (from the loss) the share of response tokens the masks removed.

Plain functions over tensors, everything detached (weights carry no gradient). Shapes: [B, T] over
response tokens, right-padded, `mask` 1 on real tokens; [B] per response.
"""

from __future__ import annotations

import torch
from torch import Tensor

MAX_LOG_RATIO = 20.0  # exp(20) ~ 5e8: any cap or band decides long before this, and no inf


def log_ratio(trainer_logp: Tensor, engine_logp: Tensor) -> Tensor:
    """[B, T] log rho_t = log pi_old - log pi_engine, detached and clamped to +-MAX_LOG_RATIO."""
    if trainer_logp.shape != engine_logp.shape:
        raise ValueError(
            f"trainer and engine logprobs differ in shape: {tuple(trainer_logp.shape)} vs {tuple(engine_logp.shape)}"
        )
    return (trainer_logp.detach() - engine_logp.detach()).float().clamp(-MAX_LOG_RATIO, MAX_LOG_RATIO)


def token_is_weights(trainer_logp: Tensor, engine_logp: Tensor, cap: float) -> Tensor:
    """[B, T] min(rho_t, cap) per token (truncated importance sampling)."""
    if cap <= 0:
        raise ValueError(f"importance-weight cap must be > 0, got {cap}")
    return log_ratio(trainer_logp, engine_logp).exp().clamp(max=cap)


def sequence_is_weights(trainer_logp: Tensor, engine_logp: Tensor, mask: Tensor, cap: float) -> Tensor:
    """[B] min(prod_t rho_t, cap) over each response's real tokens (1 for an empty response)."""
    if cap <= 0:
        raise ValueError(f"importance-weight cap must be > 0, got {cap}")
    s = (log_ratio(trainer_logp, engine_logp) * mask).sum(1)  # [B] log prod_t rho_t
    return s.clamp(max=MAX_LOG_RATIO).exp().clamp(max=cap)


def sequence_band_mask(
    trainer_logp: Tensor, engine_logp: Tensor, mask: Tensor, low: float, high: float
) -> Tensor:
    """[B] 1.0 where the geometric-mean ratio exp(mean_t log rho_t) lies in [low, high], else 0.0.

    An empty response (no real token) has ratio 1 and is kept.
    """
    _check_band(low, high)
    n = mask.sum(1)
    mean_lr = (log_ratio(trainer_logp, engine_logp) * mask).sum(1) / n.clamp(min=1)  # [B]
    g = mean_lr.exp()
    return ((g >= low) & (g <= high)).float()


def token_reject_mask(trainer_logp: Tensor, engine_logp: Tensor, low: float, high: float) -> Tensor:
    """[B, T] 1.0 where rho_t lies in [low, high], else 0.0 (padding is left to the caller's mask)."""
    _check_band(low, high)
    r = log_ratio(trainer_logp, engine_logp).exp()
    return ((r >= low) & (r <= high)).float()


def _check_band(low: float, high: float) -> None:
    if not 0 <= low < 1 < high:
        raise ValueError(f"a ratio band needs 0 <= low < 1 < high, got [{low}, {high}]")


def correction_weights(
    trainer_logp: Tensor,
    engine_logp: Tensor,
    mask: Tensor,
    *,
    is_level: str | None = None,
    is_cap: float = 2.0,
    seq_band: tuple[float, float] | None = None,
    token_band: tuple[float, float] | None = None,
) -> tuple[Tensor, Tensor]:
    """(weight [B, T], keep [B, T]): multiply each token's loss by weight * keep.

    `is_level` None / "token" / "sequence" picks the importance weight (capped at `is_cap`);
    `seq_band` masks whole responses, `token_band` single tokens. `keep` is 1 where no mask removed
    the token (its zeros on real tokens are what `masked_share` counts).
    """
    B, T = trainer_logp.shape
    w = torch.ones(B, T, device=trainer_logp.device)
    if is_level == "token":
        w = token_is_weights(trainer_logp, engine_logp, is_cap)
    elif is_level == "sequence":
        w = sequence_is_weights(trainer_logp, engine_logp, mask, is_cap)[:, None].expand(B, T)
    elif is_level is not None:
        raise ValueError(f"importance-weight level {is_level!r}: write token or sequence")
    keep = torch.ones(B, T, device=trainer_logp.device)
    if seq_band is not None:
        keep = keep * sequence_band_mask(trainer_logp, engine_logp, mask, *seq_band)[:, None]
    if token_band is not None:
        keep = keep * token_reject_mask(trainer_logp, engine_logp, *token_band)
    return w, keep


def mismatch_sums(trainer_logp: Tensor, engine_logp: Tensor, mask: Tensor) -> dict[str, float]:
    """Sums over real tokens, to be divided by `tokens` (so micro-batches and ranks add up):

    k3_sum = sum (rho - 1 - log rho)   (k3 estimate of KL(pi_engine || pi_old); >= 0 per token)
    chi2_sum = sum (rho - 1)^2         (estimate of chi^2(pi_old || pi_engine) = E_engine[rho^2] - 1)
    """
    lr = log_ratio(trainer_logp, engine_logp)
    rho = lr.exp()
    m = mask.float()
    return {
        "k3_sum": float(((rho - 1 - lr) * m).sum()),
        "chi2_sum": float(((rho - 1) ** 2 * m).sum()),
        "tokens": float(m.sum()),
    }


def is_weight_stats(trainer_logp: Tensor, engine_logp: Tensor, mask: Tensor) -> dict[str, float]:
    """Mean and max of the uncapped importance weight rho_t over real tokens (logged every step;
    with asynchronous rollouts it is the trainer's policy over the stale policy that sampled)."""
    m = mask.bool()
    if not m.any():
        return {"is_weight_mean": 1.0, "is_weight_max": 1.0}
    rho = log_ratio(trainer_logp, engine_logp)[m].exp()
    return {"is_weight_mean": float(rho.mean()), "is_weight_max": float(rho.max())}


def masked_share(keep: Tensor, mask: Tensor) -> float:
    """Share of real tokens (mask 1) that `keep` removed (0 when there are none)."""
    n = float(mask.sum())
    return float(((1 - keep) * mask).sum()) / n if n else 0.0
