"""Advantage estimators against values worked out by hand (and GAE against a plain Python loop)."""

from __future__ import annotations

import json
import math
import random

import pytest
import torch

from trainer.advantages import (
    DCPOStats,
    broadcast_to_tokens,
    gae,
    group_advantages,
    length_adaptive_lambda,
    ppo_advantages,
    terminal_rewards,
    vapo_advantages,
)

# Two groups of G = 4 with DAPO's +1/-1 rewards.
REWARDS = torch.tensor([[1.0, -1.0, -1.0, 1.0], [1.0, 1.0, 1.0, -1.0]])


def test_grpo_std_normalised():
    # group 0: mean 0, unbiased std sqrt(4/3) -> +-sqrt(3)/2; group 1: mean 0.5, std 1.
    a = group_advantages(REWARDS)
    h = math.sqrt(3) / 2
    expected = torch.tensor([[h, -h, -h, h], [0.5, 0.5, 0.5, -1.5]])
    torch.testing.assert_close(a, expected, atol=1e-5, rtol=0)


def test_dr_grpo_no_std():
    a = group_advantages(REWARDS, std_normalize=False)
    torch.testing.assert_close(a, torch.tensor([[1.0, -1.0, -1.0, 1.0], [0.5, 0.5, 0.5, -1.5]]))


def test_equal_rewards_give_zero_not_nan():
    a = group_advantages(torch.tensor([[1.0, 1.0, 1.0], [-1.0, -1.0, -1.0]]))
    assert torch.equal(a, torch.zeros(2, 3))


def test_group_advantages_rejects_flat_input():
    with pytest.raises(ValueError, match="n_groups, G"):
        group_advantages(torch.ones(4))


def test_broadcast_to_tokens_zero_on_padding():
    mask = torch.tensor([[1, 1, 0], [1, 0, 0]])
    out = broadcast_to_tokens(torch.tensor([2.0, -1.0]), mask)
    assert torch.equal(out, torch.tensor([[2.0, 2.0, 0.0], [-1.0, 0.0, 0.0]]))


def test_dcpo_smooth_standardisation_three_steps():
    st = DCPOStats()
    # step 1: history == this step, so the advantage equals GRPO's
    a1 = st.update_and_advantages(REWARDS[:1], ["p"])
    h = math.sqrt(3) / 2
    torch.testing.assert_close(a1, torch.tensor([[h, -h, -h, h]]), atol=1e-5, rtol=0)
    # step 2: all rewards equal -> A_new = 0, yet the history (six +1, two -1: mean 0.5,
    # unbiased std sqrt(6/7)) gives (1/2) * 0.5 / sqrt(6/7) for each response instead of 0.
    a2 = st.update_and_advantages(torch.ones(1, 4), ["p"])
    torch.testing.assert_close(a2, torch.full((1, 4), 0.5 * 0.5 / math.sqrt(6 / 7)), atol=1e-5, rtol=0)
    # step 3: rewards [1,-1,-1,-1]: A_new = [1.5,-.5,-.5,-.5]; history has seven +1 and five -1:
    # mean 1/6, var (7*(5/6)^2 + 5*(7/6)^2)/11 = 420/396.
    a3 = st.update_and_advantages(torch.tensor([[1.0, -1.0, -1.0, -1.0]]), ["p"])
    sd = math.sqrt(420 / 396)
    at_pos, at_neg = (5 / 6) / sd, -(7 / 6) / sd
    pos = min((2 / 3) * 1.5 + (1 / 3) * at_pos, (1 / 3) * 1.5 + (2 / 3) * at_pos, key=abs)
    neg = min((2 / 3) * -0.5 + (1 / 3) * at_neg, (1 / 3) * -0.5 + (2 / 3) * at_neg, key=abs)
    assert pos == pytest.approx(1.039449, abs=1e-5)  # the (1/i) A_new + ((i-1)/i) A_total branch
    assert neg == pytest.approx(-0.710947, abs=1e-5)  # the ((i-1)/i) A_new + (1/i) A_total branch
    torch.testing.assert_close(a3, torch.tensor([[pos, neg, neg, neg]]), atol=1e-5, rtol=0)


