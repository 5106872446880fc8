"""HFEngine: group shapes, EOS and truncation, and logprobs equal to a plain forward pass."""

import torch

from trainer.batch import make_batch
from trainer.data import load_prompts
from trainer.rollout import HFEngine
from trainer.sampling import Group
from trainer.update import score_tokens
from verifiers import RewardResult


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
    g = [
        Group(p, smp, [RewardResult(0.0, 0.0, None, "", 0.0)] * 6)
        for p, smp in zip(prompts, groups, strict=True)
    ]
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
    g = [
        Group(p, smp, [RewardResult(0.0, 0.0, None, "", 0.0)] * 4)
        for p, smp in zip(prompts, narrow, strict=True)
    ]
    batch = make_batch(g, tok.pad_token_id, overlong_filter=False)
    full, _ = score_tokens(model, batch, temperature=1.0, micro=64)
    assert bool(((batch.engine_logp - full) * batch.mask >= -1e-5).all())


# ---------------------------------------------------------------- the hand-written sampler vs the old semantics
def _engines(model, tok):
    """The lean Llama-style decode step and the generic forward + DynamicCache path."""
    from trainer.rollout import _LlamaDecoder

    assert _LlamaDecoder.supports(model)
    fast, generic = HFEngine(model, tok), HFEngine(model, tok)
    generic.fast = False
    return {"fast": fast, "generic": generic}


def _recompute(model, tok, prompts, groups, temperature):
    n = len(groups[0])
    g = [
        Group(p, smp, [RewardResult(0.0, 0.0, None, "", 0.0)] * n)
        for p, smp in zip(prompts, groups, strict=True)
    ]
    b = make_batch(g, tok.pad_token_id, overlong_filter=False)
    lp, _ = score_tokens(model, b, temperature=temperature, micro=64)
    return lp * b.mask, b.engine_logp


def test_greedy_equals_model_generate(sft_dir, toy, tmp_path):
    from trainer.model import load_model, load_tokenizer

    tok, model = load_tokenizer(sft_dir[0]), load_model(sft_dir[0])
    prompts = _prompts(tok, toy, tmp_path, n=5)  # different lengths: left padding matters
    assert len({len(p.ids) for p in prompts}) > 1
    P = max(len(p.ids) for p in prompts)
    ids = torch.tensor([[tok.pad_token_id] * (P - len(p.ids)) + p.ids for p in prompts])
    mask = torch.tensor([[0] * (P - len(p.ids)) + [1] * len(p.ids) for p in prompts])
    ref = model.generate(input_ids=ids, attention_mask=mask, max_new_tokens=20, do_sample=False,
                         eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id)[:, P:]  # fmt: skip
    for name, eng in _engines(model, tok).items():
        groups = eng.generate([p.ids for p in prompts], n=2, max_new_tokens=20, temperature=0, top_p=1.0)
        for row, g in zip(ref.tolist(), groups, strict=True):
            want = row[: row.index(tok.eos_token_id) + 1] if tok.eos_token_id in row else row
            assert [s.response_ids for s in g] == [want, want], name
            assert all(s.truncated == (tok.eos_token_id not in want) for s in g)
        # greedy logprobs are those of the unscaled softmax
        lp, got = _recompute(model, tok, prompts, groups, 1.0)
        torch.testing.assert_close(got, lp, atol=1e-4, rtol=0)


def test_logprobs_equal_teacher_forcing_both_paths(sft_dir, toy, tmp_path):
    from trainer.model import load_model, load_tokenizer

    tok, model = load_tokenizer(sft_dir[0]), load_model(sft_dir[0])
    prompts = _prompts(tok, toy, tmp_path, n=4)
    for name, eng in _engines(model, tok).items():
        eng.batch_size = 5  # rows of one prompt split across batches
        for temperature in (0.7, 1.3):
            torch.manual_seed(3)
            groups = eng.generate(
                [p.ids for p in prompts], n=4, max_new_tokens=16, temperature=temperature, top_p=1.0
            )
            assert [len(g) for g in groups] == [4] * 4
            assert all(s.prompt_ids == p.ids for p, g in zip(prompts, groups, strict=True) for s in g)
            lp, got = _recompute(model, tok, prompts, groups, temperature)
            torch.testing.assert_close(got, lp, atol=1e-4, rtol=0, msg=f"{name} T={temperature}")
            # the G samples of a prompt differ
            assert all(len({tuple(s.response_ids) for s in g}) > 1 for g in groups), name


