"""TRL adapter: a reward function for `GRPOTrainer(reward_funcs=[dapo_trl_reward])`.

TRL calls reward functions as f(prompts, completions, **dataset_columns) and logs them by
`__name__`. Completions are strings (standard datasets) or message lists (conversational).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from verifiers.reward import dapo_reward
from verifiers.symbolic import warmup


def completion_text(completion: Any) -> str:
    """The text of a completion: a string, or the content of the last message of a message list."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, dict):
        return str(completion.get("content", ""))
    if isinstance(completion, Sequence) and completion:
        msgs = [m for m in completion if isinstance(m, dict)]
        assistant = [m for m in msgs if m.get("role") == "assistant"] or msgs
        return str(assistant[-1].get("content", "")) if assistant else ""
    return ""


def _golds(n: int, answer: Sequence | None, kwargs: dict, answer_column: str) -> list:
    if answer is not None:
        golds = answer
    elif kwargs.get(answer_column) is not None:
        golds = kwargs[answer_column]
    elif kwargs.get("ground_truth") is not None:
        golds = kwargs["ground_truth"]
    elif kwargs.get("reward_model") is not None:
        golds = [rm.get("ground_truth") if isinstance(rm, dict) else None for rm in kwargs["reward_model"]]
    else:
        cols = sorted(k for k in kwargs if k not in ("completion_ids", "trainer_state"))
        raise ValueError(
            f"dapo_trl_reward needs the gold answers: the dataset has no '{answer_column}', 'ground_truth' or "
            f"'reward_model' column (columns passed: {cols}); add an '{answer_column}' column or use "
            f"make_trl_reward(answer_column=...)"
        )
    golds = list(golds)
    if len(golds) != n:
        raise ValueError(f"got {n} completions but {len(golds)} gold answers")
    return golds


def _reward(
    prompts, completions, answer=None, *, answer_column="answer", reward_kwargs=None, **kwargs
) -> list:
    warmup()  # a reward loop is long-lived: pay the worker start once, up front
    reward_kwargs = dict(reward_kwargs or {})
    golds = _golds(len(completions), answer, kwargs, answer_column)
    ids = kwargs.get("completion_ids")
    out: list[float | None] = []
    for i, (comp, gold) in enumerate(zip(completions, golds, strict=True)):
        if gold is None:
            out.append(None)  # TRL skips None: no gold, no opinion
            continue
        length = len(ids[i]) if ids is not None and "max_len" in reward_kwargs else None
        # the question: the judge sees it (never the response), and an answer restating it is refused
        questions = kwargs.get("question") or kwargs.get("problem")
        extra = {"question": str(questions[i]) if questions is not None else completion_text(prompts[i])}
        out.append(
            dapo_reward(completion_text(comp), str(gold), length=length, **reward_kwargs, **extra).score
        )
    return out


def dapo_trl_reward(
    prompts: Sequence, completions: Sequence, answer: Sequence | None = None, **kwargs: Any
) -> list[float]:
    """+1/-1 DAPO reward per completion against the `answer` column (or ground_truth / reward_model)."""
    return _reward(prompts, completions, answer, **kwargs)


def make_trl_reward(answer_column: str = "answer", **reward_kwargs: Any) -> Callable[..., list[float]]:
    """A TRL reward function reading gold from `answer_column`, with dapo_reward options
    (max_len, cache_len, timeout, judge); token lengths come from TRL's `completion_ids`. With
    `judge` (a verifiers.judge configuration dict) the judge is shown the dataset's `question`
    (or `problem`) column, else the prompt."""

    def reward(prompts: Sequence, completions: Sequence, **kwargs: Any) -> list[float]:
        answer = kwargs.pop(answer_column, None)
        return _reward(
            prompts, completions, answer, answer_column=answer_column, reward_kwargs=reward_kwargs, **kwargs
        )

    reward.__name__ = reward.__qualname__ = "dapo_reward"
    return reward
