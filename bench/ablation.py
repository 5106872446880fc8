"""Same budget, every preset: which algorithm learns the synthetic task fastest on a tiny model?

For each preset (every row of trainer/algorithms.py: grpo, dr_grpo, dapo, gspo, dcpo, ppo, vapo,
rloo, reinforce_pp, cispo, gmpo, clip_cov, kl_cov) the trainer starts from the same SFT
warm-up checkpoint, sees the same prompts per step, G, response length and number of steps, and
is evaluated on the same held-out prompts. Reported: final avg@k, steps to a target avg@k, policy
entropy at the end, and generation batches used (dynamic sampling spends more samples per step).
Writes bench/results/ablation.{json,png} and the table of ablation.md: only the region between
the markers TABLE_START / TABLE_END is rewritten, so the prose written around it survives a re-run
(a file without the markers gets the region added at the top, its old text kept below).

    python bench/ablation.py                       # build corpus + SFT in --work, then every preset
    python bench/ablation.py --presets grpo,dapo --steps 20
    python bench/ablation.py --train T.parquet --eval E.parquet --init SFT_DIR   # bring your own
    python bench/ablation.py --seeds 0,1,2 --mini-batch 16   # 3 seeds, 4 (off-policy) updates per rollout
    python bench/ablation.py --presets vapo --variant vapo_a0.5=vapo:algo.alpha=0.5   # a preset with changes

With one update per rollout (the default) every importance ratio is 1, so the clip variants (grpo,
gspo, dapo's clip-higher, dcpo) cannot differ; --mini-batch / --epochs give several updates per
rollout, and the clip fractions in the report show how often each clip bites. With several --seeds
the report gives mean and standard error over seeds (the JSON keeps every seed's run).

Each run lives in WORK/runs/<preset>/seed<k> and resumes from its last checkpoint when re-run;
a finished run is read back, not re-trained. Presets the loop does not support yet are reported
as skipped with the config's message, not dropped silently.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shlex
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from mathdata.files import atomic_write  # noqa: E402

# every preset of the algorithm table: the original seven first (the order of earlier reports), then the rest
_FIRST = ["grpo", "dr_grpo", "dapo", "gspo", "dcpo", "ppo", "vapo"]


def _all_presets() -> list[str]:
    from trainer.config import PRESETS as ALL

    return [p for p in _FIRST if p in ALL] + [p for p in ALL if p not in _FIRST]


PRESETS = _all_presets()
TABLE_START = "<!-- ablation.py: table start (generated; edit the prose outside these markers) -->"
TABLE_END = "<!-- ablation.py: table end -->"
# per-seed numbers reported as mean and standard error over seeds
PER_SEED = [
    "final_avg",
    "late_avg",
    "entropy_end",
    "clip_frac_low",
    "clip_frac_high",
    "selected_share",
    "truncation_ratio",
    "kl_old",
    "gen_batches",
    "seconds",
]


def build_corpus(work: Path, *, n_train: int, n_eval: int, seed: int) -> tuple[Path, Path, Path]:
    """The demo's task mix (examples/demo.yaml): train corpus, held-out eval corpus, train records."""
    from synthetic_corpus import build_pair

    task = {"kinds": ["add", "sub", "mul", "linear"], "difficulty": [1, 2]}
    return build_pair(work, name="ablation", task=task, n_train=n_train, n_eval=n_eval, seed=seed, rules=True)


def warm_up(
    work: Path, records: Path, eval_parquet: Path, *, steps: int, stop_at: float, k: int, L: int
) -> Path:
    """The shared starting policy: SFT on worked solutions, stopped near `stop_at` probe accuracy."""
    from trainer.data import Prompt, read_verl
    from trainer.sft import sft

    out = work / "sft"
    if (out / "config.json").exists():
        return out
    probe = [
        Prompt(r["key"], [], r["gold"], r["messages"][-1]["content"]) for r in read_verl(eval_parquet)[:32]
    ]
    summary = sft(records, out, steps=steps, probe=probe, stop_at_acc=stop_at, probe_k=k, max_new_tokens=L)
    atomic_write(work / "sft.json", json.dumps(summary, indent=1))
    return out


