"""The algorithm table and the algorithms added with it, each against values computed by hand from the
paper's formula (the numbers in the comments are worked out on paper, not read from the code).

rloo: RLOO (Ahmadian et al. 2024); reinforce_pp: REINFORCE++ (Hu 2025); cispo: MiniMax-M1 (2025) eq. 4;
gmpo: GMPO (Zhao et al. 2025) eq. 5; clip_cov / kl_cov: Cui et al. 2025, "The Entropy Mechanism of RL
for Reasoning LMs", section 5; entropy_top_quantile: Wang et al. 2025, "Beyond the 80/20 rule".
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
import torch

from trainer import objective as obj
from trainer.advantages import batch_normalised_advantages, rloo_advantages
from trainer.algorithms import ALGORITHMS, list_presets, unread_keys
from trainer.batch import Batch
from trainer.config import ConfigError, build_config

ROOT = Path(__file__).resolve().parents[2]


# ---------------------------------------------------------------- advantages
def test_rloo_leave_one_out_baseline():
    # group 1: R = [1, -1, -1, 1]; A_0 = 1 - (-1 - 1 + 1)/3 = 4/3, A_1 = -1 - (1 - 1 + 1)/3 = -4/3
    # group 2: R = [1, 1, 1, -1]; A_0 = 1 - (1 + 1 - 1)/3 = 2/3, A_3 = -1 - (1 + 1 + 1)/3 = -2
    got = rloo_advantages(torch.tensor([[1.0, -1.0, -1.0, 1.0], [1.0, 1.0, 1.0, -1.0]]))
    want = torch.tensor([[4 / 3, -4 / 3, -4 / 3, 4 / 3], [2 / 3, 2 / 3, 2 / 3, -2.0]])
    torch.testing.assert_close(got, want)


def test_reinforce_pp_whitens_over_the_batch_tokens():
    # scores [1, -1], lengths 1 and 3: token returns [1, -1, -1, -1], mean -0.5,
    # unbiased var = (1.5^2 + 3 * 0.5^2) / 3 = 1, so A = 1.5 on the first response, -0.5 on the second
    mask = torch.tensor([[1.0, 0.0, 0.0], [1.0, 1.0, 1.0]])
    got = batch_normalised_advantages(torch.tensor([1.0, -1.0]), mask)
    torch.testing.assert_close(got, torch.tensor([[1.5, 0.0, 0.0], [-0.5, -0.5, -0.5]]), atol=1e-6, rtol=0)


# ---------------------------------------------------------------- losses
def test_cispo_keeps_the_gradient_of_clipped_tokens():
    # token 0: r = 0.5/0.25 = 2 -> weight min(2, 1 + 0.28) = 1.28, A = +1: loss = -1.28 ln 0.5 = 0.887228,
    #          d loss / d log pi = -1.28 (PPO's clip would give 0 here: r > 1 + eps_high with A > 0)
    # token 1: r = 0.25/0.5 = 0.5, eps_low = 1 (no lower bound) -> weight 0.5, A = -1:
    #          loss = 0.5 ln 0.25 = -0.693147, d loss / d log pi = +0.5
    logp = torch.tensor([[math.log(0.5), math.log(0.25)]], requires_grad=True)
    old = torch.tensor([[math.log(0.25), math.log(0.5)]])
    adv = torch.tensor([[1.0, -1.0]])
    loss, lo, hi = obj.cispo_token_loss(logp, old, adv, eps_low=1.0, eps_high=0.28)
    torch.testing.assert_close(loss.detach(), torch.tensor([[0.887228, -0.693147]]), atol=1e-5, rtol=0)
    loss.sum().backward()
    torch.testing.assert_close(logp.grad, torch.tensor([[-1.28, 0.5]]))
    assert hi.tolist() == [[True, False]] and lo.tolist() == [[False, False]]
    ppo = logp.detach().clone().requires_grad_(True)
    obj.clipped_token_loss(ppo, old, adv, eps_low=0.2, eps_high=0.28)[0][0, 0].backward()
    assert ppo.grad[0, 0] == 0  # the token CISPO keeps, PPO drops


def test_gmpo_geometric_mean_of_clipped_token_ratios():
    # eps = 0.4 in log space. Response 0, A = +1, log r = [0.6, -0.2]: the pessimistic branch per token is
    #   min(log r, clip(log r)) = [0.4, -0.2] -> geometric mean exp(0.1) -> loss = -exp(0.1) = -1.105171
    # Response 1, A = -1, log r = [0.6, -0.6] (third token padding): per token max(log r, clip(log r))
    #   = [0.6, -0.4] -> exp(0.1) -> loss = -(-1) exp(0.1) = +1.105171
    old = torch.zeros(2, 3)
    logp = torch.tensor([[0.6, -0.2, 0.0], [0.6, -0.6, 5.0]])
    mask = torch.tensor([[1.0, 1.0, 0.0], [1.0, 1.0, 0.0]])
    loss, lo, hi = obj.gmpo_seq_loss(logp, old, torch.tensor([1.0, -1.0]), mask, eps_low=0.4, eps_high=0.4)
    torch.testing.assert_close(loss, torch.tensor([-math.exp(0.1), math.exp(0.1)]))
    assert hi.tolist() == [[True, False, False], [False, False, False]]
    assert lo.tolist() == [[False, False, False], [True, True, False]]


def _cov_case():
    # log pi = [-1, -2, -3, -4] (mean -2.5), A = [1, 0, 0, -3] (mean -0.5):
    # Cov = (lp + 2.5)(A + 0.5) = [1.5*1.5, 0.5*0.5, -0.5*0.5, -1.5*-2.5] = [2.25, 0.25, -0.25, 3.75]
    logp = torch.tensor([[-1.0, -2.0, -3.0, -4.0]])
    adv = torch.tensor([[1.0, 0.0, 0.0, -3.0]])
    return logp, adv, torch.ones(1, 4)


def test_token_covariance_hand_values():
    logp, adv, mask = _cov_case()
    torch.testing.assert_close(
        obj.token_covariance(logp, adv, mask), torch.tensor([[2.25, 0.25, -0.25, 3.75]])
    )


def test_kl_cov_penalises_the_top_covariance_tokens():
    logp, adv, mask = _cov_case()
    # ratio 0.25 of 4 tokens -> k = 1: token 3 (Cov 3.75); ratio 0.5 -> k = 2: tokens 3 and 0
    assert obj.cov_select_top(logp, adv, mask, ratio=0.25).tolist() == [[False, False, False, True]]
    assert obj.cov_select_top(logp, adv, mask, ratio=0.5).tolist() == [[True, False, False, True]]
    # current log pi = old + [0.1, 0, 0, -0.2]; loss_t = -A r_t + 1 * |log r_t| on the selected token 3:
    # [-exp(0.1), 0, 0, 3 exp(-0.2) + 0.2] = [-1.105171, 0, 0, 2.656192]
    sel = obj.cov_select_top(logp, adv, mask, ratio=0.25)
    cur = logp + torch.tensor([[0.1, 0.0, 0.0, -0.2]])
    loss, lo, hi = obj.kl_cov_token_loss(cur, logp, adv, sel, coef=1.0)
    torch.testing.assert_close(loss, torch.tensor([[-1.105171, 0.0, 0.0, 2.656192]]), atol=1e-5, rtol=0)
    assert hi.tolist() == sel.tolist() and not lo.any()


def test_clip_cov_detaches_tokens_drawn_from_the_covariance_band():
    logp, adv, mask = _cov_case()
    # band (1, 5): tokens 0 (2.25) and 3 (3.75); ratio 1 -> k = min(4, 2) = 2, both; ratio 0.25 -> one of them
    assert obj.cov_select_band(logp, adv, mask, ratio=1.0, low=1.0, high=5.0).tolist() == [
        [True, False, False, True]
    ]
    for seed in range(5):
        one = obj.cov_select_band(logp, adv, mask, ratio=0.25, low=1.0, high=5.0,
                                  generator=torch.Generator().manual_seed(seed))  # fmt: skip
        assert one.sum() == 1 and bool(one[0, 0] or one[0, 3])
    # at ratio 1 (pi = pi_old) the clipped loss is -A = [-1, 0, 0, 3]; the selected tokens 0 and 3 give 0
    sel = obj.cov_select_band(logp, adv, mask, ratio=1.0, low=1.0, high=5.0)
    cur = logp.clone().requires_grad_(True)
    loss, _, hi = obj.clip_cov_token_loss(cur, logp, adv, sel, eps_low=0.2, eps_high=0.2)
    torch.testing.assert_close(loss.detach(), torch.tensor([[0.0, 0.0, 0.0, 0.0]]))
    loss.sum().backward()
    assert cur.grad[0, 0] == 0 and cur.grad[0, 3] == 0 and hi.tolist() == sel.tolist()


def test_entropy_top_mask_keeps_the_top_share():
    # valid entropies [0.1, 0.9, 0.5, 0.3, 0.0] (the 7.0 is padding); q = 0.4: the 0.6 quantile is
    # 0.3 + 0.4 * (0.5 - 0.3) = 0.38, so the two tokens 0.9 and 0.5 (40% of 5) keep their gradient
    ent = torch.tensor([[0.1, 0.9, 7.0], [0.5, 0.3, 0.0]])
    mask = torch.tensor([[1.0, 1.0, 0.0], [1.0, 1.0, 1.0]])
    assert obj.entropy_top_mask(ent, mask, 0.4).tolist() == [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]


@pytest.mark.parametrize("preset", ["dapo", "gspo", "cispo"])
def test_entropy_top_quantile_leaves_other_tokens_without_policy_gradient(preset):
    """Through objective.policy_loss: a token outside the mask gets no gradient, one inside does."""
    cfg = build_config({"algo": {"entropy_top_quantile": 0.5}}, preset=preset)
    logp = torch.tensor([[-1.0, -2.0, -0.5], [-1.5, -0.2, -3.0]], requires_grad=True)
    mask = torch.ones(2, 3)
    z = torch.zeros(2, 3, dtype=torch.long)
    mb = Batch(ids=z, attn=z + 1, pos=z, resp=z, mask=mask, loss_mask=mask, engine_logp=logp.detach(),
               group=torch.tensor([0, 0]), truncated=torch.tensor([False, False]), acc=torch.tensor([True, False]),
               adv=torch.tensor([1.0, -1.0]), old=logp.detach(),
               pg_mask=torch.tensor([[1.0, 0.0, 1.0], [0.0, 1.0, 0.0]]))  # fmt: skip
    norm = obj.normalisers(cfg.algo, mb, mb, 1, G=2, max_len=3)
    loss, _ = obj.policy_loss(cfg.algo, ALGORITHMS[preset], logp, mb, norm)
    loss.backward()
    assert (logp.grad[mb.pg_mask == 0] == 0).all() and (logp.grad[mb.pg_mask == 1] != 0).all()


# ---------------------------------------------------------------- the table: presets, validation, docs
def test_every_row_is_a_valid_preset_and_listed():
    listing = list_presets()
    for name, row in ALGORITHMS.items():
        cfg = build_config(preset=name)
        assert cfg.algo.name == name and cfg.algo.loss_agg == row.agg
        assert re.search(rf"^{name} +\S", listing, re.M), name
        unread = ", ".join(unread_keys(name))
        assert not unread or re.search(rf"^{name} .*\n +.*never reads: {unread}$", listing, re.M), name


def test_docs_have_a_section_per_algorithm():
    doc = (ROOT / "docs" / "algorithms.md").read_text()
    for name in ALGORITHMS:
        assert re.search(rf"^## {name}( |$)", doc, re.M), f"docs/algorithms.md has no '## {name}' section"


@pytest.mark.parametrize(
    ("preset", "algo", "msg"),
    [
        ("dapo", {"cov_ratio": 0.01}, "dapo does not use algo.cov_ratio"),
        ("kl_cov", {"cov_low": 0.5}, "kl_cov does not use algo.cov_low: it is clip_cov's"),
        ("clip_cov", {"cov_low": 5.0, "cov_high": 1.0}, "cov_low 5.0 must be below"),
        ("kl_cov", {"cov_ratio": 0.0}, "cov_ratio must be in"),
        ("dapo", {"entropy_top_quantile": 0.0}, "entropy_top_quantile must be in"),
        ("gmpo", {"tis_cap": 2.0}, "drop tis_cap for gmpo"),
    ],
)
def test_new_keys_are_validated(preset, algo, msg):
    with pytest.raises(ConfigError, match=msg):
        build_config({"algo": algo}, preset=preset)


def test_list_presets_cli():
    from typer.testing import CliRunner

    from dapo_cli import app

    res = CliRunner().invoke(app, ["train", "--list-presets"])
    assert res.exit_code == 0, res.output
    assert [ln.split()[0] for ln in res.output.splitlines() if ln.strip() and not ln[0].isspace()] == list(
        ALGORITHMS
    )
