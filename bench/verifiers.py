"""Benchmark the verifiers against math-verify and a bare regex, all in one run on the same data.

    python bench/verifiers.py [--quick] [--length-only] [--out bench/results/verifiers.json]

(a) throughput on DAPO-format completions (long reasoning, `Answer:` line, integer golds), best of 3;
(b) p50/p99 latency of `is_equivalent` on MATH-500 answers (each vs itself and vs a neighbour);
(c) the worst call on the adversarial set (time and result, against the budget);
(d) accuracy, false positives and false negatives on the labelled corpus, ours vs math-verify;
(e) cost against the reasoning's length: CPU time per completion at ~1.5k and ~66k characters
    (answer line, final box, a corrected box, chat debris after the answer), interleaved rounds,
    ours and math-verify in the same run; targets: 66k >= half the 1.5k throughput, >= 100x
    math-verify at both lengths. `--length-only` runs (e) alone.

math-verify runs on a main thread (its timeout is signal.alarm). Where the input may hang it
(adversarial set, corpus, MATH-500) it runs in a child process on that child's main thread; a
call that outlives the wall limit kills the child and counts as a failure of the peer.
"""

from __future__ import annotations

import argparse
import gc
import json
import multiprocessing as mp
import os
import random
import re
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.progress import track
from rich.table import Table

ROOT = Path(__file__).resolve().parents[1]
# Run as `python bench/verifiers.py`, this file's folder is sys.path[0] and would shadow the package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
CORPUS = ROOT / "tests" / "verifiers" / "data" / "labelled_corpus.jsonl"
MATH500 = ROOT / "mathdata" / "benchmarks" / "math500.jsonl"
BUDGET_S = 1.0
SLACK_S = 0.05  # process teardown allowance when judging "over the budget"
console = Console()


# --- data ------------------------------------------------------------------------------------------

ANSWER_LINES = ["Answer: {}", "Answer: ${}$", "**Answer:** {}", "Answer: {}."]
SENTENCES = [
    "Substituting $x = {a}$ into $x^2 - {b}x + {c}$ gives ${abc}$, which is not what we need.",
    "By the quadratic formula, $x = \\frac{{{b} \\pm \\sqrt{{{b}^2 - 4 \\cdot {c}}}}}{{2}}$.",
    "We note that $\\binom{{{a}}}{{2}} = \\frac{{{a}({a}-1)}}{{2}}$ counts the pairs.",
    "Hence \\[ \\frac{{{a}}}{{{b}}} + \\frac{{{c}}}{{{b}}} = \\frac{{{ac}}}{{{b}}}. \\]",
    "Since ${a} \\equiv {r} \\pmod{{{b}}}$, the remainder is ${r}$.",
    "The area of the triangle is $\\frac{{1}}{{2}} \\cdot {a} \\cdot {b} \\sin\\theta$.",
    "Let us check the case $n = {a}$ separately, because the argument above assumed $n > {b}$.",
    "Therefore the sum of the first ${a}$ terms is $S_{{{a}}} = {s}$, and we continue.",
    "Now consider the remaining cases one at a time and count how many of them satisfy the condition.",
    "This is consistent with the bound we derived earlier, so no other values are possible.",
]


