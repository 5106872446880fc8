"""Advantage estimators: group-relative (GRPO, Dr.GRPO, DAPO), DCPO's smooth standardisation, GAE (PPO, VAPO).

Shapes: a batch of groups is `[n_groups, G]` (G responses per prompt); token tensors are `[B, T]`
with a 0/1 mask over response tokens (right padding).
"""

from __future__ import annotations

import math

import torch
from torch import Tensor


def group_advantages(rewards: Tensor, *, std_normalize: bool = True, eps: float = 1e-6) -> Tensor:
    """A_i = R_i - mean(R) over the group, divided by the group's std (+ eps) when `std_normalize`.

    GRPO and DAPO divide by the (unbiased, as TRL and verl do) group std; Dr.GRPO does not,
    because the std re-weights prompts by difficulty. A group whose rewards are all equal gets
    exactly 0: in float32 the mean of eight rewards of 0.7 is not exactly 0.7, and dividing that
    rounding residue by its own std (+ 1e-6) would give |A| = 0.056, as verl's float32 code does.
    The moments are taken in float64 for the same reason; the result is float32.
    """
    if rewards.dim() != 2:
        raise ValueError(f"rewards must be [n_groups, G], got shape {tuple(rewards.shape)}")
    r = rewards.double()
    adv = r - r.mean(dim=1, keepdim=True)  # [n_groups, G]
    if std_normalize:
        correction = 1 if r.shape[1] > 1 else 0
        adv = adv / (r.std(dim=1, keepdim=True, correction=correction) + eps)
    return _zero_all_equal(adv, rewards)


def _zero_all_equal(adv: Tensor, rewards: Tensor) -> Tensor:
    """adv [n_groups, G] as float32, with the rows whose rewards are all equal set to exactly 0."""
    equal = (rewards == rewards[:, :1]).all(dim=1, keepdim=True)
    return torch.where(equal, torch.zeros_like(adv), adv).float()


def rloo_advantages(rewards: Tensor) -> Tensor:
    """RLOO: A_i = R_i - (1/(G-1)) sum_{j != i} R_j, the leave-one-out baseline (= G/(G-1) (R_i - mean R)).

    The baseline of each response excludes its own reward, so it is unbiased; no std scaling.
    rewards [n_groups, G] with G >= 2 -> [n_groups, G]; an all-equal group gets exactly 0.
    """
    if rewards.dim() != 2 or rewards.shape[1] < 2:
        raise ValueError(f"rewards must be [n_groups, G] with G >= 2, got shape {tuple(rewards.shape)}")
    r = rewards.double()
    G = r.shape[1]
    others = (r.sum(dim=1, keepdim=True) - r) / (G - 1)
    return _zero_all_equal(r - others, rewards)


def batch_normalised_advantages(scores: Tensor, mask: Tensor, eps: float = 1e-8) -> Tensor:
    """REINFORCE++ for an outcome reward: every token's return is its response's score [N], whitened over the batch.

    No per-prompt baseline: the mean and (unbiased) std are taken over all masked tokens of the
    batch, as verl's `reinforce_plus_plus` estimator does with gamma = 1 (`whiten`). -> [N, T].
    """
    return whiten(broadcast_to_tokens(scores.to(mask.device), mask), mask.float(), eps)


def broadcast_to_tokens(adv: Tensor, mask: Tensor) -> Tensor:
    """[n_groups, G] (or [B]) response advantages -> [B, T] token advantages, zero on padding."""
    return adv.reshape(-1, 1).float() * mask.float()


