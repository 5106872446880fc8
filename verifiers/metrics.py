"""Evaluation metrics, pure: what `dapo eval` (evals/) and the trainer's in-loop eval both compute.

- `pass_at_k`: the unbiased estimator of Chen et al. (2021) from n samples with c correct.
- `vote_classes` / `majority_vote`: maj@k (cons@k) over *equivalence classes* of extracted answers,
  merged with the verifier (`same_answer`), so `1/2` and `0.5` are one vote.
- `summarize`: avg@k, pass@j, maj@k over problems, each with its standard error, plus the
  no-answer and truncation rates and the mean length; `mean_over_benchmarks` for the overall row.

Next to the verifier (not in evals/) because the trainer uses them too and may not import evals.
Standard library only; the verifier is imported when a vote needs it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

DEFAULT_PASS_KS = (1, 4, 16)
DEFAULT_GRADE_TIMEOUT = 1.0  # seconds per response: `dapo eval --grade-timeout`, train.eval_grade_timeout


def pass_at_k(n: int, c: int, k: int) -> float:
    """Chen et al.'s unbiased pass@k: 1 - C(n-c, k) / C(n, k), n samples of which c are correct."""
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass@k needs 0 <= c <= n and 1 <= k <= n, got n={n} c={c} k={k}")
    if n - c < k:
        return 1.0
    prod = 1.0
    for i in range(n - c + 1, n + 1):  # C(n-c, k)/C(n, k) = prod_{i=n-c+1}^{n} (1 - k/i)
        prod *= 1.0 - k / i
    return 1.0 - prod


def vote_classes(
    answers: Sequence[str | None],
    correct: Sequence[bool],
    same: Callable[[str, str], bool],
) -> list[list[int]]:
    """Group sample indices into classes of equivalent extracted answers, in order of first appearance.

    Answers graded correct against the gold are all equivalent to it, hence to each other: they
    form one class without a comparison. A correct and a wrong answer are never equivalent. Wrong
    answers join the first class whose representative (first member) has the same text or is
    `same` (the verifier's is_equivalent) as it, so `1/2` and `0.5` are one vote. Samples with no
    extracted answer (None) vote for nothing.
    """
    classes: list[list[int]] = []
    for j, a in enumerate(answers):
        if a is None:
            continue
        home = None
        for cls in classes:
            r = cls[0]
            if bool(correct[r]) != bool(correct[j]):
                continue
            if correct[j] or answers[r] == a or same(a, answers[r]):
                home = cls
                break
        if home is None:
            classes.append([j])
        else:
            home.append(j)
    return classes


def majority_vote(
    answers: Sequence[str | None], correct: Sequence[bool], same: Callable[[str, str], bool]
) -> bool:
    """maj@k for one problem: is the largest class of equivalent answers (`vote_classes`) correct?
    A tie goes to the class seen first; no answer at all is wrong.

    Exact without comparing every pair: with no correct answer the vote is wrong, and with more
    correct answers than wrong ones (all correct answers are one class) it is right; only the
    cases in between build the classes (each comparison may call the verifier's symbolic step).
    """
    n_ok = sum(1 for a, c in zip(answers, correct, strict=True) if a is not None and c)
    n_wrong = sum(1 for a, c in zip(answers, correct, strict=True) if a is not None and not c)
    if n_ok == 0:
        return False
    if n_ok > n_wrong:
        return True
    classes = vote_classes(answers, correct, same)
    top = max(len(c) for c in classes)
    winner = next(c for c in classes if len(c) == top)
    return bool(correct[winner[0]])


@dataclass
class ProblemResult:
    """One problem's k graded samples, reduced to what the metrics need."""

    n: int
    correct: int
    maj_correct: bool
    no_answer: int = 0
    truncated: int = 0
    tokens: int = 0


def standard_error(values: Sequence[float]) -> float | None:
    """Standard error of a mean over problems: the sample standard deviation over sqrt(N); None when
    N < 2 (no spread to estimate). The interval every metric in an evaluation report carries."""
    N = len(values)
    if N < 2:
        return None
    mean = sum(values) / N
    return math.sqrt(sum((v - mean) ** 2 for v in values) / (N - 1) / N)