def dapo_completions(n: int, seed: int = 0) -> list[tuple[str, str, bool]]:
    """(completion, gold, is_right): a few hundred words of LaTeX-dense working (as Qwen-style
    models write it) with stray numbers, then an `Answer:` line that is right about half the time."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        gold = rng.randint(0, 999)
        right = rng.random() < 0.5
        pred = gold if right else gold + rng.choice([-10, -1, 1, 2, 100])
        parts, words, target = [], 0, rng.randint(200, 400)
        while words < target:
            a, b, c = rng.randint(2, 60), rng.randint(2, 30), rng.randint(1, 99)
            sentence = rng.choice(SENTENCES).format(
                a=a, b=b, c=c, abc=a * a - b * a + c, ac=a + c, r=a % b, s=a * (a + 1) // 2
            )
            parts.append(sentence)
            words += len(sentence.split())
        out.append((" ".join(parts) + "\n\n" + rng.choice(ANSWER_LINES).format(pred), str(gold), right))
    return out


def materialize(gen: dict) -> str:
    return gen.get("prefix", "") + gen["repeat"] * int(gen["times"]) + gen.get("suffix", "")


def load_corpus() -> list[dict]:
    cases = []
    for line in CORPUS.read_text(encoding="utf-8").splitlines():
        c = json.loads(line)
        c["pred"] = materialize(c["pred_gen"]) if "pred_gen" in c else c["pred"]
        c["gold"] = materialize(c["gold_gen"]) if "gold_gen" in c else c["gold"]
        cases.append(c)
    return cases


def extra_adversarial() -> list[tuple[str, str]]:
    """Generated inputs beyond the corpus (none of them equivalent to its gold)."""
    return [
        ("5^{5^{5^{5^5}}}", "5^{5^{5^{5^5}}}+1"),
        ("\\boxed{5^{5^{5^{5^5}}}}", "1"),
        ("Answer: 10^{10^{10^{10}}}", "7"),
        ("(" * 50_000, ")" * 50_000),
        ("\\frac{" * 20_000, "1"),
        ("\\left(" * 5_000 + "1", "1"),
        ("1^" * 20_000 + "1", "2"),
        ("\x00" * 100_000, "0"),
        ("$" * 100_000, "0"),
    ]


# --- the three ways of scoring ------------------------------------------------------------------

REGEX = re.compile(r"answer:\**\s*\$?\s*(-?\d+)", re.IGNORECASE)


def regex_score(completion: str, gold: str) -> bool:
    """The limit: last `Answer:` integer, compared as int. Knows nothing else."""
    found = REGEX.findall(completion)
    return bool(found) and int(found[-1]) == int(gold)


MV_ANCHORS = re.compile(r"(?<!\\)\$|\\boxed|\\\(|\\\[|answer", re.IGNORECASE)


def mv_score(pred: str, gold: str) -> bool:
    """math-verify as its README shows it: parse both, verify(gold, pred). A bare answer (no `$`,
    `\\boxed`, `\\(`, `\\[` or `answer`) is wrapped in `$...$`, which is how it wants LaTeX."""
    from math_verify import parse, verify

    def wrap(s: str) -> str:
        return s if MV_ANCHORS.search(s) else f"${s}$"

    return bool(verify(parse(wrap(gold)), parse(wrap(pred))))


def _mv_child(conn) -> None:
    """Child loop: score (pred, gold) pairs with math-verify on this process's main thread."""
    import logging

    import math_verify  # noqa: F401  (import once, before the clock starts)

    logging.getLogger("math_verify").setLevel(logging.CRITICAL)  # it logs whole inputs on timeout

    while True:
        job = conn.recv()
        if job is None:
            return
        pred, gold = job
        t0 = time.perf_counter()
        try:
            res, err = mv_score(pred, gold), None
        except BaseException as e:  # the peer's failure is data, not a crash of the bench
            res, err = False, f"{type(e).__name__}: {e}"[:200]
        conn.send((res, time.perf_counter() - t0, err))


class GuardedMathVerify:
    """math-verify in a child process; a call past `limit_s` kills the child and counts as a hang."""

    def __init__(self, limit_s: float):
        self.limit_s = limit_s
        self.ctx = mp.get_context("spawn")
        self.proc = None

    def _start(self) -> None:
        self.conn, child = self.ctx.Pipe()
        self.proc = self.ctx.Process(target=_mv_child, args=(child,), daemon=True)
        self.proc.start()
        self.conn.send(("1", "1"))  # warm up: imports and the first parse
        self.conn.recv()

    def __call__(self, pred: str, gold: str) -> tuple[bool, float, str | None]:
        """(equivalent, seconds, error or 'hang')."""
        if self.proc is None or not self.proc.is_alive():
            self._start()
        t0 = time.perf_counter()
        self.conn.send((pred, gold))
        if self.conn.poll(self.limit_s):
            return self.conn.recv()
        self.proc.kill()
        self.proc.join()
        self.proc = None
        return False, time.perf_counter() - t0, "hang"

    def close(self) -> None:
        if self.proc is not None and self.proc.is_alive():
            self.conn.send(None)
            self.proc.join(5)


