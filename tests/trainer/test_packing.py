"""Padding-free packing (train.padding_free): the same log-probs, values and gradients as the padded path."""

import pytest
import torch

from trainer.batch import make_batch
from trainer.config import build_config
from trainer.critic import build_critic, critic_values
from trainer.data import Prompt
from trainer.packing import pack
from trainer.reward import RewardResult
from trainer.rollout import Sample
from trainer.sampling import Group
from trainer.update import accumulate_grads, score_tokens


def _spread_groups(vocab: int, seed: int = 0) -> list[Group]:
    """3 groups of 4 with prompts of 3..9 tokens and responses of 2..40 tokens (a 20x spread)."""
    g = torch.Generator().manual_seed(seed)
    lens = [2, 40, 5, 17, 3, 31, 9, 2, 24, 4, 12, 38]
    groups = []
    for k in range(3):
        samples, scores = [], []
        for i in range(4):
            plen, rlen = int(torch.randint(3, 10, (1,), generator=g)), lens[4 * k + i]
            samples.append(Sample(torch.randint(3, vocab, (plen,), generator=g).tolist(),
                                  torch.randint(3, vocab, (rlen,), generator=g).tolist(), [-1.0] * rlen, False, ""))  # fmt: skip
            r = float(i % 2) * 2 - 1
            scores.append(RewardResult(r, float(r > 0), None, "", 0.0))
        groups.append(Group(Prompt(str(k), [], "1", ""), samples, scores))
    return groups


def test_pack_layout_puts_each_sequence_once_with_its_own_positions(tiny_policy):
    _, tok = tiny_policy
    b = make_batch(_spread_groups(len(tok)), tok.pad_token_id, overlong_filter=True)
    pk = pack(b.ids, b.attn, b.mask)
    lengths = b.attn.sum(1)
    assert pk.ids.shape[1] == int(lengths.max())  # rows as wide as the longest sequence
    assert pk.ids.shape[0] < len(b)  # short sequences share rows
    assert pk.n_real == int(lengths.sum())
    assert pk.padding_share < 1 - lengths.sum().item() / b.ids.numel()  # less padding than the padded batch
    # each response token's predecessor column holds the token before it; the next column the token itself
    for s, j, r, c in zip(pk.seq.tolist(), pk.tok.tolist(), pk.row.tolist(), pk.col.tolist(), strict=True):
        assert pk.ids[r, c + 1] == b.resp[s, j]
        assert pk.pos[r, c + 1] == b.pos[s, b.ids.shape[1] - b.resp.shape[1] + j]


def test_packed_logprobs_equal_padded(tiny_policy):
    model, tok = tiny_policy
    b = make_batch(_spread_groups(len(tok)), tok.pad_token_id, overlong_filter=True)
    lp_pad, ent_pad = score_tokens(model, b, temperature=0.7, micro=12)
    lp_pack, ent_pack = score_tokens(model, b, temperature=0.7, micro=12, packed=True)
    m = b.mask.bool()
    torch.testing.assert_close(lp_pack[m], lp_pad[m], rtol=0, atol=2e-5)
    torch.testing.assert_close(ent_pack[m], ent_pad[m], rtol=0, atol=2e-5)
    # micro-batches of 5 rows pack separately and still agree
    lp_micro, _ = score_tokens(model, b, temperature=0.7, micro=5, packed=True)
    torch.testing.assert_close(lp_micro[m], lp_pad[m], rtol=0, atol=2e-5)


@pytest.mark.parametrize("preset", ["dapo", "gspo"])
def test_packed_gradients_equal_padded(tiny_policy, preset):
    model, tok = tiny_policy
    grads = {}
    for packed in (False, True):
        cfg = build_config({"preset": preset, "rollout": {"n": 4, "max_new_tokens": 40},
                            "algo": {"overlong_buffer": 4}, "train": {"prompts_per_step": 3, "padding_free": packed}})  # fmt: skip
        b = make_batch(_spread_groups(len(tok)), tok.pad_token_id, overlong_filter=True)
        old, _ = score_tokens(model, b, temperature=1.0, micro=12)
        old = old - 0.05 * torch.randn(old.shape, generator=torch.Generator().manual_seed(1))
        adv = torch.linspace(-1, 1, len(b))
        b = b.with_(adv=adv, old=old)
        model.zero_grad(set_to_none=True)
        st = accumulate_grads(cfg, model, b, b, 1, 5)
        grads[packed] = ([p.grad.clone() for p in model.parameters()], st)
    (g_pad, st_pad), (g_pack, st_pack) = grads[False], grads[True]
    assert sum(float(g.abs().sum()) for g in g_pad) > 0
    for a, c in zip(g_pad, g_pack, strict=True):
        torch.testing.assert_close(c, a, rtol=1e-4, atol=1e-6)
    assert st_pack["tokens"] == st_pad["tokens"]
    assert st_pack["loss"] == pytest.approx(st_pad["loss"], rel=1e-5, abs=1e-7)


def test_packed_critic_values_and_gradients_equal_padded(tiny_policy):
    model, tok = tiny_policy
    critic = build_critic(model)
    torch.nn.init.normal_(critic.value_head.weight, std=0.1)  # zero-init head would make values trivially 0
    b = make_batch(_spread_groups(len(tok)), tok.pad_token_id, overlong_filter=True)
    v_pad = critic_values(critic, b, micro=12)
    v_pack = critic_values(critic, b, micro=5, packed=True)
    assert float(v_pad.abs().sum()) > 0
    torch.testing.assert_close(v_pack, v_pad, rtol=0, atol=2e-5)
    P = b.ids.shape[1] - b.resp.shape[1]
    grads = []
    for packed in (None, b.mask):
        critic.zero_grad(set_to_none=True)
        v = critic.response_values(b.ids, b.attn, P, packed)
        ((v * b.mask) ** 2).sum().backward()
        grads.append([p.grad.clone() for p in critic.parameters()])
    for a, c in zip(*grads, strict=True):  # float32 rounding, relative to each tensor's scale
        torch.testing.assert_close(c, a, rtol=1e-4, atol=1e-5 * float(a.abs().max()))
