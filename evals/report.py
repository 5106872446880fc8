"""The outputs of an evaluation: report.json, samples.parquet, report.md (a markdown table with a
standard error on every metric) and pass_at_k.png (pass@k curves per benchmark)."""

from __future__ import annotations

import json
from pathlib import Path

from mathdata.files import atomic_write


def write_outputs(out: Path, report: dict, rows: list[dict], curves: dict[str, dict[int, float]]) -> dict:
    import pyarrow as pa
    import pyarrow.parquet as pq

    files = {
        "report": str(out / "report.json"),
        "samples": str(out / "samples.parquet"),
        "table": str(out / "report.md"),
        "plot": str(out / "pass_at_k.png"),
    }
    buf = pa.BufferOutputStream()
    pq.write_table(pa.Table.from_pylist(rows), buf, compression="zstd")
    atomic_write(out / "samples.parquet", buf.getvalue().to_pybytes())
    atomic_write(out / "report.md", markdown_table(report))
    try:
        atomic_write(out / "pass_at_k.png", plot_pass_at_k(curves, report))
    except ImportError as e:  # matplotlib is a core dependency; say so rather than fail the run
        files["plot"] = f"not drawn: {e}"
    atomic_write(out / "report.json", json.dumps({**report, "files": files}, indent=1, ensure_ascii=False))
    return files


def _pct(x) -> str:
    return "" if x is None else f"{100 * x:.1f}"


def _pm(m: dict, key: str) -> str:
    """A metric in percent with its standard error: `26.7 ± 17.6` (no ± when there is none)."""
    se = m.get(f"{key}_se")
    return _pct(m.get(key)) + (f" ± {100 * se:.1f}" if se is not None and key in m else "")


def markdown_table(report: dict) -> str:
    """One row per benchmark plus overall (the mean over benchmarks): avg@k, pass@j and maj@k, each
    ± one standard error, then no answer, truncated, length."""
    k = report["sampling"]["k"]
    pass_cols = [c for c in report["overall"] if c.startswith("pass@") and not c.endswith("_se")]
    head = [
        "benchmark",
        "problems",
        f"avg@{k}",
        *pass_cols,
        f"maj@{k}",
        "no answer %",
        "truncated %",
        "mean length",
    ]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    entries = list(report["benchmarks"].items())
    if len(entries) > 1:
        entries.append(("overall (mean of benchmarks)", report["overall"]))
    for name, m in entries:
        cells = [name, str(m["n_problems"]), _pm(m, f"avg@{k}"), *[_pm(m, c) for c in pass_cols], _pm(m, f"maj@{k}"),
                 _pct(m["no_answer_rate"]), _pct(m["truncation_rate"]), f"{m['mean_length']:.0f}"]  # fmt: skip
        lines.append("| " + " | ".join(cells) + " |")
    s = report["sampling"]
    g = report["grader"]
    lines += [
        "",
        f"Model `{report['model']}`; prompt `{report['prompt']['name']}` ({report['prompt']['mode']}); "
        f"k={k}, temperature {s['temperature']}, top-p {s['top_p']}, max tokens {s['max_tokens']}, "
        f"seed {s.get('seed')}. Percentages ± one standard error over problems (overall: the mean over "
        f"benchmarks, each weighing the same). Grader: dapo-toolkit verifiers "
        f"{g['version']} (source {g['source_sha256']}, math-verify {g['math_verify']}).",
    ]
    return "\n".join(lines) + "\n"


def plot_pass_at_k(curves: dict[str, dict[int, float]], report: dict) -> bytes:
    """PNG bytes: pass@j against j (log2 axis), one line per benchmark."""
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.2), dpi=120)
    try:
        ticks: set[int] = set()
        for name, curve in curves.items():
            js = sorted(curve)
            ticks |= set(js)
            n = report["benchmarks"].get(name, {}).get("n_problems")
            ax.plot(
                js, [100 * curve[j] for j in js], marker="o", label=f"{name} ({n} problems)" if n else name
            )
        ax.set_xscale("log", base=2)
        ax.set_xticks(sorted(ticks), [str(j) for j in sorted(ticks)])
        ax.minorticks_off()
        ax.set_xlabel("k (samples)")
        ax.set_ylabel("pass@k (%)")
        ax.set_ylim(0, 100)
        ax.grid(alpha=0.3)
        ax.legend()
        s = report["sampling"]
        ax.set_title(
            f"{report['model']}: pass@k (T={s['temperature']}, top-p={s['top_p']}, {report['prompt']['name']} prompt)",
            fontsize=9,
        )
        buf = io.BytesIO()
        fig.savefig(buf, format="png", bbox_inches="tight")
        return buf.getvalue()
    finally:
        plt.close(fig)