def test_truncation_and_eos_stop(sft_dir, toy, tmp_path):
    from trainer.model import load_model, load_tokenizer

    tok, model = load_tokenizer(sft_dir[0]), load_model(sft_dir[0])
    prompts = _prompts(tok, toy, tmp_path, n=3)
    for name, eng in _engines(model, tok).items():
        torch.manual_seed(0)
        short = eng.generate([p.ids for p in prompts], n=4, max_new_tokens=3, temperature=1.0, top_p=1.0)
        for s in (s for g in short for s in g):
            assert len(s.response_ids) <= 3 and len(s.logprobs) == len(s.response_ids)
            assert s.truncated == (tok.eos_token_id not in s.response_ids), name
        torch.manual_seed(0)
        full = eng.generate([p.ids for p in prompts], n=4, max_new_tokens=64, temperature=1.0, top_p=1.0)
        flat = [s for g in full for s in g]
        assert sum(not s.truncated for s in flat) >= len(flat) // 2, name  # the SFT policy stops with EOS
        for s in flat:
            if not s.truncated:  # nothing after the first EOS, and it is the last token
                assert s.response_ids.index(tok.eos_token_id) == len(s.response_ids) - 1 < 64
            else:
                assert len(s.response_ids) == 64


def test_fast_path_matches_generic_on_other_llama_style_models(tiny_policy, toy, tmp_path):
    """Llama and Qwen3 (q/k norms) through the lean decode step: the same tokens as the generic
    forward for the same seed, and logprobs equal to teacher forcing."""
    from transformers import LlamaConfig, LlamaForCausalLM, Qwen3Config, Qwen3ForCausalLM

    _, tok = tiny_policy
    prompts = _prompts(tok, toy, tmp_path, n=3)
    common = dict(vocab_size=len(tok), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                  num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=256,
                  eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id, tie_word_embeddings=False)  # fmt: skip
    torch.manual_seed(0)
    for model in (
        LlamaForCausalLM(LlamaConfig(**common, attention_bias=True)),
        Qwen3ForCausalLM(Qwen3Config(**common, head_dim=32)),
    ):
        engines = _engines(model, tok)
        out = {}
        for name, eng in engines.items():
            torch.manual_seed(5)
            out[name] = eng.generate(
                [p.ids for p in prompts], n=3, max_new_tokens=8, temperature=1.0, top_p=1.0
            )
            lp, got = _recompute(model, tok, prompts, out[name], 1.0)
            torch.testing.assert_close(got, lp, atol=1e-4, rtol=0)
        assert [[s.response_ids for s in g] for g in out["fast"]] == [
            [s.response_ids for s in g] for g in out["generic"]
        ]


def test_pick_matches_transformers_warpers_and_distribution():
    from transformers.generation.logits_process import TemperatureLogitsWarper, TopPLogitsWarper

    from trainer.rollout import _pick

    torch.manual_seed(0)
    logits = torch.randn(64, 50) * 3
    for temperature, top_p in ((1.0, 0.9), (0.7, 0.5), (1.5, 0.95), (1.0, 1.0)):
        want = TemperatureLogitsWarper(temperature)(None, logits.clone())
        if top_p < 1:
            want = TopPLogitsWarper(top_p)(None, want)
        want = want.log_softmax(-1)
        tok, lp = _pick(logits, temperature, top_p)
        assert bool(torch.isfinite(want.gather(1, tok[:, None])).all())  # only tokens of the nucleus
        torch.testing.assert_close(lp, want.gather(1, tok[:, None]).squeeze(1))
    # sampled frequencies follow the distribution (one row repeated 40000 times)
    row = torch.tensor([[2.0, 1.0, 0.0, -1.0, -30.0]])
    p = torch.softmax(row / 0.8, -1)[0]
    tok, _ = _pick(row.expand(40000, 5), 0.8, 1.0)
    freq = torch.bincount(tok, minlength=5).float() / 40000
    assert (freq - p).abs().max() < 0.01
    tok, _ = _pick(row.expand(40000, 5), 1.0, 0.75)  # nucleus {0, 1} (p = 0.64, 0.24, ...), renormalised
    q = torch.softmax(row, -1)[0, :2]
    freq = torch.bincount(tok, minlength=5).float() / 40000
    assert freq[2:].sum() == 0 and (freq[:2] - q / q.sum()).abs().max() < 0.01
