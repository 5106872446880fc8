"""Shared pieces of the parity tests: random ragged batches, our loss as the loop computes it, and
thin callers of verl's and TRL's own functions at the settings docs/algorithms.md names.

Nothing here re-implements a peer's formula: verl's losses are its `core_algos` functions fed the
`global_batch_info` its engine worker sets (workers/utils/losses.py: dp_size, batch_num_tokens =
the mini-batch's loss-mask sum, global_batch_size = the mini-batch's responses); TRL's are
`GRPOTrainer._compute_loss` / `RLOOTrainer._compute_loss` on a trainer made with `object.__new__`
(no model, no dataset), whose `_get_per_token_logps_and_entropies` returns the test's log-probs.
"""

from __future__ import annotations

import tempfile
from collections import defaultdict
from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np
import torch

from trainer import objective as obj
from trainer.algorithms import ALGORITHMS
from trainer.batch import Batch
from trainer.config import PRESETS, AlgoConfig

F32 = {"rtol": 2e-5, "atol": 2e-6}  # float32: a few ulps of sums over a few hundred tokens


@dataclass
class Ragged:
    """One random rollout batch: n_groups x G responses of 1..T tokens, some rows overlong-filtered."""

    rewards: torch.Tensor  # [n_groups, G]
    mask: torch.Tensor  # [N, T] response tokens
    loss_mask: torch.Tensor  # [N, T] mask with the filtered rows zeroed
    old: torch.Tensor  # [N, T] log pi_old
    logp: torch.Tensor  # [N, T] log pi_theta (a leaf the tests differentiate)
    ref: torch.Tensor  # [N, T] log pi_ref
    values: torch.Tensor  # [N, T] critic values (PPO)

    @property
    def G(self) -> int:
        return self.rewards.shape[1]

    @property
    def T(self) -> int:
        return self.mask.shape[1]

    @property
    def index(self) -> np.ndarray:
        return np.repeat(np.arange(self.rewards.shape[0]), self.G)


def ragged(
    seed: int, *, n_groups: int = 6, G: int = 4, T: int = 16, spread: float = 1.2, filtered: int = 2
) -> Ragged:
    """Ratios e^(spread z) so both clips and the dual-clip zone bind; group 0 all 0.7 (non-dyadic
    all-equal), group 1 all 1.0, the rest non-dyadic rewards; `filtered` rows get an all-zero loss mask."""
    g = torch.Generator().manual_seed(seed)
    N = n_groups * G
    lengths = torch.randint(1, T + 1, (N,), generator=g)
    lengths[0] = T
    mask = (torch.arange(T)[None, :] < lengths[:, None]).float()
    loss_mask = mask.clone()
    rows = torch.randperm(N - G * 2, generator=g)[:filtered] + G * 2  # never in the all-equal groups
    loss_mask[rows] = 0.0
    rewards = torch.randint(0, 2, (n_groups, G), generator=g).float() * 2 - 1
    rewards = rewards - 0.3 * torch.rand(n_groups, G, generator=g)  # soft overlong penalty-like values
    rewards[0] = 0.7
    rewards[1] = 1.0
    old = -3 * torch.rand(N, T, generator=g) - 0.01
    logp = (old + spread * torch.randn(N, T, generator=g)).clamp(max=0.0)
    if spread >= 1:  # every third response's first token far past DAPO's dual-clip 10: r = e^2.7
        old[::3, 0], logp[::3, 0] = -2.9, -0.2
    ref = logp + 0.3 * torch.randn(N, T, generator=g)
    values = torch.randn(N, T, generator=g)
    return Ragged(rewards, mask, loss_mask, old, logp.requires_grad_(), ref, values)


def algo_config(name: str, **overrides) -> AlgoConfig:
    """The preset's AlgoConfig (its row's settings), with overrides."""
    return AlgoConfig(**{**PRESETS[name]["algo"], **overrides})


def batch_of(b: Ragged, adv: torch.Tensor, *, selected=None, pg_mask=None, engine=None) -> Batch:
    """A trainer Batch carrying the ragged batch (token ids are irrelevant to the loss)."""
    N, T = b.mask.shape
    zeros = torch.zeros(N, T + 1, dtype=torch.long)
    return Batch(
        ids=zeros, attn=zeros, pos=zeros, resp=zeros[:, :T], mask=b.mask, loss_mask=b.loss_mask,
        engine_logp=b.old if engine is None else engine, group=torch.tensor(b.index), truncated=b.loss_mask.sum(1) == 0,
        acc=(b.rewards.reshape(-1) > 0), adv=adv, old=b.old, ref=b.ref, pg_mask=pg_mask, selected=selected,
    )  # fmt: skip


