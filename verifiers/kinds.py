"""Cheap answer kinds, so that pairs whose kinds can never be equal are decided without sympy.

`answer_kind` classifies a normalised answer with regexes and one linear scan: number,
constant (an expression with no free letters, e.g. `2\\sqrt{5}`), expression, text, tuple,
interval (also unions of intervals), set, matrix, list, equation, inequality, or `other`
(anything with commas, `\\pm`, `\\in`, `\\cup`, ... that a cheap scan cannot place). `other`
and `list` are never decided here. Where a mismatch is not certain the pair goes on to the
symbolic step; a false "mismatch" here would be a false negative, so the rules are narrow.

Edge cases keep the behaviour the labelled corpus and tests pin down: `x=3` vs `3` is
decided before this (normalize strips `x =`), a one-element set `\\{3\\}` is not the number
`3`, `(3)` (not a tuple: one element) vs `3` and a choice letter `(C)` vs `C` still go to
the symbolic step.
"""

from __future__ import annotations

import re

from verifiers.numbers import parse_number
from verifiers.structure import parse_structure, split_top

_RELATION = re.compile(
    r"(?<![<>!\\])=|<|>|\\[lg]eq?(?![a-zA-Z])|\\neq?(?![a-zA-Z])|\\[lg]eqslant|\\ne(?![a-zA-Z])"
)
_ONLY_EQ = re.compile(r"(?<![<>!\\])=")
# markers of sets, several answers or membership: such answers are left to the symbolic step
_OTHER = re.compile(
    r"\\(?:cup|cap|setminus|emptyset|varnothing|mathbb|in|infty|langle|rangle|begin|pm|mp|mid|forall|exists)"
    r"(?![a-zA-Z])|\\[{}]|[,;:|]|\\text|\\mathrm|\\operatorname"
)
# commands that denote constants or operations, never a free variable
_CONST_CMD = re.compile(
    r"\\(?:frac|dfrac|tfrac|sqrt|pi|cdot|times|div|circ|left|right|log|ln|sin|cos|tan|cot|sec|csc|"
    r"arcsin|arccos|arctan|exp|binom|dbinom|tbinom)(?![a-zA-Z])"
)
_CHOICE = re.compile(r"\(\s*[A-Za-z]\s*\)")
_WORDS = re.compile(r"[A-Za-z][A-Za-z'.]*(?:\s+[A-Za-z][A-Za-z'.]*)*")
_MEMBER = re.compile(r"^\\?[a-zA-Z]+\s*\\in\s*(?=[(\[{\\])")

SCALARS = frozenset({"number", "constant"})
BRACKETED = frozenset({"tuple", "interval", "set", "matrix"})
RELATIONS = frozenset({"equation", "inequality"})


def strip_membership(s: str) -> str:
    """`x \\in [-2,7]` -> `[-2,7]`: the set a one-variable membership answer names."""
    m = _MEMBER.match(s)
    return s[m.end() :].strip() if m else s


def _is_text(s: str) -> bool:
    """Prose or a multiple-choice letter: `Evelyn`, `east`, `(C)`, `no solution`.

    A word needs three letters or a space: `ab` and `xy` are products of variables."""
    if _CHOICE.fullmatch(s):
        return True
    return bool(_WORDS.fullmatch(s)) and (" " in s or len(s) >= 3)


def answer_kind(s: str) -> str:
    """The kind of a normalised answer (see the module docstring)."""
    s = s.strip()
    if parse_number(s.rstrip("%").strip()) is not None:
        return "number"
    st = parse_structure(s)
    if st is not None:
        if st.kind == "seq":
            return "tuple" if st.brackets == "()" and "\\infty" not in s else "interval"
        return {"matrix": "matrix", "set": "set"}.get(st.kind, "list")
    if "\\cup" in s:
        parts = split_top(s, "\\cup")
        if parts and len(parts) >= 2 and all(answer_kind(p) in ("tuple", "interval", "set") for p in parts):
            return "interval"
        return "other"
    if _RELATION.search(s):
        rels = _RELATION.findall(s)
        return "equation" if all(_ONLY_EQ.fullmatch(r) for r in rels) else "inequality"
    if _is_text(s):
        return "text"
    if _OTHER.search(s):
        return "other"
    if not re.search(r"[A-Za-z]", _CONST_CMD.sub("", s)):
        return "constant"
    return "expression"


def _letters(s: str) -> set[str]:
    return set(re.findall(r"[A-Za-z]", re.sub(r"\\[a-zA-Z]+", "", s)))


def _text_cannot_be(text: str, expr: str) -> bool:
    """A word is never an expression with digits in it, unless the word could be a product of
    that expression's variables (`xxx` vs `x^3`)."""
    return bool(re.search(r"\d", expr)) and not _letters(text) <= _letters(expr)


def _one_way(a: str, ka: str, b: str, kb: str) -> bool:
    if ka in SCALARS:
        return kb in BRACKETED or kb in RELATIONS or kb == "text"
    if ka == "expression":
        return kb in BRACKETED or (kb == "text" and _text_cannot_be(b, a))
    if ka == "text":
        return kb in BRACKETED or kb in RELATIONS
    if ka == "matrix":
        return kb in ("tuple", "interval", "set", "list", "equation", "inequality")
    return False


def kinds_differ(pred: str, gold: str) -> bool:
    """True when `pred` and `gold` are of kinds that can never be equal (no sympy needed)."""
    if pred == gold:
        return False
    kp, kg = answer_kind(pred), answer_kind(gold)
    if kp == kg:
        return False
    return _one_way(pred, kp, gold, kg) or _one_way(gold, kg, pred, kp)
