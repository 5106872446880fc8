"""What is minimised: the DAPO objective, its relatives, and every term added to it.

The DAPO objective (Yu et al. 2025, eq. 8), maximised over theta:

    J(theta) = E_{q, {o_i}_{i=1..G} ~ pi_old(.|q)} [
                 1 / sum_i |o_i|  *  sum_i sum_t  min( r_{i,t} A_i,  clip(r_{i,t}, 1 - eps_low, 1 + eps_high) A_i )
               ]
    subject to  0 < |{o_i : o_i correct}| < G          (dynamic sampling, trainer/sampling.py)

    r_{i,t} = pi_theta(o_{i,t} | q, o_{i,<t}) / pi_old(o_{i,t} | q, o_{i,<t})
    A_i     = (R_i - mean_j R_j) / std_j R_j           (trainer/advantages.py)
    R_i     = +1 / -1 for a correct / wrong answer, plus the soft overlong penalty (trainer/reward.py)

What the loop back-propagates for one micro-batch is `policy_loss` at the bottom of this file:

    loss = aggregate( pg_t * w_t * opsm_i + kl_coef * KL_t - entropy_coef * H_t )  [+ ntp_coef * NTP]

- pg_t: the algorithm's per-token (or per-sequence) surrogate, with a minus sign: `clipped_token_loss`
  (grpo, dapo, ...), `dcpo_token_loss`, `gspo_seq_loss`, `cispo_token_loss`, `gmpo_seq_loss`,
  `clip_cov_token_loss`, `kl_cov_token_loss`, `sapo_token_loss`, `dppo_token_loss` (the clipped loss
  takes verl's dual-clip cap algo.clip_ratio_c: for A < 0 at most c |A|); which one an algorithm uses
  is its row in trainer/algorithms.py. `entropy_top_mask` (algo.entropy_top_quantile) keeps pg_t only on the
  highest-entropy tokens.
- w_t: rollout correction between the trainer and the rollout engine (trainer/correction.py):
  truncated importance weights per token (`tis_weights`, algo.tis_cap) or per sequence
  (algo.tis_level), times 0 on responses / tokens whose ratio leaves algo.rc_seq_band / rc_token_band.
- opsm_i: OPSM (algo.off_policy_mask, `off_policy_sequence_mask`): 0 on a negative-advantage response
  too far (mean KL) from the rollout policy, else 1.
- KL_t: the estimate of KL(pi_theta || pi_ref) (`kl_penalty`), off unless algo.kl_coef > 0; with
  algo.kl_unbiased, times pi_theta / pi_old (`unbiased_kl`).
- H_t: the policy's entropy at the token, with its gradient (algo.entropy_coef, verl's entropy_coeff).
- aggregate: mask, then divide by the normaliser of `algo.loss_agg` / `algo.token_norm`
  (`aggregate`, `normalisers`): the counts of the whole mini-batch, so accumulating micro-batches
  (and summing ranks) gives exactly the gradient of one big batch.
- NTP: VAPO's next-token-prediction loss on correct responses (`ntp_loss`).

Every function is a plain function over tensors. Shapes: [B, T] over response tokens, right-padded,
mask 1 on real tokens; [B] per response. Losses are returned unmasked; the mask and the normaliser
are applied once, in `aggregate`.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor

from trainer.correction import correction_weights

AGG_MODES = (
    "token_mean",
    "seq_mean_token_mean",
    "seq_sum_token_mean",
    "token_sum_constant",
    "token_sum",
    "seq_mean_token_sum",
)
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
    logp: Tensor,
    old_logp: Tensor,
    adv: Tensor,
    *,
    eps_low: float,
    eps_high: float,
    clip_ratio_c: float | None = None,
) -> tuple[Tensor, Tensor, Tensor]:
    """PPO/GRPO/DAPO token loss -min(r A, clip(r, 1-eps_low, 1+eps_high) A); DAPO's clip-higher is eps_high > eps_low.

    `clip_ratio_c` (dual-clip PPO, Ye et al. 2019; verl's `clip_ratio_c`): for A < 0 the loss is
    capped at c |A|, so a negative-advantage token whose ratio exploded (r > c) cannot dominate the
    batch; None = no cap (the papers' objective). Returns (loss [B,T], clip_low [B,T], clip_high [B,T]);
    a flag marks a token whose gradient a clip removed: A < 0 with r below the band (clip_low) or
    A > 0 with r above it (clip_high). `dual_clip_mask` gives the tokens the cap removed.
    """
    ratio = _ratio(logp, old_logp)  # [B, T]
    clipped = ratio.clamp(1.0 - eps_low, 1.0 + eps_high)
    loss = _ppo_surrogate(ratio, clipped, adv)
    if clip_ratio_c is not None:
        loss = torch.where(adv < 0, torch.minimum(loss, -clip_ratio_c * adv), loss)
    clip_low = (ratio < 1.0 - eps_low) & (adv < 0)
    clip_high = (ratio > 1.0 + eps_high) & (adv > 0)
    return loss, clip_low, clip_high


def dual_clip_mask(logp: Tensor, old_logp: Tensor, adv: Tensor, clip_ratio_c: float | None) -> Tensor:
    """[B,T] bool: tokens whose loss the dual-clip cap c |A| replaced (A < 0 and r > c); none when c is None."""
    if clip_ratio_c is None:
        return torch.zeros_like(adv, dtype=torch.bool)
    return (adv < 0) & (_ratio(logp, old_logp) > clip_ratio_c)


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


def cispo_token_loss(
    logp: Tensor, old_logp: Tensor, adv: Tensor, *, eps_low: float = 1.0, eps_high: float = 0.28
) -> tuple[Tensor, Tensor, Tensor]:
    """CISPO (MiniMax-M1): -sg(clip(r, 1-eps_low, 1+eps_high)) * A * log pi_theta per token.

    The importance weight is clipped and detached, and multiplies the REINFORCE term, so every token
    keeps a gradient -w A grad log pi (PPO's clip zeroes it outside the band); at r = 1 the gradient
    equals PPO's. eps_low = 1 leaves the weight no lower bound, as in the paper.
    Returns (loss [B,T], clip_low [B,T], clip_high [B,T]): where the weight was truncated.
    """
    ratio = _ratio(logp, old_logp).detach()  # [B, T]
    w = ratio.clamp(1.0 - eps_low, 1.0 + eps_high)
    return -w * adv * logp, ratio < 1.0 - eps_low, ratio > 1.0 + eps_high


def gmpo_seq_loss(
    logp: Tensor,
    old_logp: Tensor,
    adv_seq: Tensor,
    mask: Tensor,
    *,
    eps_low: float = 0.4,
    eps_high: float = 0.4,
) -> tuple[Tensor, Tensor, Tensor]:
    """GMPO: maximise the geometric mean over a response's tokens of min(r A, clip(r) A), clipped in log space.

        J_i = sgn(A_i) * | prod_t min(r_t A_i, clip(r_t, e^-eps_low, e^eps_high) A_i) |^(1/|o_i|)
            = A_i * exp( (1/|o_i|) sum_t sgn(A_i) min(sgn(A_i) log r_t, sgn(A_i) clip(log r_t, -eps_low, eps_high)) )

    The geometric mean damps outlier token ratios, so GMPO clips far wider than GRPO (0.4 in log
    space). adv_seq [B]; returns (loss [B], clip_low [B,T], clip_high [B,T]): tokens whose log-ratio
    left the band, by the sign of A (as verl's geo_mean loss counts them).
    """
    mask = mask.float()
    log_r = (logp - old_logp).clamp(-MAX_LOG_RATIO, MAX_LOG_RATIO)  # [B, T]
    sgn = torch.sign(adv_seq)[:, None]  # [B, 1]
    clipped = log_r.clamp(-eps_low, eps_high)
    pessimistic = sgn * torch.minimum(sgn * log_r, sgn * clipped)  # [B, T]
    n = mask.sum(dim=1).clamp(min=1)  # [B]
    seq_ratio = torch.exp((pessimistic * mask).sum(dim=1) / n)  # [B]
    out = (log_r != clipped) & (mask > 0)
    return -adv_seq * seq_ratio, out & (sgn < 0), out & (sgn > 0)


def clip_cov_token_loss(
    logp: Tensor, old_logp: Tensor, adv: Tensor, selected: Tensor, *, eps_low: float, eps_high: float
) -> tuple[Tensor, Tensor, Tensor]:
    """Clip-Cov (Cui et al. 2025): the clipped token loss, with the covariance-selected tokens detached.

    `selected` [B,T] bool comes from `cov_select_band` (a random few of the tokens whose
    covariance between log-probability and advantage is large); their loss and gradient are zero,
    which is what keeps those tokens from collapsing the entropy. Returns (loss, clip_low, clip_high);
    selected tokens count as clip_high.
    """
    loss, clip_low, clip_high = clipped_token_loss(logp, old_logp, adv, eps_low=eps_low, eps_high=eps_high)
    return loss * (~selected).to(loss.dtype), clip_low, clip_high | selected


def kl_cov_token_loss(
    logp: Tensor, old_logp: Tensor, adv: Tensor, selected: Tensor, *, coef: float = 1.0
) -> tuple[Tensor, Tensor, Tensor]:
    """KL-Cov (Cui et al. 2025): -r A on every token (no clip), plus coef * |log pi - log pi_old| on the selected.

    `selected` [B,T] bool comes from `cov_select_top` (the tokens with the largest covariance
    between log-probability and advantage). Returns (loss, clip_low, clip_high); no token is
    clipped, the selected ones count as clip_high (they are the tokens held back).
    """
    ratio = _ratio(logp, old_logp)
    loss = -adv * ratio + coef * (logp - old_logp).abs() * selected.to(logp.dtype)
    return loss, torch.zeros_like(selected), selected


# ---------------------------------------------------------------- which tokens get policy gradient
def token_covariance(logp: Tensor, adv: Tensor, mask: Tensor) -> Tensor:
    """Cov_t = (log pi_t - mean log pi) * (A_t - mean A), means over the masked tokens; [B,T], 0 off the mask."""
    m = mask.float()
    n = m.sum().clamp(min=1)
    lp, a = logp.detach().float(), adv.detach().float()
    return (lp - (lp * m).sum() / n) * (a - (a * m).sum() / n) * m


def cov_select_band(
    logp: Tensor, adv: Tensor, mask: Tensor, *, ratio: float, low: float, high: float, generator=None
) -> Tensor:
    """Clip-Cov's choice: max(1, int(ratio * n_tokens)) tokens drawn at random among those with low < Cov < high."""
    cov = token_covariance(logp, adv, mask)
    cand = torch.nonzero(((cov > low) & (cov < high) & (mask > 0)).reshape(-1)).squeeze(1)
    k = min(max(1, int(ratio * float(mask.sum()))), len(cand))
    out = torch.zeros(mask.numel(), dtype=torch.bool, device=mask.device)
    if k:
        out[cand[torch.randperm(len(cand), generator=generator)[:k].to(cand.device)]] = True
    return out.reshape(mask.shape)


def cov_select_top(logp: Tensor, adv: Tensor, mask: Tensor, *, ratio: float) -> Tensor:
    """KL-Cov's choice: the max(1, int(ratio * n_tokens)) masked tokens with the largest covariance."""
    cov = token_covariance(logp, adv, mask).reshape(-1)
    valid = torch.nonzero(mask.reshape(-1) > 0).squeeze(1)
    out = torch.zeros(mask.numel(), dtype=torch.bool, device=mask.device)
    if len(valid):
        k = min(max(1, int(ratio * len(valid))), len(valid))
        out[valid[torch.topk(cov[valid], k).indices]] = True
    return out.reshape(mask.shape)


def entropy_top_mask(entropy: Tensor, mask: Tensor, q: float) -> Tensor:
    """1.0 on the tokens whose entropy is in the batch's top q share (entropy >= the (1-q) quantile), else 0.

    The "80/20" finding (Wang et al. 2025): policy gradient on only the ~20% highest-entropy
    tokens ("forking" tokens) matches or beats the full gradient. [B,T] float.
    """
    valid = entropy[mask > 0].float()
    if valid.numel() == 0:
        return torch.zeros_like(mask, dtype=torch.float32)
    threshold = torch.quantile(valid, 1.0 - q)
    return ((entropy >= threshold) & (mask > 0)).float()


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
    - token_sum: sum over masked tokens, no normaliser (verl's token-sum): the loss scales with
      the batch's token count, so the learning rate must be chosen for it.
    - seq_mean_token_sum: each response's token sum, summed, / num_seqs (default: responses with at
      least one unmasked token); verl's seq-mean-token-sum: long responses weigh in more.
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
    if mode == "token_sum":
        return masked.sum()
    if mode == "seq_mean_token_sum":
        tok = mask.sum(dim=1)
        denom = (tok > 0).sum().clamp(min=1) if num_seqs is None else max(float(num_seqs), 1.0)
        return masked.sum() / denom
    if mode == "token_sum_constant":
        c = float(mask.numel()) if constant is None else float(constant)
        if c <= 0:
            raise ValueError(f"aggregate(mode='token_sum_constant') needs constant > 0, got {c}")
        return masked.sum() / c
    raise ValueError(f"unknown loss aggregation mode {mode!r}; use one of {', '.join(AGG_MODES)}")


K3_CLAMP = 10.0  # verl clamps low_var_kl (k3) to [-10, 10]: one token far from the reference cannot swamp the KL term


def kl_penalty(logp: Tensor, ref_logp: Tensor, kind: str = "k3") -> Tensor:
    """Per-token KL(pi || ref) estimate from sampled tokens (Schulman's estimators).

    k1 = log pi - log ref (unbiased, high variance, can be negative); k2 = (log pi - log ref)^2 / 2
    (biased, low variance; its gradient is the unbiased gradient of KL); k3 = exp(d) - d - 1 with
    d = log ref - log pi (unbiased, always >= 0, what GRPO uses). As in verl's `low_var_kl`, d is
    clamped to [-20, 20] (no inf) and k3 to [-10, 10], in effect at most 10 (past it the token's KL
    gradient is 0).
    """
    if kind == "k1":
        return logp - ref_logp
    if kind == "k2":
        return 0.5 * (logp - ref_logp) ** 2
    if kind == "k3":
        d = (ref_logp - logp).clamp(-20.0, 20.0)
        return (torch.exp(d) - d - 1.0).clamp(-K3_CLAMP, K3_CLAMP)
    raise ValueError(f"unknown KL estimator {kind!r}; use 'k1', 'k2' or 'k3'")


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


# ---------------------------------------------------------------- engine vs trainer: importance weights
def tis_weights(
    trainer_logp: Tensor, engine_logp: Tensor, cap: float = 2.0, mask: Tensor | None = None
) -> Tensor:
    """Truncated importance-sampling weights min(pi_trainer / pi_engine, cap) per token, detached.

    The engine samples with slightly different numerics (kernels, precision) than the trainer
    computes, so rollouts are mildly off-policy; multiplying each token's loss by this weight
    corrects that, and the cap bounds the variance a rare disagreement could add.
    """
    if trainer_logp.shape != engine_logp.shape:
        raise ValueError(
            f"trainer and engine logprobs differ in shape: {tuple(trainer_logp.shape)} vs {tuple(engine_logp.shape)}"
        )
    if cap <= 0:
        raise ValueError(f"tis cap must be > 0, got {cap}")
    w = torch.exp((trainer_logp - engine_logp).detach()).clamp(max=cap)
    return w if mask is None else w * mask.to(w.dtype)


def logprob_gap(trainer_logp: Tensor, engine_logp: Tensor, mask: Tensor) -> dict[str, float]:
    """Engine-vs-trainer mismatch metrics over response tokens (logged every step).

    mean/max |delta log p|, the mean |delta p| in probability space (what TIS papers plot), the
    k3 estimate of KL(engine || trainer) and the chi-square divergence E_engine[(rho - 1)^2] on the
    sampled tokens (rho = pi_trainer / pi_engine; trainer/correction.py).
    """
    m = mask.bool()
    if not m.any():
        return {
            "logprob_gap_mean": 0.0,
            "logprob_gap_max": 0.0,
            "prob_gap_mean": 0.0,
            "engine_trainer_kl": 0.0,
            "engine_trainer_chi2": 0.0,
        }
    t, e = trainer_logp.detach()[m].float(), engine_logp.detach()[m].float()
    d = (t - e).abs()
    log_ratio = (t - e).clamp(-20, 20)  # log pi_trainer / pi_engine, sampled from the engine
    return {
        "logprob_gap_mean": float(d.mean()),
        "logprob_gap_max": float(d.max()),
        "prob_gap_mean": float((t.exp() - e.exp()).abs().mean()),
        "engine_trainer_kl": float((log_ratio.exp() - log_ratio - 1).mean()),
        # chi^2(pi_trainer || pi_engine) = E_engine[(rho - 1)^2], rho = pi_trainer / pi_engine
        "engine_trainer_chi2": float(((log_ratio.exp() - 1) ** 2).mean()),
    }


# ---------------------------------------------------------------- the normaliser and the loss of one micro-batch
def normalisers(a, full, mb, n_minibatches: int, *, G: int, max_len: int) -> dict:
    """Counts over the token set the loss is normalised by (algo.token_norm), from whole (mini-)batches.

    `a` is the run's AlgoConfig, `full` the rollout batch and `mb` the optimiser mini-batch
    (trainer/batch.py); G responses per prompt, `max_len` = rollout.max_new_tokens.
    """
    tokens = mb.loss_mask.sum().item()
    if a.token_norm == "batch":
        tokens = full.loss_mask.sum().item() / n_minibatches
    group_tokens = torch.zeros(int(full.group.max()) + 1, device=full.loss_mask.device)
    group_tokens.index_add_(0, full.group, full.loss_mask.sum(1))
    # every response of the mini-batch counts, an overlong-filtered (all-zero) row included, as verl's
    # engine worker (global_batch_size = ppo_mini_batch_size x n) and TRL (a mean over rows) count them
    seqs = len(mb)
    return {
        "tokens": tokens,
        "seqs": seqs,
        "groups": len(mb) / G,
        "ntp_tokens": (mb.loss_mask * mb.acc.float()[:, None]).sum().item(),
        "group_tokens": group_tokens,
        # Dr.GRPO: G x Lmax per group, so the mini-batch constant is (responses x Lmax);
        # DCPO's seq_sum_token_mean sums response means and averages over the mini-batch's prompts.
        "constant": len(mb) * max_len if a.loss_agg == "token_sum_constant" else len(mb) / G,
    }


def policy_loss(a, algo, logp: Tensor, mb, norm: dict, entropy: Tensor | None = None) -> tuple[Tensor, dict]:
    """The scalar minimised for one micro-batch `mb` (a trainer.batch.Batch carrying adv, old, ref).

    `a` is the run's AlgoConfig, `algo` its row of the algorithm table (trainer/algorithms.py),
    `logp` [B,T] this forward pass's log-probabilities, `norm` the mini-batch's `normalisers`
    (so micro-batches and ranks add up to the mini-batch's loss exactly), `entropy` [B,T] this
    pass's token entropies with their graph (needed when algo.entropy_coef > 0).
    Returns (loss, sums for the clip / KL metrics).
    """
    m = mb.loss_mask
    old, ref = mb.old, mb.ref
    rc_masked = 0.0
    pg_mask = m if mb.pg_mask is None else m * mb.pg_mask  # tokens that get policy gradient
    opsm = None  # OPSM (algo.off_policy_mask): [B] 0 on the dropped responses
    if a.off_policy_mask is not None:
        adv_seq = mb.adv if mb.adv.dim() == 1 else (mb.adv * m).sum(1)  # only its sign is read
        opsm = off_policy_sequence_mask(logp, mb.engine_logp, adv_seq, m, delta=a.off_policy_mask)
    if algo.seq_level:  # one loss per response: its tokens reach it only through the sequence ratio
        loss_seq, cl, ch = algo.loss(logp, old, mb.adv, pg_mask, mb, a)
        if opsm is not None:
            loss_seq = loss_seq * opsm
        has = (m.sum(1) > 0).float()
        loss = aggregate(loss_seq[:, None], has[:, None], "seq_mean_token_mean", num_seqs=norm["seqs"])
        cl_tok = cl if cl.dim() == 2 else cl[:, None].expand_as(m)
        ch_tok = ch if ch.dim() == 2 else ch[:, None].expand_as(m)
        tok_loss = None
    else:
        adv_tok = mb.adv if mb.adv.dim() == 2 else mb.adv[:, None].expand_as(m)  # PPO/VAPO: per-token (GAE)
        tok_loss, cl_tok, ch_tok = algo.loss(logp, old, adv_tok, m, mb, a)
        if mb.pg_mask is not None:
            tok_loss = tok_loss * mb.pg_mask
        if opsm is not None:
            tok_loss = tok_loss * opsm[:, None]
        if a.tis_cap is not None or a.rc_seq_band is not None or a.rc_token_band is not None:
            # rollout correction (trainer/correction.py): pi_trainer(old) / pi_engine as capped
            # token or sequence weights (TIS), and sequence / token masks when it leaves a band
            w, keep = correction_weights(
                old, mb.engine_logp, m, is_level=a.tis_level if a.tis_cap is not None else None,
                is_cap=a.tis_cap or 1.0, seq_band=a.rc_seq_band, token_band=a.rc_token_band,
            )  # fmt: skip
            tok_loss = tok_loss * w * keep
            rc_masked = float(((1 - keep) * m).sum())
    if ref is not None and a.kl_coef > 0:
        kl = unbiased_kl(logp, old, ref, a.kl_kind) if a.kl_unbiased else kl_penalty(logp, ref, a.kl_kind)
        tok_loss = a.kl_coef * kl if tok_loss is None else tok_loss + a.kl_coef * kl
    if a.entropy_coef:  # entropy bonus (verl's entropy_coeff): the same aggregation as the loss, subtracted
        if entropy is None:
            raise ValueError(
                "algo.entropy_coef > 0 needs this pass's entropy: pass policy_loss(..., entropy=)"
            )
        tok_loss = -a.entropy_coef * entropy if tok_loss is None else tok_loss - a.entropy_coef * entropy
    if algo.seq_level and tok_loss is not None:
        loss = loss + aggregate(tok_loss, m, "token_mean", num_tokens=norm["tokens"])
    if not algo.seq_level:
        if a.loss_agg == "token_mean" and a.token_norm == "group":
            tok_loss = tok_loss / norm["group_tokens"][mb.group].clamp(min=1)[:, None]
            loss = aggregate(tok_loss, m, "token_mean", num_tokens=norm["groups"])
        else:
            loss = aggregate(
                tok_loss,
                m,
                a.loss_agg,
                num_tokens=norm["tokens"],
                num_seqs=norm["seqs"],
                constant=norm["constant"],
            )
    ntp_coef = getattr(a, "ntp_coef", 0.0)  # a critic row's setting (algorithms.py); other rows have none
    if ntp_coef > 0:  # VAPO: next-token prediction on the correct responses, exact under accumulation
        loss = loss + ntp_coef * ntp_loss(logp, m, mb.acc, num_tokens=norm["ntp_tokens"])
    with torch.no_grad():
        d = (old - logp).detach()
        opsm_masked = 0.0 if opsm is None else float(((1 - opsm)[:, None] * m).sum())
        stats = {
            "clip_low": (cl_tok.float() * m).sum().item(),
            "clip_high": (ch_tok.float() * m).sum().item(),
            "clip_dual": 0.0
            if algo.seq_level
            # tokens whose loss the dual-clip cap replaced
            else (dual_clip_mask(logp, old, adv_tok, a.clip_ratio_c).float() * m).sum().item(),
            "kl_old": ((torch.exp(-d) - 1 + d) * m).sum().item(),  # k3 estimate of KL(pi_old || pi)
            "tokens": m.sum().item(),
            "rc_masked": rc_masked,  # tokens the rollout-correction masks removed
            "opsm_masked": opsm_masked,  # tokens OPSM (algo.off_policy_mask) dropped
        }
    return loss, stats


# ---------------------------------------------------------------- the 2026 family (sapo, dppo, OPSM, unbiased KL)
def sapo_token_loss(
    logp: Tensor, old_logp: Tensor, adv: Tensor, *, tau_pos: float = 1.0, tau_neg: float = 1.05
) -> tuple[Tensor, Tensor, Tensor]:
    """SAPO (Gao et al. 2025, Qwen): -f(r) A with the soft gate f(r) = (4 / tau) sigmoid(tau (r - 1)) per token.

    tau = tau_pos where A > 0, else tau_neg. f'(1) = 1, so at r = 1 the gradient is PPO's; away from
    r = 1 it decays smoothly (f' = 4 s (1 - s), s = sigmoid(tau (r - 1))) instead of dropping to 0 at
    a hard band edge. A larger tau_neg damps negative updates faster (they spread mass onto many
    other tokens). Nothing is clipped: returns (loss [B,T], all-False, all-False).
    """
    ratio = _ratio(logp, old_logp)
    tau = torch.where(adv > 0, torch.full_like(ratio, tau_pos), torch.full_like(ratio, tau_neg))
    gate = torch.sigmoid(tau * (ratio - 1.0)) * (4.0 / tau)
    none = torch.zeros_like(ratio, dtype=torch.bool)
    return -gate * adv, none, none


def dppo_token_loss(
    logp: Tensor,
    old_logp: Tensor,
    adv: Tensor,
    *,
    divergence: str,
    delta_low: float,
    delta_high: float,
    ratio_cap: float = 20.0,
) -> tuple[Tensor, Tensor, Tensor]:
    """DPPO (arXiv 2602.04879, "Rethinking the Trust Region in LLM RL"): mask by a divergence, not the ratio.

    With p = pi_theta(o_t) and q = pi_old(o_t) (probabilities of the sampled token), a token leaves
    the trust region when the policy moved in the advantage's direction by more than delta:
    - divergence "tv" (Binary-TV, prime-rl's default loss): A > 0 and p - q > delta_high, or
      A <= 0 and p - q < -delta_low;
    - divergence "kl" (Binary-KL): the KL between the Bernoulli(q) and Bernoulli(p) of "this token or
      another", D = q log(q/p) + (1-q) log((1-q)/(1-p)), exceeds delta_high (A > 0, p > q) or
      delta_low (A <= 0, p < q).
    Kept tokens get -A sg(min(r, ratio_cap)) log pi_theta (gradient -A r grad log pi, the PPO
    gradient; the cap truncates the IS weight as verl and TRL do), masked tokens get 0. A ratio
    clip over-penalises rare tokens (a small q moves r a lot for a tiny change of p) and
    under-penalises frequent ones; the probability gap does not. Returns (loss, clip_low, clip_high):
    masked tokens with A < 0 / A > 0.
    """
    p, q = logp.detach().exp(), old_logp.exp()
    if divergence == "tv":
        out_high, out_low = p - q > delta_high, p - q < -delta_low
    elif divergence == "kl":
        d = q * (old_logp - logp.detach()) + (1 - q) * torch.log((1 - q + 1e-8) / (1 - p + 1e-8))
        out_high, out_low = (d > delta_high) & (p > q), (d > delta_low) & (p < q)
    else:
        raise ValueError(f"unknown DPPO divergence {divergence!r}; use 'tv' or 'kl'")
    masked = torch.where(adv > 0, out_high, out_low)
    w = _ratio(logp, old_logp).detach().clamp(max=ratio_cap)
    loss = -adv * w * logp * (~masked).to(logp.dtype)
    return loss, masked & (adv < 0), masked & (adv > 0)


def off_policy_sequence_mask(
    logp: Tensor, behaviour_logp: Tensor, adv_seq: Tensor, mask: Tensor, *, delta: float
) -> Tensor:
    """OPSM (DeepSeek-V3.2, 2025): 0 for a response with A < 0 whose mean KL to the behaviour policy exceeds delta.

    KL_i = (1/|o_i|) sum_t (log pi_behaviour - log pi_theta) over its tokens (k1 on samples from the
    behaviour policy, detached). A far off-policy response with a negative advantage is the one
    whose gradient mostly pushes down tokens the current policy no longer produces; positive ones
    are always kept. adv_seq [B] (a token-advantage row's sign is its response's). -> [B] float 0/1.
    """
    m = mask.float()
    kl = ((behaviour_logp - logp.detach()) * m).sum(1) / m.sum(1).clamp(min=1)
    return ((adv_seq >= 0) | (kl <= delta)).float()


def unbiased_kl(logp: Tensor, old_logp: Tensor, ref_logp: Tensor, kind: str = "k3") -> Tensor:
    """DeepSeek-V3.2's importance-corrected KL: (pi_theta / pi_old) * KL_t, the ratio carrying gradient.

    Tokens are sampled from pi_old, not pi_theta, so the plain per-token estimate is biased once
    the policy moved; weighting by the ratio makes E_old[ratio * k] = E_theta[k] = KL(pi_theta || ref),
    and its gradient the gradient of that KL.
    """
    return _ratio(logp, old_logp) * kl_penalty(logp, ref_logp, kind)
