"""The trainer's in-loop held-out eval: avg@k, pass@k (unbiased estimator) and cons@k (majority vote).

The metrics are `verifiers.metrics` (the same implementation and grader timeout as `dapo eval`,
which lives in evals/); this module only samples in memory and adds the policy's entropy.
`CheckpointSampler` moved to evals.checkpoint; the names below stay importable for one release.
"""

from __future__ import annotations

import torch

from trainer.data import Prompt
from trainer.reward import RewardResult
from verifiers.metrics import (
    DEFAULT_GRADE_TIMEOUT,
    ProblemResult,
    majority_vote,
    pass_at_k,
    same_answer,
    summarize,
)

__all__ = ["evaluate", "majority_correct", "pass_at_k"]


def majority_correct(
    preds: list[str | None], accs: list[bool], timeout: float = DEFAULT_GRADE_TIMEOUT
) -> bool:
    """cons@k for one prompt: verifiers.metrics.majority_vote with the verifier's equivalence."""
    return majority_vote(preds, accs, same_answer(timeout))


@torch.no_grad()
def evaluate(
    model,
    tokenizer,
    prompts: list[Prompt],
    *,
    k: int = 8,
    temperature: float = 1.0,
    top_p: float = 0.7,
    max_new_tokens: int = 64,
    engine=None,
    batch_prompts: int = 32,
    grade_timeout: float = DEFAULT_GRADE_TIMEOUT,
) -> dict:
    """Sample k responses per prompt and score them; keys name k (avg@8, pass@8, cons@8).

    The metrics are verifiers.metrics.summarize's (the same code as `dapo eval`); `grade_timeout` is
    the verifier's budget per response and per vote comparison (train.eval_grade_timeout)."""
    from trainer.batch import make_batch
    from trainer.rollout import HFEngine
    from trainer.sampling import Group
    from trainer.update import score_tokens

    engine = engine or HFEngine(model, tokenizer)
    same = same_answer(grade_timeout)
    results: list[ProblemResult] = []
    ent_sum, tok_sum = 0.0, 0.0
    for i in range(0, len(prompts), batch_prompts):
        chunk = prompts[i : i + batch_prompts]
        outs = engine.generate(
            [p.ids for p in chunk], n=k, max_new_tokens=max_new_tokens, temperature=temperature, top_p=top_p
        )
        groups = []
        for p, samples in zip(chunk, outs, strict=True):
            sc = _grade(samples, p.gold, grade_timeout, p.text)
            a = [bool(s.acc) for s in sc]
            results.append(
                ProblemResult(
                    n=k,
                    correct=sum(a),
                    maj_correct=majority_vote([s.extracted for s in sc], a, same),
                    truncated=sum(s.truncated for s in samples),
                    tokens=sum(len(s.response_ids) for s in samples),
                )
            )
            groups.append(Group(p, samples, sc))
        device = model.get_input_embeddings().weight.device  # the batch is built on the CPU
        b = make_batch(groups, engine.pad_id, overlong_filter=False).to(device)
        _, ent = score_tokens(model, b, temperature=1.0, micro=256)
        ent_sum += float((ent * b.mask).sum())
        tok_sum += float(b.mask.sum())
    m = summarize(results, k, pass_ks=(k,))  # the metrics of `dapo eval`; cons@k is its maj@k
    return {
        f"avg@{k}": m[f"avg@{k}"],
        f"pass@{k}": m[f"pass@{k}"],
        f"cons@{k}": m[f"maj@{k}"],
        "entropy": ent_sum / max(tok_sum, 1.0),
        "mean_length": m["mean_length"],
        "truncation_ratio": m["truncation_rate"],
        "n_prompts": m["n_problems"],
    }


def _grade(samples, gold: str, timeout: float, question: str | None = None) -> list[RewardResult]:
    """Each sample against the gold as `dapo eval` grades it: a response stopped at the token limit is
    `cut_off` (only an answer line or a box counts), not wrong outright as in the training reward;
    no overlong shaping: an eval measures accuracy. An answer restating the question is wrong, as in training."""
    import sys

    from verifiers import dapo_reward

    sys.stdout.flush()  # a forked symbolic worker must not inherit unflushed progress lines
    sys.stderr.flush()
    return [
        dapo_reward(s.text, gold, length=len(s.response_ids), cut_off=s.truncated, timeout=timeout,
                    overlong_penalty=False, question=question)
        for s in samples
    ]  # fmt: skip