def initial_eval(init: Path, eval_parquet: Path, *, k: int, n: int, L: int, max_prompt_len: int) -> dict:
    from trainer.data import load_prompts
    from trainer.eval import evaluate
    from trainer.model import load_model, load_tokenizer

    model, tok = load_model(init), load_tokenizer(init)
    ps = load_prompts(eval_parquet, tok, max_prompt_len=max_prompt_len, limit=n)
    return evaluate(model, tok, ps.prompts, k=k, temperature=1.0, top_p=0.7, max_new_tokens=L)


def parse_variant(text: str) -> tuple[str, str, dict]:
    """`NAME=PRESET:key=value;key=value` -> (NAME, PRESET, nested overrides), read as `dapo train --set` reads them.

    >>> parse_variant("vapo_a0.5=vapo:algo.alpha=0.5;algo.value_pretrain_steps=10")
    ('vapo_a0.5', 'vapo', {'algo': {'alpha': 0.5, 'value_pretrain_steps': 10}})
    """
    from trainer.config import ConfigError, apply_sets

    name, sep, rest = text.partition("=")
    preset, sep2, sets = rest.partition(":")
    if not (sep and sep2 and name.strip() and preset.strip()):
        raise ValueError(
            f"--variant {text!r}: write NAME=PRESET:key=value[;key=value], e.g. vapo_a=vapo:algo.alpha=0.5"
        )
    items = [x.strip() for x in sets.split(";") if x.strip()]
    bad = [x for x in items if "." not in x.partition("=")[0]]
    if bad:
        raise ValueError(f"--variant {text!r}: {bad[0]!r} is not section.key=value (e.g. algo.alpha=0.5)")
    try:
        over = apply_sets({}, items)
    except ConfigError as e:
        raise ValueError(f"--variant {text!r}: {e}") from None
    return name.strip(), preset.strip(), over


def _merge(base: dict, extra: dict) -> dict:
    out = dict(base)
    for k, v in extra.items():
        out[k] = _merge(out.get(k, {}), v) if isinstance(v, dict) else v
    return out


