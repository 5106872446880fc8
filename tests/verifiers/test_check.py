"""check / is_equivalent: decisions, reasons, and the hard time budget in any thread."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

import pytest

import verifiers
from verifiers import check, is_equivalent
from verifiers.symbolic import pool

SLACK_S = 0.6  # kill + join of a worker and a loaded 2-core box


@pytest.fixture(scope="module", autouse=True)
def _warm():
    verifiers.warmup()  # worker start-up is outside the budget by design (see verifiers.symbolic)


@pytest.mark.parametrize(
    "pred, gold, reason",
    [
        ("034", "34", "integer_match"),
        ("Answer: 34.", "34", "integer_match"),
        ("\\boxed{034}", "34", "integer_match"),
        ("The answer is 34.", "34", "integer_match"),
        ("12", "120", "integer_mismatch"),
        ("0.5", "\\frac{1}{2}", "numeric_match"),
        ("1.5e3", "1500", "numeric_match"),
        ("0.333", "\\frac13", "numeric_mismatch"),
        ("(1,2)", "[1,2]", "structure_mismatch"),
        ("\\{3,1,2\\}", "\\{1,2,3\\}", "structure_match"),
        ("34 or 35", "34", "hedged"),
        ("5 \\text{ cm}", "5 \\text{ m}", "unit_mismatch"),
        ("\\sqrt{8}", "2\\sqrt{2}", "symbolic_match"),
        ("1-1/e", "1+1/e", "symbolic_mismatch"),
        ("long reasoning\nwith no final answer marker\nat all", "34", "no_answer"),
    ],
)
def test_reasons(pred, gold, reason):
    v = check(pred, gold)
    assert v.reason == reason
    assert v.equivalent is reason.endswith("_match")


@pytest.mark.parametrize(
    "pred, gold",
    [
        ("\\frac{1}{2004!}", "\\frac{1}{2006!}"),  # math-verify alone rounds these to equal
        ("1-\\frac{1}{e}", "1+\\frac{1}{e}"),
        ("(1,2)", "[1,2]"),
        ("[1,2)", "[1,2]"),
        ("12", "120"),
        ("5\\text{ cm}", "5\\text{ m}"),
        ("34 or 35", "34"),
        ("\\boxed{34} or \\boxed{35}", "34"),
        ("50\\%", "5"),  # percent is symmetric (x% is x or x/100, either side), never x*10
    ],
)
def test_hard_negatives(pred, gold):
    assert is_equivalent(pred, gold) is False
    if "or" not in pred:  # a hedge is judged against a single gold, not the reverse
        assert is_equivalent(gold, pred) is False


@pytest.mark.parametrize(
    "pred, gold",
    [
        ("x^2+2x+1", "(x+1)^2"),
        ("-2 \\le x \\le 7", "[-2,7]"),
        ("1+\\sqrt{19}, 1-\\sqrt{19}", "1 \\pm \\sqrt{19}"),
        ("\\begin{bmatrix} 0.2 \\\\ -3.6 \\end{bmatrix}", "\\begin{pmatrix} 1/5 \\\\ -18/5 \\end{pmatrix}"),
        ("2x+3=y", "y = 2x + 3"),
        ("50", "50\\%"),
        ("0.5", "50\\%"),
        ("30^\\circ", "30"),
    ],
)
def test_equivalent_forms(pred, gold):
    assert is_equivalent(pred, gold)


def test_integer_and_number_paths_never_import_sympy():
    code = (
        "import sys, verifiers\n"
        "assert verifiers.check('Answer: 034', '34').reason == 'integer_match'\n"
        "assert verifiers.check('0.25', '\\\\frac{1}{4}').reason == 'numeric_match'\n"
        "assert verifiers.canonical_integer('1,000') == '1000'\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('sympy', 'math_verify')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


ADVERSARIAL = [
    ("power tower", "5^{5^{5^{5^5}}}", "34"),
    ("huge power", "10^{10^{10}}", "34"),
    ("nested braces", "\\boxed{" + "{" * 10_000 + "1" + "}" * 10_000 + "}", "34"),
    ("1 MB string", "Answer: " + "1" * 1_000_000, "34"),
    ("NUL bytes", "Answer: 3\x004", "34"),
    ("unterminated LaTeX", "Answer: \\frac{1}{2", "\\frac{1}{2}"),
    ("bad gold", "34", "\\sqrt{" * 50),
]


@pytest.mark.parametrize("name, pred, gold", ADVERSARIAL, ids=[a[0] for a in ADVERSARIAL])
def test_adversarial_inside_budget_from_a_worker_thread(name, pred, gold):
    budget = 0.5
    box: dict = {}

    def run():
        t0 = time.perf_counter()
        box["v"] = check(pred, gold, timeout=budget)
        box["t"] = time.perf_counter() - t0

    th = threading.Thread(target=run)
    th.start()
    th.join(budget + SLACK_S + 5)
    assert not th.is_alive(), f"{name}: hung"
    v = box["v"]
    assert v.equivalent is False
    if name == "bad gold":  # the gold's fault, not the response's: flagged, not a 0 to learn from
        assert v.reason == "gold_invalid" and not v.valid
    else:
        assert (
            v.reason in ("timeout", "too_large", "unparsable", "no_answer", "symbolic_mismatch") and v.valid
        )
    assert box["t"] < budget + SLACK_S, f"{name}: {box['t']:.2f}s"


def test_timeout_then_next_call_is_fast_and_right():
    assert check("5^{5^{5^{5^5}}}", "3", timeout=0.3).reason == "timeout"
    t0 = time.perf_counter()
    assert check("\\sqrt{8}", "2\\sqrt{2}", timeout=1.0).equivalent
    assert time.perf_counter() - t0 < 1.0


def test_threads_share_the_pool_safely():
    """Towers time out at their own budget while other threads' answers still come back right."""
    jobs = [
        ("5^{5^{5^{5^5}}}", "1", False, 0.3),
        ("\\sqrt{18}", "3\\sqrt{2}", True, 5.0),
        ("(x+1)^2", "x^2+2x+1", True, 5.0),
    ] * 3
    results: list = [None] * len(jobs)

    def run(i, p, g, budget):
        t0 = time.perf_counter()
        v = check(p, g, timeout=budget)
        results[i] = (v.equivalent, v.reason, time.perf_counter() - t0)

    threads = [threading.Thread(target=run, args=(i, p, g, b)) for i, (p, g, _, b) in enumerate(jobs)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(30)
    assert [r[0] for r in results] == [want for _, _, want, _ in jobs], results
    for (_, _, want, budget), (_, reason, elapsed) in zip(jobs, results, strict=True):
        assert elapsed < budget + SLACK_S
        if not want:
            assert reason == "timeout"


def test_worker_killed_from_outside_is_replaced():
    assert check("\\sqrt{4}", "2").equivalent
    for pid in pool().pids():
        os.kill(pid, signal.SIGKILL)
    time.sleep(0.1)
    assert check("\\sqrt{9}", "3").equivalent
    assert not check("\\sqrt{9}", "4").equivalent


def test_never_raises_on_odd_types():
    assert check(None, "3").reason == "unparsable"  # type: ignore[arg-type]
    assert check("3", 3).reason == "gold_invalid"  # type: ignore[arg-type]
