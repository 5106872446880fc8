"""Child side of the symbolic step: runs in its own process, never in the caller's.

Imported (and warmed with one parse) in the forkserver, so a replacement worker forked
after a timeout is ready in milliseconds. The parent kills this process when the budget
runs out; nothing here needs to be interruptible.
"""

from __future__ import annotations

import logging
import os

import sympy
from math_verify import ExprExtractionConfig, LatexExtractionConfig, parse, verify

logging.getLogger("math_verify").setLevel(logging.CRITICAL)  # we disable its alarm timeouts on purpose
_CONFIG = [LatexExtractionConfig(), ExprExtractionConfig()]
_MEMORY_HEADROOM = 2 << 30  # bytes of address space a worker may add before MemoryError


def _parse(text: str):
    return parse(f"${text}$", extraction_config=_CONFIG, parsing_timeout=None, raise_on_error=False)


def _numbers_agree(a, b) -> bool:
    """Reject math-verify's rounded matches between distinct numbers (1/2004! vs 1/2006!)."""
    if not (isinstance(a, sympy.Expr) and isinstance(b, sympy.Expr)):
        return True
    if not (a.is_number and b.is_number):
        return True
    if sympy.simplify(a - b) == 0:
        return True
    x, y = sympy.N(a, 40), sympy.N(b, 40)
    if not (x.is_finite and y.is_finite):
        return x == y
    scale = max(abs(x), abs(y))
    return bool(abs(x - y) <= sympy.Float("1e-12", 40) * scale)


def compare(pred: str, gold: str) -> str:
    """'match', 'mismatch' or 'unparsable' for two normalised answers."""
    g, p = _parse(gold), _parse(pred)
    if not g or not p:
        return "unparsable"
    if not verify(g, p, timeout_seconds=None):
        return "mismatch"
    return "match" if _numbers_agree(g[0], p[0]) else "mismatch"


def _limit_memory() -> None:
    try:
        import resource

        with open("/proc/self/statm") as f:
            vm = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        resource.setrlimit(resource.RLIMIT_AS, (vm + _MEMORY_HEADROOM, resource.RLIM_INFINITY))
    except (OSError, ValueError, ImportError):
        pass


def serve(conn) -> None:
    """Answer (pred, gold) pair lists until the parent closes the pipe."""
    _limit_memory()
    conn.send(("ready", os.getpid()))
    while True:
        try:
            pairs = conn.recv()
        except (EOFError, OSError):
            return
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
]
for _p, _g in _WARM:
    compare(_p, _g)