class DCPOStats:
    """Per-prompt cumulative reward statistics for DCPO's smooth advantage standardisation.

    For a prompt seen for the i-th time, A_new standardises the rewards with this step's group
    statistics and A_total with every reward the prompt has received so far (this step included).
    The advantage is whichever of `((i-1)/i) A_new + (1/i) A_total` and `(1/i) A_new + ((i-1)/i) A_total`
    has the smaller magnitude. A group whose rewards are all equal thus still gets a signal from
    its history instead of a zero gradient. The statistics must survive a resume, hence
    `state_dict` / `load_state_dict` (plain Python numbers, JSON-friendly).
    """

    def __init__(self, eps: float = 1e-6) -> None:
        self.eps = eps
        # key -> [steps_seen, count, mean, m2] (Welford's running moments over all rewards)
        self.stats: dict[str, list[float]] = {}

    def _merge(self, key: str, group: Tensor) -> tuple[int, float, float]:
        steps, n, mean, m2 = self.stats.get(key, [0, 0, 0.0, 0.0])
        g_n = group.numel()
        g_mean = group.mean().item()
        g_m2 = ((group - g_mean) ** 2).sum().item()
        tot = n + g_n
        delta = g_mean - mean
        mean = mean + delta * g_n / tot
        m2 = m2 + g_m2 + delta * delta * n * g_n / tot
        self.stats[key] = [steps + 1, tot, mean, m2]
        std = math.sqrt(m2 / (tot - 1)) if tot > 1 else 0.0
        return steps + 1, mean, std

    def update_and_advantages(self, rewards: Tensor, prompt_keys: list[str]) -> Tensor:
        """Fold this step's rewards [n_groups, G] into the history and return smoothed advantages."""
        if rewards.dim() != 2 or rewards.shape[0] != len(prompt_keys):
            raise ValueError(
                f"rewards must be [n_groups, G] with one prompt key per group; got shape "
                f"{tuple(rewards.shape)} and {len(prompt_keys)} keys"
            )
        if len(set(prompt_keys)) != len(prompt_keys):
            raise ValueError("prompt_keys repeat within one step; merge the groups of a prompt first")
        rewards = rewards.float()
        a_new = group_advantages(rewards, std_normalize=True, eps=self.eps)  # [n_groups, G]
        out = torch.empty_like(rewards)
        for g, key in enumerate(prompt_keys):
            i, mean, std = self._merge(key, rewards[g])
            a_total = (rewards[g] - mean) / (std + self.eps)
            sa_new = ((i - 1) / i) * a_new[g] + (1 / i) * a_total
            sa_total = (1 / i) * a_new[g] + ((i - 1) / i) * a_total
            out[g] = torch.where(sa_new.abs() < sa_total.abs(), sa_new, sa_total)
        return out

    def state_dict(self) -> dict:
        return {"eps": self.eps, "stats": {k: list(v) for k, v in self.stats.items()}}

    def load_state_dict(self, d: dict) -> None:
        self.eps = float(d.get("eps", self.eps))
        self.stats = {str(k): [int(v[0]), int(v[1]), float(v[2]), float(v[3])] for k, v in d["stats"].items()}


def gae(
    rewards: Tensor, values: Tensor, mask: Tensor, *, gamma: float, lam: float | Tensor
) -> tuple[Tensor, Tensor]:
    """Generalised advantage estimation over response tokens.

    delta_t = r_t + gamma V_{t+1} - V_t and A_t = delta_t + gamma lam A_{t+1}, where "t+1" is the
    next *unmasked* token (so holes in the mask are skipped) and the value after the last token
    is 0 (the episode ends). `lam` may be a per-sequence tensor [B] (VAPO's length-adaptive lambda).
    Returns (advantages, returns = advantages + values), both zero on masked positions.
    The loop runs over T (not B): one vectorised step per token position.
    """
    if not (rewards.shape == values.shape == mask.shape) or rewards.dim() != 2:
        raise ValueError(
            f"rewards, values, mask must share one [B, T] shape; got {tuple(rewards.shape)}, "
            f"{tuple(values.shape)}, {tuple(mask.shape)}"
        )
    rewards, values, mask = rewards.float(), values.detach().float(), mask.float()
    B, T = rewards.shape
    lam_t = torch.as_tensor(lam, dtype=torch.float32, device=rewards.device).expand(B)  # [B]
    adv = torch.zeros_like(rewards)
    next_value = torch.zeros(B, device=rewards.device)
    next_adv = torch.zeros(B, device=rewards.device)
    for t in reversed(range(T)):
        m = mask[:, t]
        delta = rewards[:, t] + gamma * next_value - values[:, t]
        a = delta + gamma * lam_t * next_adv
        adv[:, t] = a * m
        next_value = torch.where(m > 0, values[:, t], next_value)
        next_adv = torch.where(m > 0, a, next_adv)
    returns = (adv + values) * mask
    return adv, returns


def length_adaptive_lambda(lengths: Tensor, alpha: float = 0.05) -> Tensor:
    """VAPO's lambda_policy = 1 - 1/(alpha * l): long responses get lambda near 1 (less bias).

    Clamped to [0, 1]: for l <= 1/alpha (20 tokens at alpha 0.05) the formula goes negative, which
    has no meaning for GAE; 0 there means one-step TD.
    """
    l = lengths.float().clamp(min=1.0)  # noqa: E741
    return (1.0 - 1.0 / (alpha * l)).clamp(0.0, 1.0)


def ppo_advantages(
    scores: Tensor, values: Tensor, mask: Tensor, *, gamma: float = 1.0, lam: float = 0.95
) -> tuple[Tensor, Tensor]:
    """PPO with GAE on an outcome reward: each response's score [B] on its last token, then GAE.

    Returns (advantages [B, T], value targets [B, T]); `values` are the critic's, detached.
    """
    return gae(terminal_rewards(scores, mask), values, mask, gamma=gamma, lam=lam)


