"""HFEngine: group shapes, EOS and truncation, and logprobs equal to a plain forward pass."""

import torch

from trainer.data import load_prompts
from trainer.loop import make_batch, score_tokens
from trainer.reward import Scored
from trainer.rollout import HFEngine
from trainer.sampling import Group


def _prompts(tok, toy, tmp_path, n=3):
    path = toy.write_verl(tmp_path / "p.parquet", toy.problems(n))
    return load_prompts(path, tok, max_prompt_len=512).prompts


def test_groups_eos_truncation_and_logprobs(sft_dir, toy, tmp_path):
    from trainer.model import load_model, load_tokenizer

    tok, model = load_tokenizer(sft_dir[0]), load_model(sft_dir[0])
    prompts = _prompts(tok, toy, tmp_path)
    torch.manual_seed(0)
    groups = HFEngine(model, tok).generate(
        [p.ids for p in prompts], n=6, max_new_tokens=13, temperature=1.0, top_p=1.0
    )
    assert len(groups) == 3 and all(len(g) == 6 for g in groups)
    flat = [s for g in groups for s in g]
    for p, g in zip(prompts, groups, strict=True):
        assert all(s.prompt_ids == p.ids for s in g)
    for s in flat:
        assert len(s.logprobs) == len(s.response_ids) >= 1
        if s.truncated:
            assert len(s.response_ids) == 13 and tok.eos_token_id not in s.response_ids
        else:
            assert s.response_ids[-1] == tok.eos_token_id and tok.eos_token_id not in s.response_ids[:-1]
        assert s.text == tok.decode(s.response_ids, skip_special_tokens=True)
    assert any(s.truncated for s in flat) and any(not s.truncated for s in flat)
    # at T=1, top-p=1 the sampler's logprobs are the policy's: recompute them with a padded forward pass
    g = [Group(p, smp, [Scored(0.0, False, None, 0.0)] * 6) for p, smp in zip(prompts, groups, strict=True)]
    b = make_batch(g, tok.pad_token_id, overlong_filter=False)
    lp, _ = score_tokens(model, b, temperature=1.0, micro=64)
    torch.testing.assert_close(lp * b.mask, b.engine_logp, atol=2e-4, rtol=1e-4)


def test_top_p_and_greedy(tiny_policy, toy, tmp_path):
    model, tok = tiny_policy
    prompts = _prompts(tok, toy, tmp_path, n=2)
    eng = HFEngine(model, tok)
    a = eng.generate([p.ids for p in prompts], n=2, max_new_tokens=6, temperature=0, top_p=1.0)
    b = eng.generate([p.ids for p in prompts], n=2, max_new_tokens=6, temperature=0, top_p=1.0)
    assert [[s.response_ids for s in g] for g in a] == [[s.response_ids for s in g] for g in b]
    torch.manual_seed(1)
    narrow = eng.generate([p.ids for p in prompts], n=4, max_new_tokens=6, temperature=1.0, top_p=0.3)
    # top-p renormalises over the nucleus: every sampled token is at least as likely as under the full softmax
    g = [Group(p, smp, [Scored(0.0, False, None, 0.0)] * 4) for p, smp in zip(prompts, narrow, strict=True)]
    batch = make_batch(g, tok.pad_token_id, overlong_filter=False)
    full, _ = score_tokens(model, batch, temperature=1.0, micro=64)
    assert bool(((batch.engine_logp - full) * batch.mask >= -1e-5).all())