# --- the four measurements ------------------------------------------------------------------------


def bench_throughput(n: int) -> dict:
    import math_verify

    import verifiers

    data = dapo_completions(n)
    math_verify.parse("1")
    verifiers.warmup()
    res = {}

    def run(name, fn, passes=3):
        """Best of `passes` full passes (no progress bar inside the timed loop). Distinct texts
        in order, so a small per-text cache in any method cannot help it across passes."""
        dt = float("inf")
        with console.status(f"(a) {name} on {n} completions, best of {passes}"):
            for _ in range(passes):
                t0 = time.perf_counter()
                got = [fn(c, g) for c, g, _ in data]
                dt = min(dt, time.perf_counter() - t0)
        acc = sum(bool(x) == right for x, (_, _, right) in zip(got, data, strict=True)) / len(data)
        res[name] = {"seconds": dt, "per_s": len(data) / dt, "accuracy": acc}

    run("dapo_reward", lambda c, g: verifiers.dapo_reward(c, g).acc)
    run("is_equivalent", lambda c, g: verifiers.is_equivalent(c, g))
    run("math_verify", mv_score)  # main thread, benign data
    run("regex_limit", regex_score)
    return {"n": n, "methods": res}


LENGTHS = (1_500, 66_000)
LENGTH_STYLES = ("answer_line", "final_box", "corrected_box", "debris")


def padded_completions(n: int, chars: int, style: str, seed: int = 0) -> list[tuple[str, str, bool]]:
    """`dapo_completions`' answers after working of whole sentences (LaTeX spans never cut) up to
    about `chars` characters, the final answer written in `style`: the cost of reading it must not
    grow with the working before it."""
    rng = random.Random(seed)
    out = []
    for text, gold, right in dapo_completions(n, seed):
        line = text.rsplit("\n\n", 1)[1]
        pred = re.search(r"-?\d+", line).group(0)
        end = {
            "answer_line": "\n\n" + line,
            "final_box": f"\n\nSo the final answer is $\\boxed{{{pred}}}$.",
            "corrected_box": f" This gives \\boxed{{{int(pred) + 3}}}. Wait, that is wrong: recheck. "
            f"The count is \\boxed{{{pred}}}.",
            "debris": "\n\n" + line + "<|im_end|>\n<|im_start|>user\nAnswer: 0",
        }[style]
        parts: list[str] = []
        size = 0
        while True:
            a, b, c = rng.randint(2, 60), rng.randint(2, 30), rng.randint(1, 99)
            sentence = rng.choice(SENTENCES).format(
                a=a, b=b, c=c, abc=a * a - b * a + c, ac=a + c, r=a % b, s=a * (a + 1) // 2
            )
            if size + len(sentence) + 1 + len(end) > chars:
                break
            parts.append(sentence)
            size += len(sentence) + 1
        out.append((" ".join(parts) + end, gold, right))
    return out


