"""One step's rollouts as padded tensors: the `Batch`, and how it is built from scored groups.

Token layout: prompts left-padded to a common width P, responses right-padded to R, so every
response token sits in the same column range and logits are computed for the last R+1 positions only.

The per-row tensors the update needs (advantages, pi_old and reference log-probabilities, the
tokens that get policy gradient) travel with the batch, so selecting a mini-batch or a rank's rows
selects all of them together.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import torch

from trainer.sampling import Group


@dataclass
class Batch:
    ids: torch.Tensor  # [N, P+R] left-padded prompt | right-padded response
    attn: torch.Tensor  # [N, P+R]
    pos: torch.Tensor  # [N, P+R] position ids (left padding shifts them)
    resp: torch.Tensor  # [N, R] response token ids
    mask: torch.Tensor  # [N, R] 1 on response tokens
    loss_mask: torch.Tensor  # [N, R] mask, zeroed for truncated responses when overlong filtering is on
    engine_logp: torch.Tensor  # [N, R] logprobs from the sampler
    group: torch.Tensor  # [N] group index
    truncated: torch.Tensor  # [N] bool
    acc: torch.Tensor  # [N] bool
    # set by the loop after scoring (None until then, or when not used):
    adv: torch.Tensor | None = None  # [N] per response, or [N, R] per token (critic algorithms)
    old: torch.Tensor | None = None  # [N, R] log pi_old; None = on-policy (pi_old is the update's own pass)
    ref: torch.Tensor | None = None  # [N, R] log pi_ref (KL penalty)
    pg_mask: torch.Tensor | None = None  # [N, R] 1 on tokens that get policy gradient (entropy_top_quantile)
    selected: torch.Tensor | None = None  # [N, R] bool: tokens the algorithm treats apart (clip_cov, kl_cov)

    def __len__(self) -> int:
        return self.ids.shape[0]

    def _map(self, fn) -> Batch:
        return Batch(**{k: None if v is None else fn(v) for k, v in self.__dict__.items()})

    def select(self, idx: torch.Tensor) -> Batch:
        return self._map(lambda v: v[idx])

    def to(self, device: torch.device | str) -> Batch:
        return self._map(lambda v: v.to(device))

    def with_(self, **fields) -> Batch:
        """A copy with some fields replaced (the tensors are shared, not copied)."""
        return dataclasses.replace(self, **fields)


def make_batch(groups: list[Group], pad_id: int, *, overlong_filter: bool) -> Batch:
    """Pad the groups' samples into one Batch (group order, then sample order)."""
    samples = [
        (g, s, sc) for g, grp in enumerate(groups) for s, sc in zip(grp.samples, grp.scores, strict=True)
    ]
    P = max(len(s.prompt_ids) for _, s, _ in samples)
    R = max(1, max(len(s.response_ids) for _, s, _ in samples))
    N = len(samples)
    ids = torch.full((N, P + R), pad_id, dtype=torch.long)
    attn = torch.zeros((N, P + R), dtype=torch.long)
    logp = torch.zeros((N, R))
    for i, (_, s, _) in enumerate(samples):
        p, r = len(s.prompt_ids), len(s.response_ids)
        ids[i, P - p : P] = torch.tensor(s.prompt_ids)
        ids[i, P : P + r] = torch.tensor(s.response_ids, dtype=torch.long)
        attn[i, P - p : P + r] = 1
        logp[i, :r] = torch.tensor(s.logprobs)
    pos = (attn.cumsum(1) - 1).clamp(min=0)
    mask = attn[:, P:].float()
    truncated = torch.tensor([s.truncated for _, s, _ in samples])
    # overlong filtering (DAPO): a truncated response carries no loss
    loss_mask = mask * (~truncated).float()[:, None] if overlong_filter else mask.clone()
    return Batch(
        ids=ids,
        attn=attn,
        pos=pos,
        resp=ids[:, P:],
        mask=mask,
        loss_mask=loss_mask,
        engine_logp=logp,
        group=torch.tensor([g for g, _, _ in samples]),
        truncated=truncated,
        acc=torch.tensor([bool(sc.acc) for _, _, sc in samples]),
    )
