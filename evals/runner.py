"""Evaluate a model on math benchmarks, whoever samples it: an OpenAI-compatible endpoint
(evals.endpoint) or this trainer's checkpoint (evals.checkpoint).

The pieces, in run order: `evals.benchmarks` loads the problems, `evals.prompts` renders them,
`evals.store` keeps every sample as it arrives (a killed run resumes) and every verdict; grading
is the project's verifier (`verifiers.dapo_reward`: extraction + `is_equivalent`), in worker
processes for large runs (`verifiers.score_batch`); the metrics are `verifiers.metrics` (shared
with the trainer's in-loop eval); `evals.report` writes report.json, samples.parquet, report.md
and pass_at_k.png.

Conventions of the harnesses people compare with (Qwen2.5-Math's eval, lighteval, evalchemy):
`overall` is the mean over benchmarks (each benchmark weighs the same; the pooled-problem numbers
are under `pooled`), every metric carries a standard error, greedy decoding is `--greedy`
(temperature 0, k = 1), the seed is recorded, and k > 1 at temperature 0 is warned about.
"""

from __future__ import annotations

import hashlib
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from evals.benchmarks import Benchmark
from evals.prompts import PromptSpec, prompt_key
from evals.report import write_outputs
from evals.store import GradeCache, Graded, Job, Response, Sampler, SampleStore, SamplingParams
from verifiers.metrics import (
    DEFAULT_GRADE_TIMEOUT,
    DEFAULT_PASS_KS,
    ProblemResult,
    majority_vote,
    mean_over_benchmarks,
    pass_curve,
    same_answer,
    summarize,
)


def sampling_warnings(params: SamplingParams) -> list[str]:
    """What is legal but likely a mistake: k samples at temperature 0 are k copies of one answer
    (pass@k and maj@k then equal avg@k, at k times the cost)."""
    if params.k > 1 and params.temperature == 0:
        return [
            f"k={params.k} samples at temperature 0 repeat one greedy answer (pass@k = maj@k = avg@k); "
            "use --greedy (k=1) or a temperature above 0"
        ]
    return []


def grader_info(timeout: float) -> dict:
    """The grader named with its version and a hash of its source, since graders move scores."""
    from importlib.metadata import PackageNotFoundError, version

    import verifiers

    def ver(dist: str) -> str | None:
        try:
            return version(dist)
        except PackageNotFoundError:
            return None

    h = hashlib.sha256()
    for f in sorted(Path(verifiers.__file__).parent.glob("*.py")):
        h.update(f.name.encode() + b"\0" + f.read_bytes())
    return {
        "name": "dapo-toolkit verifiers (verifiers.dapo_reward: verifiers.extract + check)",
        "version": ver("dapo-toolkit"),
        "source_sha256": h.hexdigest()[:16],
        "math_verify": ver("math-verify"),
        "sympy": ver("sympy"),
        "timeout_s": timeout,
        "truncated_responses": "graded as written, reading only an answer line or a box (cut_off)",
        "question": "given: an answer restating the problem's own expression is wrong (restates_question)",
        "maj_vote": "largest class of extracted answers merged with is_equivalent; ties go to the class seen first",
    }


def grade(texts: Sequence[str], golds: Sequence[str], *, workers: int = 0, timeout: float = DEFAULT_GRADE_TIMEOUT,
          on_progress: Callable[[int], None] | None = None,
          cut_off: Sequence[bool] | None = None,
          questions: Sequence[str | None] | None = None) -> list[Graded]:  # fmt: skip
    """Each response against its gold with the project's verifier. `workers` > 1 grades in that
    many processes (verifiers.score_batch); otherwise in this process. `cut_off[i]`: response i
    stopped at the token limit (only an answer line or a box is read from it). `extracted` is the
    answer the verdict was about, as verifiers.extract read it (None: no answer). `questions[i]`:
    response i's problem text; an answer restating the problem's own expression is wrong
    (`restates_question`)."""
    from verifiers import dapo_reward, warmup

    if not texts:
        return []
    cuts = list(cut_off) if cut_off is not None else [False] * len(texts)
    qs = list(questions) if questions is not None else [None] * len(texts)
    if workers > 1 and len(texts) > 64:
        from verifiers import score_batch

        res = score_batch(list(texts), list(golds), workers=workers, timeout=timeout, on_progress=on_progress,
                          cut_off=cuts, questions=qs)  # fmt: skip
    else:
        warmup()
        res = []
        for t, g, cut, q in zip(texts, golds, cuts, qs, strict=True):
            res.append(dapo_reward(t, g, timeout=timeout, cut_off=cut, question=q))
            if on_progress:
                on_progress(1)
    return [Graded(bool(r.acc), r.reason, r.extracted) for r in res]


@dataclass
class EvalConfig:
    out: Path
    params: SamplingParams
    prompt: PromptSpec
    pass_ks: tuple[int, ...] = DEFAULT_PASS_KS
    grade_workers: int = 0
    grade_timeout: float = DEFAULT_GRADE_TIMEOUT
    fresh: bool = False
    progress: bool = True
    model: str = ""


def _progress(enabled: bool):
    """The toolkit's progress bar on stderr, with the time remaining and a per-task rate (`info`)."""
    from verifiers.progress import progress_bar

    return progress_bar(enabled, info=True, eta=True, stderr=True)


