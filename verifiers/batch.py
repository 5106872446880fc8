"""Score many completions in worker processes, in order, surviving dead workers.

A worker that dies (OOM killer, a segfault in a C extension, someone's `kill`) breaks a
`ProcessPoolExecutor`; the unfinished chunks are resubmitted to a fresh pool, split down to
single items if they keep failing, and an item that still kills its worker scores as wrong
with reason "worker_died" instead of failing the whole batch.

Lifecycle: the pool processes die with the forkserver that forked them, which exits when
its owner (the caller) dies; they fork their own symbolic workers directly, and those die
with them (PR_SET_PDEATHSIG, see verifiers.symbolic). When score_batch returns the pool is
shut down and each pool process terminates its workers on exit.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool

from verifiers.reward import RewardResult, dapo_reward, shaped_result

MAX_ROUNDS = 6


def _score_chunk(
    items: list[tuple[int, str, str, bool, str | None]], kwargs: dict
) -> list[tuple[int, RewardResult]]:
    return [(i, dapo_reward(c, g, cut_off=cut, question=q, **kwargs)) for i, c, g, cut, q in items]


def _init_process() -> None:
    """Runs first in every pool process."""
    from verifiers import symbolic

    symbolic.bind_to_parent()  # die with the forkserver, release its "alive" pipe
    symbolic._fork_only = True  # never a forkserver (nor threads) of our own


def _context():
    # the same forkserver as the symbolic workers: pool processes start with sympy warm
    from verifiers.symbolic import _context as symbolic_context

    return symbolic_context()


def score_batch(
    completions: Sequence[str],
    golds: Sequence[str],
    *,
    workers: int | None = None,
    timeout: float = 1.0,
    chunk_size: int | None = None,
    on_progress: Callable[[int], None] | None = None,
    judge=None,
    questions: Sequence[str | None] | None = None,
    cut_off: Sequence[bool] | None = None,
    **reward_kwargs,
) -> list[RewardResult]:
    """`dapo_reward` for every (completion, gold) pair, computed in `workers` processes.

    Results keep the input order. `on_progress(n)` is called with the number of items
    finished by each completed chunk (for progress bars). With `judge` (a verifiers.judge
    configuration; off by default) the rules' mismatches are then sent to the judge from this
    process, `judge.concurrency` at a time under one run budget, shown `questions[i]`. With
    `questions`, an answer restating its question's own expression is `restates_question` (as in
    `dapo_reward`).
    """
    if questions is not None and len(questions) != len(completions):
        raise ValueError(f"score_batch: {len(completions)} completions but {len(questions)} questions")
    if cut_off is not None and len(cut_off) != len(completions):
        raise ValueError(f"score_batch: {len(completions)} completions but {len(cut_off)} cut_off flags")
    cuts = [bool(c) for c in cut_off] if cut_off is not None else [False] * len(completions)
    qs = list(questions) if questions is not None else [None] * len(completions)
    results = _score(completions, golds, cuts, qs, workers, timeout, chunk_size, on_progress, reward_kwargs)
    if judge is not None:
        _judge_results(results, golds, questions, judge, reward_kwargs.get("overlong_penalty", True))
    return results


def _judge_results(
    results: list[RewardResult], golds, questions, judge, overlong_penalty: bool = True
) -> None:
    """Ask the judge about every rules mismatch with an extracted answer; update in place."""
    from verifiers.judge import get_judge, judgeable

    j = get_judge(judge)
    todo = [i for i, r in enumerate(results) if r.acc == 0.0 and judgeable(r.reason, r.extracted)]
    asks = [
        (questions[i] if questions is not None else None, results[i].gold or golds[i], results[i].extracted)
        for i in todo
    ]
    for i, jr in zip(todo, j.ask_many(asks), strict=True):
        r = results[i]
        results[i] = shaped_result(jr.equivalent, r.pred, jr.reason, r.length_penalty, overlong_penalty, r)


def _score(
    completions, golds, cuts, questions, workers, timeout, chunk_size, on_progress, reward_kwargs
) -> list[RewardResult]:
    if len(completions) != len(golds):
        raise ValueError(f"score_batch: {len(completions)} completions but {len(golds)} golds")
    n = len(completions)
    if n == 0:
        return []
    workers = max(1, workers or min(os.cpu_count() or 1, 8))
    kwargs = dict(reward_kwargs, timeout=timeout)
    size = chunk_size or max(1, min(256, n // (workers * 4) or 1))
    todo = [
        [(i, completions[i], golds[i], cuts[i], questions[i]) for i in range(s, min(n, s + size))]
        for s in range(0, n, size)
    ]
    results: list[RewardResult | None] = [None] * n
    failures: dict[int, int] = {}  # item index -> how many pools died while it was in flight
    for _ in range(MAX_ROUNDS):
        if not todo:
            break
        todo = _run_round(todo, kwargs, workers, results, failures, on_progress)
    for chunk in todo:
        for i, *_ in chunk:
            results[i] = RewardResult(-1.0, 0.0, None, "worker_died", 0.0)
    return results  # type: ignore[return-value]


def _run_round(todo, kwargs, workers, results, failures, on_progress) -> list:
    """Run chunks on one pool; return the chunks to retry (split smaller) if the pool broke."""
    retry: list = []
    with ProcessPoolExecutor(
        max_workers=min(workers, len(todo)), mp_context=_context(), initializer=_init_process
    ) as ex:
        pending = {ex.submit(_score_chunk, chunk, kwargs): chunk for chunk in todo}
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for fut in done:
                chunk = pending.pop(fut)
                try:
                    for i, r in fut.result():
                        results[i] = r
                    if on_progress:
                        on_progress(len(chunk))
                except BrokenProcessPool:
                    retry.append(chunk)
            if retry:  # the pool is dead; everything still pending must be retried
                retry.extend(pending.values())
                for fut in pending:
                    fut.cancel()
                break
    out = []
    for chunk in retry:
        for i, *_ in chunk:
            failures[i] = failures.get(i, 0) + 1
        if len(chunk) > 1:
            half = len(chunk) // 2
            out += [chunk[:half], chunk[half:]]
        elif failures[chunk[0][0]] < 3:
            out.append(chunk)
        else:
            i = chunk[0][0]
            results[i] = RewardResult(-1.0, 0.0, None, "worker_died", 0.0)
            if on_progress:
                on_progress(1)
    return out


def read_completions(path: str | os.PathLike) -> tuple[list[str], list[str], list[str | None]]:
    """(completions, golds, questions) from a JSONL file of {"completion", "gold"} lines, each with an optional
    "question" (or "problem"): the checks that need the question (a Countdown task, an answer that restates it, the
    unit it asks) use it (`dapo verify --file`); a missing file, bad line or missing field raises an error naming
    the file, the line and the fix."""
    from verifiers.files import iter_jsonl

    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path}: no such file")
    completions, golds, questions = [], [], []
    for lineno, row in iter_jsonl(path):
        missing = [k for k in ("completion", "gold") if k not in row]
        if missing:
            raise ValueError(
                f"{path}:{lineno}: missing field(s) {', '.join(map(repr, missing))}; "
                'each line needs {"completion": ..., "gold": ...} (and may have "question")'
            )
        completions.append(str(row["completion"]))
        golds.append(str(row["gold"]))
        question = row.get("question", row.get("problem"))
        questions.append(None if question is None else str(question))
    return completions, golds, questions


def write_results(path: str | os.PathLike, results: Sequence[RewardResult]) -> None:
    """One JSON line per result (index, acc, score, pred, reason), written atomically."""
    import json

    from verifiers.files import atomic_write

    rows = [
        {"index": i, "acc": r.acc, "score": r.score, "pred": r.pred, "reason": r.reason}
        for i, r in enumerate(results)
    ]
    atomic_write(path, "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows))
