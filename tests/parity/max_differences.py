"""Print, per preset, the largest |ours - peer| of the loss and of its gradient over 10 random batches
at the settings tests/parity asserts (the figures in docs/algorithms.md's parity table).

    PYTHONPATH=. PARITY_DEPS=.venv/parity-deps .venv/bin/python tests/parity/max_differences.py
"""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, os.environ.get("PARITY_DEPS", str(Path(sys.prefix) / "parity-deps")))
warnings.simplefilter("ignore")

import torch  # noqa: E402
import trl  # noqa: E402
import verl.trainer.ppo.core_algos as core  # noqa: E402
from parity_peers import (  # noqa: E402
    algo_config,
    batch_of,
    grad,
    our_loss,
    ragged,
    trl_grpo_loss,
    verl_actor,
    verl_loss,
)
from verl.workers.config import ActorConfig, PolicyLossConfig  # noqa: E402

from trainer.algorithms import ALGORITHMS  # noqa: E402

core.ActorConfig, core.PolicyLossConfig = ActorConfig, PolicyLossConfig
torch.set_num_threads(1)


def _adv(name, b, a):
    if ALGORITHMS[name].critic:
        from trainer.advantages import whiten

        return whiten(torch.randn_like(b.old), b.loss_mask)
    return ALGORITHMS[name].advantage(
        a, b.rewards, [str(i) for i in range(len(b.rewards))], b.loss_mask, None
    )


def _tok(adv, b):
    return adv if adv.dim() == 2 else adv[:, None] * b.loss_mask


V = {  # preset -> (our overrides, verl actor kwargs, kl type, minibatches, micro, spread, ours x)
    "grpo": ({"clip_ratio_c": 3.0, "kl_coef": 0.001}, {"eps_low": 0.2, "eps_high": 0.2, "agg": "seq-mean-token-mean",
             "use_kl_loss": True, "kl_loss_type": "low_var_kl"}, "low_var_kl", 2, 2, 1.2, 1),
    "dapo": ({}, {"eps_low": 0.2, "eps_high": 0.28, "agg": "token-mean", "clip_ratio_c": 10.0}, None, 2, 2, 1.2, 1),
    "dr_grpo": ({"clip_ratio_c": 3.0}, {"eps_low": 0.2, "eps_high": 0.2, "agg": "seq-mean-token-sum-norm"}, None, 2, 2,
                1.2, 1),
    "gspo": ({}, {"loss_mode": "gspo", "eps_low": 3e-4, "eps_high": 4e-4, "agg": "seq-mean-token-mean"}, None, 2, 2,
             1e-3, 1),
    "ppo": ({"clip_ratio_c": 3.0}, {"eps_low": 0.2, "eps_high": 0.2, "agg": "token-mean"}, None, 2, 2, 1.2, 1),
    "rloo": ({"clip_ratio_c": 3.0}, {"eps_low": 0.2, "eps_high": 0.2, "agg": "token-mean"}, None, 2, 2, 1.2, 1),
    "reinforce_pp": ({"clip_ratio_c": 3.0}, {"eps_low": 0.2, "eps_high": 0.2, "agg": "token-mean"}, None, 2, 2, 1.2, 1),
    "cispo": ({}, {"loss_mode": "cispo", "eps_low": 1.0, "eps_high": 0.28, "agg": "token-mean"}, None, 2, 2, 1.2, 1),
    "gmpo": ({}, {"loss_mode": "geo_mean", "eps_low": 0.4, "eps_high": 0.4, "agg": "token-mean"}, None, 2, 1, 0.3, 1),
}  # fmt: skip
T = {  # preset -> (our overrides, TRL GRPOConfig kwargs, minibatches, micro, spread)
    "grpo": ({"kl_coef": 0.001}, {"loss_type": "grpo", "epsilon": 0.2, "beta": 0.001,
             "use_bias_correction_kl": False}, 2, 2, 1.2),
    "dr_grpo": ({}, {"loss_type": "dr_grpo", "epsilon": 0.2, "beta": 0.0, "max_completion_length": 16}, 2, 2, 1.2),
    "dapo": ({"clip_ratio_c": None}, {"loss_type": "dapo", "epsilon": 0.2, "epsilon_high": 0.28, "beta": 0.0}, 1, 2,
             1.2),
    "gspo": ({}, {"loss_type": "grpo", "epsilon": 3e-4, "epsilon_high": 4e-4, "beta": 0.0,
             "importance_sampling_level": "sequence"}, 2, 2, 1e-3),
    "cispo": ({}, {"loss_type": "cispo", "epsilon_high": 1.28, "beta": 0.0}, 1, 2, 1.2),
}  # fmt: skip


def _diff(ours, theirs, b):
    dl = max(float((o - t).abs()) for o, t in zip(ours, theirs, strict=True))
    dg = float((grad(sum(ours), b.logp) - grad(sum(theirs), b.logp)).abs().max())
    return dl, dg