def vapo_advantages(
    rewards: Tensor, values: Tensor, mask: Tensor, *, gamma: float = 1.0, alpha: float = 0.05
) -> tuple[Tensor, Tensor]:
    """VAPO's decoupled GAE: policy advantages with length-adaptive lambda, value targets with lambda 1.

    Returns (policy advantages [B, T], critic returns [B, T]). lambda_critic = 1 makes the value
    target the unbiased Monte-Carlo return; the policy keeps lower variance on short responses.
    """
    lam_policy = length_adaptive_lambda(mask.sum(dim=1), alpha)
    adv, _ = gae(rewards, values, mask, gamma=gamma, lam=lam_policy)
    _, returns = gae(rewards, values, mask, gamma=gamma, lam=1.0)
    return adv, returns


def terminal_rewards(scores: Tensor, mask: Tensor) -> Tensor:
    """Place each sequence's scalar reward [B] on its last unmasked token -> [B, T] (for GAE)."""
    B, T = mask.shape
    pos = torch.arange(T, device=mask.device).expand(B, T)
    last = torch.where(mask > 0, pos, torch.full_like(pos, -1)).max(dim=1).values  # [B]
    out = torch.zeros(B, T, dtype=torch.float32, device=mask.device)
    has = last >= 0
    out[has, last[has]] = scores.float()[has]
    return out


def whiten(x: Tensor, mask: Tensor, eps: float = 1e-8) -> Tensor:
    """Batch-normalise token advantages over masked positions (PPO practice; verl does it for GAE)."""
    n = mask.sum().clamp(min=1)
    mean = (x * mask).sum() / n
    var = (((x - mean) * mask) ** 2).sum() / (n - 1).clamp(min=1)
    return (x - mean) * torch.rsqrt(var + eps) * mask


# ---------------------------------------------------------------- the 2026 family (maxrl, reinforce_pp_baseline)
def _centred(rewards: Tensor) -> Tensor:
    """R - mean(R) per group [n_groups, G], exactly 0 for a group whose rewards are all equal.

    In float32 mean([0.7] * 8) is not 0.7, so a plain subtraction leaves a small nonzero residue
    that a later division can inflate.
    """
    rewards = rewards.float()
    same = (rewards == rewards[:, :1]).all(dim=1, keepdim=True)
    return torch.where(same, torch.zeros_like(rewards), rewards - rewards.mean(dim=1, keepdim=True))


def maxrl_advantages(success: Tensor) -> Tensor:
    """MaxRL (Tajwar et al. 2026, "Maximum Likelihood RL"): A_i = (r_i - mean r) / mean r per group.

    With r in [0, 1] (success), mean r estimates the pass rate p, and dividing by it turns the
    policy gradient of p into that of log p (maximum likelihood of a correct answer): a prompt
    solved 1 time in 8 gets 8 times the weight of one solved every time. A group with mean 0 (no
    success) or all rewards equal gets 0. success [n_groups, G], values >= 0 -> [n_groups, G].
    """
    if success.dim() != 2:
        raise ValueError(f"success must be [n_groups, G], got shape {tuple(success.shape)}")
    if (success < 0).any():
        raise ValueError(
            "maxrl_advantages needs rewards >= 0 (a success rate); map +1/-1 rewards to 1/0 first"
        )
    success = success.float()
    mean = success.mean(dim=1, keepdim=True)
    return torch.where(mean > 0, _centred(success) / mean.clamp(min=1e-12), torch.zeros_like(success))


def reinforce_pp_baseline_advantages(rewards: Tensor, mask: Tensor, eps: float = 1e-8) -> Tensor:
    """REINFORCE++-baseline (Hu et al. 2025): subtract the group mean, then whiten over the batch's tokens.

    A_{i,t} = whiten_batch(R_i - mean_group(R)): the group mean removes the prompt's difficulty, the
    batch std (not each group's, as GRPO) scales every prompt alike. As verl's
    `reinforce_plus_plus_baseline` estimator: the whitening is over all masked tokens of the batch
    (mean re-subtracted, unbiased variance). rewards [n_groups, G], mask [N, T] -> [N, T].
    """
    if rewards.dim() != 2:
        raise ValueError(f"rewards must be [n_groups, G], got shape {tuple(rewards.shape)}")
    centred = _centred(rewards).reshape(-1).to(mask.device)
    return whiten(broadcast_to_tokens(centred, mask), mask.float(), eps)
