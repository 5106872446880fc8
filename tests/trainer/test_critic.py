"""The separate critic: shapes, independence from the policy, save/load, and that it learns returns."""

from __future__ import annotations

import pytest
import torch

from trainer.advantages import gae, terminal_rewards
from trainer.critic import Critic, build_critic, value_step


@pytest.fixture(scope="module")
def policy():
    from transformers import Qwen2Config, Qwen2ForCausalLM

    torch.manual_seed(0)
    cfg = Qwen2Config(
        vocab_size=40,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=1,
        max_position_embeddings=64,
        tie_word_embeddings=False,
    )
    return Qwen2ForCausalLM(cfg).eval()


def _batch():
    torch.manual_seed(1)
    ids = torch.randint(3, 40, (4, 10))
    attn = torch.ones_like(ids)
    attn[0, :2] = 0  # left-padded prompt
    attn[1, -3:] = 0  # right-padded response
    resp_mask = attn[:, 4:].clone()
    return ids, attn, resp_mask


def test_values_shape_and_zero_start(policy):
    critic = build_critic(policy)
    ids, attn, _ = _batch()
    v = critic.values(ids, attn)
    assert v.shape == (4, 10) and v.dtype == torch.float32
    assert torch.all(v == 0)  # zero-initialised head: a neutral baseline before pretraining
    assert critic.response_values(ids, attn, prompt_len=4).shape == (4, 6)


def test_critic_backbone_is_a_copy_not_shared(policy):
    critic = build_critic(policy)
    p_emb = policy.model.embed_tokens.weight
    c_emb = critic.backbone.embed_tokens.weight
    assert torch.equal(p_emb, c_emb) and p_emb.data_ptr() != c_emb.data_ptr()
    ids, attn, resp = _batch()
    before = policy(input_ids=ids, attention_mask=attn).logits.detach().clone()
    opt = torch.optim.AdamW(critic.parameters(), lr=1e-2)
    value_step(critic, opt, ids, attn, 4, resp, torch.ones(4, 6), torch.zeros(4, 6))
    after = policy(input_ids=ids, attention_mask=attn).logits.detach()
    assert torch.equal(before, after)  # training the critic never moves the policy
    assert critic.value_head.weight.abs().sum() > 0  # ...while the critic itself did move


def test_critic_learns_monte_carlo_returns(policy):
    # two prompts' responses with final rewards +1 / -1; lambda=1, gamma=1 targets are those rewards
    critic = build_critic(policy)
    ids, attn, resp = _batch()
    rewards = terminal_rewards(torch.tensor([1.0, -1.0, 1.0, -1.0]), resp)
    old = critic.response_values(ids, attn, 4).detach()
    _, returns = gae(rewards, old, resp, gamma=1.0, lam=1.0)
    opt = torch.optim.AdamW(critic.parameters(), lr=3e-3)
    losses = [value_step(critic, opt, ids, attn, 4, resp, returns, old, clip=10.0) for _ in range(40)]
    assert losses[0] == pytest.approx(0.5, abs=1e-6)  # V=0, targets +-1: 0.5 * 1
    assert losses[-1] < 0.05 * losses[0]
    v = critic.response_values(ids, attn, 4)
    sign = torch.sign((v * resp).sum(1))
    assert sign.tolist() == [1.0, -1.0, 1.0, -1.0]


def test_save_load_round_trip(policy, tmp_path):
    critic = build_critic(policy)
    with torch.no_grad():
        critic.value_head.weight.normal_()
    ids, attn, _ = _batch()
    critic.save(tmp_path / "critic")
    assert not (tmp_path / "critic.tmp").exists()
    loaded = Critic.load(tmp_path / "critic")
    torch.testing.assert_close(loaded.values(ids, attn), critic.values(ids, attn))
    with pytest.raises(FileNotFoundError, match="config.json and model.safetensors"):
        Critic.load(tmp_path)


def test_left_padding_does_not_change_values(policy):
    critic = build_critic(policy)
    with torch.no_grad():
        critic.value_head.weight.normal_()
    ids = torch.randint(3, 40, (1, 6))
    padded = torch.cat([torch.zeros(1, 3, dtype=torch.long), ids], dim=1)
    attn = torch.cat([torch.zeros(1, 3, dtype=torch.long), torch.ones(1, 6, dtype=torch.long)], dim=1)
    torch.testing.assert_close(critic.values(padded, attn)[:, 3:], critic.values(ids), atol=1e-5, rtol=1e-5)


def test_build_critic_needs_a_causal_lm():
    with pytest.raises(ValueError, match="ForCausalLM"):
        build_critic(torch.nn.Linear(2, 2))


def _gae_cfg(preset: str, **algo):
    from trainer.config import build_config

    return build_config({"algo": algo}, preset=preset).algo


def test_vapo_gae_reports_its_lambdas_and_warns_when_short_responses_make_it_td0():
    """alpha 0.05: a 12-token response gets lambda_policy 0 (one-step TD), a 100-token one 0.8."""
    import warnings

    from trainer.critic import TD0_WARNING, vapo_gae

    a = _gae_cfg("vapo")
    values = torch.full((3, 100), 0.25)
    scores = torch.tensor([1.0, -1.0, 1.0])
    short = torch.zeros(3, 100)
    short[:, :12] = 1
    with pytest.warns(UserWarning, match=r"1/alpha = 20 tokens.*raise algo\.alpha"):
        adv, ret, lam = vapo_gae(a, scores, values * short, short, pretrain=False)
    assert torch.equal(lam, torch.zeros(3))
    # lambda 0: A_t is the one-step TD error r_t + V_{t+1} - V_t (0 inside, reward - V on the last token)
    torch.testing.assert_close(adv[:, :11], torch.zeros(3, 11))
    torch.testing.assert_close(adv[:, 11], scores - 0.25)
    torch.testing.assert_close(ret[:, :12], scores[:, None].expand(3, 12))  # lambda_critic 1: MC returns
    assert "{limit" in TD0_WARNING  # the limit is filled in from alpha, not hard-coded

    long = torch.ones(3, 100)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning: lambda 0.8 for every response
        _, _, lam = vapo_gae(a, scores, values, long, pretrain=False)
        torch.testing.assert_close(lam, torch.full((3,), 0.8))
        # alpha 0.5 lifts 12-token responses to lambda 1 - 1/6, and the warning goes away
        _, _, lam = vapo_gae(_gae_cfg("vapo", alpha=0.5), scores, values * short, short, pretrain=False)
        torch.testing.assert_close(lam, torch.full((3,), 1 - 1 / 6))
        vapo_gae(
            a, scores, values * short, short, pretrain=True
        )  # value pretraining: no policy update, no warning


def test_ppo_gae_reports_its_fixed_lambda():
    from trainer.critic import ppo_gae

    mask = torch.ones(2, 5)
    _, _, lam = ppo_gae(
        _gae_cfg("ppo", lam=0.9), torch.tensor([1.0, 0.0]), torch.zeros(2, 5), mask, pretrain=False
    )
    torch.testing.assert_close(lam, torch.full((2,), 0.9))