def summarize(results: Sequence[ProblemResult], k: int, pass_ks: Iterable[int] = DEFAULT_PASS_KS) -> dict:
    """Metrics over problems (each problem weighs the same), each with its standard error (`_se`).

    avg@k: mean over problems of c_i / n_i; its standard error is the sample standard deviation of
    those per-problem accuracies over sqrt(N) (N problems; None when N < 2). pass@j for each j in
    `pass_ks` plus k (those <= the smallest n): the mean of the unbiased per-problem estimator.
    maj@k: share of problems whose largest answer class is correct. Rates are over samples.
    """
    if not results:
        raise ValueError("no problems to summarise")
    n_min = min(r.n for r in results)
    N = len(results)
    accs = [r.correct / r.n for r in results]
    avg = sum(accs) / N
    se = math.sqrt(sum((a - avg) ** 2 for a in accs) / (N - 1) / N) if N > 1 else None
    samples = sum(r.n for r in results)
    out = {
        "n_problems": N,
        "n_samples": samples,
        f"avg@{k}": avg,
        f"avg@{k}_se": se,
    }
    for j in sorted({*pass_ks, k}):
        if 1 <= j <= n_min:
            per_problem = [pass_at_k(r.n, r.correct, j) for r in results]
            out[f"pass@{j}"] = sum(per_problem) / N
            out[f"pass@{j}_se"] = standard_error(per_problem)
    out[f"maj@{k}"] = sum(r.maj_correct for r in results) / N
    out[f"maj@{k}_se"] = standard_error([float(r.maj_correct) for r in results])
    out["no_answer_rate"] = sum(r.no_answer for r in results) / samples
    out["truncation_rate"] = sum(r.truncated for r in results) / samples
    out["mean_length"] = sum(r.tokens for r in results) / samples
    return out


def mean_over_benchmarks(summaries: Sequence[dict]) -> dict:
    """`overall` the way Qwen2.5-Math's eval, lighteval and evalchemy average: each benchmark weighs
    the same (MATH-500 does not outweigh AIME 17 to 1). Each metric is the mean of the benchmarks'
    values; its standard error combines theirs as independent, sqrt(sum se_b^2) / B (None when a
    benchmark has none). Counts are totals; a metric some benchmark lacks (pass@j beyond its n) is left out."""
    if not summaries:
        raise ValueError("no benchmarks to average")
    B = len(summaries)
    if B == 1:  # one benchmark: its own numbers, exactly
        return {"n_benchmarks": 1, **summaries[0]}
    out: dict = {
        "n_benchmarks": B,
        "n_problems": sum(s["n_problems"] for s in summaries),
        "n_samples": sum(s["n_samples"] for s in summaries),
    }
    for key in summaries[0]:
        if key in out or key.endswith("_se") or not all(key in s for s in summaries):
            continue
        out[key] = sum(s[key] for s in summaries) / B
        if f"{key}_se" in summaries[0]:
            ses = [s.get(f"{key}_se") for s in summaries]
            out[f"{key}_se"] = None if any(x is None for x in ses) else math.sqrt(sum(x * x for x in ses)) / B
    return out


def pass_curve(results: Sequence[ProblemResult]) -> dict[int, float]:
    """pass@j for j = 1, 2, 4, ... up to the smallest n (and n itself), for the plot."""
    n_min = min(r.n for r in results)
    js = sorted({2**i for i in range(int(math.log2(n_min)) + 1)} | {n_min})
    return {j: sum(pass_at_k(r.n, r.correct, j) for r in results) / len(results) for j in js}


def same_answer(timeout: float = DEFAULT_GRADE_TIMEOUT) -> Callable[[str, str], bool]:
    """Two extracted answers are one vote when the verifier finds them equivalent (`1/2` and `0.5`)."""
    from verifiers import is_equivalent

    def same(a: str, b: str) -> bool:
        return is_equivalent(f"\\boxed{{{a}}}", f"\\boxed{{{b}}}", timeout=timeout)

    return same
