"""Trainer benchmarks, on this CPU, in one run:

1. Seconds per RL step: this trainer (preset dapo) vs TRL's GRPOTrainer configured as DAPO
   (loss_type="dapo", epsilon_high=0.28, mask_truncated_completions=True, beta=0), same tiny policy,
   same prompts, G, lengths and reward (verifiers.dapo_reward). Dynamic sampling is off on our side
   so both generate exactly prompts x G responses per step. Target: ours >= 1.5x faster.
2. GRPO vs DAPO presets over the same steps from the same SFT policy on the synthetic task:
   accuracy and entropy per step as a table, a PNG and JSON under bench/results/.

3. With `--spread`: worked solutions of 1 to 12 lines (responses spread ~10x in length, as in
   long-CoT training), and the learner's forward/backward on one such batch padded vs packed
   (train.padding_free, trainer/packing.py); `--padding-free` turns packing on for our RL steps.

    .venv/bin/python bench/trainer.py [--steps 6] [--rounds 2] [--curve-steps 30] [--policy DIR]
    .venv/bin/python bench/trainer.py --spread --padding-free --L 128 --curve-steps 0 --rounds 1
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
RESULTS = ROOT / "bench" / "results"


def make_corpus(work: Path, n_train: int = 2000, seed: int = 0, spread: bool = False) -> tuple[Path, Path]:
    """Two-digit additions with worked solutions: a records store (SFT) and a verl Parquet (RL).

    `spread`: each solution first counts up 1..k (k uniform in 0..11) from the first operand, one
    line each, so the SFT policy's responses spread ~10x in length (digits are single tokens).
    """
    from mathdata.export import to_verl
    from mathdata.schema import new_record
    from mathdata.store import read_table, write_records

    rng = random.Random(seed)
    seen, recs = set(), []
    while len(recs) < n_train:
        a, b = rng.randint(10, 99), rng.randint(10, 99)
        if (a, b) in seen:
            continue
        seen.add((a, b))
        q = f"What is {a} + {b}?"
        steps = "".join(f"{a} + {i} = {a + i}.\n" for i in range(1, rng.randint(0, 11) + 1)) if spread else ""
        recs.append(new_record(source="synthetic:bench", original_problem=q, problem=q, answer=str(a + b),
                               solution=f"{steps}{a} + {b} = {a + b}.\nAnswer: {a + b}", split="train"))  # fmt: skip
    records = work / "records"
    if not records.exists():
        write_records(records, recs)
    verl = work / "train.parquet"
    if not verl.exists():
        to_verl(read_table(records), verl)
    return records, verl


def sft_policy(work: Path, records: Path, verl: Path, threads: int, max_new_tokens: int = 32) -> Path:
    from trainer.data import Prompt, read_verl
    from trainer.sft import sft

    out = work / "sft"
    if not (out / "config.json").exists():
        probe = [Prompt(r["key"], [], r["gold"], r["messages"][-1]["content"]) for r in read_verl(verl)[-48:]]
        torch.set_num_threads(threads)
        if (
            max_new_tokens > 32
        ):  # the spread corpus: a fixed 300 steps learn the line format (timing, not accuracy)
            sft(records, out, steps=300, batch_size=64, lr=3e-3, progress=False)
        else:
            sft(records, out, steps=2000, batch_size=64, lr=3e-3, probe=probe, stop_at_acc=0.3, eval_every=50,
                max_new_tokens=max_new_tokens, progress=False)  # fmt: skip
    return out


def ours_step_seconds(
    policy: Path,
    verl: Path,
    work: Path,
    *,
    steps: int,
    prompts: int,
    G: int,
    L: int,
    threads: int,
    tag: str = "",
    padding_free: bool = False,
) -> tuple[list[float], list[float]]:
    """(seconds per step, of which rollout seconds: generation and reward), first step left out."""
    from trainer.config import build_config
    from trainer.loop import train
    from trainer.metrics import read_metrics

    out = work / f"ours{tag}"
    cfg = build_config({
        "preset": "dapo", "model": {"path": str(policy)}, "data": {"train": str(verl)},
        "rollout": {"n": G, "max_new_tokens": L}, "algo": {"dynamic_sampling": False, "overlong_buffer": L // 4},
        "optim": {"lr": 1e-5, "warmup_steps": 0},
        "train": {"steps": steps + 1, "prompts_per_step": prompts, "out": str(out), "threads": threads,
                  "save_every": 10**6, "tensorboard": False, "padding_free": padding_free},
    })  # fmt: skip
    train(cfg, progress=False)
    rows = read_metrics(out / "metrics.jsonl")[1:]  # first step warms caches
    return [r["step_time"] for r in rows], [r["gen_time"] for r in rows]


def learner_seconds(policy: Path, *, n: int, L: int, repeats: int, threads: int, seed: int = 0) -> dict:
    """The learner alone: forward/backward of one batch of `n` responses whose lengths spread 10x
    (log-uniform in [L/10, L]), padded vs packed; median seconds over `repeats`, and the padding shares."""
    import math

    from trainer.batch import make_batch
    from trainer.config import build_config
    from trainer.data import Prompt
    from trainer.model import load_model
    from trainer.packing import pack
    from trainer.reward import RewardResult
    from trainer.rollout import Sample
    from trainer.sampling import Group
    from trainer.update import accumulate_grads

    torch.set_num_threads(threads)
    model = load_model(policy)
    V = model.config.vocab_size
    g = torch.Generator().manual_seed(seed)
    groups = []
    for k in range(n // 8):
        samples = []
        for _ in range(8):
            r = int(math.exp(math.log(L / 10) + float(torch.rand(1, generator=g)) * math.log(10)))
            samples.append(Sample(torch.randint(3, V, (12,), generator=g).tolist(),
                                  torch.randint(3, V, (r,), generator=g).tolist(), [-1.0] * r, False, ""))  # fmt: skip
        groups.append(
            Group(Prompt(str(k), [], "1", ""), samples, [RewardResult(1.0, 1.0, None, "", 0.0)] * 8)
        )
    b = make_batch(groups, 0, overlong_filter=True)
    b = b.with_(adv=torch.randn(len(b), generator=g), old=None)
    out: dict = {
        "n": len(b),
        "L": L,
        "resp_len_min": int(b.mask.sum(1).min()),
        "resp_len_max": int(b.mask.sum(1).max()),
    }
    for packed in (False, True):
        cfg = build_config({"preset": "dapo", "rollout": {"n": 8, "max_new_tokens": L}, "algo": {"overlong_buffer": L // 4},
                            "train": {"prompts_per_step": n // 8, "padding_free": packed}})  # fmt: skip
        times = []
        for _ in range(repeats):
            model.zero_grad(set_to_none=True)
            t0 = time.perf_counter()
            accumulate_grads(cfg, model, b, b, 1, len(b))
            times.append(time.perf_counter() - t0)
        out["packed_s" if packed else "padded_s"] = statistics.median(times)
    out["padded_padding_share"] = 1 - float(b.attn.sum()) / b.attn.numel()
    out["packed_padding_share"] = pack(b.ids, b.attn, b.mask).padding_share
    return out


def trl_step_seconds(
    policy: Path, verl: Path, work: Path, *, steps: int, prompts: int, G: int, L: int, threads: int
) -> list[float]:
    from datasets import Dataset
    from transformers import TrainerCallback
    from trl import GRPOConfig, GRPOTrainer

    from trainer.data import read_verl
    from trainer.model import load_model, load_tokenizer
    from verifiers import dapo_reward

    torch.set_num_threads(threads)
    tok = load_tokenizer(policy)
    rows = read_verl(verl)
    ds = Dataset.from_list([{"prompt": r["messages"], "answer": r["gold"]} for r in rows])

    def reward(prompts, completions, completion_ids, answer, **kw):
        out = []
        for c, ids, gold in zip(completions, completion_ids, answer, strict=True):
            text = c[-1]["content"] if isinstance(c, list) else c
            trunc = tok.eos_token_id not in ids
            out.append(
                dapo_reward(text, gold, max_len=L, cache_len=L // 4, length=len(ids), truncated=trunc).score
            )
        return out

    times: list[float] = []

    class Clock(TrainerCallback):
        def on_step_begin(self, args, state, control, **kw):
            self.t = time.perf_counter()

        def on_step_end(self, args, state, control, **kw):
            times.append(time.perf_counter() - self.t)

    args = GRPOConfig(
        output_dir=str(work / "trl"), loss_type="dapo", epsilon=0.2, epsilon_high=0.28, mask_truncated_completions=True,
        beta=0.0, num_generations=G, max_completion_length=L, per_device_train_batch_size=prompts * G,
        gradient_accumulation_steps=1, num_iterations=1, learning_rate=1e-5, lr_scheduler_type="constant",
        max_steps=steps + 1, use_cpu=True, temperature=1.0, top_p=1.0, gradient_checkpointing=False,
        report_to="none", save_strategy="no", logging_steps=1, seed=0, dataloader_num_workers=0,
        disable_tqdm=True,
    )  # fmt: skip
    trainer = GRPOTrainer(model=load_model(policy), reward_funcs=[reward], args=args, train_dataset=ds,
                          processing_class=tok, callbacks=[Clock()])  # fmt: skip
    trainer.train()
    return times[1:]


def preset_curves(
    policy: Path, verl: Path, work: Path, *, steps: int, threads: int, seeds: list[int]
) -> dict:
    """{preset: [per-seed {acc, entropy, ...}]} for GRPO and DAPO from the same policy, several seeds."""
    from trainer.config import build_config
    from trainer.loop import train
    from trainer.metrics import read_metrics

    curves: dict = {"grpo": [], "dapo": []}
    for seed in seeds:
        for preset in curves:
            out = work / f"curve_{preset}_s{seed}"
            cfg = build_config({
                "preset": preset, "model": {"path": str(policy)}, "data": {"train": str(verl)},
                "rollout": {"n": 8, "max_new_tokens": 32}, "algo": {"overlong_buffer": 8, "max_gen_batches": 20},
                "optim": {"lr": 5e-5, "warmup_steps": 3},
                "train": {"steps": steps, "prompts_per_step": 16, "gen_prompts": 24, "mini_batch_size": 64,
                          "out": str(out), "threads": threads, "save_every": 10**6, "tensorboard": False, "seed": seed},
            })  # fmt: skip
            train(cfg, progress=False)
            rows = read_metrics(out / "metrics.jsonl")
            curves[preset].append(
                {"seed": seed, "step": [r["step"] for r in rows]}
                | {
                    k: [r.get(k) for r in rows]
                    for k in ("acc", "entropy", "response_length_mean", "step_time")
                }
            )
    return curves


def curves_from_ablation(path: Path) -> tuple[dict, str]:
    """GRPO and DAPO per-seed training curves from bench/ablation.py's JSON, and a line saying so."""
    d = json.loads(path.read_text())
    out = {}
    for r in d["results"]:
        if r["preset"] in ("grpo", "dapo"):
            out[r["preset"]] = [
                {"seed": x["seed"], "step": x["curve"]["step"], "acc": x["curve"]["acc"], "entropy": x["curve"]["entropy"]}
                for x in r["runs"] if x["status"] == "ok"
            ]  # fmt: skip
    a = d["args"]
    note = (f"from {path.name} ({a['steps']} steps x {a['prompts']} prompts x G={a['G']}, L={a['L']}, "
            f"lr {a['lr']}, seeds {a['seeds']})")  # fmt: skip
    return out, note