def run_eval(benchmarks: Sequence[Benchmark], sampler: Sampler, cfg: EvalConfig) -> dict:
    """Sample what the store lacks, grade everything, compute metrics, write the four outputs."""
    p = cfg.params
    out = Path(cfg.out)
    warnings = sampling_warnings(p)
    for w in warnings:
        print(f"warning: {w}", file=sys.stderr)
    # what decides the samples: the model, the kind of sampler and the sampling settings (not the
    # server's address: a restarted server on another port still serves the same model)
    fingerprint = {"model": cfg.model, "sampler": sampler.describe()["kind"], **p.fingerprint()}
    store = SampleStore(out, fingerprint, fresh=cfg.fresh)
    items = []  # (bench, problem, key, rendered prompt)
    for b in benchmarks:
        for pr in b.problems:
            rendered = cfg.prompt.render(pr)
            items.append((b, pr, prompt_key(rendered), rendered))
    jobs, seen = [], set()
    for _b, _pr, key, rendered in items:
        if key in seen:
            continue
        seen.add(key)
        jobs += [Job(key, i, rendered) for i in range(p.k) if (key, i) not in store.samples]
    total = len(seen) * p.k
    cached = total - len(jobs)
    t0 = time.monotonic()
    try:
        with _progress(cfg.progress) as bar:
            task = bar.add_task("sampling", total=total, completed=cached, info="")
            drawn = 0

            def emit(job: Job, r: Response) -> None:
                nonlocal drawn
                store.add(job, r)
                drawn += 1
                dt = time.monotonic() - t0
                bar.update(task, advance=1, info=f"{drawn / dt:.1f}/s" if dt > 0 else "")

            if jobs:
                sampler.run(jobs, p, emit)
    finally:
        store.close()
    sample_s = time.monotonic() - t0

    rows = []  # (bench, problem, index, response)
    gkeys = []  # the grade cache key of each row
    for b, pr, key, _r in items:
        for i in range(p.k):
            r = store.samples[(key, i)]
            rows.append((b, pr, i, r))
            gkeys.append(GradeCache.key(key, i, pr.answer, r.text))
    t1 = time.monotonic()
    grader = grader_info(cfg.grade_timeout)
    cache = GradeCache(out, grader, fresh=cfg.fresh)
    todo = [j for j, gk in enumerate(gkeys) if gk not in cache.grades]
    with _progress(cfg.progress) as bar:
        task = bar.add_task("grading", total=len(rows), completed=len(rows) - len(todo), info="")
        fresh_grades = grade(
            [rows[j][3].text for j in todo],
            [rows[j][1].answer for j in todo],
            workers=cfg.grade_workers,
            timeout=cfg.grade_timeout,
            on_progress=lambda n: bar.update(task, advance=n),
            cut_off=[rows[j][3].finish_reason == "length" for j in todo],
            questions=[rows[j][1].problem for j in todo],
        )
    cache.add(list(zip([gkeys[j] for j in todo], fresh_grades, strict=True)))
    graded = [cache.grades[gk] for gk in gkeys]
    grade_s = time.monotonic() - t1

    same = same_answer(cfg.grade_timeout)
    per_bench: dict[str, list[ProblemResult]] = {}
    table_rows = []
    for start in range(0, len(rows), p.k):
        chunk = rows[start : start + p.k]
        gs = graded[start : start + p.k]
        b, pr = chunk[0][0], chunk[0][1]
        answers = [g.extracted for g in gs]
        correct = [g.correct for g in gs]
        maj = majority_vote(answers, correct, same)
        per_bench.setdefault(b.name, []).append(
            ProblemResult(
                n=p.k,
                correct=sum(correct),
                maj_correct=maj,
                no_answer=sum(a is None for a in answers),
                truncated=sum(r.finish_reason == "length" for *_, r in chunk),
                tokens=sum(r.tokens for *_, r in chunk),
            )
        )
        for (_b, _pr, i, r), g in zip(chunk, gs, strict=True):
            table_rows.append(
                {
                    "benchmark": b.name,
                    "problem_id": pr.id,
                    "sample_index": i,
                    "gold": pr.answer,
                    "response": r.text,
                    "extracted_answer": g.extracted,
                    "correct": g.correct,
                    "reason": g.reason,
                    "length": r.tokens,
                    "finish_reason": r.finish_reason,
                }
            )
    report = {
        "model": cfg.model,
        "sampler": sampler.describe(),
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "grader": grader,
        "prompt": {
            **cfg.prompt.describe(),
            "example": items[0][3] if items else None,
        },
        "sampling": {"k": p.k, **p.fingerprint()},
        "benchmarks": {},
        "overall": {},
        "warnings": warnings,
        "samples": {
            "total": total,
            "from_store": cached,
            "drawn_now": len(jobs),
            "sample_s": round(sample_s, 2),
            "graded_now": len(todo),
            "grade_s": round(grade_s, 2),
        },  # fmt: skip
    }
    usage = getattr(sampler, "usage", None)
    if usage:
        report["samples"]["requests"] = usage
    for b in benchmarks:
        report["benchmarks"][b.name] = {
            "source": b.source,
            **({"notes": b.notes} if b.notes else {}),
            **summarize(per_bench[b.name], p.k, cfg.pass_ks),
        }
    report["overall"] = mean_over_benchmarks(
        [summarize(per_bench[b.name], p.k, cfg.pass_ks) for b in benchmarks]
    )
    if len(per_bench) > 1:  # every problem weighing the same, for whoever wants that number
        report["pooled"] = summarize([r for rs in per_bench.values() for r in rs], p.k, cfg.pass_ks)
    curves = {name: pass_curve(rs) for name, rs in per_bench.items()}
    report["files"] = write_outputs(out, report, table_rows, curves)
    return report
