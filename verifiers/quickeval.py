"""Float values of plainly written expressions, without sympy: cheap evidence of a mismatch.

`probe_values(s, symbols)` evaluates a small LaTeX subset (numbers, one-letter variables,
`+ - * / ^`, `\\cdot`, `\\times`, implicit products, parentheses and braces, `\\frac`,
`\\sqrt`, `\\pi`) at the same probe points the symbolic worker uses (every free letter set
to a distinct rational), and returns None for anything else: functions, `e` and `i`,
subscripts, mixed numbers (`2\\frac{1}{2}`), `a/bc`, overflow, complex values. Two answers
whose values clearly differ at a probe point are not equal, which is what the worker would
conclude after a parse that costs milliseconds; equal values prove nothing and are left to it.
"""

from __future__ import annotations

import math
import re

_TOKEN = re.compile(r"\s*(?:(\d+(?:\.\d+)?|\.\d+)|\\([a-zA-Z]+)|([a-zA-Z])|(\S))")
_CMDS = frozenset({"frac", "dfrac", "tfrac", "sqrt", "pi", "cdot", "times", "left", "right"})
_UNSAFE_LETTERS = frozenset("eiEI")  # Euler's number / the imaginary unit in some parsers, a symbol in others
MAX_LEN = 200
MAX_ABS = 1e300
PROBES = (0.37, 1.23)  # same points as verifiers._symworker._PROBES


class _Bail(Exception):
    pass


def _tokens(s: str) -> list[tuple[str, str]]:
    out, pos = [], 0
    while pos < len(s):
        m = _TOKEN.match(s, pos)
        if m is None or m.end() == pos:
            if s[pos:].strip():
                raise _Bail
            break
        pos = m.end()
        num, cmd, letter, sym = m.groups()
        if num is not None:
            if len(num) > 30:
                raise _Bail
            out.append(("num", num))
        elif cmd is not None:
            if cmd not in _CMDS:
                raise _Bail
            if cmd in ("left", "right"):
                continue
            out.append(("cmd", cmd))
        elif letter is not None:
            if letter in _UNSAFE_LETTERS:
                raise _Bail
            out.append(("var", letter))
        else:
            if sym not in "+-*/^(){}[]":
                raise _Bail
            out.append(("sym", sym))
    return out


