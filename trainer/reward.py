"""Rewards for sampled groups: `verifiers.dapo_reward` (+1/-1) with the soft overlong punishment.

Lengths are counted in tokens (the response ids, EOS included), as the DAPO paper does.
"""

from __future__ import annotations

from dataclasses import dataclass

from trainer.rollout import Sample


@dataclass
class Scored:
    score: float  # the training reward: correctness +1/-1 plus the overlong term when enabled
    acc: bool
    pred: str | None
    overlong_penalty: float


def score_samples(
    samples: list[Sample], gold: str, *, max_len: int, cache_len: int, overlong_penalty: bool = True
) -> list[Scored]:
    """Score one group against its gold answer."""
    import sys

    from verifiers import dapo_reward

    # verifiers may fork a symbolic worker; a child that inherits unflushed stdout prints our
    # progress lines a second time when it exits, so hand it empty buffers.
    sys.stdout.flush()
    sys.stderr.flush()
    out = []
    for s in samples:
        r = dapo_reward(
            s.text,
            gold,
            max_len=max_len,
            cache_len=cache_len,
            length=len(s.response_ids),
            truncated=s.truncated,
        )
        pen = float(r.overlong_penalty)
        score = float(r.score) if overlong_penalty else float(r.score) - pen
        out.append(Scored(score=score, acc=bool(r.acc), pred=r.pred, overlong_penalty=pen))
    return out
