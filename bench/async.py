"""Asynchronous rollouts on this CPU: synchronous vs train.max_staleness 1 and 2 (trainer/async_rollout.py).

The demo's DAPO recipe (trainer/demo.py DEMO_RL: 16 prompts x G=8, 4 mini-batch updates, lr 1.5e-4)
from the same SFT policy on two-digit additions (bench/trainer.py's corpus and SFT, held-out pairs
for eval). The learner trains with one torch thread; with staleness > 0 a producer process samples
with one more, so generation and training overlap on two cores. Off-policy samples are corrected
with decoupled PPO (algo.tis_cap 2.0: clip against the learner's policy, importance weight to the
sampling one). Reported per mode: median seconds per step (first step left out), the wall time
(sum of step times, evals excluded) until held-out avg@8 is 20 points above the SFT policy's, and
the final avg@8.

    .venv/bin/python bench/async.py --quick      # one line, minutes (a few steps, one seed)
    .venv/bin/python bench/async.py              # 3 seeds x {sync, 1, 2}, demo steps: bench/results/async.md
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
RESULTS = ROOT / "bench" / "results"
TARGET_POINTS = 20.0


def held_out(work: Path, train_verl: Path, n: int = 200, seed: int = 1) -> Path:
    """Additions not in the training Parquet, as a verl Parquet (the eval split)."""
    from mathdata.export import to_verl
    from mathdata.schema import new_record
    from mathdata.store import read_table, write_records
    from trainer.data import read_verl

    out = work / "test.parquet"
    if out.exists():
        return out
    seen = {r["messages"][-1]["content"] for r in read_verl(train_verl)}
    rng, recs, used = random.Random(seed), [], set()
    while len(recs) < n:
        a, b = rng.randint(10, 99), rng.randint(10, 99)
        q = f"What is {a} + {b}?"
        if (a, b) in used or any(q in s for s in seen):
            continue
        used.add((a, b))
        recs.append(new_record(source="synthetic:bench-test", original_problem=q, problem=q, answer=str(a + b),
                               solution=f"{a} + {b} = {a + b}.\nAnswer: {a + b}", split="test"))  # fmt: skip
    write_records(work / "test_records", recs)
    to_verl(read_table(work / "test_records"), out)
    return out


def base_eval(policy: Path, test: Path, n_prompts: int, seed: int) -> float:
    """avg@8 of the SFT policy on the held-out prompts (the start of every run)."""
    import torch

    from trainer.data import load_prompts
    from trainer.eval import evaluate
    from trainer.model import load_model, load_tokenizer

    torch.manual_seed(seed)
    tok = load_tokenizer(policy)
    prompts = load_prompts(test, tok, max_prompt_len=256, limit=n_prompts).prompts
    return evaluate(load_model(policy), tok, prompts, k=8, temperature=1.0, top_p=1.0, max_new_tokens=32)[
        "avg@8"
    ]


def one_run(policy: Path, train: Path, test: Path, out: Path, *, k: int, steps: int, seed: int,
            eval_every: int, n_eval: int, prompts: int) -> dict:  # fmt: skip
    from trainer.config import build_config
    from trainer.demo import DEMO_RL
    from trainer.loop import train as train_rl
    from trainer.metrics import read_metrics

    rl = json.loads(json.dumps(DEMO_RL))
    rl["model"] = {"path": str(policy)}
    rl["data"] = {"train": str(train), "eval": str(test), "eval_size": n_eval, "max_prompt_len": 256}
    rl["train"].update(steps=steps, seed=seed, out=str(out), threads=1, save_every=10**6, tensorboard=False,
                       eval_every=eval_every, eval_k=8, eval_temperature=1.0, eval_top_p=1.0,
                       prompts_per_step=prompts, gen_prompts=prompts * 3 // 2, mini_batch_size=prompts * 2,
                       max_staleness=k, rollout_threads=1)  # fmt: skip
    if k:
        rl["algo"]["tis_cap"] = 2.0  # decoupled PPO
    t0 = time.perf_counter()
    train_rl(build_config(rl, source="bench/async.py"), progress=False)
    wall = time.perf_counter() - t0
    rows = read_metrics(out / "metrics.jsonl")
    evals = [
        (sum(r["step_time"] for r in rows[: i + 1]), r["eval/avg@8"])
        for i, r in enumerate(rows)
        if "eval/avg@8" in r
    ]
    return {
        "k": k, "seed": seed, "steps": steps, "wall_s": wall,
        "s_per_step": statistics.median(r["step_time"] for r in rows[1:]) if len(rows) > 1 else rows[0]["step_time"],
        "step_times": [r["step_time"] for r in rows], "evals": evals,
        "final_avg8": evals[-1][1] if evals else None,
        "staleness_mean": statistics.fmean(r.get("staleness_mean", 0) for r in rows),
        "is_weight_max": max(r.get("is_weight_max", 1.0) for r in rows),
        "stale_dropped": sum(r.get("stale_dropped", 0) for r in rows),
    }  # fmt: skip


def wall_to_target(run: dict, base: float) -> float | None:
    """Seconds of training (evals excluded) until held-out avg@8 reached base + 20 points; None: never."""
    for wall, acc in run["evals"]:
        if 100 * (acc - base) >= TARGET_POINTS:
            return wall
    return None


def _fmt_wall(w: float | None, steps: int) -> str:
    return f"{w:.0f}s" if w is not None else f"not reached in {steps} steps"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--quick", action="store_true", help="sync vs staleness 1, a few steps, one seed, one line"
    )
    ap.add_argument("--work", type=Path, default=ROOT / "runs" / "bench_async")
    ap.add_argument(
        "--policy", type=Path, help="SFT policy dir (default: bench/trainer.py's, trained if missing)"
    )
    ap.add_argument("--steps", type=int, help="RL steps per run (quick 6, full the demo's 200)")
    ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--staleness", default="0,1,2")
    ap.add_argument("--prompts", type=int, default=16, help="prompts per step (the demo's 16; quick 8)")
    ap.add_argument("--eval-every", type=int, default=10)
    ap.add_argument("--eval-prompts", type=int, default=100)
    a = ap.parse_args()
    import importlib.util

    import torch

    from trainer.model import quiet_transformers

    # the same corpus and SFT policy as bench/trainer.py (loaded by path: its module name is "trainer")
    spec = importlib.util.spec_from_file_location("bench_trainer", ROOT / "bench" / "trainer.py")
    bench_trainer = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench_trainer)
    make_corpus, sft_policy = bench_trainer.make_corpus, bench_trainer.sft_policy

    quiet_transformers()
    torch.set_num_threads(1)
    a.work.mkdir(parents=True, exist_ok=True)
    records, train = make_corpus(ROOT / "runs" / "bench_trainer")
    test = held_out(a.work, train)
    policy = a.policy
    if policy is None and a.quick and not (ROOT / "runs/bench_trainer/sft/config.json").exists():
        # no cached SFT policy: a fixed 100-step SFT (the format, ~5% accuracy), enough to time steps
        from trainer.sft import sft

        policy = a.work / "sft_quick"
        if not (policy / "config.json").exists():
            sft(records, policy, steps=100, batch_size=64, lr=3e-3, progress=False)
    policy = policy or sft_policy(ROOT / "runs" / "bench_trainer", records, train, 1)
    if a.quick:
        steps, seeds, ks, prompts, every, n_eval = a.steps or 6, [0], [0, 1], 8, a.steps or 6, 32
    else:
        steps, seeds = a.steps or 200, [int(s) for s in a.seeds.split(",")]
        ks, prompts, every, n_eval = (
            [int(s) for s in a.staleness.split(",")],
            a.prompts,
            a.eval_every,
            a.eval_prompts,
        )
    runs = []
    bases = {}
    for seed in seeds:
        bases[seed] = base_eval(policy, test, n_eval, seed)
        for k in ks:
            out = a.work / f"{'quick' if a.quick else 'full'}_k{k}_s{seed}"
            shutil.rmtree(out, ignore_errors=True)
            r = one_run(policy, train, test, out, k=k, steps=steps, seed=seed, eval_every=every, n_eval=n_eval,
                        prompts=prompts)  # fmt: skip
            r["base_avg8"] = bases[seed]
            r["wall_to_target_s"] = wall_to_target(r, bases[seed])
            runs.append(r)
            print(f"  k={k} seed={seed}: {r['s_per_step']:.2f} s/step, final avg@8 {r['final_avg8']:.3f} "
                  f"(SFT {bases[seed]:.3f}), wall to +20 {_fmt_wall(r['wall_to_target_s'], steps)}", flush=True)  # fmt: skip

    def agg(k: int, key: str) -> list:
        return [r[key] for r in runs if r["k"] == k and r[key] is not None]

    sync, k1 = statistics.median(agg(0, "s_per_step")), statistics.median(agg(1, "s_per_step"))
    walls = {k: agg(k, "wall_to_target_s") for k in ks}
    line = (
        f"async: sync {sync:.2f} s/step, staleness1 {k1:.2f} s/step ({sync / k1:.2f} x), wall to target "
        + ", ".join(f"k{k} " + (f"{statistics.median(w):.0f}s" if w else f"not reached in {steps} steps")
                    for k, w in walls.items())
        + ", avg@8 " + ", ".join(f"k{k} {statistics.fmean(agg(k, 'final_avg8')):.3f}" for k in ks)
        + f" (SFT {statistics.fmean(bases.values()):.3f}; {steps} steps x {prompts} prompts x G=8, {len(seeds)} seed(s))"
    )  # fmt: skip
    print(line)
    RESULTS.mkdir(parents=True, exist_ok=True)
    name = "async_quick.json" if a.quick else "async.json"
    (RESULTS / name).write_text(json.dumps({"line": line, "runs": runs, "base_avg8": bases}, indent=1))


if __name__ == "__main__":
    main()
