"""The value model for PPO and VAPO: a separate critic, initialised from the policy's backbone.

Why a separate model and not a value head on the policy's backbone:
- VAPO pretrains the value function alone for N steps; with a shared backbone that would move the
  policy before any policy update.
- Value and policy gradients fight over a shared trunk (different scales, different targets), and
  the critic wants its own learning rate and clip; verl, OpenRLHF and the VAPO paper all keep it
  separate.
- The policy stays a plain causal LM, so its safetensors load unchanged into vLLM for weight sync.
The cost is a second copy of the backbone in memory and one more forward pass per step, which is
small for the tiny models this trainer runs on CPU; on GPUs the same module can be sharded.

Alignment: `values(input_ids, attention_mask)[:, i]` is V of the state after reading token i,
i.e. the value *before* generating token i+1; slice it exactly like logits: for responses
starting at column P, `values[:, P-1:-1]` lines up with `token_logprobs(logits[:, P-1:-1], ids[:, P:])`.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import warnings
from pathlib import Path

import torch
from torch import Tensor, nn

from trainer.advantages import (
    gae,
    length_adaptive_lambda,
    ppo_advantages,
    terminal_rewards,
    vapo_advantages,
    whiten,
)
from trainer.batch import Batch
from trainer.objective import aggregate
from trainer.packing import packed_response_values


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


class Critic(nn.Module):
    """A transformers backbone (no LM head) plus a scalar value head over its last hidden state."""

    def __init__(self, backbone: nn.Module) -> None:
        super().__init__()
        self.backbone = backbone
        hidden = backbone.config.hidden_size
        # Zero init: V = 0 at start, a neutral baseline for +-1 rewards until value pretraining.
        self.value_head = nn.Linear(hidden, 1)
        nn.init.zeros_(self.value_head.weight)
        nn.init.zeros_(self.value_head.bias)

    @property
    def config(self):
        return self.backbone.config

    def forward(self, input_ids: Tensor, attention_mask: Tensor | None = None) -> Tensor:
        return self.values(input_ids, attention_mask)

    def values(self, input_ids: Tensor, attention_mask: Tensor | None = None) -> Tensor:
        """[B, L] token ids (left or right padded) -> [B, L] float32 values, one per position."""
        if attention_mask is None:
            attention_mask = torch.ones_like(input_ids)
        # positions count real tokens only, so a left-padded prompt sees the same positions as unpadded
        position_ids = (attention_mask.long().cumsum(-1) - 1).clamp(min=0)
        out = self.backbone(
            input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids, use_cache=False
        )
        hidden = out.last_hidden_state  # [B, L, H]
        return self.value_head(hidden.to(self.value_head.weight.dtype)).squeeze(-1).float()

    def response_values(
        self, input_ids: Tensor, attention_mask: Tensor, prompt_len: int, packed_mask: Tensor | None = None
    ) -> Tensor:
        """Values of the states before each response token: [B, L] -> [B, L - prompt_len].

        `packed_mask` ([B, L - prompt_len], 1 on response tokens): one padding-free forward
        (train.padding_free, trainer/packing.py); values on response padding are then 0.
        """
        if packed_mask is not None:
            return packed_response_values(self, input_ids, attention_mask, packed_mask)
        return self.values(input_ids, attention_mask)[:, prompt_len - 1 : -1]

    def save(self, out: str | Path) -> None:
        """Atomically write config.json + model.safetensors into `out` (temp dir, then rename)."""
        from safetensors.torch import save_file

        out = Path(out)
        tmp = out.with_name(out.name + ".tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        state = {k: v.detach().contiguous().cpu() for k, v in self.state_dict().items()}
        save_file(state, str(tmp / "model.safetensors"))
        (tmp / "config.json").write_text(json.dumps(self.config.to_dict(), indent=1))
        from mathdata.files import make_readable

        make_readable(tmp)  # safetensors writes 0600
        if out.exists():
            shutil.rmtree(out)
        os.replace(tmp, out)

    @classmethod
    def load(cls, path: str | Path) -> Critic:
        from safetensors.torch import load_file
        from transformers import AutoConfig, AutoModel

        path = Path(path)
        if not (path / "model.safetensors").exists() or not (path / "config.json").exists():
            raise FileNotFoundError(
                f"{path} is not a critic checkpoint: it needs config.json and model.safetensors"
            )
        cfg_dict = json.loads((path / "config.json").read_text())
        config = AutoConfig.for_model(**cfg_dict)
        critic = cls(AutoModel.from_config(config))
        critic.load_state_dict(load_file(str(path / "model.safetensors")))
        return critic


def build_critic(policy: nn.Module, *, copy_weights: bool = True) -> Critic:
    """A critic with the policy's architecture; its backbone starts as a copy of the policy's.

    Starting from the policy's weights gives the critic the policy's features for free (the VAPO
    recipe initialises from a model that already reads the task); `copy_weights=False` gives a
    freshly initialised backbone of the same shape.
    """
    base = getattr(policy, policy.base_model_prefix, None) if hasattr(policy, "base_model_prefix") else None
    if base is None or base is policy:
        raise ValueError(
            f"{type(policy).__name__} exposes no backbone under base_model_prefix; pass a transformers *ForCausalLM"
        )
    if copy_weights:
        backbone = copy.deepcopy(base)
    else:
        from transformers import AutoModel

        backbone = AutoModel.from_config(base.config)
    backbone.requires_grad_(True)
    return Critic(backbone).to(next(policy.parameters()).device)


def value_step(
    critic: Critic,
    optimizer: torch.optim.Optimizer,
    input_ids: Tensor,
    attention_mask: Tensor,
    prompt_len: int,
    response_mask: Tensor,
    returns: Tensor,
    old_values: Tensor,
    *,
    clip: float = 0.5,
    grad_clip: float | None = 1.0,
    packed: bool = False,
) -> float:
    """One critic update on a batch of rollouts (also VAPO's value pretraining step). Returns the loss."""
    critic.train()
    optimizer.zero_grad(set_to_none=True)
    v = critic.response_values(input_ids, attention_mask, prompt_len, response_mask if packed else None)
    loss = value_loss(v, old_values, returns, response_mask, clip=clip)
    loss.backward()
    if grad_clip:
        torch.nn.utils.clip_grad_norm_(critic.parameters(), grad_clip)
    optimizer.step()
    return float(loss.detach())


# ---------------------------------------------------------------- in the loop (ppo, vapo)
@torch.no_grad()
def critic_values(critic: Critic, b: Batch, *, micro: int, packed: bool = False) -> Tensor:
    """[N, R] V of the state before each response token, zero on padding (critic in eval mode)."""
    was = critic.training
    critic.eval()
    P = b.ids.shape[1] - b.resp.shape[1]
    vals = [
        critic.response_values(
            b.ids[i : i + micro], b.attn[i : i + micro], P, b.mask[i : i + micro] if packed else None
        )  # fmt: skip
        for i in range(0, len(b), micro)
    ]
    critic.train(was)
    return torch.cat(vals) * b.mask


def ppo_gae(a, scores: Tensor, values: Tensor, m: Tensor, pretrain: bool) -> tuple[Tensor, Tensor, Tensor]:
    """PPO: GAE with one lambda for advantages and value targets; Monte-Carlo targets while pretraining."""
    adv, returns = ppo_advantages(scores, values, m, gamma=a.gamma, lam=a.lam)
    if pretrain:
        returns = gae(terminal_rewards(scores, m), values, m, gamma=a.gamma, lam=1.0)[1]
    return adv, returns, torch.full((m.shape[0],), float(a.lam), device=m.device)


TD0_WARNING = (
    "vapo: lambda_policy = 1 - 1/(alpha*l) is 0 for most responses (length <= 1/alpha = {limit:.0f} "
    "tokens; the batch's mean lambda is logged as gae_lambda_policy), so their advantages are the critic's one-step TD errors; with a young "
    "critic that is mostly noise (bench/results/ablation.md: the policy got worse). For short responses "
    "raise algo.alpha (0.5 gives lambda ~0.83 at 12 tokens)."
)


def vapo_gae(a, scores: Tensor, values: Tensor, m: Tensor, pretrain: bool) -> tuple[Tensor, Tensor, Tensor]:
    """VAPO: decoupled GAE (length-adaptive lambda_policy, lambda_critic = 1).

    The paper's alpha = 0.05 is set for long chains of thought; responses of 1/alpha tokens or
    fewer get lambda_policy 0 (the formula goes negative), which a warning names once.
    """
    lam = length_adaptive_lambda(m.sum(dim=1), a.alpha)
    share = float((lam == 0).float().mean()) if len(lam) else 0.0
    if share > 0.5 and not pretrain:
        warnings.warn(TD0_WARNING.format(limit=1 / a.alpha), UserWarning, stacklevel=2)
    adv, returns = vapo_advantages(terminal_rewards(scores, m), values, m, gamma=a.gamma, alpha=a.alpha)
    return adv, returns, lam


def critic_advantages(
    a, algo, groups: list, b: Batch, values: Tensor, *, pretrain: bool
) -> tuple[Tensor, Tensor, float]:
    """(token advantages [N, R], value targets [N, R], mean policy lambda) from GAE on the outcome reward.

    `algo.advantage` is `ppo_gae` or `vapo_gae` (its row in trainer/algorithms.py); the reward sits on
    each response's last token. The advantages are whitened over the trained tokens (verl's GAE does
    the same). The mean lambda is logged (`gae_lambda_policy`): near 0 means one-step TD advantages.
    """
    scores = torch.tensor([x for g in groups for x in g.rewards], dtype=torch.float32, device=values.device)
    adv, returns, lam = algo.advantage(a, scores, values, b.mask, pretrain)
    return whiten(adv, b.loss_mask), returns, float(lam.mean()) if len(lam) else float("nan")


def critic_update(cfg, critic: Critic, optimizer, b: Batch, values: Tensor, returns: Tensor) -> dict:
    """`train.epochs` passes of clipped value-loss steps over the batch, in the policy's mini-batch size.

    Every rank runs the whole critic update on the whole batch (same inputs, same RNG draws), so the
    critics stay identical without collectives; it is small next to the policy's generation.
    """
    N = len(b)
    mbs = cfg.train.mini_batch_size or N
    P = b.ids.shape[1] - b.resp.shape[1]
    losses_ = []
    for _ in range(cfg.train.epochs):
        perm = torch.randperm(N)
        for j in range(N // mbs):
            idx = perm[j * mbs : (j + 1) * mbs]
            losses_.append(
                value_step(
                    critic,
                    optimizer,
                    b.ids[idx],
                    b.attn[idx],
                    P,
                    b.mask[idx],
                    returns[idx],
                    values[idx],
                    clip=cfg.algo.value_clip,
                    grad_clip=cfg.optim.grad_clip,
                    packed=cfg.train.padding_free,
                )  # fmt: skip
            )
    err = ((values - returns) ** 2 * b.mask).sum() / b.mask.sum().clamp(min=1)
    return {"value_loss": sum(losses_) / max(len(losses_), 1), "value_mse_before": float(err),
            "value_mean": float((values * b.mask).sum() / b.mask.sum().clamp(min=1))}  # fmt: skip


def writer(critic: Critic, optimizer):
    """Writes the critic and its optimiser into a checkpoint directory before the checkpoint is renamed."""

    def write(d: Path) -> None:
        critic.save(d / "critic")
        torch.save(optimizer.state_dict(), d / "critic_optimizer.pt")

    return write
