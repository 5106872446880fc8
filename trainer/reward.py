"""Rewards for sampled groups: the verifier's `RewardResult` per response, shaped by the verifier.

The trainer does not shape rewards: `verifiers.dapo_reward` returns the training reward (`score`:
+1/-1, plus DAPO's soft overlong punishment R_len when `algo.overlong_penalty` is on) together with
correctness (`acc`) and R_len itself (`length_penalty`, reported either way). (The overlong
*filter*, which zeroes a truncated response's loss, is a mask: trainer/batch.py.) Lengths are
counted in tokens (the response ids, EOS included), as the DAPO paper does.
"""

from __future__ import annotations

from trainer.rollout import Sample
from verifiers.reward import RewardResult

__all__ = ["RewardResult", "reward_from_dict", "score_samples"]


def score_samples(
    samples: list[Sample],
    gold: str,
    question: str | None = None,
    *,
    max_len: int,
    cache_len: int,
    overlong_penalty: bool = True,
) -> list[RewardResult]:
    """Score one group against its gold answer (`overlong_penalty`: algo.overlong_penalty).

    `question` (the prompt's user message): an answer that restates the question's own expression
    (`23+45` for "What is 23+45?") scores as wrong (`restates_question`), as in verl's and TRL's
    adapters; equal by arithmetic, it would teach the policy to copy the question."""
    import sys

    from verifiers import dapo_reward

    # verifiers may fork a symbolic worker; a child that inherits unflushed stdout prints our
    # progress lines a second time when it exits, so hand it empty buffers.
    sys.stdout.flush()
    sys.stderr.flush()
    return [
        dapo_reward(
            s.text,
            gold,
            max_len=max_len,
            cache_len=cache_len,
            length=len(s.response_ids),
            truncated=s.truncated,
            overlong_penalty=overlong_penalty,
            question=question,
        )
        for s in samples
    ]


def reward_from_dict(d: dict) -> RewardResult:
    """A `RewardResult` from its `asdict` form, also from a checkpoint written before the trainer used it
    (fields score, acc, pred, overlong_penalty; no reason)."""
    if "length_penalty" in d:
        return RewardResult(**d)
    return RewardResult(float(d["score"]), float(d["acc"]), d["pred"], "", float(d["overlong_penalty"]))
