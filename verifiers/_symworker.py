"""Child side of the symbolic step: runs in its own process, never in the caller's.

Imported (and warmed with one parse) in the forkserver, so a replacement worker forked
after a timeout is ready in milliseconds. The parent kills this process when the budget
runs out; nothing here needs to be interruptible. Each task comes with its budget, and
the worker caps its own CPU time at what it has used plus that budget plus CPU_SLACK
(RLIMIT_CPU: the kernel kills it with SIGXCPU, even inside C code holding the GIL), so a
runaway computation ends even if nobody is left to kill it.
"""

from __future__ import annotations

import logging
import math
import os
import re

import sympy
from math_verify import ExprExtractionConfig, LatexExtractionConfig, parse, verify

from verifiers.normalize import CHINESE_QUALIFIER

logging.getLogger("math_verify").setLevel(logging.CRITICAL)  # we disable its alarm timeouts on purpose
_LATEX, _EXPR = [LatexExtractionConfig()], [ExprExtractionConfig()]
# the plain-expression reading takes a fragment of what LaTeX cannot parse (`5或10` -> 5, `5 # 10` -> 10):
# trusted only for one number (however often written) among words that do not change it
_NUMBER_RUN = re.compile(r"\d[\d,]*(?:\.\d+)?")
_CHANGES_VALUE = re.compile(CHINESE_QUALIFIER.pattern + r"|或|[十百千万亿兆](?![米克瓦升])")
_MEMORY_HEADROOM = 2 << 30  # bytes of address space a worker may add before MemoryError
CPU_SLACK = 2.0  # CPU seconds a task may use beyond its wall-clock budget before SIGXCPU


# a decimal under a root or in an exponent, which the parser would evaluate to a float at once (`\\sqrt{0.51}` read as
# 0.714142842854285): written as the fraction it is first, so that `10\\sqrt{0.51}` stays `\\sqrt{51}`
_DECIMAL_INSIDE = re.compile(r"(\\sqrt(?:\[[^\]]*\])?\{|\^\{)\s*(\d+)\.(\d+)\s*\}")


def _parse(text: str):
    text = _DECIMAL_INSIDE.sub(lambda m: f"{m[1]}\\frac{{{int(m[2] + m[3])}}}{{{10 ** len(m[3])}}}}}", text)
    got = parse(f"${text}$", extraction_config=_LATEX, parsing_timeout=None, raise_on_error=False)
    if any(not isinstance(x, str) for x in got):
        return got
    if len(set(_NUMBER_RUN.findall(text))) != 1 or _CHANGES_VALUE.search(text):
        return []
    return parse(f"${text}$", extraction_config=_EXPR, parsing_timeout=None, raise_on_error=False)


def _numbers_agree(a, b) -> bool:
    """Reject math-verify's rounded matches between distinct numbers (1/2004! vs 1/2006!, a
    16-digit decimal vs \\frac{\\sqrt{3}}{2}): numbers are equal only when their difference
    evaluates to zero with no significant digit."""
    if not (isinstance(a, sympy.Expr) and isinstance(b, sympy.Expr)):
        return True
    if not (a.is_number and b.is_number):
        return True
    if a == b:
        return True
    return _constants_agree(a, b)


_PROBES = (sympy.Rational(37, 100), sympy.Rational(123, 100))


def _value(e, subs):
    """A complex value of e with its free symbols substituted, or None."""
    try:
        v = complex(e.evalf(20, subs=subs))
    except (TypeError, ValueError, ZeroDivisionError, AttributeError, OverflowError):
        return None
    return v if v == v and abs(v) != float("inf") else None


