"""Padding-free forward passes (train.padding_free): the batch's sequences packed end to end.

A padded batch pads every row to the longest prompt + response; with a 10x spread of response
lengths most of the learner's compute goes to padding. Here each sequence's real tokens (prompt then
response) are laid end to end in rows of width W = the longest sequence (first-fit decreasing, so a
row holds several short sequences), with position ids restarting at 0 for each sequence and no
attention mask. transformers then builds a block-diagonal causal mask from the position ids
(`masking_utils.find_packed_sequence_indices`, the same packed format flash-attention's varlen
kernel reads as cumulative lengths on GPU), so a token never attends across sequences and its
position is the one it has in the padded batch: the logits are those of the padded path up to float
rounding (tests/trainer/test_packing.py). Rows of width W, not one row of every token, keep the
attention cost (rows x W^2 with SDPA's dense mask on CPU) no larger than the padded batch's.

Only the positions that predict response tokens go through the LM head (or the critic's value head);
the results are scattered back to the padded [N, R] layout the rest of the trainer reads, zero on
padding.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

# decoders whose CausalLM head is a plain linear layer over the last hidden state (no softcapping),
# so the head can run on the gathered response positions only
_PLAIN_HEAD = ("qwen2", "qwen3", "llama")


@dataclass
class Packed:
    ids: Tensor  # [rows, W] token ids, sequences end to end, the tail of a row padded
    pos: Tensor  # [rows, W] position ids, restarting at 0 for each sequence (and for a row's padding tail)
    row: Tensor  # [T] packed row of the position that predicts each response token
    col: Tensor  # [T] its column
    seq: Tensor  # [T] the batch row (sequence) the response token belongs to
    tok: Tensor  # [T] the response token's index in the padded [N, R] layout
    n_real: int  # real tokens packed

    @property
    def padding_share(self) -> float:
        """Share of the packed tensor that is padding (a row's unused tail)."""
        return 1.0 - self.n_real / self.ids.numel()


def pack(ids: Tensor, attn: Tensor, resp_mask: Tensor, pad_id: int = 0) -> Packed:
    """Pack a padded batch (ids/attn [N, P+R], responses in the last R columns with `resp_mask` [N, R]).

    Each row's real tokens are those with attn 1 (left-padded prompt, right-padded response).
    """
    N, S = ids.shape
    R = resp_mask.shape[1]
    P = S - R
    lengths = attn.sum(1).tolist()
    width = max(1, max(lengths))
    # first-fit decreasing: the longest sequences first, each into the first row with room
    order = sorted(range(N), key=lambda i: -lengths[i])
    fill: list[int] = []
    place: dict[int, tuple[int, int]] = {}
    for i in order:
        n = lengths[i]
        for r, used in enumerate(fill):
            if used + n <= width:
                place[i] = (r, used)
                fill[r] += n
                break
        else:
            place[i] = (len(fill), 0)
            fill.append(n)
    rows = len(fill)
    out_ids = torch.full((rows, width), pad_id, dtype=ids.dtype, device=ids.device)
    out_pos = torch.zeros((rows, width), dtype=torch.long, device=ids.device)
    for r, used in enumerate(fill):  # a padding tail is its own "sequence": positions from 0
        out_pos[r, used:] = torch.arange(width - used, device=ids.device)
    n_resp = resp_mask.sum(1).long().tolist()
    row_i, col_i, seq_i, tok_i = [], [], [], []
    for i in range(N):
        r, c = place[i]
        real = attn[i].bool()
        n = lengths[i]
        out_ids[r, c : c + n] = ids[i][real]
        out_pos[r, c : c + n] = torch.arange(n, device=ids.device)
        p = n - n_resp[i]  # the prompt's real tokens
        # response token j is predicted by the position just before it: column c + p - 1 + j
        k = n_resp[i]
        row_i.append(torch.full((k,), r, dtype=torch.long))
        col_i.append(torch.arange(c + p - 1, c + p - 1 + k))
        seq_i.append(torch.full((k,), i, dtype=torch.long))
        tok_i.append(torch.arange(k))
    if P < 1:
        raise ValueError(
            "packing needs at least one prompt column (the position that predicts response token 0)"
        )
    dev = ids.device
    return Packed(
        ids=out_ids, pos=out_pos, row=torch.cat(row_i).to(dev), col=torch.cat(col_i).to(dev),
        seq=torch.cat(seq_i).to(dev), tok=torch.cat(tok_i).to(dev), n_real=sum(lengths),
    )  # fmt: skip


def _hidden(backbone, pk: Packed) -> Tensor:
    """[T, H] last hidden states at the positions that predict the response tokens."""
    out = backbone(input_ids=pk.ids, position_ids=pk.pos, attention_mask=None, use_cache=False)
    return out.last_hidden_state[pk.row, pk.col]


def _scatter(flat: Tensor, pk: Packed, N: int, R: int) -> Tensor:
    out = flat.new_zeros((N, R, *flat.shape[1:]))
    out[pk.seq, pk.tok] = flat
    return out


def packed_response_logits(model, ids: Tensor, attn: Tensor, resp_mask: Tensor) -> Tensor:
    """[N, R, V] logits predicting each response token, from one packed forward (zero on padding)."""
    pk = pack(ids, attn, resp_mask)
    N, R = resp_mask.shape
    if getattr(model.config, "model_type", None) in _PLAIN_HEAD and hasattr(model, "lm_head"):
        flat = model.lm_head(_hidden(model.get_decoder(), pk))
    else:  # any other head (softcapping, scaling): the model's own forward, then gather
        out = model(input_ids=pk.ids, position_ids=pk.pos, attention_mask=None, use_cache=False)
        flat = out.logits[pk.row, pk.col]
    return _scatter(flat, pk, N, R)


def packed_response_values(critic, ids: Tensor, attn: Tensor, resp_mask: Tensor) -> Tensor:
    """[N, R] a trainer.critic.Critic's values of the states before each response token (zero on padding)."""
    pk = pack(ids, attn, resp_mask)
    h = _hidden(critic.backbone, pk)
    flat = critic.value_head(h.to(critic.value_head.weight.dtype)).squeeze(-1).float()
    return _scatter(flat, pk, *resp_mask.shape)
