"""What `make demo` gives on other CPUs: the demo under three CPU kernel sets and several seeds.

Training does not repeat bit for bit across CPUs: another CPU's vector kernels round differently
(the 8th digit of the SFT loss after 20 steps), and SFT, then RL, carry that difference into which
token is sampled and when a threshold is crossed. A user's `make demo` is therefore compared with a
spread, not with one number. The kernel sets are emulated on this machine through the libraries' own
switches (torch's ATEN_CPU_CAPABILITY, MKL's MKL_ENABLE_INSTRUCTIONS, oneDNN's ONEDNN_MAX_CPU_ISA),
capped one at a time below what the CPU has:

    native   whatever this CPU offers (here AVX-512)
    avx2     a CPU with AVX2 but no AVX-512 (most laptops and older servers)
    generic  torch's scalar kernels, MKL and oneDNN at SSE4.2

Each run is `dapo demo --seed S --threads 1` in its own directory (skipped when its report.json
exists, so a killed study resumes). Writes bench/results/demo_spread.{json,md} and the reference
that `dapo demo` prints its result against (trainer/demo_reference.json).

    .venv/bin/python bench/demo_spread.py                       # 3 kernel sets x seeds 0,1; 2 at a time
    .venv/bin/python bench/demo_spread.py --kernels native --seeds 0 --jobs 1
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

KERNELS: dict[str, dict[str, str]] = {
    "native": {},
    "avx2": {"ATEN_CPU_CAPABILITY": "avx2", "MKL_ENABLE_INSTRUCTIONS": "AVX2", "ONEDNN_MAX_CPU_ISA": "AVX2"},
    "generic": {"ATEN_CPU_CAPABILITY": "default", "MKL_ENABLE_INSTRUCTIONS": "SSE4_2", "ONEDNN_MAX_CPU_ISA": "SSE41"},
}  # fmt: skip
REFERENCE = ROOT / "trainer" / "demo_reference.json"


@functools.cache
def capability(kernels: str) -> str:
    """torch's name for the kernel set a process runs with under `kernels` (AVX512, AVX2, DEFAULT...)."""
    code = "import torch; print(torch.backends.cpu.get_cpu_capability())"
    env = {**os.environ, **KERNELS[kernels]}
    return subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True
    ).stdout.strip()


def run_one(work: Path, kernels: str, seed: int) -> dict:
    """One `dapo demo` (corpus, SFT, DAPO, eval) under a kernel set; its report.json as a row."""
    out = work / f"{kernels}-seed{seed}"
    report = out / "report.json"
    if not report.exists():
        env = {**os.environ, **KERNELS[kernels], "PYTHONPATH": str(ROOT)}
        log = out.with_suffix(".log")
        out.parent.mkdir(parents=True, exist_ok=True)
        with open(log, "w") as fh:
            cmd = [
                sys.executable,
                "-m",
                "dapo_cli",
                "demo",
                "--out",
                str(out),
                "--seed",
                str(seed),
                "--threads",
                "1",
            ]
            rc = subprocess.run(cmd, env=env, stdout=fh, stderr=subprocess.STDOUT, cwd=str(ROOT)).returncode
        if rc != 0 or not report.exists():
            raise RuntimeError(f"{kernels} seed {seed}: dapo demo exited {rc}; see {log}")
    r = json.loads(report.read_text())
    k = r["eval"]["k"]
    return {
        "kernels": kernels,
        "capability": capability(kernels),
        "seed": seed,
        "before": round(100 * r["before"][f"avg@{k}"], 1),
        "after": round(100 * r["after"][f"avg@{k}"], 1),
        "sft_steps": r["sft"]["steps"],
        "sft_gold_prob": round(r["sft"]["gold_prob"], 4) if r["sft"].get("gold_prob") is not None else None,
        "rl_steps": r["rl"]["steps"],
        "rl_stopped_early": bool(r["rl"].get("stopped_early")),
        "minutes": round(r["wall_seconds"] / 60, 1),
    }