def _probe(a, b) -> bool | None:
    """Numeric evidence: False when a and b clearly differ somewhere, True when they agree at
    every probe point (every free symbol set to a distinct rational), None when it can't tell.

    A difference is proof, so sympy.simplify is never reached for most wrong answers.
    """
    if isinstance(a, sympy.Set) != isinstance(b, sympy.Set):
        other = b if isinstance(a, sympy.Set) else a
        the_set = a if isinstance(a, sympy.Set) else b
        if isinstance(other, sympy.Expr) and isinstance(the_set, (sympy.Interval, sympy.Union)):
            return False
        return None
    if not (isinstance(a, sympy.Expr) and isinstance(b, sympy.Expr)):
        return None
    if a.has(sympy.Sum, sympy.Product, sympy.Integral) or b.has(sympy.Sum, sympy.Product, sympy.Integral):
        return None  # evaluating these at non-integer probe points is slow and proves little
    syms = sorted(a.free_symbols | b.free_symbols, key=str)
    for base in _PROBES if syms else _PROBES[:1]:
        subs = {s: base + sympy.Rational(k, 7) for k, s in enumerate(syms)}
        x, y = _value(a, subs), _value(b, subs)
        if x is None or y is None:
            return None
        if abs(x - y) > 1e-7 * max(1.0, abs(x), abs(y)):
            return False
    return True


def _constants_agree(a, b) -> bool:
    """Two constant expressions whose difference evaluates to zero with no significant digit
    (nested radicals written in another order, where sympy.simplify takes seconds). evalf works
    the difference to 30 significant digits, so 10^{100}+1 against 10^{100} still differs by 1."""
    if not (isinstance(a, sympy.Expr) and isinstance(b, sympy.Expr)) or a.free_symbols or b.free_symbols:
        return False
    return _difference(a, b) == "zero"


def _difference(a, b) -> str:
    """'zero', 'nonzero' or 'unknown' for the difference of two constants, by evalf to 30 digits."""
    if not (isinstance(a, sympy.Expr) and isinstance(b, sympy.Expr)) or a.free_symbols or b.free_symbols:
        return "unknown"
    try:
        d = (a - b).evalf(30, maxn=4000)  # maxn: 2^{1/2^{1000}} - 1 is 6.5e-302, not zero
    except (TypeError, ValueError, ArithmeticError):
        return "unknown"
    if d == 0:
        return "zero"
    if isinstance(d, sympy.Float):
        return "zero" if d._prec <= 1 else "nonzero"
    if d.is_number and isinstance(d, sympy.Add | sympy.Mul) is False:
        return "unknown"
    try:
        re_, im_ = d.as_real_imag()
        parts = [x for x in (re_, im_) if x != 0]
        if parts and all(isinstance(x, sympy.Float) and x._prec > 1 for x in parts):
            return "nonzero"
        if all(isinstance(x, sympy.Float) and x._prec <= 1 for x in parts):  # complex: both parts zero
            return "zero"  # (`\sqrt2 e^{i\pi/4}` against `1+i`: exp is never expanded by simplify)
    except (TypeError, ValueError, AttributeError):
        pass
    return "unknown"


def _imaginary(e):
    """The letter i as the imaginary unit (`i(2-i)` is `1+2i`)."""
    if not isinstance(e, sympy.Basic):
        return e
    found = {sym: sympy.I for sym in e.free_symbols if getattr(sym, "name", None) == "i"}
    return e.subs(found) if found else e


def _as_set(e):
    """A one-variable inequality as the set it describes (`-x > -1` -> (-oo, 1)), else e."""
    if isinstance(e, sympy.core.relational.Relational) and not isinstance(e, sympy.Eq):
        syms = e.free_symbols
        if len(syms) == 1:
            try:
                return e.as_set()
            except (NotImplementedError, TypeError, ValueError):
                return e
    return e


def _equations(g, p) -> str | None:
    """Two equations of curves: equal when lhs - rhs of one is a nonzero constant times the other's."""
    if not (isinstance(g, sympy.Eq) and isinstance(p, sympy.Eq)):
        return None
    dg, dp = g.lhs - g.rhs, p.lhs - p.rhs
    if dg == 0 or dp == 0 or not (dg.free_symbols and dp.free_symbols):
        return None
    if dg.free_symbols != dp.free_symbols:
        return "mismatch"
    ratio = sympy.simplify(dg / dp)
    return "match" if ratio.is_number and ratio != 0 and ratio.is_finite else "mismatch"