def splits(n: int, parts: int) -> list[torch.Tensor]:
    return list(torch.arange(n).tensor_split(parts))


def our_loss(a: AlgoConfig, batch: Batch, logp: torch.Tensor, *, minibatches: int = 1, micro: int = 1):
    """The loop's loss: per mini-batch, `policy_loss` summed over its micro-batches with the
    mini-batch's `normalisers` (trainer/update.py). Returns (mini-batch losses, their sum)."""
    algo = ALGORITHMS[a.name]
    out = []
    for rows in splits(len(batch), minibatches):
        mb = batch.select(rows)
        norm = obj.normalisers(a, batch, mb, minibatches, G=int(len(batch) / (int(batch.group.max()) + 1)),
                               max_len=batch.mask.shape[1])  # fmt: skip
        total = 0.0
        for sub in splits(len(mb), micro):
            loss, _ = obj.policy_loss(a, algo, logp[rows][sub], mb.select(sub), norm)
            total = total + loss
        out.append(total)
    return out, sum(out)


def grad(loss: torch.Tensor, leaf: torch.Tensor) -> torch.Tensor:
    return torch.autograd.grad(loss, leaf, retain_graph=True)[0]


# ---------------------------------------------------------------- verl
def verl_actor(core, *, loss_mode: str = "vanilla", eps_low: float, eps_high: float, agg: str, **kw):
    """verl's ActorConfig at the named settings (clip_ratio_c default 3.0 unless given)."""
    pl = core.PolicyLossConfig(loss_mode=loss_mode, **kw.pop("policy_loss", {}))
    return core.ActorConfig(
        strategy="fsdp", ppo_mini_batch_size=1, ppo_micro_batch_size_per_gpu=1, rollout_n=1,
        clip_ratio=eps_low, clip_ratio_low=eps_low, clip_ratio_high=eps_high, loss_agg_mode=agg,
        policy_loss=pl, **kw,
    )  # fmt: skip


def verl_loss(core, actor, b: Ragged, adv_tok: torch.Tensor, *, minibatches: int = 1, micro: int = 1,
              kl_type: str | None = None, kl_coef: float = 0.0):  # fmt: skip
    """verl's engine-worker loss (workers/utils/losses.py `ppo_loss`): per micro-batch the policy loss
    fn plus kl_loss_coef * agg_loss(kl_penalty), with the mini-batch's global_batch_info; micro-batch
    losses are back-propagated one by one, i.e. summed. Returns (mini-batch losses, their sum)."""
    fn = core.get_policy_loss_fn(actor.policy_loss.loss_mode)
    out = []
    for rows in splits(len(b.mask), minibatches):
        m = b.loss_mask[rows]
        actor.global_batch_info.update(dp_size=1, batch_num_tokens=int(m.sum()), global_batch_size=len(rows),
                                       loss_scale_factor=actor.loss_scale_factor)  # fmt: skip
        total = 0.0
        for sub in splits(len(rows), micro):
            r = rows[sub]
            pg, _ = fn(old_log_prob=b.old[r], log_prob=b.logp[r], advantages=adv_tok[r],
                       response_mask=b.loss_mask[r], loss_agg_mode=actor.loss_agg_mode, config=actor)  # fmt: skip
            if kl_type is not None:
                kld = core.kl_penalty(b.logp[r], b.ref[r], kl_type)
                pg = pg + kl_coef * core.agg_loss(
                    kld, b.loss_mask[r], actor.loss_agg_mode, **actor.global_batch_info
                )
            total = total + pg
        out.append(total)
    return out, sum(out)


def verl_rewards(b: Ragged) -> torch.Tensor:
    """token_level_rewards: each response's reward on its last token (verl sums them over tokens)."""
    out = torch.zeros_like(b.mask)
    last = b.mask.sum(1).long() - 1
    out[torch.arange(len(out)), last] = b.rewards.reshape(-1)
    return out


# ---------------------------------------------------------------- TRL
def _accelerator():
    from accelerate import Accelerator

    return Accelerator(cpu=True)