def bench_length(n: int, n_mv: int, rounds: int) -> dict:
    """CPU seconds (time.process_time: this process; integer golds never wake the symbolic worker)
    per pass over n completions of each length and style, in interleaved rounds (the order rotates
    each round), median of the rounds, garbage collection off inside a pass (as timeit); math-verify on the answer-line completions, n_mv of them."""
    import math_verify

    import verifiers

    math_verify.parse("1")
    verifiers.warmup()
    data = {(style, k): padded_completions(n, k, style) for style in LENGTH_STYLES for k in LENGTHS}
    jobs = [("ours", style, k) for style in LENGTH_STYLES for k in LENGTHS]
    jobs += [("math_verify", "answer_line", k) for k in LENGTHS]
    times: dict[tuple, list[float]] = {j: [] for j in jobs}
    verdicts: dict[tuple, list[bool]] = {}
    for r in track(range(rounds), description="(e) cost vs length       ", console=console):
        for who, style, k in jobs[r % len(jobs) :] + jobs[: r % len(jobs)]:
            items = data[(style, k)] if who == "ours" else data[(style, k)][:n_mv]
            score = (lambda c, g: verifiers.dapo_reward(c, g).acc == 1.0) if who == "ours" else mv_score
            gc.collect()
            gc.disable()  # as timeit does: a collection would bill whoever allocated last
            try:
                t0 = time.process_time()
                got = [score(c, g) for c, g, _ in items]
                times[(who, style, k)].append((time.process_time() - t0) / len(items))
            finally:
                gc.enable()
            verdicts[(who, style, k)] = got
    # the best round is the code's own cost; the median shows how much a loaded machine added
    per_s = {f"{who}/{style}/{k}": 1.0 / min(ts) for (who, style, k), ts in times.items()}
    median_per_s = {f"{who}/{style}/{k}": 1.0 / percentile(ts, 50) for (who, style, k), ts in times.items()}
    accuracy = {
        f"{who}/{style}/{k}": sum(v == right for v, (_, _, right) in zip(got, data[(style, k)], strict=False))
        / len(got)
        for (who, style, k), got in verdicts.items()
    }
    short, long_ = LENGTHS
    ratios = {
        f"ours/{style}: {long_} vs {short} chars": per_s[f"ours/{style}/{long_}"]
        / per_s[f"ours/{style}/{short}"]
        for style in LENGTH_STYLES
    }
    for k in LENGTHS:
        ratios[f"ours vs math-verify at {k} chars"] = (
            per_s[f"ours/answer_line/{k}"] / per_s[f"math_verify/answer_line/{k}"]
        )
    median_ratios = {
        f"ours/{style}: {long_} vs {short} chars": median_per_s[f"ours/{style}/{long_}"]
        / median_per_s[f"ours/{style}/{short}"]
        for style in LENGTH_STYLES
    }
    for k in LENGTHS:
        median_ratios[f"ours vs math-verify at {k} chars"] = (
            median_per_s[f"ours/answer_line/{k}"] / median_per_s[f"math_verify/answer_line/{k}"]
        )
    return {
        "n": n,
        "n_math_verify": n_mv,
        "rounds": rounds,
        "per_s": per_s,
        "median_per_s": median_per_s,
        "accuracy": accuracy,
        "ratios": ratios,
        "median_ratios": median_ratios,
    }


def report_length(e: dict) -> dict:
    t = Table(title=f"(e) cost vs length: completions per CPU second, {e['rounds']} interleaved rounds")
    for col in ("who / style / chars", "best round", "median round", "accuracy"):
        t.add_column(col, justify="right")
    for key, v in e["per_s"].items():
        t.add_row(key, f"{v:.0f}", f"{e['median_per_s'][key]:.0f}", f"{e['accuracy'][key]:.3f}")
    console.print(t)
    for name, r in e["ratios"].items():
        x = "x" if "math-verify" in name else ""
        console.print(
            f"ratio {name}: {r:.2f}{x} (best rounds), {e['median_ratios'][name]:.2f}{x} (median rounds)"
        )
    short, long_ = LENGTHS
    targets = {
        f"{long_} chars >= half the {short}-char throughput (every style)": all(
            r >= 0.5 for name, r in e["ratios"].items() if "math-verify" not in name
        ),
        ">= 100x math-verify at both lengths": all(
            r >= 100 for name, r in e["ratios"].items() if "math-verify" in name
        ),
        "ours right on every completion": all(
            a == 1.0 for k, a in e["accuracy"].items() if k.startswith("ours")
        ),
    }
    for name, ok in targets.items():
        console.print(f"[{'green' if ok else 'red'}]{'PASS' if ok else 'FAIL'}[/] {name}")
    return targets


