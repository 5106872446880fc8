"""Format checks on a completion: one final answer line, at the end, not cut off, not looping.

These are diagnostics for reward shaping and corpus filtering; correctness lives in check.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from verifiers.extract import _ANSWER_LINE

NGRAM = 4  # repetition is measured on word 4-grams
_TERMINAL = re.compile(r"[.!?)\]}$*`\"'\d]\s*$")


@dataclass(frozen=True)
class FormatReport:
    """What the completion's shape looks like; `ok` means it follows the DAPO answer format."""

    n_answer_lines: int
    answer_at_end: bool
    truncated: bool
    repetition_score: float
    length: int
    ok: bool


def repetition_score(text: str, n: int = NGRAM) -> float:
    """Share of word n-grams that repeat an earlier one: 0 for fresh text, near 1 for a loop."""
    words = text.split()
    total = len(words) - n + 1
    if total <= 1:
        return 0.0
    unique = len({tuple(words[i : i + n]) for i in range(total)})
    return (total - unique) / (total - 1)


def format_report(
    completion: str, *, truncated: bool | None = None, length: int | None = None
) -> FormatReport:
    """Inspect `completion`. `truncated`/`length` come from the generator when known.

    Without `truncated`, a completion counts as cut off when it has no answer line and does
    not end like a finished sentence. Without `length`, the length is in characters.
    """
    lines = [ln for ln in completion.splitlines() if ln.strip()]
    answer_lines = [
        i
        for i, ln in enumerate(lines)
        if _ANSWER_LINE.match(ln) and _ANSWER_LINE.match(ln).group("ans").strip()
    ]
    n = len(answer_lines)
    at_end = bool(answer_lines) and answer_lines[-1] == len(lines) - 1
    if truncated is None:
        truncated = n == 0 and not _TERMINAL.search(completion)
    rep = repetition_score(completion)
    length = len(completion) if length is None else length
    ok = n == 1 and at_end and not truncated and rep < 0.5
    return FormatReport(n, at_end, bool(truncated), rep, length, ok)
