"""Pull the final answer out of a model's completion.

Models write answers several ways: DAPO's `Answer: 34` line, `\\boxed{34}`, GSM8K's `#### 34`,
or a short sentence. Everything here is linear-time regex or a single scan, so a 1 MB input
or 10,000 nested braces cost milliseconds and never recurse.
"""

from __future__ import annotations

import re
from functools import lru_cache

STYLES = ("auto", "answer_line", "boxed", "gsm8k", "last_number")

# `Answer: 34`, `**Answer:** 34`, `Final Answer: $34$`, `answer:34.` (case-insensitive)
_ANSWER_LINE = re.compile(
    r"^[ \t>#*_]*(?:final[ \t]+)?answer[ \t]*[*_]*[ \t]*[:：][ \t]*[*_]*[ \t]*(?P<ans>.*?)[ \t]*$",
    re.IGNORECASE | re.MULTILINE,
)
_BOXED = re.compile(r"\\(?:boxed|fbox)\s*\{")
_BOXED_SPACE = re.compile(r"\\boxed ([^\s$]+)")
_GSM8K = re.compile(r"^\s*####\s*(?P<ans>.+?)\s*$", re.MULTILINE)
_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?(?:/\d+)?|-?\.\d+")
_SENTENCE = re.compile(
    r"(?:final answer|the answer|answer)\s*(?:is|=|:)?\s*[:：]?\s*(?P<ans>.+?)\s*$", re.IGNORECASE | re.DOTALL
)
_MAX_BARE = 300  # a bare answer longer than this is prose, not an answer


def _strip_wrapping(ans: str) -> str:
    """Remove markdown emphasis, `$...$` and a trailing period around an extracted value."""
    ans = ans.strip()
    for _ in range(3):
        before = ans
        ans = ans.strip().rstrip(".。").strip().strip("*_").strip()  # `**Answer: 34**` leaves `34**`
        for left, right in (
            ("**", "**"),
            ("__", "__"),
            ("*", "*"),
            ("$$", "$$"),
            ("$", "$"),
            ("\\(", "\\)"),
            ("\\[", "\\]"),
        ):
            if len(ans) >= len(left) + len(right) and ans.startswith(left) and ans.endswith(right):
                ans = ans[len(left) : len(ans) - len(right)].strip()
        if ans == before:
            break
    return ans


_BRACE = re.compile(r"\\[{}]|[{}]")


@lru_cache(maxsize=16)
def _boxes(text: str) -> tuple[tuple[int, int, int], ...]:
    """(start, end, brace depth) of every terminated box's content, ordered by start. One pass
    over the braces, so 100,000 unterminated `\\boxed{` cost the same as one."""
    starts = {m.end() for m in _BOXED.finditer(text)}
    if not starts:
        return ()
    stack: list[int] = []
    out = []
    for m in _BRACE.finditer(text):
        tok = m.group(0)
        if len(tok) == 2:  # escaped \{ or \}: literal, not grouping
            continue
        if tok == "{":
            stack.append(m.end())
        elif stack:
            opened = stack.pop()
            if opened in starts:
                out.append((opened, m.start(), len(stack)))
    return tuple(sorted(out))


def extract_boxed(text: str) -> str | None:
    """Content of the last `\\boxed{...}` / `\\fbox{...}` with nested braces (linear scan)."""
    boxes = _boxes(text)
    if boxes:
        start, end, _ = boxes[-1]
        return text[start:end].strip()
    last = None
    for m in _BOXED_SPACE.finditer(text):
        last = m
    return last.group(1).strip() if last else None


def box_depth(text: str) -> int:
    """Brace depth at which the last box opens (0 at top level): huge means adversarial."""
    boxes = _boxes(text)
    return boxes[-1][2] if boxes else 0


def boxed_alternatives(text: str) -> list[str]:
    """Every top-level boxed value on the line of the last box: `\\boxed{34} or \\boxed{35}` -> [34, 35].

    Boxes inside boxes are one answer, not alternatives."""
    boxes = _boxes(text)
    if len(boxes) < 2:
        return []
    line_start = text.rfind("\n", 0, boxes[-1][0]) + 1
    out, outer_end = [], -1
    for a, b, _ in boxes:
        if a > outer_end:  # not inside the previous top-level box
            outer_end = b
            if a >= line_start:
                out.append(text[a:b].strip())
    return out


def _answer_line(text: str) -> str | None:
    last = None
    end = len(text)
    for _ in range(4):  # the answer line is nearly always among the last lines: look there first
        start = text.rfind("\n", 0, end) + 1
        m = _ANSWER_LINE.match(text, start, end)
        if m and m.group("ans").strip():
            last = m.group("ans")
            break
        if start == 0:
            break
        end = start - 1
    else:
        for m in _ANSWER_LINE.finditer(text):
            if m.group("ans").strip():
                last = m.group("ans")
    if last is None:
        return None
    boxed = extract_boxed(last)
    return _strip_wrapping(boxed if boxed is not None else last) or None


def _gsm8k(text: str) -> str | None:
    last = None
    for m in _GSM8K.finditer(text):
        last = m.group("ans")
    return _strip_wrapping(last).replace(",", "") if last else None


def _last_number(text: str) -> str | None:
    last = None
    for m in _NUMBER.finditer(text):
        last = m.group(0)
    return last.rstrip(".").replace(",", "") if last else None


def extract_answer(text: str, style: str = "auto") -> str | None:
    """Return the final answer written in `text`, or None when there is none.

    `auto` tries the DAPO answer line, then the last boxed value. `last_number` is never
    used unless asked for: guessing the last number of a reasoning trace rewards luck.
    """
    if style not in STYLES:
        raise ValueError(f"unknown extraction style {style!r}; use one of {', '.join(STYLES)}")
    if not isinstance(text, str) or not text:
        return None
    if style == "answer_line":
        return _answer_line(text)
    if style == "boxed":
        boxed = extract_boxed(text)
        return _strip_wrapping(boxed) if boxed else None
    if style == "gsm8k":
        return _gsm8k(text)
    if style == "last_number":
        return _last_number(text)
    ans = _answer_line(text)
    if ans is None:
        boxed = extract_boxed(text)
        ans = _strip_wrapping(boxed) if boxed else None
    return ans


def extract_prediction(text: str) -> str | None:
    """What `check` compares: a wrapped answer (line, box, `####`, "the answer is X") or a bare one.

    A bare value is accepted only when it is short and on one line; long prose without an
    answer marker has no answer.
    """
    ans = extract_answer(text, "auto")
    if ans is not None:
        return ans
    ans = _gsm8k(text)
    if ans is not None:
        return ans
    stripped = text.strip()
    tail = stripped.rsplit("\n", 1)[-1] if "\n" in stripped else stripped
    m = _SENTENCE.search(tail[-_MAX_BARE:]) if len(tail) <= 4 * _MAX_BARE else None
    if m and m.group("ans").strip():
        return _strip_wrapping(m.group("ans")) or None
    if "\n" not in stripped and len(stripped) <= _MAX_BARE:
        return _strip_wrapping(stripped) or None
    return None