def _evaluate_set(e):
    """A set expression rebuilt with evaluation on (the parser keeps `[1,2] \\cap [2,3]` unevaluated)."""
    if isinstance(e, sympy.Union | sympy.Intersection | sympy.Complement):
        try:
            return e.func(*(_evaluate_set(a) for a in e.args))
        except (TypeError, ValueError):
            return e
    if isinstance(e, sympy.FiniteSet) and type(e) is not sympy.FiniteSet:
        return sympy.FiniteSet(*e.args)  # the parser's own FiniteSet subclass compares unequal to sympy's
    return e


def _has_decimal(*es) -> bool:
    """A written decimal (a sympy Float) on either side of two expressions."""
    return any(isinstance(e, sympy.Expr) and bool(e.atoms(sympy.Float)) for e in es)


def _rational(e):
    """Decimals as the exact rationals they write (`x \\ne -1.5` is `x \\ne -\\frac{3}{2}`;
    `0.333333333333333` is 333333333333333/10^15, never 1/3): the shortest decimal that reads back
    as the parsed float, which is what was written for up to 17 significant digits."""
    try:
        floats = e.atoms(sympy.Float)
    except (AttributeError, TypeError):
        return e
    if not floats:
        return e
    try:
        return e.xreplace({f: sympy.Rational(repr(float(f)) if f._prec <= 53 else str(f)) for f in floats})
    except (TypeError, ValueError, OverflowError):
        return e


def compare(pred: str, gold: str) -> str:
    """'match', 'mismatch' or 'unparsable' for two normalised answers."""
    g, p = _parse(gold), _parse(pred)
    if not g or not p:
        return "unparsable"
    g0, p0 = _imaginary(g[0]), _imaginary(p[0])
    for e in (g0, p0):
        if isinstance(e, sympy.Basic) and e.has(sympy.zoo, sympy.nan):
            return "unparsable"  # `1:00` read as 1/0: no value to compare
    if g0 == p0:  # structurally equal after sympy's canonical ordering (commuted terms)
        return "match"
    eq = _equations(g0, p0)
    if eq is not None:
        return eq
    gs, ps = _as_set(g0), _as_set(p0)
    if (gs is not g0 or ps is not p0) and isinstance(gs, sympy.Set) and isinstance(ps, sympy.Set):
        if gs == ps or _rational(gs) == _rational(ps):
            return "match"
        return (
            "match"
            if sympy.simplify(sympy.SymmetricDifference(_rational(gs), _rational(ps))) == sympy.S.EmptySet
            else "mismatch"
        )
    if isinstance(g0, sympy.Set) and isinstance(p0, sympy.Set):
        gd, pd = _rational(_evaluate_set(g0)), _rational(_evaluate_set(p0))  # unions, intersections evaluated
        if gd == pd:
            return "match"
        if isinstance(gd, sympy.FiniteSet | sympy.Interval) and isinstance(
            pd, sympy.FiniteSet | sympy.Interval
        ):
            return "mismatch"
    probe = _probe(g0, p0)
    if probe is False:
        return "mismatch"
    if str(g0) == str(p0):  # the same printed form (commuted factors the parser kept apart)
        return "match"
    diff = _difference(g0, p0) if probe else "unknown"
    if diff != "unknown":  # constants: decided by their difference, never by simplify's search
        return "match" if diff == "zero" else "mismatch"
    if (g0 is not g[0] or p0 is not p[0]) and probe:
        return "match" if sympy.simplify(g0 - p0) == 0 else "mismatch"
    if probe and _has_decimal(g0, p0):  # a decimal is the rational it writes (verifiers.check's docstring)
        gr, pr = _rational(g0), _rational(p0)
        return "match" if sympy.simplify(gr - pr) == 0 else "mismatch"
    if not verify(g, p, timeout_seconds=None):
        # math-verify can miss plain algebraic equality (`1\cdot(x)` vs `x`); the probes agreed,
        # so ask sympy for an exact answer
        if probe and sympy.simplify(g0 - p0) == 0:
            return "match"
        return "mismatch"
    return "match" if _numbers_agree(g0, p0) else "mismatch"