def test_dcpo_prompts_are_independent_and_state_round_trips():
    st = DCPOStats()
    st.update_and_advantages(REWARDS, ["a", "b"])
    saved = json.loads(json.dumps(st.state_dict()))  # checkpoint-friendly: plain JSON
    nxt = torch.tensor([[1.0, 1.0, -1.0, -1.0], [1.0, -1.0, 1.0, 1.0]])
    cont = st.update_and_advantages(nxt, ["b", "c"])
    resumed = DCPOStats()
    resumed.load_state_dict(saved)
    torch.testing.assert_close(resumed.update_and_advantages(nxt, ["b", "c"]), cont)
    # "c" is new: its advantage is plain GRPO, while "b" (seen before) differs from plain GRPO
    torch.testing.assert_close(cont[1], group_advantages(nxt)[1], atol=1e-5, rtol=0)
    assert not torch.allclose(cont[0], group_advantages(nxt)[0], atol=1e-3)
    assert resumed.stats["b"][0] == 2 and resumed.stats["b"][1] == 8


def test_dcpo_rejects_mismatched_keys():
    with pytest.raises(ValueError, match="one prompt key per group"):
        DCPOStats().update_and_advantages(REWARDS, ["only-one"])
    with pytest.raises(ValueError, match="repeat"):
        DCPOStats().update_and_advantages(REWARDS, ["x", "x"])


def test_gae_hand_computed():
    # row 0: T=3, gamma 0.9, lam 0.8, reward 1 at the end; row 1: last position is padding.
    rewards = torch.tensor([[0.0, 0.0, 1.0], [0.0, 1.0, 5.0]])
    values = torch.tensor([[0.5, 0.6, 0.7], [0.2, 0.4, 9.0]])
    mask = torch.tensor([[1, 1, 1], [1, 1, 0]])
    adv, ret = gae(rewards, values, mask, gamma=0.9, lam=0.8)
    # row 0: d2 = 1-0.7 = .3; d1 = .9*.7-.6 = .03 -> .03+.72*.3 = .246; d0 = .9*.6-.5 = .04 -> .04+.72*.246
    # row 1: d1 = 1-.4 = .6; d0 = .9*.4-.2 = .16 -> .16+.72*.6 = .592; padding stays 0
    expected = torch.tensor([[0.21712, 0.246, 0.3], [0.592, 0.6, 0.0]])
    torch.testing.assert_close(adv, expected, atol=1e-6, rtol=0)
    torch.testing.assert_close(
        ret, torch.tensor([[0.71712, 0.846, 1.0], [0.792, 1.0, 0.0]]), atol=1e-6, rtol=0
    )


def test_gae_lambda_one_gamma_one_is_monte_carlo_return():
    mask = torch.tensor([[1, 1, 1, 0], [1, 1, 0, 0]])
    rewards = terminal_rewards(torch.tensor([1.0, -1.0]), mask)
    values = torch.randn(2, 4)
    _, ret = gae(rewards, values, mask, gamma=1.0, lam=1.0)
    torch.testing.assert_close(ret, torch.tensor([[1.0, 1.0, 1.0, 0.0], [-1.0, -1.0, 0.0, 0.0]]))


