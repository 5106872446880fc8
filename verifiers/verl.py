"""verl adapter: point `custom_reward_function.path` at this file, `name` at compute_score.

verl imports this file by path (importlib), so imports here are absolute.
"""

from __future__ import annotations

from typing import Any

from verifiers.countdown import task_from_gold, task_text
from verifiers.reward import dapo_reward
from verifiers.symbolic import warmup

_REWARD_KWARGS = ("max_len", "cache_len", "length", "truncated", "timeout", "judge", "question")


def compute_score(
    data_source: Any, solution_str: str, ground_truth: Any, extra_info: dict | None = None, **kwargs: Any
) -> dict:
    """DAPO reward for one response, as verl's reward managers expect: score, acc, pred (+ reason,
    and for the logs the answer and gold as read, and `valid`: False when the gold is unusable).

    `ground_truth` may be a string, a list of acceptable answers, or a Countdown task as TinyZero's rows
    store it (`{"target": 36, "numbers": [79, 17, 60]}` or its JSON text, judged by verifiers.countdown). Reward options
    (max_len, cache_len, length, truncated, timeout, judge, question) come from kwargs or
    `extra_info`; `judge` is a verifiers.judge configuration dict (off by default), shown the
    `question` (or `extra_info["problem"]`).
    """
    warmup()  # a reward loop is long-lived: pay the worker start once, up front
    opts = {k: v for k, v in (extra_info or {}).items() if k in _REWARD_KWARGS}
    opts.update({k: v for k, v in kwargs.items() if k in _REWARD_KWARGS})
    if opts.get("question") is None:  # the judge's prompt, and the restated-question check (verifiers.check)
        opts["question"] = (extra_info or {}).get("problem") or (extra_info or {}).get("raw_problem")
    # TinyZero's Countdown rows: the task is the ground truth (a dict or its JSON text)
    task = task_from_gold(ground_truth)
    if task is not None:
        opts["question"] = task_text(list(task.numbers), task.target)
        ground_truth = str(task.target)
    if hasattr(ground_truth, "tolist") and not isinstance(ground_truth, str):  # a numpy array (pandas reads
        ground_truth = ground_truth.tolist()  # a list column so); a numpy scalar becomes its Python value
    golds = list(ground_truth) if isinstance(ground_truth, (list, tuple)) else [ground_truth]
    best = None
    for gold in golds:
        r = dapo_reward(solution_str, str(gold), **opts)
        if best is None or r.acc > best.acc:
            best = r
    return {
        "score": best.score,
        "acc": best.acc,
        "pred": best.pred,  # None: the response has no answer
        "reason": best.reason,
        "length_penalty": best.length_penalty,
        "extracted": best.extracted,
        "gold": best.gold,
        "valid": best.valid,
    }