def _limit_memory() -> None:
    try:
        import resource

        with open("/proc/self/statm") as f:
            vm = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        resource.setrlimit(resource.RLIMIT_AS, (vm + _MEMORY_HEADROOM, resource.RLIM_INFINITY))
    except (OSError, ValueError, ImportError):
        pass


def limit_cpu(budget: float | None) -> None:
    """Let this process use at most `budget` + CPU_SLACK more CPU seconds (RLIMIT_CPU soft
    limit; SIGXCPU's default action kills it). None or a non-finite budget: no bound."""
    try:
        import resource

        _soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
        if budget is None or not math.isfinite(budget):
            soft = hard
        else:
            r = resource.getrusage(resource.RUSAGE_SELF)
            soft = math.ceil(r.ru_utime + r.ru_stime + max(0.0, budget) + CPU_SLACK)
            if hard != resource.RLIM_INFINITY:
                soft = min(soft, hard)
        resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))
    except (OSError, ValueError, ImportError):  # pragma: no cover - no setrlimit
        pass


def _no_core_dumps() -> None:
    """SIGXCPU's default action dumps core; a killed worker should leave nothing behind."""
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_CORE, (0, resource.getrlimit(resource.RLIMIT_CORE)[1]))
    except (OSError, ValueError, ImportError):  # pragma: no cover
        pass


def serve(conn) -> None:
    """Answer `(pairs, budget_seconds)` tasks (or bare pair lists: no CPU bound) until the
    parent closes the pipe."""
    _limit_memory()
    _no_core_dumps()
    conn.send(("ready", os.getpid()))
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return
        pairs, budget = msg if isinstance(msg, tuple) else (msg, None)
        limit_cpu(budget)
        out = []
        for pred, gold in pairs:
            try:
                out.append(compare(pred, gold))
            except MemoryError:
                out.append("too_large")
            except Exception:  # a parser bug is an unparsable answer, not a dead worker
                out.append("unparsable")
        conn.send(out)


# One comparison of each kind loads sympy's lazily imported parts (simplify, sets, matrices,
# relations) here, in the forkserver when preloaded, so forked workers never pay for it.
_WARM = [
    ("(x+1)^2", "x^2+2x+1"),
    ("\\sqrt{18}", "3\\sqrt{2}"),
    ("x<3", "3>x"),
    ("\\{1,2\\}", "\\{2,1\\}"),
    ("[1,2)", "[1,2)"),
    ("(-\\infty,1)\\cup(2,\\infty)", "(-\\infty,1)\\cup(2,\\infty)"),
    ("\\begin{pmatrix}1\\\\2\\end{pmatrix}", "\\begin{pmatrix}1\\\\2\\end{pmatrix}"),
    ("x=2", "y=2"),
    ("\\frac{1}{2004!}", "\\frac{1}{2006!}"),
    ("\\sin^2 x+\\cos^2 x", "1"),
    ("e^{i\\pi}", "-1"),
    ("\\log_2 8", "3"),
    ("i(2-i)", "1+2i"),
    ("-x>-1", "(-\\infty,1)"),
    ("y=2x+1", "2x-y+1=0"),
    ("\\sqrt{x^2}", "x"),
    ("\\ln(ab)", "\\ln a+\\ln b"),
    ("[1,2]\\cap[2,3]", "\\{2\\}"),
    ("x \\ne -1.5", "x \\ne -\\frac{3}{2}"),
]
for _p, _g in _WARM:
    compare(_p, _g)
