"""Difficulty-aware prompt sampling: does skipping / down-weighting prompts that a reference policy
solves always or never save generation and wall time?

Two steps:

    # 1. pass rates: n samples per training prompt from a reference policy (the demo's SFT), scored
    #    by the verifier, written into extra_info.difficulty = {model, n, correct, pass_rate}
    python bench/difficulty.py annotate --verl demo_out/data/verl/train.parquet --policy demo_out/sft \
        --out runs/difficulty/train.parquet --n 8 --limit 1000

    # 2. the demo's DAPO recipe on that file with data.difficulty_sampling off / skip / weight,
    #    same seeds and budget; held-out avg@k every few steps
    python bench/difficulty.py compare --train runs/difficulty/train.parquet \
        --eval demo_out/data/verl/train.parquet --init demo_out/sft --modes off,weight --seeds 0,1 --steps 20

Reported per mode (mean over seeds): generation batches per step (dynamic sampling refills until
`prompts_per_step` informative groups are kept), the share of sampled groups filtered as all-equal,
seconds per step, and the step and wall time at which held-out avg@k first reaches the target
(the SFT start + `--target-gain`, the demo's +20 points by default). Writes
bench/results/difficulty.{md,json}.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def annotate(args) -> None:
    """Sample `n` responses per training prompt with the reference policy and write the difficulty column."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    import torch

    from trainer.data import load_prompts
    from trainer.model import load_model, load_tokenizer
    from trainer.reward import score_samples
    from trainer.rollout import HFEngine

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    model, tok = load_model(args.policy).eval(), load_tokenizer(args.policy)
    ps = load_prompts(args.verl, tok, max_prompt_len=args.max_prompt_len, split=args.split, limit=args.limit)
    engine = HFEngine(model, tok)
    diff: dict[str, dict] = {}
    t0 = time.perf_counter()
    for i in range(0, len(ps.prompts), args.batch):
        chunk = ps.prompts[i : i + args.batch]
        with torch.no_grad():
            outs = engine.generate([p.ids for p in chunk], n=args.n, max_new_tokens=args.L, temperature=1.0,
                                   top_p=1.0)  # fmt: skip
        for p, samples in zip(chunk, outs, strict=True):
            c = sum(
                s.acc for s in score_samples(samples, p.gold, max_len=args.L, cache_len=max(1, args.L // 4))
            )
            diff[p.key] = {"model": args.model_name, "n": args.n, "correct": int(c), "pass_rate": c / args.n}
        print(f"annotate: {min(i + args.batch, len(ps.prompts))}/{len(ps.prompts)} prompts, "
              f"{time.perf_counter() - t0:.0f}s", flush=True)  # fmt: skip
    rows = []
    for i, row in enumerate(pq.read_table(args.verl).to_pylist()):
        extra = row.get("extra_info") or {}
        key = str(extra.get("id") or extra.get("index") or i)
        if extra.get("split") == args.split and key in diff:
            row["extra_info"] = {**extra, "difficulty": diff[key]}
            rows.append(row)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    pq.write_table(pa.Table.from_pylist(rows), tmp)
    tmp.replace(out)
    rates = [d["pass_rate"] for d in diff.values()]
    summary = {
        "prompts": len(rows),
        "n": args.n,
        "all_wrong": sum(r == 0 for r in rates),
        "all_right": sum(r == 1 for r in rates),
        "mean_pass_rate": sum(rates) / len(rates),
        "seconds": time.perf_counter() - t0,
        "command": shlex.join(["python", "bench/difficulty.py", *sys.argv[1:]]),
    }
    (out.with_suffix(".json")).write_text(json.dumps(summary, indent=1))
    print(json.dumps(summary))


def run_one(mode: str, seed: int, args) -> dict:
    from trainer.config import build_config
    from trainer.loop import train
    from trainer.metrics import read_metrics

    out = args.work / mode / f"seed{seed}"
    cfg = build_config(
        {
            "preset": "dapo",
            "model": {"path": str(args.init)},
            "data": {
                "train": str(args.train),
                "eval": str(args.eval),
                "eval_split": args.eval_split,
                "eval_size": args.eval_n,
                "max_prompt_len": 256,
                "difficulty_sampling": mode,
            },
            # the demo's recipe (trainer/demo.py DEMO_RL) with fewer steps
            "rollout": {"n": 8, "max_new_tokens": 32, "temperature": 1.0, "top_p": 1.0},
            "algo": {"overlong_buffer": 8, "max_gen_batches": 20},
            "optim": {"lr": 1.5e-4, "warmup_steps": 3},
            "train": {
                "steps": args.steps,
                "prompts_per_step": 16,
                "gen_prompts": 24,
                "mini_batch_size": 32,
                "eval_every": args.eval_every,
                "eval_k": args.k,
                "eval_top_p": 1.0,
                "seed": seed,
                "out": str(out),
                "tensorboard": False,
                "save_every": args.steps,
                "threads": args.threads,
            },
        },  # fmt: skip
        source=f"difficulty:{mode}",
    )
    metrics = out / "metrics.jsonl"
    if not (metrics.exists() and read_metrics(metrics) and read_metrics(metrics)[-1]["step"] >= args.steps):
        train(cfg, progress=False)
    rows = read_metrics(metrics)
    key = f"eval/avg@{args.k}"
    wall, evals = 0.0, []
    for r in rows:
        wall += r["step_time"]
        if key in r:
            evals.append((r["step"], wall, r[key]))
    return {
        "seed": seed,
        "gen_batches_per_step": sum(r["gen_batches"] for r in rows) / len(rows),
        "filtered_share": sum(r["filtered_share"] for r in rows) / len(rows),
        "seconds_per_step": sum(r["step_time"] for r in rows) / len(rows),
        "gen_seconds_per_step": sum(r["gen_time"] for r in rows) / len(rows),
        "prompts_left_out": rows[-1].get("prompts_left_out", 0),
        "evals": evals,
        "final_avg": evals[-1][2] if evals else None,
    }


def compare(args) -> None:
    import torch

    from trainer.data import load_prompts
    from trainer.eval import evaluate
    from trainer.model import load_model, load_tokenizer

    torch.set_num_threads(args.threads)
    args.work.mkdir(parents=True, exist_ok=True)
    before_path = args.work / f"before-n{args.eval_n}-k{args.k}.json"
    if before_path.exists():
        before = json.loads(before_path.read_text())
    else:
        tok = load_tokenizer(args.init)
        held = load_prompts(
            args.eval, tok, max_prompt_len=256, split=args.eval_split, limit=args.eval_n
        ).prompts
        torch.manual_seed(0)
        before = evaluate(
            load_model(args.init), tok, held, k=args.k, temperature=1.0, top_p=1.0, max_new_tokens=32
        )
        before_path.write_text(json.dumps(before))
    target = before[f"avg@{args.k}"] + args.target_gain
    seeds = [int(s) for s in args.seeds.split(",")]
    modes = args.modes.split(",")
    results: dict[str, list] = {m: [] for m in modes}
    for seed in seeds:  # seeds outer: an interrupted comparison still has every mode for the first seeds
        for mode in modes:
            print(f"== {mode} seed {seed}", flush=True)
            r = run_one(mode, seed, args)
            hit = next(((s, w) for s, w, v in r["evals"] if v >= target), None)
            r["steps_to_target"], r["seconds_to_target"] = hit if hit else (None, None)
            results[mode].append(r)
            write_report({m: rs for m, rs in results.items() if rs}, before, target, args)


def _mean(xs):
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else None


def _f(x, fmt=".2f"):
    return "-" if x is None else format(x, fmt)


def write_report(results: dict, before: dict, target: float, args) -> None:
    from mathdata.files import atomic_write

    k = args.k
    lines = [
        f"# Difficulty-aware prompt sampling ({args.steps} DAPO steps, the demo's recipe: 16 prompts x G=8 per "
        f"step, 24 per generation batch)",
        "",
        f"Command: `{args.command}`",
        "",
        f"Start (SFT) held-out avg@{k} {before[f'avg@{k}']:.3f} on {args.eval_n} prompts; target "
        f"{target:.3f} (+{args.target_gain:.2f}). Means over seeds {args.seeds}; time is the sum of step times "
        f"(generation, updates), evaluation excluded.",
        "",
        f"| difficulty_sampling | gen batches / step | filtered share | s / step | gen s / step | prompts left out "
        f"| final avg@{k} | steps to target | seconds to target | per seed: steps / seconds to target |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for mode, runs in results.items():
        hits = [r for r in runs if r["steps_to_target"] is not None]
        reach = f"{_mean([r['steps_to_target'] for r in hits]) or 0:.0f} ({len(hits)}/{len(runs)})" if hits else (
            f"not reached (0/{len(runs)})")  # fmt: skip
        secs = (
            f"{_mean([r['seconds_to_target'] for r in hits]):.0f} ({len(hits)}/{len(runs)})" if hits else "-"
        )
        per_seed = ", ".join(
            f"s{r['seed']}: {r['steps_to_target']} / {r['seconds_to_target']:.0f}"
            if r["steps_to_target"] is not None
            else f"s{r['seed']}: -"
            for r in runs
        )
        lines.append(
            f"| {mode} | {_f(_mean([r['gen_batches_per_step'] for r in runs]))} "
            f"| {_f(_mean([r['filtered_share'] for r in runs]), '.3f')} "
            f"| {_f(_mean([r['seconds_per_step'] for r in runs]), '.1f')} "
            f"| {_f(_mean([r['gen_seconds_per_step'] for r in runs]), '.1f')} | {runs[0]['prompts_left_out']} "
            f"| {_f(_mean([r['final_avg'] for r in runs]), '.3f')} | {reach} | {secs} "
            f"| {per_seed} |"
        )
    md = "\n".join(lines) + "\n"
    out = args.out / "difficulty.md"
    # keep any prose written below the generated table
    if out.exists() and "\n## " in out.read_text():
        md += "\n" + out.read_text()[out.read_text().index("\n## ") + 1 :]
    atomic_write(out, md)
    atomic_write(args.out / "difficulty.json", json.dumps(
        {"before": before, "target": target, "args": {k2: str(v) for k2, v in vars(args).items()},
         "results": results}, indent=1))  # fmt: skip
    print(md)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("annotate", help="pass rates of a reference policy into extra_info.difficulty")
    a.add_argument("--verl", type=Path, required=True)
    a.add_argument("--policy", type=Path, required=True)
    a.add_argument("--out", type=Path, required=True)
    a.add_argument("--split", default="train")
    a.add_argument("--n", type=int, default=8)
    a.add_argument("--L", type=int, default=32)
    a.add_argument("--limit", type=int)
    a.add_argument("--batch", type=int, default=32, help="prompts per generation call")
    a.add_argument("--max-prompt-len", type=int, default=256)
    a.add_argument("--model-name", default="demo-sft")
    a.add_argument("--seed", type=int, default=0)
    a.add_argument("--threads", type=int, default=1)
    c = sub.add_parser("compare", help="DAPO with difficulty_sampling off / skip / weight, same seeds")
    c.add_argument("--train", type=Path, required=True)
    c.add_argument("--eval", type=Path, required=True)
    c.add_argument("--eval-split", default="test")
    c.add_argument("--init", type=Path, required=True)
    c.add_argument("--modes", default="off,skip,weight")
    c.add_argument("--seeds", default="0,1")
    c.add_argument("--steps", type=int, default=20)
    c.add_argument("--eval-every", type=int, default=5)
    c.add_argument("--eval-n", type=int, default=100)
    c.add_argument("--k", type=int, default=4)
    c.add_argument("--target-gain", type=float, default=0.20)
    c.add_argument("--work", type=Path, default=ROOT / "runs" / "difficulty")
    c.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    c.add_argument("--threads", type=int, default=1)
    args = ap.parse_args(argv)
    args.command = shlex.join(["python", "bench/difficulty.py", *(sys.argv[1:] if argv is None else argv)])
    annotate(args) if args.cmd == "annotate" else compare(args)


if __name__ == "__main__":
    main()
