"""Rewards for sampled groups: correctness +1/-1 from `verifiers`, plus the soft overlong punishment by config.

The overlong shaping is decided here and only here: `verifiers.dapo_reward` reports correctness
(`acc`) and the length penalty (`overlong_penalty`) separately, and the training reward is
`+1/-1` plus the penalty when `algo.overlong_penalty` is on, `+1/-1` alone when it is off. (The
overlong *filter*, which zeroes a truncated response's loss, is a mask: trainer/batch.py.)
Lengths are counted in tokens (the response ids, EOS included), as the DAPO paper does.
"""

from __future__ import annotations

from dataclasses import dataclass

from trainer.rollout import Sample


@dataclass
class Scored:
    score: float  # the training reward: correctness +1/-1, plus the overlong penalty when enabled
    acc: bool
    pred: str | None
    overlong_penalty: float  # R_len in [-1, 0], reported whether or not it enters `score`


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
        score = (1.0 if r.acc else -1.0) + (pen if overlong_penalty else 0.0)
        out.append(Scored(score=score, acc=bool(r.acc), pred=r.extracted, overlong_penalty=pen))  # as read
    return out