def main() -> None:
    print(f"{'preset':<13} {'peer':<5} {'max |d loss|':>13} {'max |d grad|':>13}")
    for name, (over, kw, kl, mbs, micro, spread, _) in V.items():
        worst = [0.0, 0.0]
        for seed in range(10):
            b = ragged(seed, spread=spread)
            a = algo_config(name, **over)
            adv = _adv(name, b, a)
            actor = verl_actor(core, **kw, loss_scale_factor=b.T if name == "dr_grpo" else None)
            ours, _ = our_loss(a, batch_of(b, adv), b.logp, minibatches=mbs, micro=micro)
            theirs, _ = verl_loss(core, actor, b, _tok(adv, b), minibatches=mbs, micro=micro, kl_type=kl,
                                  kl_coef=a.kl_coef)  # fmt: skip
            worst = [max(w, d) for w, d in zip(worst, _diff(ours, theirs, b), strict=True)]
        print(f"{name:<13} {'verl':<5} {worst[0]:>13.2e} {worst[1]:>13.2e}")
    for name, (over, kw, mbs, micro, spread) in T.items():
        worst = [0.0, 0.0]
        for seed in range(10):
            b = ragged(seed, spread=spread)
            a = algo_config(name, **over)
            adv = _adv(name, b, a)
            ours, _ = our_loss(a, batch_of(b, adv), b.logp, minibatches=mbs, micro=micro)
            theirs, _ = trl_grpo_loss(trl, b, adv, minibatches=mbs, micro=micro, **kw)
            worst = [max(w, d) for w, d in zip(worst, _diff(ours, theirs, b), strict=True)]
        print(f"{name:<13} {'TRL':<5} {worst[0]:>13.2e} {worst[1]:>13.2e}")
    from parity_peers import groups_of, verl_rewards

    from trainer import advantages as adv_
    from trainer import critic as critic_

    worst = {"grpo adv": 0.0, "rloo adv": 0.0, "reinforce_pp adv": 0.0, "gae adv": 0.0, "gae returns": 0.0}
    for seed in range(10):
        b = ragged(seed)
        inf = torch.arange(len(b.mask)) >= 2 * b.G
        t, _ = core.compute_grpo_outcome_advantage(verl_rewards(b), b.mask, b.index)
        d = (adv_.group_advantages(b.rewards).reshape(-1) - t[:, 0]).abs()
        worst["grpo adv"] = max(worst["grpo adv"], float(d[inf].max()))
        t, _ = core.compute_rloo_outcome_advantage(verl_rewards(b), b.mask, b.index)
        d = (adv_.rloo_advantages(b.rewards).reshape(-1) - t[:, 0]).abs()
        worst["rloo adv"] = max(worst["rloo adv"], float(d[inf].max()))
        from verl.trainer.config import AlgoConfig as VA

        t, _ = core.compute_reinforce_plus_plus_outcome_advantage(verl_rewards(b) * b.loss_mask, b.loss_mask,
                                                                  config=VA(gamma=1.0))  # fmt: skip
        d = adv_.batch_normalised_advantages(b.rewards.reshape(-1), b.loss_mask) - t
        worst["reinforce_pp adv"] = max(worst["reinforce_pp adv"], float(d.abs().max()))
        b = ragged(seed, filtered=0)
        adv, ret, _ = critic_.critic_advantages(algo_config("ppo"), ALGORITHMS["ppo"], groups_of(b.rewards),
                                                batch_of(b, None), b.values, pretrain=False)  # fmt: skip
        ta, tr = core.compute_gae_advantage_return(verl_rewards(b), b.values, b.mask, gamma=1.0, lam=0.95)
        worst["gae adv"] = max(worst["gae adv"], float((adv - ta * b.mask).abs().max()))
        worst["gae returns"] = max(worst["gae returns"], float((ret - tr * b.mask).abs().max()))
    for k, v in worst.items():
        print(f"{k:<20} verl  {v:>13.2e}")
    tok = torch.zeros(8, 3)
    tok[:, -1] = 0.7
    t, _ = core.compute_grpo_outcome_advantage(tok, torch.ones(8, 3), [0] * 8)
    print(
        f"eight rewards of 0.7: verl max |A| {float(t.abs().max()):.4f}, ours "
        f"{float(adv_.group_advantages(torch.full((1, 8), 0.7)).abs().max()):.4f}"
    )
    # documented differences at the peers' defaults: relative loss gap, largest over the batches
    gaps = {"grpo (no cap) vs verl (c=3)": 0.0, "dapo (c=10) vs TRL dapo (no cap)": 0.0}
    for seed in range(10):
        b = ragged(seed)
        a = algo_config("grpo")
        adv = _adv("grpo", b, a)
        o, _ = our_loss(a, batch_of(b, adv), b.logp, minibatches=2, micro=2)
        t, _ = verl_loss(core, verl_actor(core, eps_low=0.2, eps_high=0.2, agg="seq-mean-token-mean"), b,
                         _tok(adv, b), minibatches=2, micro=2)  # fmt: skip
        gaps["grpo (no cap) vs verl (c=3)"] = max(gaps["grpo (no cap) vs verl (c=3)"],
                                                  max(float(((x - y) / y).abs()) for x, y in zip(o, t, strict=True)))  # fmt: skip
        a = algo_config("dapo")
        adv = _adv("dapo", b, a)
        o, _ = our_loss(a, batch_of(b, adv), b.logp, minibatches=1, micro=2)
        t, _ = trl_grpo_loss(trl, b, adv, minibatches=1, micro=2, loss_type="dapo", epsilon=0.2, epsilon_high=0.28,
                             beta=0.0)  # fmt: skip
        k = "dapo (c=10) vs TRL dapo (no cap)"
        gaps[k] = max(gaps[k], max(float(((x - y) / y).abs()) for x, y in zip(o, t, strict=True)))
    for k, v in gaps.items():
        print(f"{k:<34} relative loss gap {v:.1%}")


if __name__ == "__main__":
    main()
