"""PNG plots of a run: the DAPO paper's Figure 7 panels (response length, reward, entropy, mean
probability) plus accuracy, read from metrics.jsonl so they can be redrawn for any run at any time."""

from __future__ import annotations

from pathlib import Path

PANELS = [
    ("response_length_mean", "mean response length (tokens)"),
    ("reward_mean", "reward (training batch)"),
    ("entropy", "generation entropy"),
    ("mean_prob", "mean token probability"),
    ("acc", "accuracy (sampled, training prompts)"),
]


def smoothing_window(n: int) -> int:
    """Moving-average width for n points: about a twentieth of the run, odd, none below 20 points."""
    return 1 if n < 20 else (n // 20) | 1


def moving_average(ys: list, window: int) -> list:
    """Centred moving average that skips missing values (None) and shrinks at the ends."""
    half = window // 2
    out = []
    for i in range(len(ys)):
        vals = [v for v in ys[max(0, i - half) : i + half + 1] if v is not None]
        out.append(sum(vals) / len(vals) if vals else None)
    return out


def run_title(run_dir: Path, rows: list[dict]) -> str:
    """ "run NAME: preset P, N steps" from the run's config.yaml (when there is one)."""
    import yaml

    name = run_dir.resolve().name
    preset, seed = None, None
    try:
        cfg = yaml.safe_load((run_dir / "config.yaml").read_text()) or {}
        preset, seed = cfg.get("preset"), (cfg.get("train") or {}).get("seed")
    except (OSError, yaml.YAMLError):
        pass
    parts = [f"preset {preset}" if preset else "preset unknown (no config.yaml)", f"{rows[-1]['step']} steps"]
    if seed is not None:
        parts.append(f"seed {seed}")
    return f"run {name}: " + ", ".join(parts)


def plot_run(run_dir: str | Path, out: str | Path | None = None) -> Path:
    """Draw the panels for one run into run_dir/curves.png (or `out`); eval accuracy is overlaid when logged."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from mathdata.files import atomic_write
    from trainer.metrics import read_metrics

    run_dir = Path(run_dir)
    rows = read_metrics(run_dir / "metrics.jsonl")
    if not rows:
        raise ValueError(f"{run_dir}/metrics.jsonl has no rows yet; train at least one step")
    steps = [r["step"] for r in rows]
    fig, axes = plt.subplots(1, len(PANELS), figsize=(4 * len(PANELS), 3.4))
    for ax, (key, title) in zip(axes, PANELS, strict=True):
        ys = [r.get(key) for r in rows]
        window = smoothing_window(len(ys))
        if window > 1:  # noisy per-step values faint, their moving average on top
            ax.plot(steps, ys, lw=0.8, alpha=0.3, color="C0", label="per step")
            ax.plot(steps, moving_average(ys, window), lw=1.8, color="C0", label=f"mean of {window} steps")
        else:
            ax.plot(steps, ys, lw=1.5, color="C0", label="per step")
        if key == "acc":
            ev = [(r["step"], v) for r in rows for k, v in r.items() if k.startswith("eval/avg@")]
            if ev:
                ax.plot(*zip(*ev, strict=True), "o-", color="C3", label="held-out avg@k")
        if key == "acc" or window > 1:
            ax.legend(fontsize=7)
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("step")
        ax.grid(alpha=0.3)
    fig.suptitle(run_title(run_dir, rows), fontsize=11)
    fig.tight_layout()
    out = Path(out) if out else run_dir / "curves.png"
    import io

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110)
    plt.close(fig)
    atomic_write(out, buf.getvalue())
    return out