def percentile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q / 100 * (len(xs) - 1))))]


def bench_math500(limit: int | None, mv: GuardedMathVerify) -> dict:
    import verifiers

    answers = [json.loads(line)["answer"] for line in MATH500.read_text(encoding="utf-8").splitlines()]
    if limit:
        answers = answers[:limit]
    pairs = [(a, a) for a in answers] + [(a, answers[(i + 1) % len(answers)]) for i, a in enumerate(answers)]
    for i in range(min(30, len(answers))):  # warm the symbolic worker on pairs that are not measured
        verifiers.is_equivalent(answers[i], answers[(i + 2) % len(answers)])
    ours, ours_sym, ours_self_ok, mv_times, mv_self_ok, slow = [], [], 0, [], 0, []
    for k, (a, b) in enumerate(track(pairs, description="(b) MATH-500 latency     ", console=console)):
        t0 = time.perf_counter()
        eq = verifiers.is_equivalent(a, b)
        dt = time.perf_counter() - t0
        ours.append(dt)
        slow.append((dt, a, b, eq))
        if verifiers.canonical_integer(a) is None or verifiers.canonical_integer(b) is None:
            ours_sym.append(dt)
        m_eq, m_dt, _ = mv(a, b)
        mv_times.append(m_dt)
        if k < len(answers):
            ours_self_ok += eq
            mv_self_ok += m_eq
    ms = 1000.0
    return {
        "pairs": len(pairs),
        "ours_p50_ms": percentile(ours, 50) * ms,
        "ours_p99_ms": percentile(ours, 99) * ms,
        "ours_max_ms": max(ours) * ms,
        "ours_symbolic_pairs": len(ours_sym),
        "ours_symbolic_p50_ms": percentile(ours_sym, 50) * ms,
        "ours_symbolic_p99_ms": percentile(ours_sym, 99) * ms,
        "mv_p50_ms": percentile(mv_times, 50) * ms,
        "mv_p99_ms": percentile(mv_times, 99) * ms,
        "ours_self_equal": ours_self_ok / len(answers),
        "mv_self_equal": mv_self_ok / len(answers),
        "ours_slowest": [
            {"ms": t * ms, "a": a, "b": b, "equivalent": e} for t, a, b, e in sorted(slow, reverse=True)[:10]
        ],
    }


def bench_adversarial(corpus: list[dict], mv: GuardedMathVerify) -> dict:
    import verifiers

    cases = [(c["pred"], c["gold"], c.get("note", "")) for c in corpus if c["kind"] == "adversarial"]
    cases += [(p, g, "generated") for p, g in extra_adversarial()]
    rows = []
    for pred, gold, note in track(cases, description="(c) adversarial          ", console=console):
        t0 = time.perf_counter()
        v = verifiers.check(pred, gold, timeout=BUDGET_S)
        dt = time.perf_counter() - t0
        m_eq, m_dt, m_err = mv(pred, gold)
        rows.append(
            {
                "input": (pred[:40] + f"...({len(pred)} chars)") if len(pred) > 40 else pred,
                "note": note,
                "ours_s": dt,
                "ours_equivalent": v.equivalent,
                "ours_reason": v.reason,
                "mv_s": m_dt,
                "mv_equivalent": m_eq,
                "mv_error": m_err,
            }
        )
    worst_i = max(range(len(rows)), key=lambda i: rows[i]["ours_s"])
    worst = rows[worst_i]
    retimed = []  # the worst input again: tells a loaded machine's noise from a systematic overrun
    for _ in range(3):
        t0 = time.perf_counter()
        verifiers.check(cases[worst_i][0], cases[worst_i][1], timeout=BUDGET_S)
        retimed.append(time.perf_counter() - t0)
    mv_worst = max(rows, key=lambda r: r["mv_s"])
    return {
        "cases": len(rows),
        "ours_worst_s": worst["ours_s"],
        "ours_worst_input": worst["input"],
        "ours_worst_retimed_s": retimed,
        "ours_over_budget": sum(r["ours_s"] > BUDGET_S + SLACK_S for r in rows),
        "ours_true": sum(r["ours_equivalent"] for r in rows),
        "mv_worst_s": mv_worst["mv_s"],
        "mv_worst_input": mv_worst["input"],
        "mv_hangs": sum(r["mv_error"] == "hang" for r in rows),
        "mv_over_budget": sum(r["mv_s"] > BUDGET_S + SLACK_S for r in rows),
        "mv_errors": sum(r["mv_error"] not in (None, "hang") for r in rows),
        "mv_true": sum(r["mv_equivalent"] for r in rows),
        "rows": rows,
    }


