"""`dapo demo`: SFT warm-up, eval, DAPO, eval, on a synthetic corpus, in minutes on two CPU cores.

The corpus is built by `dapo build` (pipelines) before this runs; the trainer only reads its
records store (SFT) and its verl Parquet files: train.parquet (RL) and test.parquet (eval).

Why the numbers are what they are: SFT stops once the policy's probability of writing the gold
worked solution reaches 20% (averaged over training examples), so it knows the `Answer:` format
but is unsure; DAPO then sharpens it on its own samples. Held-out avg@k is measured at temperature
1.0 (every sample counts), before and after.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

# The corpus `dapo demo` asks pipelines to build: disjoint seeds for the train and test splits
# (exact dedup drops any problem drawn in both, so the test split stays held out).
DEMO_CORPUS = {
    "name": "synthetic-demo",
    "description": "Seeded two-digit addition and subtraction with worked solutions (dapo demo).",
    "sources": [
        {
            "kind": "synthetic",
            "n": 3000,
            "seed": 0,
            "kinds": ["add", "sub"],
            "difficulty": 1,
            "split": "train",
        },
        {"kind": "synthetic", "n": 400, "seed": 1, "kinds": ["add", "sub"], "difficulty": 1, "split": "test"},
    ],
    "rewrite": {"rules": False, "llm": False},
    "validate": {"consistency": True},
    "dedup": {"enabled": True, "near": False},
    "decontaminate": {"enabled": False},
    "export": {"verl": True},
}

DEMO_RL = {
    "preset": "dapo",
    "rollout": {"n": 8, "max_new_tokens": 32, "temperature": 1.0, "top_p": 1.0},
    # on_max_gen_batches: train: once the policy solves most additions, fewer groups per step are
    # informative; the demo trains on those it found instead of stopping with an error
    "algo": {"overlong_buffer": 8, "max_gen_batches": 20, "on_max_gen_batches": "train"},
    "optim": {"lr": 1.5e-4, "warmup_steps": 3},
    # 16 prompts x 8 responses per step, 4 mini-batch updates of 32 responses each
    "train": {
        "steps": 200,
        "prompts_per_step": 16,
        "gen_prompts": 24,
        "mini_batch_size": 32,
        "save_every": 1,
    },
}
# Two-digit addition is learnt in a sudden jump (~300-400 steps here). SFT stops at the first
# check (every 5 steps) where the policy's teacher-forced probability of the gold worked solution,
# averaged over 64 SFT examples, reaches 20%: the expected sampled accuracy, computed exactly
# (trainer/sft.py gold_solution_prob), so RL starts with room to work. It used to stop at the first
# probe (every 10 steps) whose *sampled* accuracy, 48 prompts x 4 samples, reached 25%: that number
# moves by several points when another CPU's last-bit rounding flips one sampled token, so the
# stopping step, and everything after it, moved between CPUs. The exact probability removes the
# sampling noise, not the spread: the weights themselves drift apart with another CPU's rounding
# (seed 0 stops at step 495 with AVX-512 kernels, 750 with AVX2, 585 with torch's generic ones:
# bench/results/demo_spread.md; the demo prints its result against those runs). 20%, not 25%: the
# first noisy probe over 25% stopped where held-out avg@8 was 15-21% (the README's measurements), so
# 20% keeps the demo's starting point where it was.
DEMO_SFT = {"steps": 3000, "batch_size": 64, "lr": 3e-3, "stop_at_gold_prob": 0.2, "eval_every": 5}
EVAL = {"k": 8, "temperature": 1.0, "top_p": 1.0, "n_prompts": 200}


def run(
    out: str | Path,
    *,
    records: str | Path,
    verl: str | Path,
    held_out: str | Path | None = None,
    seed: int = 0,
    rl_steps: int | None = None,
    threads: int | None = None,
    progress: bool = True,
    console=None,
) -> dict:
    """SFT -> eval -> DAPO -> eval; writes out/report.json and returns it.

    `verl` is the training file (verl/train.parquet), `held_out` the test split's file
    (verl/test.parquet; default: `verl`, whose test rows are then selected by extra_info.split)."""
    import torch
    from rich.console import Console

    from trainer.config import build_config
    from trainer.data import Prompt, load_prompts, read_verl
    from trainer.eval import evaluate
    from trainer.loop import train
    from trainer.model import load_model, load_tokenizer
    from trainer.plots import plot_run
    from trainer.sampling import DynamicSamplingError
    from trainer.sft import sft

    console = console or Console()
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    # One thread by default: the tiny model gains little from two, and on a box with any other
    # load, oversubscribed intra-op threads make each step several times slower.
    threads = threads or 1
    torch.set_num_threads(threads)
    t0 = time.perf_counter()
    torch.manual_seed(seed)
    rows = read_verl(verl, split="train")
    probe = [Prompt(r["key"], [], r["gold"], r["messages"][-1]["content"]) for r in rows[:48]]

    console.rule("1/4 SFT warm-up")
    s = sft(records, out / "sft", seed=seed, probe=probe, max_new_tokens=DEMO_RL["rollout"]["max_new_tokens"],
            progress=progress, **DEMO_SFT)  # fmt: skip
    console.print(
        f"SFT: {s['steps']} steps, loss {s['loss']:.3f}, probe avg@4 {s['probe_acc']}, {s['seconds']:.0f}s"
    )

    tok = load_tokenizer(out / "sft")
    held = load_prompts(
        held_out or verl, tok, max_prompt_len=256, split="test", limit=EVAL["n_prompts"]
    ).prompts
    ev_kw = {"k": EVAL["k"], "temperature": EVAL["temperature"], "top_p": EVAL["top_p"],
             "max_new_tokens": DEMO_RL["rollout"]["max_new_tokens"]}  # fmt: skip

    console.rule("2/4 eval before RL")
    before = evaluate(load_model(out / "sft"), tok, held, **ev_kw)

    console.rule("3/4 DAPO")
    rl = json.loads(json.dumps(DEMO_RL))
    rl["model"] = {"path": str(out / "sft")}
    rl["data"] = {"train": str(verl), "train_split": "train", "max_prompt_len": 256}
    rl["train"].update(out=str(out / "rl"), seed=seed, threads=threads)
    if rl_steps is not None:
        rl["train"]["steps"] = rl_steps
    cfg = build_config(rl, source="trainer.demo")
    run_dir, stopped = Path(cfg.train.out), None
    try:
        train(cfg, progress=progress, resume=(out / "rl/checkpoints/latest").exists())
    except DynamicSamplingError as e:  # not one informative group left: RL has nothing to learn from
        stopped = str(e)
        console.print(f"[yellow]RL stopped early: {e}[/yellow]\nEvaluating the last checkpoint.")
    from trainer.checkpoint import latest_checkpoint

    final = latest_checkpoint(run_dir / "checkpoints")
    if final is None:
        raise RuntimeError(f"{run_dir}: RL wrote no checkpoint ({stopped})")

    console.rule("4/4 eval after RL")
    after = evaluate(load_model(final), tok, held, **ev_kw)
    plot = plot_run(run_dir)
    wall = time.perf_counter() - t0
    k = EVAL["k"]
    report = {
        "seed": seed,
        "cpu_capability": torch.backends.cpu.get_cpu_capability(),  # which reference run this one should repeat
        "before": before,
        "after": after,
        "gain_avg@k_points": 100 * (after[f"avg@{k}"] - before[f"avg@{k}"]),
        "eval": {**EVAL, "split": "test", "n_prompts": len(held)},
        "sft": s,
        "rl": {
            "steps": _checkpoint_step(final),
            "steps_planned": cfg.train.steps,
            "stopped_early": stopped,
            "preset": cfg.preset,
            "run_dir": str(run_dir),
            "checkpoint": str(final),
        },
        "plots": [str(plot)],
        "wall_seconds": wall,
    }
    from mathdata.files import atomic_write

    atomic_write(out / "report.json", json.dumps(report, indent=1))
    print_table(report, console)
    return report


def _checkpoint_step(ckpt: Path) -> int:
    """The RL steps a checkpoint holds (its trainer_state.json)."""
    return int(json.loads((Path(ckpt) / "trainer_state.json").read_text())["step"])


def print_table(report: dict, console) -> None:
    from rich.table import Table

    k = report["eval"]["k"]
    tab = Table(title=f"held-out {report['eval']['split']} split, {report['eval']['n_prompts']} prompts, k={k}, "
                f"T={report['eval']['temperature']}, top-p={report['eval']['top_p']}")  # fmt: skip
    tab.add_column("metric")
    tab.add_column("before RL (SFT)", justify="right")
    tab.add_column("after DAPO", justify="right")
    for key in (f"avg@{k}", f"pass@{k}", f"cons@{k}"):
        tab.add_row(key, f"{100 * report['before'][key]:.1f}", f"{100 * report['after'][key]:.1f}")
    for key in ("entropy", "mean_length", "truncation_ratio"):
        tab.add_row(key, f"{report['before'][key]:.3f}", f"{report['after'][key]:.3f}")
    console.print(tab)
    console.print(f"avg@{k}: {100 * report['before'][f'avg@{k}']:.1f} -> {100 * report['after'][f'avg@{k}']:.1f} "
                  f"({report['gain_avg@k_points']:+.1f} points); wall time {report['wall_seconds'] / 60:.1f} min")  # fmt: skip
    rl = report["rl"]
    if rl.get("stopped_early"):
        console.print(
            f"RL stopped after {rl['steps']} of {rl['steps_planned']} steps: no informative group was left"
        )
    for p in report["plots"]:
        console.print(f"plot: {p}")
    ref = reference_line(report)
    if ref:
        console.print(ref)


REFERENCE = Path(__file__).with_name("demo_reference.json")


def reference_line(report: dict, reference: Path = REFERENCE) -> str | None:
    """This run against bench/demo_spread.py's reference runs. A CPU with the same kernel set (torch's
    capability: AVX512, AVX2, DEFAULT...) and seed should repeat its reference run, up to the other
    libraries' choices; any other is compared with the spread over kernel sets and seeds, since no two
    kernel sets train bit for bit alike."""
    if not reference.exists():
        return None
    ref = json.loads(reference.read_text())
    k = report["eval"]["k"]
    mine = {"before": 100 * report["before"][f"avg@{k}"], "after": 100 * report["after"][f"avg@{k}"]}
    parts = []
    for key in ("before", "after"):
        lo, hi = ref[key]["min"], ref[key]["max"]
        where = "inside" if lo - 0.05 <= mine[key] <= hi + 0.05 else ("below" if mine[key] < lo else "above")
        parts.append(f"{key} {mine[key]:.1f} ({where} {lo}-{hi})")
    line = (f"reference ({ref['runs']} runs: {len(ref['kernels'])} CPU kernel sets x seeds {ref['seeds']}, code "
            f"{ref['code']}, bench/results/demo_spread.md): " + ", ".join(parts))  # fmt: skip
    mine_key = (report.get("cpu_capability"), report.get("seed"))
    r = next((r for r in ref.get("rows", []) if (r["capability"], r["seed"]) == mine_key), None)
    if r is not None:
        alike = all(abs(mine[key] - r[key]) < 0.05 for key in ("before", "after"))
        line += (f"\nsame kernel set ({r['capability']}) and seed ({r['seed']}) as a reference run: {r['before']} -> "
                 f"{r['after']} there, {mine['before']:.1f} -> {mine['after']:.1f} here"
                 + (" (the same)" if alike else " (different: another library path or code version)"))  # fmt: skip
    return line
