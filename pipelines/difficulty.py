"""Difficulty: the pass rate of a reference model on each kept problem.

n solutions are sampled per kept problem from any OpenAI-compatible endpoint (vLLM's server),
each with the DAPO prompt the trainer uses, and scored by the project's verifier against the
record's integer answer. The record gets `checks.difficulty = {model, n, correct, pass_rate}`
(n counts the samples that came back; pass_rate is correct / n) and the verl export copies it
into `extra_info.difficulty`. With `min_pass` / `max_pass` a problem every sample solves (or
none does) is marked `too_easy` / `too_hard`: DAPO's dynamic sampling would discard such groups
anyway, so filtering them before training saves that compute.

Samples are cached by content hash in the LLM client (model, messages, temperature, sample
index), and the stage runs through the resumable runner: a rerun after a crash or with other
filters costs no requests.
"""

from __future__ import annotations

import json

from pipelines.validate import solver_agreement


async def difficulty_record(
    record: dict,
    llm,
    *,
    n: int,
    temperature: float = 1.0,
    model: str | None = None,
    min_pass: float | None = None,
    max_pass: float | None = None,
) -> dict:
    """The record with `checks.difficulty`; outside [min_pass, max_pass] it is marked, not dropped."""
    if record.get("status") != "kept" or not record.get("answer"):
        return record
    correct, scored = await solver_agreement(
        record, llm, n, temperature
    )  # the solver's sampler: same draws, same cache
    checks = json.loads(record.get("checks") or "{}")
    rate = correct / scored if scored else None
    checks["difficulty"] = {
        "model": model or getattr(getattr(llm, "settings", None), "model", None),
        "n": scored,
        "correct": correct,
        "pass_rate": None if rate is None else round(rate, 4),
    }
    out = {**record, "checks": json.dumps(checks, sort_keys=True, ensure_ascii=False)}
    if rate is None:
        out["status"] = f"difficulty_unavailable: none of {n} samples came back"
    elif min_pass is not None and rate < min_pass:
        out["status"] = f"too_hard: pass rate {rate:.3f} < min_pass {min_pass} ({correct}/{scored})"
    elif max_pass is not None and rate > max_pass:
        out["status"] = f"too_easy: pass rate {rate:.3f} > max_pass {max_pass} ({correct}/{scored})"
    return out