class _Parser:
    def __init__(self, toks: list[tuple[str, str]], env: dict[str, float]) -> None:
        self.t, self.i, self.env = toks, 0, env
        self.big = 1.0  # largest magnitude seen: float cancellation error scales with it

    def fin(self, v: float) -> float:
        v = _finite(v)
        self.big = max(self.big, abs(v))
        return v

    def peek(self) -> tuple[str, str] | None:
        return self.t[self.i] if self.i < len(self.t) else None

    def take(self, kind: str, val: str | None = None) -> str:
        tok = self.peek()
        if tok is None or tok[0] != kind or (val is not None and tok[1] != val):
            raise _Bail
        self.i += 1
        return tok[1]

    def expr(self) -> float:
        v = self.term()
        while (tok := self.peek()) in (("sym", "+"), ("sym", "-")):
            self.i += 1
            w = self.term()
            v = v + w if tok[1] == "+" else v - w
        return self.fin(v)

    def term(self) -> float:
        v = self.unary()
        divided = False
        while True:
            tok = self.peek()
            if tok in (("sym", "*"), ("cmd", "cdot"), ("cmd", "times")):
                self.i += 1
                v *= self.unary()
            elif tok == ("sym", "/"):
                self.i += 1
                d = self.unary()
                if d == 0:
                    raise _Bail
                v, divided = v / d, True
            elif tok is not None and self._starts_atom(tok):
                mixed = tok[1] in ("frac", "dfrac", "tfrac") and self.t[self.i - 1][0] == "num"
                if divided or tok[0] == "num" or mixed:
                    raise _Bail  # `a/bc`, `2 3`, and mixed numbers `2\frac{1}{2}` read differently elsewhere
                v *= self.power()
            else:
                return self.fin(v)
            v = self.fin(v)

    @staticmethod
    def _starts_atom(tok: tuple[str, str]) -> bool:
        return tok[0] in ("num", "var") or tok in (
            ("sym", "("),
            ("sym", "{"),
            ("cmd", "frac"),
            ("cmd", "dfrac"),
            ("cmd", "tfrac"),
            ("cmd", "sqrt"),
            ("cmd", "pi"),
        )

    def unary(self) -> float:
        tok = self.peek()
        if tok in (("sym", "-"), ("sym", "+")):
            self.i += 1
            v = self.unary()
            return -v if tok[1] == "-" else v
        return self.power()

    def power(self) -> float:
        base = self.atom()
        if self.peek() == ("sym", "^"):
            self.i += 1
            tok = self.peek()
            if tok == ("sym", "{"):
                exp = self.atom()
            elif tok is not None and tok[0] == "num" and tok[1].isdigit():
                self.i += 1
                exp = float(tok[1][0])
                if len(tok[1]) > 1:  # x^23 is x^2 * 3 in LaTeX: leave it to sympy
                    raise _Bail
            elif tok is not None and tok[0] == "var":
                exp = self.atom()
            else:
                raise _Bail
            if self.peek() == ("sym", "^"):
                raise _Bail  # towers are the symbolic step's (and its budget's) business
            if base < 0 and exp != int(exp) or base == 0 and exp < 0 or abs(exp) > 1000:
                raise _Bail
            try:
                return self.fin(base**exp)
            except (OverflowError, ZeroDivisionError):
                raise _Bail from None
        return base

    def group(self) -> float:
        self.take("sym", "{")
        v = self.expr()
        self.take("sym", "}")
        return v

    def atom(self) -> float:
        tok = self.peek()
        if tok is None:
            raise _Bail
        kind, val = tok
        if kind == "num":
            self.i += 1
            return float(val)
        if kind == "var":
            self.i += 1
            return self.env[val]
        if tok == ("sym", "("):
            self.i += 1
            v = self.expr()
            self.take("sym", ")")
            return v
        if tok == ("sym", "{"):
            return self.group()
        if kind == "cmd":
            self.i += 1
            if val == "pi":
                return math.pi
            if val in ("frac", "dfrac", "tfrac"):
                n, d = self.group(), self.group()  # braceless \frac12 bails here
                if d == 0:
                    raise _Bail
                return self.fin(n / d)
            if val == "sqrt":
                if self.peek() == ("sym", "["):
                    raise _Bail
                v = self.group()
                if v < 0:
                    raise _Bail
                return math.sqrt(v)
        raise _Bail


def _finite(v: float) -> float:
    if not math.isfinite(v) or abs(v) > MAX_ABS:
        raise _Bail
    return v


def letters(s: str) -> set[str] | None:
    """The one-letter variables of `s`, or None when `s` is outside the evaluable subset."""
    try:
        return {v for k, v in _tokens(s) if k == "var"} if len(s) <= MAX_LEN else None
    except _Bail:
        return None


def probe_values(s: str, symbols: list[str]) -> list[tuple[float, float]] | None:
    """(value, largest intermediate magnitude) of `s` at each probe point (symbols[k] = probe
    + k/7), or None if `s` is not evaluable."""
    if len(s) > MAX_LEN:
        return None
    try:
        toks = _tokens(s)
        out = []
        for base in PROBES if symbols else PROBES[:1]:
            p = _Parser(toks, {name: base + k / 7 for k, name in enumerate(symbols)})
            v = p.expr()
            if p.i != len(toks):
                return None
            out.append((v, p.big))
        return out
    except (_Bail, KeyError, RecursionError, OverflowError, ZeroDivisionError, ValueError):
        return None


def clearly_differ(a: str, b: str) -> bool:
    """True when `a` and `b` evaluate at some probe point to clearly different values."""
    la, lb = letters(a), letters(b)
    if la is None or lb is None:
        return False
    syms = sorted(la | lb)
    va, vb = probe_values(a, syms), probe_values(b, syms)
    if va is None or vb is None:
        return False
    return any(
        abs(x - y) > 1e-6 * max(1.0, abs(x), abs(y)) and abs(x - y) > 1e-9 * max(bx, by)
        for (x, bx), (y, by) in zip(va, vb, strict=True)
    )
