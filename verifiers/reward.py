"""DAPO's reward: +1 correct / -1 wrong, plus the soft overlong punishment (DESIGN.md)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from verifiers.check import Verdict, check

CHARS_PER_TOKEN = 4  # fallback when the caller has no token count: ~4 characters per token


@dataclass(frozen=True)
class RewardResult:
    """score: the training reward (+1/-1, plus `length_penalty` unless the caller turned the
    overlong penalty off); acc: 1.0/0.0 correctness; pred: what was compared (None: no answer);
    reason: check's slug; length_penalty: DAPO's R_len in [-1, 0], reported whether or not it
    entered `score`; extracted / gold: the answer and the gold as the policy read them (for logs);
    valid: False when the gold is at fault (`gold_invalid`), so the 0 is not the policy's."""

    score: float
    acc: float
    pred: str | None
    reason: str
    length_penalty: float
    extracted: str | None = None
    gold: str | None = None
    valid: bool = True


def shaped_result(
    equivalent: bool,
    pred: str | None,
    reason: str,
    length_pen: float,
    overlong_penalty: bool = True,
    read: Verdict | RewardResult | None = None,
) -> RewardResult:
    """The one place the reward is shaped: +1/-1 for the verdict, plus R_len when `overlong_penalty`.
    `read` carries what the policy read (extracted answer, gold, gold validity) into the result."""
    score = (1.0 if equivalent else -1.0) + (length_pen if overlong_penalty else 0.0)
    extracted, gold, valid = (
        (read.extracted, read.gold, read.valid) if read is not None else (None, None, True)
    )
    return RewardResult(score, 1.0 if equivalent else 0.0, pred, reason, length_pen, extracted, gold, valid)


def length_penalty(length: int, max_len: int | None, cache_len: int | None) -> float:
    """R_len: 0 up to Lmax - Lcache, then linear down to -1 at Lmax, and -1 beyond."""
    if max_len is None or cache_len is None:
        return 0.0
    if cache_len < 0 or max_len <= 0 or cache_len > max_len:
        raise ValueError(
            f"need 0 <= cache_len <= max_len and max_len > 0, got max_len={max_len}, cache_len={cache_len}"
        )
    expected = max_len - cache_len
    if length <= expected:
        return 0.0
    if length > max_len:
        return -1.0
    return (expected - length) / cache_len


def estimate_tokens(text: str) -> int:
    """Token count guess used when `length` is not given: ceil(characters / 4)."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def dapo_reward(
    completion: str,
    gold: str,
    *,
    max_len: int | None = None,
    cache_len: int | None = None,
    length: int | None = None,
    truncated: bool | None = None,
    timeout: float = 1.0,
    judge=None,
    question: str | None = None,
    cut_off: bool = False,
    overlong_penalty: bool = True,
) -> RewardResult:
    """Score one completion the DAPO way.

    `length` is the response length in tokens; without it the length is estimated as
    ceil(len(completion) / 4), so give token counts whenever the generator has them.
    A completion flagged `truncated` has no trustworthy final answer and scores as wrong.
    `judge` (a verifiers.judge.Judge, JudgeConfig or dict; off by default) is asked when the
    rules say "not equivalent" about an extracted answer; `question` is shown to it. `question` also
    refuses an answer that restates the question's own expression (verifiers.check).
    `cut_off` (graded as written, e.g. by `dapo eval`): the response stopped at the token limit, so
    only an answer line or a box is read from it (verifiers.extract).
    `overlong_penalty=False` leaves R_len out of `score` (it is still reported as `length_penalty`).
    """
    if truncated:
        v = Verdict(False, "truncated", None)
    else:
        v = check(completion, gold, timeout=timeout, cut_off=cut_off, question=question)
        v = apply_judge(v, question, gold, judge)
    n = estimate_tokens(completion) if length is None else length
    pen = length_penalty(n, max_len, cache_len)
    return shaped_result(v.equivalent, v.pred, v.reason, pen, overlong_penalty, v)


def apply_judge(verdict: Verdict, question: str | None, gold: str, judge) -> Verdict:
    """The rules' verdict, or the judge's (judge_match / judge_mismatch / judge_<failure>) when the
    rules said "not equivalent" about an extracted answer (see verifiers.judge). An equivalent
    rules verdict is never sent, so the judge can only add matches."""
    if judge is None or verdict.equivalent:
        return verdict
    from verifiers.judge import get_judge, judgeable

    if not judgeable(verdict.reason, verdict.extracted):
        return verdict
    j = get_judge(judge)
    r = j.ask(question, verdict.gold or gold, verdict.extracted)  # what the one policy read
    return Verdict(r.equivalent, r.reason, verdict.pred, verdict.extracted, verdict.gold)