def _mean_se(rows: list[list]) -> tuple[list, list]:
    import statistics

    m, se = [], []
    for vals in zip(*rows, strict=False):
        v = [x for x in vals if x is not None]
        m.append(statistics.fmean(v) if v else float("nan"))
        se.append(statistics.stdev(v) / len(v) ** 0.5 if len(v) > 1 else 0.0)
    return m, se


def plot_curves(curves: dict, path: Path, note: str = "") -> None:
    """Mean over seeds with a ±1 s.e. band, each seed faint behind it; accuracy and entropy."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for i, (preset, runs) in enumerate(curves.items()):
        n = min(len(r["acc"]) for r in runs)
        steps = runs[0].get("step", list(range(1, n + 1)))[:n]
        for ax, key in zip(axes, ("acc", "entropy"), strict=True):
            for r in runs:
                ax.plot(steps, r[key][:n], color=f"C{i}", lw=0.6, alpha=0.25)
            m, se = _mean_se([r[key][:n] for r in runs])
            ax.plot(
                steps,
                m,
                color=f"C{i}",
                lw=2,
                ls="-" if i == 0 else "--",
                label=f"{preset} (mean of {len(runs)} seeds)",
            )
            ax.fill_between(steps, [a - b for a, b in zip(m, se, strict=True)],
                            [a + b for a, b in zip(m, se, strict=True)], color=f"C{i}", alpha=0.2, lw=0)  # fmt: skip
    axes[0].set_title("accuracy (sampled, training prompts)")
    axes[1].set_title("generation entropy")
    for ax in axes:
        ax.set_xlabel("step")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, title="band ±1 s.e.; faint: single seeds", title_fontsize=7)
    fig.suptitle("GRPO vs DAPO from the same SFT policy" + (f"\n{note}" if note else ""), fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", type=Path, default=ROOT / "runs" / "bench_trainer")
    ap.add_argument("--policy", type=Path, help="a policy dir to start from (default: a quick SFT)")
    ap.add_argument("--steps", type=int, default=6, help="timed steps per trainer (after one warm-up step)")
    ap.add_argument("--prompts", type=int, default=8)
    ap.add_argument("--G", type=int, default=8)
    ap.add_argument("--L", type=int, default=32, help="max new tokens")
    ap.add_argument("--curve-steps", type=int, default=30, help="GRPO vs DAPO steps (0 skips)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument(
        "--spread", action="store_true", help="SFT on solutions spread ~10x in length (own work dir)"
    )
    ap.add_argument("--padding-free", action="store_true", help="our RL steps with train.padding_free")
    ap.add_argument("--curve-seeds", default="0,1,2", help="seeds of the GRPO vs DAPO curves")
    ap.add_argument(
        "--curves-from", type=Path,
        help="only redraw trainer_grpo_vs_dapo.png from a bench/ablation.py JSON (its grpo and dapo seeds)",
    )  # fmt: skip
    ap.add_argument(
        "--rounds", type=int, default=2,
        help="alternate ours / TRL this many times and pool the steps (a shared CPU's load drifts)",
    )  # fmt: skip
    a = ap.parse_args()
    if a.curves_from:
        curves, note = curves_from_ablation(a.curves_from)
        plot_curves(curves, RESULTS / "trainer_grpo_vs_dapo.png", note)
        print(f"plot: {RESULTS / 'trainer_grpo_vs_dapo.png'} ({note})")
        return
    from trainer.model import quiet_transformers

    quiet_transformers()
    a.work.mkdir(parents=True, exist_ok=True)
    RESULTS.mkdir(parents=True, exist_ok=True)
    if a.spread and a.work == ROOT / "runs" / "bench_trainer":
        a.work = ROOT / "runs" / "bench_trainer_spread"
        a.work.mkdir(parents=True, exist_ok=True)
    records, verl = make_corpus(a.work, spread=a.spread)
    policy = a.policy or sft_policy(a.work, records, verl, a.threads, max_new_tokens=a.L if a.spread else 32)
    kw = {"steps": a.steps, "prompts": a.prompts, "G": a.G, "L": a.L, "threads": a.threads}
    learner = None
    if a.spread:
        learner = learner_seconds(policy, n=a.prompts * a.G, L=a.L, repeats=5, threads=a.threads)
        print(f"learner forward/backward, {learner['n']} responses of {learner['resp_len_min']}..{learner['resp_len_max']} "
              f"tokens: padded {learner['padded_s']:.3f}s ({learner['padded_padding_share']:.0%} padding), "
              f"packed {learner['packed_s']:.3f}s ({learner['packed_padding_share']:.0%} padding), "
              f"{learner['padded_s'] / learner['packed_s']:.2f}x")  # fmt: skip
    ours, ours_gen, trl = [], [], []
    for r in range(a.rounds):
        o_s, o_g = ours_step_seconds(policy, verl, a.work, tag=f"_r{r}", padding_free=a.padding_free, **kw)
        ours += o_s
        ours_gen += o_g
        trl += trl_step_seconds(policy, verl, a.work, **kw)
    o, t, g = statistics.median(ours), statistics.median(trl), statistics.median(ours_gen)
    print(
        f"\nseconds per step ({a.prompts} prompts x G={a.G}, <= {a.L} new tokens, {a.threads} thread(s), "
        f"median of {len(ours)} = {a.rounds} rounds x {a.steps}, ours and TRL alternating):"
    )
    print(f"  this trainer (dapo)       {o:7.3f}  (rollout: generation + reward {g:.3f})")
    print(f"  TRL GRPOTrainer (dapo)    {t:7.3f}")
    print(f"  ratio TRL / ours          {t / o:7.2f}x  (target >= 1.5x) {'PASS' if t / o >= 1.5 else 'FAIL'}")
    result = {
        "ours_s_per_step": ours, "ours_rollout_s_per_step": ours_gen, "trl_s_per_step": trl, "ratio": t / o,
        "rounds": a.rounds, "spread": a.spread, "padding_free": a.padding_free, "learner": learner, **kw,
    }  # fmt: skip
    if a.curve_steps:
        seeds = [int(x) for x in a.curve_seeds.split(",")]
        curves = preset_curves(policy, verl, a.work, steps=a.curve_steps, threads=a.threads, seeds=seeds)
        png = RESULTS / "trainer_grpo_vs_dapo.png"
        plot_curves(curves, png, f"bench/trainer.py, {a.curve_steps} steps, seeds {a.curve_seeds}")
        print(
            f"\nGRPO vs DAPO from the same SFT policy ({a.curve_steps} steps, mean of seeds {a.curve_seeds}):"
        )
        print(f"{'step':>5} | {'grpo acc':>8} {'dapo acc':>8} | {'grpo ent':>8} {'dapo ent':>8}")
        g_acc, _ = _mean_se([r["acc"] for r in curves["grpo"]])
        d_acc, _ = _mean_se([r["acc"] for r in curves["dapo"]])
        g_ent, _ = _mean_se([r["entropy"] for r in curves["grpo"]])
        d_ent, _ = _mean_se([r["entropy"] for r in curves["dapo"]])
        for i in range(0, min(len(g_acc), len(d_acc)), max(1, a.curve_steps // 10)):
            print(f"{i + 1:>5} | {g_acc[i]:8.3f} {d_acc[i]:8.3f} | {g_ent[i]:8.3f} {d_ent[i]:8.3f}")
        print(f"plot: {png}")
        result["curves"] = curves
    res = RESULTS / ("trainer_spread.json" if a.spread else "trainer.json")
    res.write_text(json.dumps(result, indent=1))
    print(f"results: {res}")


if __name__ == "__main__":
    main()
