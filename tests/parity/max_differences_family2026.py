"""Print the largest loss / gradient (or advantage) gaps of the 2026 family to verl and TRL over 10 random
ragged batches, the figures docs/algorithms.md quotes. Not a test: run it after `make test-parity`:

    PYTHONPATH=. .venv/bin/python tests/parity/max_differences_family2026.py
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, os.environ.get("PARITY_DEPS", str(Path(sys.prefix) / "parity-deps")))
sys.path.insert(0, str(Path(__file__).parent))

import test_parity_family2026 as t  # noqa: E402
import torch  # noqa: E402
import trl  # noqa: E402
import verl.trainer.ppo.core_algos as ca  # noqa: E402

from trainer.advantages import reinforce_pp_baseline_advantages  # noqa: E402


def _gap(a: torch.Tensor, b: torch.Tensor) -> float:
    return float((a - b).abs().max())


def main() -> None:
    out: dict[str, list[tuple[float, float]]] = {}
    for seed in range(10):
        logp, old, mask, adv, rewards = t._ragged(seed, spread=0.8, filtered=False)
        for micro in (False, True):
            tag = ", 2 micro-batches" if micro else ""
            want, g_want = t._verl(ca.compute_policy_loss_sapo, logp, old, mask, adv, "seq-mean-token-mean", micro,
                                   tau_pos=1.0, tau_neg=1.05)  # fmt: skip
            got, g_got = t._ours("sapo", logp, old, mask, adv)
            out.setdefault(f"sapo vs verl{tag}", []).append((_gap(got, want), _gap(g_got, g_want)))
            for preset, delta in (("dppo_tv", 0.15), ("dppo_kl", 0.05)):
                fn = getattr(ca, f"compute_policy_loss_{preset}")
                want, g_want = t._verl(fn, logp, old, mask, adv, "token-mean", micro, clip_ratio=delta,
                                       clip_ratio_low=delta, clip_ratio_high=delta, clip_ratio_c=20.0)  # fmt: skip
                got, g_got = t._ours(preset, logp, old, mask, adv)
                out.setdefault(f"{preset} vs verl{tag}", []).append((_gap(got, want), _gap(g_got, g_want)))
        B, T = mask.shape
        rewards[1] = 0.7
        token_rewards = torch.zeros(B, T)
        token_rewards[torch.arange(B), mask.sum(1).long() - 1] = rewards.reshape(-1)
        index = [f"uid{i // 4}" for i in range(B)]
        want, _ = ca.compute_reinforce_plus_plus_baseline_outcome_advantage(token_rewards, mask, index)
        got = reinforce_pp_baseline_advantages(rewards, mask)
        out.setdefault("reinforce_pp_baseline advantages vs verl", []).append(
            (_gap(got * mask, want * mask), 0.0)
        )
        want, g_want = t._trl_loss(trl, logp, old, mask, adv, loss_type="sapo")
        got, g_got = t._ours("sapo", logp, old, mask, adv)
        out.setdefault("sapo vs TRL", []).append((_gap(got, want), _gap(g_got, g_want)))
    print("| comparison | max loss / advantage gap | max gradient gap |\n|---|---|---|")
    for name, gaps in out.items():
        print(f"| {name} | {max(a for a, _ in gaps):.1e} | {max(b for _, b in gaps):.1e} |")


if __name__ == "__main__":
    main()