def trl_grpo_trainer(trl, logp_of, *, grad_accum: int, steps_per_generation: int | None = None, **config):
    """A GRPOTrainer holding only what `_compute_loss` reads, copied from a real GRPOConfig the way
    GRPOTrainer.__init__ copies it; `logp_of(input_ids)` stands in for the model's forward."""
    args = trl.GRPOConfig(
        output_dir=tempfile.mkdtemp(prefix="trl-parity-"), report_to=[], use_cpu=True,
        gradient_accumulation_steps=grad_accum, steps_per_generation=steps_per_generation, **config,
    )  # fmt: skip
    t = object.__new__(trl.GRPOTrainer)
    t.args = args
    for k in ("loss_type", "beta", "importance_sampling_level", "off_policy_mask_threshold", "top_entropy_quantile",
              "use_vllm", "vllm_importance_sampling_correction", "max_completion_length", "entropy_coef",
              "use_adaptive_entropy"):  # fmt: skip
        setattr(t, k, getattr(args, k))
    t.epsilon_low = args.epsilon
    t.epsilon_high = args.epsilon_high if args.epsilon_high is not None else args.epsilon
    t._entropy_bonus_enabled = t.entropy_coef != 0.0 or t.use_adaptive_entropy
    t.aux_loss_enabled = False
    t._metrics = {"train": defaultdict(list), "eval": defaultdict(list)}
    t.accelerator = _accelerator()
    t.model = torch.nn.Module()  # .training is True: the "train" branch of the normaliser
    t.current_gradient_accumulation_steps = grad_accum

    def forward(model, input_ids, attention_mask, logits_to_keep, **_):
        lp = logp_of(input_ids)
        return lp, torch.zeros_like(lp), None

    t._get_per_token_logps_and_entropies = forward
    return t


def trl_inputs(b: Ragged, rows: torch.Tensor, adv: torch.Tensor, **extra) -> dict:
    """`_compute_loss` inputs; the row ids ride in prompt_ids so the stub forward can pick the log-probs."""
    return {
        "prompt_ids": rows[:, None], "prompt_mask": torch.ones(len(rows), 1, dtype=torch.long),
        "completion_ids": torch.zeros(len(rows), b.T, dtype=torch.long), "completion_mask": b.loss_mask[rows],
        "advantages": adv[rows], "old_per_token_logps": b.old[rows], "ref_per_token_logps": b.ref[rows], **extra,
    }  # fmt: skip


def trl_grpo_loss(trl, b: Ragged, adv: torch.Tensor, *, minibatches: int = 1, micro: int = 1, **config):
    """TRL's GRPO loss: one optimiser step per mini-batch of `micro` equal micro-batches (gradient
    accumulation), the generation batch = the whole batch, so steps_per_generation = minibatches x micro."""
    t = trl_grpo_trainer(trl, lambda ids: b.logp[ids[:, 0]], grad_accum=micro,
                         steps_per_generation=minibatches * micro, **config)  # fmt: skip
    num_items = b.loss_mask.sum()  # gathered over the generation batch (one process)
    out = []
    for rows in splits(len(b.mask), minibatches):
        total = 0.0
        for sub in splits(len(rows), micro):
            total = total + t._compute_loss(
                t.model, trl_inputs(b, rows[sub], adv, num_items_in_batch=num_items)
            )
        out.append(total)
    return out, sum(out)


def trl_rloo_loss(trl, b: Ragged, adv: torch.Tensor, **config):
    """TRL's RLOOTrainer._compute_loss on the whole batch as one micro-batch."""
    args = trl.RLOOConfig(
        output_dir=tempfile.mkdtemp(prefix="trl-parity-"), report_to=[], use_cpu=True, **config
    )
    t = object.__new__(trl.RLOOTrainer)
    t.args, t.beta, t.aux_loss_enabled = args, args.beta, False
    t.epsilon_low = args.epsilon
    t.epsilon_high = args.epsilon_high if args.epsilon_high is not None else args.epsilon
    t._metrics = {"train": defaultdict(list), "eval": defaultdict(list)}
    t.accelerator = _accelerator()
    t.model = torch.nn.Module()
    t._get_per_token_logps_and_entropies = lambda model, ids, *a, **k: (
        b.logp[ids[:, 0]],
        torch.zeros_like(b.logp),
        None,
    )
    rows = torch.arange(len(b.mask))
    inputs = trl_inputs(b, rows, adv, old_logps=(b.old * b.loss_mask).sum(1))
    return t._compute_loss(t.model, inputs)


def groups_of(rewards: torch.Tensor) -> list:
    """Stand-ins for trainer.sampling.Group where only `.rewards` is read."""
    return [SimpleNamespace(rewards=row.tolist()) for row in rewards]