def summarise(rows: list[dict]) -> dict:
    """The spread a user's run is compared with: min / median / max of before, after and the gain."""

    def span(xs):
        return {"min": min(xs), "median": round(statistics.median(xs), 1), "max": max(xs)}

    return {
        "runs": len(rows),
        "kernels": sorted({r["kernels"] for r in rows}),
        "seeds": sorted({r["seed"] for r in rows}),
        "before": span([r["before"] for r in rows]),
        "after": span([r["after"] for r in rows]),
        "gain": span([round(r["after"] - r["before"], 1) for r in rows]),
    }


def _version() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT
        )
        return out.stdout.strip() or "unknown"
    except OSError:
        return "unknown"


def write(rows: list[dict], out: Path, reference: Path) -> dict:
    from mathdata.files import atomic_write

    summary = summarise(rows)
    meta = {"measured": time.strftime("%Y-%m-%d"), "code": _version(), "machine": os.uname().machine}
    atomic_write(out / "demo_spread.json", json.dumps({**meta, "summary": summary, "rows": rows}, indent=1))
    runs = [{k: r[k] for k in ("kernels", "capability", "seed", "before", "after")} for r in rows]
    atomic_write(reference, json.dumps({**meta, **summary, "rows": runs}, indent=1) + "\n")
    lines = [
        "# `make demo` on other CPUs: the spread a run is compared with",
        "",
        f"Measured {meta['measured']} (code {meta['code']}) by `bench/demo_spread.py`: each row is one "
        "`dapo demo --seed S --threads 1` with torch/MKL/oneDNN capped to a kernel set (see the script's "
        "docstring). Held-out avg@8 (%), 200 test prompts, T = 1.",
        "",
        "| kernels (torch's name) | seed | before | after | gain | SFT steps (P gold) | RL steps | minutes |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        early = " (stopped early)" if r["rl_stopped_early"] else ""
        lines.append(
            f"| {r['kernels']} ({r['capability']}) | {r['seed']} | {r['before']} | {r['after']} | {r['after'] - r['before']:+.1f} | "
            f"{r['sft_steps']} ({r['sft_gold_prob']}) | {r['rl_steps']}{early} | {r['minutes']} |"
        )
    s = summary
    lines += [
        "",
        f"Over {s['runs']} runs: before {s['before']['min']}-{s['before']['max']} (median {s['before']['median']}), "
        f"after {s['after']['min']}-{s['after']['max']} (median {s['after']['median']}), gain "
        f"{s['gain']['min']:+} to {s['gain']['max']:+} points. With the same kernel set, seed and code a run repeats "
        "bit for bit (the native seed-0 row is this machine's `make demo`); a change to the code that moves "
        "any reward or sampled token moves every row, so the table is measured again with the code it names.",
    ]
    atomic_write(out / "demo_spread.md", "\n".join(lines) + "\n")
    return summary


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kernels", default=",".join(KERNELS), help=f"comma-separated, from {list(KERNELS)}")
    ap.add_argument("--seeds", default="0,1")
    ap.add_argument("--jobs", type=int, default=2, help="demos at a time (each uses one torch thread)")
    ap.add_argument("--work", type=Path, default=ROOT / "runs" / "demo_spread")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    ap.add_argument("--reference", type=Path, default=REFERENCE)
    a = ap.parse_args(argv)
    kernels = [k.strip() for k in a.kernels.split(",") if k.strip()]
    bad = [k for k in kernels if k not in KERNELS]
    if bad:
        ap.error(f"--kernels {bad}: choose from {list(KERNELS)}")
    todo = [(k, int(s)) for s in a.seeds.split(",") for k in kernels]
    with ThreadPoolExecutor(max_workers=a.jobs) as pool:
        rows = list(pool.map(lambda ks: run_one(a.work, *ks), todo))
    for r in rows:
        print(f"{r['kernels']:8s} seed {r['seed']}: {r['before']:5.1f} -> {r['after']:5.1f}  "
              f"(SFT {r['sft_steps']} steps, RL {r['rl_steps']}, {r['minutes']} min)")  # fmt: skip
    s = write(rows, a.out, a.reference)
    print(
        f"after: {s['after']['min']}-{s['after']['max']} (median {s['after']['median']}) over {s['runs']} runs"
    )
    return s


if __name__ == "__main__":
    main()