def run_seed(name: str, seed: int, args, train_parquet: Path, eval_parquet: Path, init: Path) -> dict:
    """One training run of preset (or --variant) `name` with `train.seed = seed` in WORK/runs/<name>/seed<seed>
    (resumable)."""
    from trainer.config import ConfigError, build_config
    from trainer.loop import train
    from trainer.metrics import read_metrics

    preset, extra = getattr(args, "variants", {}).get(name, (name, {}))
    out = args.work / "runs" / name / f"seed{seed}"
    overrides = {
        "model": {"path": str(init)},
        "data": {"train": str(train_parquet), "eval": str(eval_parquet), "eval_size": args.eval_n,
                 "max_prompt_len": args.max_prompt_len},
        "rollout": {"n": args.G, "max_new_tokens": args.L},
        "train": {"steps": args.steps, "prompts_per_step": args.prompts, "eval_every": args.eval_every,
                  "eval_k": args.k, "out": str(out), "seed": seed, "tensorboard": False,
                  "save_every": args.eval_every, "threads": args.threads,
                  "mini_batch_size": args.mini_batch or None, "epochs": args.epochs},
        "optim": {"lr": args.lr},
    }  # fmt: skip
    # Lcache = L/4 for every preset (it only matters where the soft overlong punishment is on)
    overrides["algo"] = {"overlong_buffer": max(1, args.L // 4)}
    overrides = _merge(overrides, extra)
    try:
        cfg = build_config(overrides, preset=preset, source=f"ablation:{name}")
    except ConfigError as e:
        return {"seed": seed, "status": "skipped", "reason": str(e).splitlines()[-1].strip()}
    metrics_path = out / "metrics.jsonl"
    rows = read_metrics(metrics_path) if metrics_path.exists() else []
    t0 = time.perf_counter()
    if not rows or rows[-1]["step"] < args.steps:
        resume = (out / "checkpoints").exists() and any((out / "checkpoints").iterdir())
        try:
            train(cfg, resume=resume, progress=not args.quiet)
        except Exception as e:  # one run failing (e.g. dynamic sampling gave up) must not end the sweep
            return {
                "seed": seed,
                "status": "failed",
                "reason": f"{type(e).__name__}: {e}".splitlines()[0][:200],
            }
        rows = read_metrics(metrics_path)
    key = f"eval/avg@{args.k}"
    evals = [(r["step"], r[key]) for r in rows if key in r]
    hit = next((s for s, v in evals if v >= args.target), None)

    def step_mean(name: str) -> float | None:  # over the steps that report it (not vapo's critic-only steps)
        xs = [r[name] for r in rows if r.get(name) is not None]
        return sum(xs) / len(xs) if xs else None

    return {
        "seed": seed,
        "status": "ok",
        "final_avg": evals[-1][1] if evals else None,
        # the evals after the first half of training, averaged: less eval noise than the last one alone
        "late_avg": mean_se([v for s, v in evals if s > args.steps / 2])[0],
        "steps_to_target": hit,
        "entropy_end": rows[-1].get("entropy"),
        "eval_entropy_end": rows[-1].get("eval/entropy"),
        "clip_frac_low": step_mean("clip_frac_low"),
        "clip_frac_high": step_mean("clip_frac_high"),
        # tokens an algorithm treats apart (clip_cov / kl_cov select them; None for the others)
        "selected_share": step_mean("selected_share"),
        # responses cut at max length: their tokens are masked where the preset filters overlong ones
        "truncation_ratio": step_mean("truncation_ratio"),
        "kl_old": step_mean("kl_old"),
        "updates_per_step": rows[-1].get("updates"),
        "gen_batches": sum(r.get("gen_batches", 1) for r in rows),
        "seconds": sum(r.get("step_time", 0.0) for r in rows) or time.perf_counter() - t0,
        "curve": {"step": [r["step"] for r in rows], "acc": [r.get("acc") for r in rows],
                  "entropy": [r.get("entropy") for r in rows], "eval_step": [s for s, _ in evals],
                  "eval_avg": [v for _, v in evals]},
    }  # fmt: skip


def mean_se(xs: list[float | None]) -> tuple[float | None, float | None]:
    """Mean and standard error of the mean (sample sd / sqrt n) of the non-missing values; se None for n < 2."""
    xs = [x for x in xs if x is not None]
    if not xs:
        return None, None
    m = sum(xs) / len(xs)
    if len(xs) < 2:
        return m, None
    var = sum((x - m) ** 2 for x in xs) / (len(xs) - 1)
    return m, math.sqrt(var / len(xs))


def summarize(preset: str, runs: list[dict]) -> dict:
    """One preset over its seeds: mean and s.e. of each per-seed number, and the per-seed runs."""
    skipped = [r for r in runs if r["status"] == "skipped"]
    if skipped:  # a config the trainer rejects is rejected for every seed
        return {"preset": preset, "status": "skipped", "reason": skipped[0]["reason"], "runs": runs}
    ok = [r for r in runs if r["status"] == "ok"]
    failed = [r for r in runs if r["status"] == "failed"]
    out = {
        "preset": preset,
        "status": "ok" if ok else "failed",
        "runs": runs,
        "n_ok": len(ok),
        "n": len(runs),
    }
    if failed:
        out["reason"] = "; ".join(f"seed {r['seed']}: {r['reason']}" for r in failed)
    for name in PER_SEED:
        out[name], out[name + "_se"] = mean_se([r[name] for r in ok])
    hits = [r["steps_to_target"] for r in ok if r["steps_to_target"] is not None]
    out["steps_to_target"] = sum(hits) / len(hits) if hits else None
    out["reached"] = len(hits)
    return out


def _f(x, fmt=".3f") -> str:
    return "-" if x is None else format(x, fmt)


def _pm(m, se, fmt=".3f") -> str:
    return _f(m, fmt) if se is None else f"{_f(m, fmt)} ± {_f(se, fmt.lstrip('+'))}"


def mean_curve(runs: list[dict], xkey: str, ykey: str) -> tuple[list, list, list]:
    """(x, mean, s.e.) over seeds at each x that some seed reports (s.e. 0 where only one seed has it)."""
    at: dict = {}
    for r in runs:
        for x, y in zip(r["curve"][xkey], r["curve"][ykey], strict=True):
            if y is not None:
                at.setdefault(x, []).append(y)
    xs = sorted(at)
    stats = [mean_se(at[x]) for x in xs]
    return xs, [m for m, _ in stats], [se or 0.0 for _, se in stats]


def updates_per_rollout(args) -> int:
    batch = args.prompts * args.G
    return args.epochs * (batch // args.mini_batch if args.mini_batch else 1)


def report(results: list[dict], before: dict, args, out_dir: Path) -> None:
    k = args.k
    seeds = parse_seeds(args.seeds)
    upr = updates_per_rollout(args)
    mb = f"mini-batch {args.mini_batch} responses" if args.mini_batch else "the whole batch per update"
    ref = next((r for r in results if r["status"] == "ok"), None)
    vs_name = ref["preset"] if ref else "-"

    def vs(r: dict, name: str) -> str:
        """Difference of the means from the reference preset's, with the s.e. of the difference."""
        if r is ref or r[name] is None or ref[name] is None:
            return "-"
        ses = [x for x in (r[name + "_se"], ref[name + "_se"]) if x is not None]
        return _pm(r[name] - ref[name], math.sqrt(sum(x * x for x in ses)) if len(ses) == 2 else None, "+.3f")

    lines = [
        f"# Ablation: same budget per preset ({args.steps} steps x {args.prompts} prompts x G={args.G}, "
        f"max {args.L} new tokens, eval avg@{k} on {args.eval_n} held-out prompts)",
        "",
        f"Command: `{args.command}`",
        "",
        f"Updates per rollout: {upr} ({mb}, {args.epochs} epoch(s); "
        + ("the first on-policy, the rest off-policy" if upr > 1 else "on-policy: every importance ratio is 1")
        + f"). Seeds: {', '.join(map(str, seeds))} (train.seed: prompt order, sampling, mini-batch order). "
        f"Cells are mean ± standard error over seeds; gen batches and seconds are per seed. "
        f"avg@{k} steps > {args.steps // 2}: the mean of each run's evals in the second half (less eval "
        f"noise than the final eval alone); vs {vs_name}: difference of the means ± its s.e. (seeds treated as "
        f"independent); clip fracs: share of trained tokens clipped below / above, mean over steps; "
        f"selected frac: share of tokens clip_cov / kl_cov select for their clip / KL term (mean over steps); "
        f"truncated: share of responses cut at max length (their tokens are masked where the preset filters "
        f"overlong responses: dapo).",
        "",
        f"Starting policy (SFT warm-up): avg@{k} {before.get(f'avg@{k}', float('nan')):.3f}, "
        f"entropy {before.get('entropy', float('nan')):.3f}",
        "",
        f"| preset | final avg@{k} | vs {vs_name} | avg@{k} steps > {args.steps // 2} | vs {vs_name} "
        f"| steps to avg@{k} >= {args.target} | entropy at end | clip frac low | clip frac high | selected frac "
        f"| truncated | gen batches | seconds |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]  # fmt: skip
    for r in results:
        if r["status"] == "skipped" or r["status"] == "failed":
            lines.append(f"| {r['preset']} | {r['status']}: {r['reason']} |" + " |" * 11)
            continue
        hit = f"{r['reached']}/{r['n_ok']} seeds"
        if r["steps_to_target"] is not None:
            hit = f"{r['steps_to_target']:.3g} ({hit})"
        note = f" ({r['n_ok']}/{r['n']} seeds ok: {r['reason']})" if r.get("reason") else ""
        lines.append(
            f"| {r['preset']}{note} | {_pm(r['final_avg'], r['final_avg_se'])} | {vs(r, 'final_avg')} "
            f"| {_pm(r['late_avg'], r['late_avg_se'])} | {vs(r, 'late_avg')} | {hit} "
            f"| {_pm(r['entropy_end'], r['entropy_end_se'])} | {_f(r['clip_frac_low'], '.4f')} "
            f"| {_f(r['clip_frac_high'], '.4f')} | {_f(r['selected_share'], '.4f')} "
            f"| {_f(r['truncation_ratio'], '.3f')} | {_f(r['gen_batches'], '.0f')} | {_f(r['seconds'], '.0f')} |"
        )
    md = "\n".join(lines) + "\n"
    atomic_write(out_dir / "ablation.md", with_table(out_dir / "ablation.md", md))
    meta = {k2: str(v) for k2, v in vars(args).items()} | {"updates_per_rollout": upr}
    atomic_write(
        out_dir / "ablation.json", json.dumps({"args": meta, "before": before, "results": results}, indent=1)
    )
    print(md)

    plot(results, before, k=k, target=args.target, out_dir=out_dir)
    print(f"wrote {out_dir / 'ablation.md'}, {out_dir / 'ablation.json'}, {out_dir / 'ablation.png'}")


STYLES = ["-", "--", "-.", ":"]
MARKERS = ["o", "s", "^", "D", "v", "P", "X"]


def plot(results: list[dict], before: dict, *, k: int, target: float, out_dir: Path) -> Path:
    """ablation.png: held-out accuracy (mean over seeds, ±1 s.e. as error bars side by side, not
    overlapping fills) and entropy (moving average of 5 steps); one colour, line style and marker per
    preset, the same in both panels, each with its legend."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    shown = [r for r in results if any(x["status"] == "ok" for x in r.get("runs", []))]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(13, 4.8))
    width = 0.5  # of an eval interval, over which the presets' points are spread
    for i, r in enumerate(shown):
        runs = [x for x in r["runs"] if x["status"] == "ok"]
        style = {"color": f"C{i}", "ls": STYLES[i % len(STYLES)], "marker": MARKERS[i % len(MARKERS)]}
        xs, m, se = mean_curve(runs, "eval_step", "eval_avg")
        xs, m, se = [0] + xs, [before.get(f"avg@{k}")] + m, [0.0] + se
        gap = (xs[2] - xs[1]) if len(xs) > 2 else 1
        dx = (i - (len(shown) - 1) / 2) * width * gap / max(len(shown), 1)
        ax1.errorbar([x + dx if x else x for x in xs], m, yerr=se, capsize=2, lw=1.4, ms=4, elinewidth=1,
                     label=f"{r['preset']} (n={len(runs)})", **style)  # fmt: skip
        xs, m, _ = mean_curve(runs, "step", "entropy")
        ax2.plot(xs, _moving_average(m, 5), lw=1.5, label=r["preset"], markevery=5, ms=4, **style)
    ax1.axhline(target, color="grey", ls=":", lw=1)
    ax1.set(xlabel="step", ylabel=f"held-out avg@{k}",
            title="held-out accuracy: mean over seeds, bars ±1 s.e. (points spread apart)")  # fmt: skip
    ax2.set(xlabel="step", ylabel="policy entropy (trained tokens)",
            title="entropy: mean over seeds, moving average of 5 steps")  # fmt: skip
    ax2.ticklabel_format(useOffset=False)
    for ax in (ax1, ax2):
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, ncol=2)
    fig.tight_layout()
    tmp = out_dir / "ablation.png.tmp.png"
    fig.savefig(tmp, dpi=120)
    plt.close(fig)
    os.replace(tmp, out_dir / "ablation.png")
    return out_dir / "ablation.png"


def _moving_average(ys: list, w: int) -> list:
    h = w // 2
    out = []
    for i in range(len(ys)):
        v = [y for y in ys[max(0, i - h) : i + h + 1] if y is not None]
        out.append(sum(v) / len(v) if v else None)
    return out


def replot(out_dir: Path) -> Path:
    """Redraw ablation.png from ablation.json (no training)."""
    d = json.loads((out_dir / "ablation.json").read_text())
    a = d["args"]
    return plot(d["results"], d["before"], k=int(a["k"]), target=float(a["target"]), out_dir=out_dir)


def with_table(path: Path, table: str) -> str:
    """The text of `path` with the region between TABLE_START and TABLE_END replaced by `table`.

    No file: just the region. A file without the markers (an older report): the region at the top,
    the old text kept below it. Markers out of order or repeated: an error (fix the file by hand).
    """
    region = f"{TABLE_START}\n{table.rstrip()}\n{TABLE_END}\n"
    if not path.exists():
        return region
    text = path.read_text()
    n_start, n_end = text.count(TABLE_START), text.count(TABLE_END)
    if n_start == n_end == 0:
        return region + "\n" + text
    i, j = text.find(TABLE_START), text.find(TABLE_END)
    if n_start != 1 or n_end != 1 or j < i:
        raise ValueError(
            f"{path}: expected one {TABLE_START!r} before one {TABLE_END!r}; fix the markers by hand"
        )
    rest = text[j + len(TABLE_END) :].lstrip("\n")
    return text[:i] + region + ("\n" + rest if rest else "")


def parse_seeds(text: str) -> list[int]:
    return [int(s) for s in text.split(",") if s.strip()]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--presets", default=",".join(PRESETS), help="comma-separated subset of " + ",".join(PRESETS)
    )
    ap.add_argument(
        "--work", type=Path, default=ROOT / "runs" / "ablation", help="corpus, SFT and per-preset runs"
    )
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    ap.add_argument(
        "--replot", action="store_true", help="only redraw OUT/ablation.png from OUT/ablation.json"
    )
    ap.add_argument("--train", type=Path, help="verl Parquet to train on (default: build a synthetic one)")
    ap.add_argument("--eval", type=Path, help="held-out verl Parquet (default: build one)")
    ap.add_argument("--init", type=Path, help="starting policy directory (default: SFT warm-up)")
    ap.add_argument("--records", type=Path, help="records store for SFT (with --train but no --init)")
    ap.add_argument("--n-train", type=int, default=2000)
    ap.add_argument("--eval-n", type=int, default=64, help="held-out prompts per evaluation")
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--prompts", type=int, default=8, help="prompts (groups) per step")
    ap.add_argument("--G", type=int, default=8, help="responses per prompt")
    ap.add_argument("--L", type=int, default=48, help="max new tokens")
    ap.add_argument("--k", type=int, default=4, help="samples per eval prompt (avg@k)")
    ap.add_argument("--eval-every", type=int, default=5)
    ap.add_argument("--target", type=float, default=0.5, help="avg@k target for steps-to-target")
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--sft-steps", type=int, default=300)
    ap.add_argument("--sft-stop", type=float, default=0.3, help="stop SFT at this probe accuracy")
    ap.add_argument("--max-prompt-len", type=int, default=192)
    ap.add_argument("--seed", type=int, default=0, help="corpus seed (and the training seed without --seeds)")
    ap.add_argument(
        "--seeds", help="comma-separated training seeds, one run per preset and seed (default: --seed)"
    )
    ap.add_argument(
        "--mini-batch",
        type=int,
        default=0,
        help="responses per optimiser update (train.mini_batch_size); 0 = the whole batch, one update per rollout",
    )
    ap.add_argument("--epochs", type=int, default=1, help="passes over each rollout batch (train.epochs)")
    ap.add_argument(
        "--variant",
        action="append",
        default=[],
        metavar="NAME=PRESET:key=value[;key=value]",
        help="an extra row: PRESET with config changes, run as NAME (repeatable)",
    )
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    if args.replot:
        print(f"wrote {replot(args.out)}")
        return
    args.command = shlex.join(["python", "bench/ablation.py", *(sys.argv[1:] if argv is None else argv)])
    presets = [p.strip() for p in args.presets.split(",") if p.strip()]
    bad = [p for p in presets if p not in PRESETS]
    if bad:
        ap.error(f"unknown preset(s) {bad}; choose from {PRESETS}")
    args.variants = {}
    for text in args.variant:
        try:
            name, preset, over = parse_variant(text)
        except ValueError as e:
            ap.error(str(e))
        if preset not in PRESETS:
            ap.error(f"--variant {text!r}: unknown preset {preset!r}; choose from {PRESETS}")
        if name in PRESETS or name in args.variants:
            ap.error(f"--variant {text!r}: the name {name!r} is taken; give the variant its own name")
        args.variants[name] = (preset, over)
    presets += list(args.variants)
    if args.seeds is None:
        args.seeds = str(args.seed)
    try:
        seeds = parse_seeds(args.seeds)
    except ValueError:
        ap.error(f"--seeds {args.seeds!r}: write integers separated by commas, e.g. 0,1,2")
    if not seeds or len(set(seeds)) != len(seeds):
        ap.error(f"--seeds {args.seeds!r}: give one or more distinct seeds")
    batch = args.prompts * args.G
    if args.mini_batch < 0 or (args.mini_batch and batch % args.mini_batch):
        ap.error(f"--mini-batch {args.mini_batch} must divide the batch --prompts x --G = {batch} (or be 0)")
    if args.epochs < 1:
        ap.error("--epochs must be >= 1")
    import torch

    torch.set_num_threads(args.threads)
    args.work.mkdir(parents=True, exist_ok=True)
    args.out.mkdir(parents=True, exist_ok=True)

    train_parquet, eval_parquet, records = args.train, args.eval, args.records
    if train_parquet is None or eval_parquet is None:
        train_parquet, eval_parquet, records = build_corpus(
            args.work, n_train=args.n_train, n_eval=args.eval_n, seed=args.seed
        )
    init = args.init
    if init is None:
        if records is None:
            ap.error(
                "--init is missing and there is no records store for the SFT warm-up; pass --records or --init"
            )
        init = warm_up(
            args.work, records, eval_parquet, steps=args.sft_steps, stop_at=args.sft_stop, k=args.k, L=args.L
        )
    # the SFT start, evaluated once per eval setting
    before_path = args.work / f"before-n{args.eval_n}-k{args.k}-L{args.L}.json"
    if before_path.exists():
        before = json.loads(before_path.read_text())
    else:
        before = initial_eval(
            init, eval_parquet, k=args.k, n=args.eval_n, L=args.L, max_prompt_len=args.max_prompt_len
        )
        atomic_write(before_path, json.dumps(before))
    results = []
    for p in presets:
        runs = []
        for seed in seeds:
            print(f"== {p} seed {seed}", flush=True)
            runs.append(run_seed(p, seed, args, train_parquet, eval_parquet, init))
            if runs[-1]["status"] == "skipped":  # the config is rejected whatever the seed
                break
            # partial results survive an interrupted sweep
            report([*results, summarize(p, runs)], before, args, args.out)
        results.append(summarize(p, runs))
    report(results, before, args, args.out)


if __name__ == "__main__":
    main()