def bench_corpus(corpus: list[dict], mv: GuardedMathVerify) -> dict:
    import verifiers

    out = {}
    stats = {"ours": [0, 0, 0], "math_verify": [0, 0, 0]}  # correct, false pos, false neg
    wrong: dict[str, list] = {"ours": [], "math_verify": []}
    for i, c in enumerate(track(corpus, description="(d) labelled corpus      ", console=console)):
        got = {"ours": verifiers.is_equivalent(c["pred"], c["gold"], timeout=BUDGET_S)}
        m_eq, _, m_err = mv(c["pred"], c["gold"])
        got["math_verify"] = m_eq and m_err is None
        for name, eq in got.items():
            s = stats[name]
            if eq == c["equivalent"]:
                s[0] += 1
            else:
                s[1 if eq else 2] += 1
                wrong[name].append(
                    {"id": f"{c['kind']}-{i}", "pred": c["pred"][:120], "gold": c["gold"][:120], "got": eq}
                )
    for name, (ok, fp, fn) in stats.items():
        out[name] = {"accuracy": ok / len(corpus), "false_pos": fp, "false_neg": fn, "wrong": wrong[name]}
    out["cases"] = len(corpus)
    return out


# --- report ---------------------------------------------------------------------------------------


def write_json(path: Path, obj: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".verifiers.", suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=2, ensure_ascii=True)
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)