def _gae_reference(rewards, values, mask, gamma, lams):
    """Plain reverse Python loop, one sequence at a time, over its unmasked positions."""
    B, T = len(rewards), len(rewards[0])
    adv = [[0.0] * T for _ in range(B)]
    for b in range(B):
        idx = [t for t in range(T) if mask[b][t]]
        nxt_v, nxt_a = 0.0, 0.0
        for t in reversed(idx):
            delta = rewards[b][t] + gamma * nxt_v - values[b][t]
            nxt_a = delta + gamma * lams[b] * nxt_a
            nxt_v = values[b][t]
            adv[b][t] = nxt_a
    return adv


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_gae_matches_reverse_loop_on_random_data(seed):
    rng = random.Random(seed)
    B, T = 6, 17
    torch.manual_seed(seed)
    rewards, values = torch.randn(B, T), torch.randn(B, T)
    mask = torch.zeros(B, T, dtype=torch.long)
    for b in range(B):
        mask[b, : rng.randint(0, T)] = 1
    mask[0, 3] = 0  # a hole (e.g. an observation span) is skipped, not treated as an end
    lams = torch.rand(B)
    gamma = rng.uniform(0.8, 1.0)
    adv, ret = gae(rewards, values, mask, gamma=gamma, lam=lams)
    ref = _gae_reference(rewards.tolist(), values.tolist(), mask.tolist(), gamma, lams.tolist())
    torch.testing.assert_close(adv, torch.tensor(ref), atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(ret, (torch.tensor(ref) + values) * mask, atol=1e-5, rtol=1e-5)


def test_length_adaptive_lambda():
    lam = length_adaptive_lambda(torch.tensor([100, 200, 1000, 10]), alpha=0.05)
    torch.testing.assert_close(lam, torch.tensor([0.8, 0.9, 0.98, 0.0]))


def test_vapo_decoupled_lambdas():
    # one 100-token response, reward 1 at the end, gamma 1: critic targets are the MC return (1
    # everywhere); the policy uses lambda 0.8 so its advantages differ from the lambda-1 ones.
    mask = torch.ones(1, 100)
    rewards = terminal_rewards(torch.tensor([1.0]), mask)
    values = torch.full((1, 100), 0.25)
    adv, ret = vapo_advantages(rewards, values, mask, gamma=1.0, alpha=0.05)
    torch.testing.assert_close(ret, torch.ones(1, 100))
    # with constant V, delta is 0 except the last token (1 - 0.25), so A_t = 0.75 * 0.8^(T-1-t)
    expected = 0.75 * 0.8 ** torch.arange(99, -1, -1, dtype=torch.float32)
    torch.testing.assert_close(adv[0], expected)


def test_terminal_rewards_places_score_on_last_token():
    out = terminal_rewards(torch.tensor([2.0, 3.0, 4.0]), torch.tensor([[1, 1, 0], [1, 1, 1], [0, 0, 0]]))
    assert torch.equal(out, torch.tensor([[0.0, 2.0, 0.0], [0.0, 0.0, 3.0], [0.0, 0.0, 0.0]]))


def test_ppo_advantages_outcome_reward():
    # score 1 on a 3-token response, V = [0.5, 0.5, 0.5], gamma 1, lam 0.5:
    # deltas [0, 0, 0.5] -> A = [0.125, 0.25, 0.5]; targets A + V
    mask = torch.tensor([[1, 1, 1, 0]])
    values = torch.tensor([[0.5, 0.5, 0.5, 3.0]])
    adv, ret = ppo_advantages(torch.tensor([1.0]), values, mask, gamma=1.0, lam=0.5)
    torch.testing.assert_close(adv, torch.tensor([[0.125, 0.25, 0.5, 0.0]]))
    torch.testing.assert_close(ret, torch.tensor([[0.625, 0.75, 1.0, 0.0]]))


@pytest.mark.parametrize("value", [0.7, 0.1, -0.3, 1 / 3])
def test_all_equal_non_dyadic_group_gets_exactly_zero(value):
    """In float32 the mean of eight 0.7s is not 0.7; the residue over its own std once gave |A| = 0.056."""
    from trainer.advantages import rloo_advantages

    r = torch.tensor([[value] * 8, [1.0, -1.0, 1.0, 1.0, -1.0, 1.0, -1.0, 1.0]])
    for adv in (group_advantages(r), group_advantages(r, std_normalize=False), rloo_advantages(r)):
        assert torch.equal(adv[0], torch.zeros(8))
        assert adv.dtype == torch.float32 and (adv[1] != 0).all()