def report(r: dict) -> dict:
    a, b, c, d = r["throughput"], r["math500"], r["adversarial"], r["corpus"]
    m = a["methods"]
    t = Table(title=f"(a) throughput, {a['n']} DAPO completions")
    for col in ("method", "completions/s", "x math-verify", "accuracy"):
        t.add_column(col, justify="right")
    for name, s in m.items():
        t.add_row(
            name, f"{s['per_s']:.0f}", f"{s['per_s'] / m['math_verify']['per_s']:.1f}", f"{s['accuracy']:.3f}"
        )
    console.print(t)

    t = Table(title=f"(b) latency on MATH-500 answers ({b['pairs']} pairs)")
    for col in ("who", "p50 ms", "p99 ms", "self==self"):
        t.add_column(col, justify="right")
    t.add_row(
        "ours (all)", f"{b['ours_p50_ms']:.2f}", f"{b['ours_p99_ms']:.2f}", f"{b['ours_self_equal']:.3f}"
    )
    t.add_row(
        f"ours (non-integer, {b['ours_symbolic_pairs']})",
        f"{b['ours_symbolic_p50_ms']:.2f}",
        f"{b['ours_symbolic_p99_ms']:.2f}",
        "",
    )
    t.add_row("math-verify", f"{b['mv_p50_ms']:.2f}", f"{b['mv_p99_ms']:.2f}", f"{b['mv_self_equal']:.3f}")
    console.print(t)

    t = Table(title=f"(c) adversarial set ({c['cases']} inputs, budget {BUDGET_S}s)")
    for col in ("who", "worst s", "worst input", "said equivalent", f"over {BUDGET_S}s", "hangs"):
        t.add_column(col)
    t.add_row(
        "ours",
        f"{c['ours_worst_s']:.3f}",
        c["ours_worst_input"],
        str(c["ours_true"]),
        str(c["ours_over_budget"]),
        "0",
    )
    t.add_row(
        "math-verify",
        f"{c['mv_worst_s']:.3f}",
        c["mv_worst_input"],
        str(c["mv_true"]),
        str(c["mv_over_budget"]),
        str(c["mv_hangs"]),
    )
    console.print(t)
    console.print("ours' worst input re-timed: " + ", ".join(f"{x:.3f}s" for x in c["ours_worst_retimed_s"]))

    t = Table(title=f"(d) labelled corpus ({d['cases']} cases)")
    for col in ("who", "accuracy", "false pos", "false neg"):
        t.add_column(col, justify="right")
    for name in ("ours", "math_verify"):
        s = d[name]
        t.add_row(name, f"{s['accuracy']:.3f}", str(s["false_pos"]), str(s["false_neg"]))
    console.print(t)

    ratio = m["dapo_reward"]["per_s"] / m["math_verify"]["per_s"]
    ours, peer = d["ours"], d["math_verify"]
    targets = {
        "throughput >= 100x math-verify": ratio >= 100,
        "symbolic p99 <= 50 ms": b["ours_symbolic_p99_ms"] <= 50,
        "no call over the budget": c["ours_over_budget"] == 0 and c["ours_true"] == 0,
        "accuracy above math-verify, fewer false positives": ours["accuracy"] > peer["accuracy"]
        and (ours["false_pos"] < peer["false_pos"] or ours["false_pos"] == 0 == peer["false_pos"]),
    }
    for name, ok in targets.items():
        console.print(f"[{'green' if ok else 'red'}]{'PASS' if ok else 'FAIL'}[/] {name}")
    console.print(
        f"dapo_reward / math-verify = {ratio:.1f}x; dapo_reward / regex = "
        f"{m['dapo_reward']['per_s'] / m['regex_limit']['per_s']:.3f}x"
    )
    return targets


def machine_load(load_start: tuple[float, float, float]) -> dict:
    """CPU count and load averages (1, 5, 15 min) at the start and end of the run: on a shared
    machine the figures are only comparable between runs under similar load."""
    return {"cpus": os.cpu_count(), "load_avg_start": list(load_start), "load_avg_end": list(os.getloadavg())}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="smaller samples (CI smoke run)")
    ap.add_argument(
        "--length-only", action="store_true", help="only (e), cost against the reasoning's length"
    )
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "verifiers.json")
    args = ap.parse_args(argv)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    length_args = (100, 10, 5) if args.quick else (300, 30, 15)
    load_start = os.getloadavg()
    if args.length_only:
        e = bench_length(*length_args)
        results = {"quick": args.quick, "length": e, "targets": report_length(e)}
        results["machine"] = machine_load(load_start)
        out = args.out.with_name(args.out.stem + "_length.json")
        write_json(out, results)
        console.print(f"wrote {out}")
        return 0

    corpus = load_corpus()
    # math-verify's own timeouts are 5 s for parse and 5 s for verify: past 12 s it is hung.
    mv = GuardedMathVerify(limit_s=12.0)
    try:
        results = {
            "quick": args.quick,
            "budget_s": BUDGET_S,
            "throughput": bench_throughput(300 if args.quick else 2000),
            "math500": bench_math500(100 if args.quick else None, mv),
            "adversarial": bench_adversarial(corpus, mv),
            "corpus": bench_corpus(corpus, mv),
            "length": bench_length(*length_args),
        }
    finally:
        mv.close()
    results["targets"] = {**report(results), **report_length(results["length"])}
    results["machine"] = machine_load(load_start)
    write_json(args.out, results)
    console.print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
