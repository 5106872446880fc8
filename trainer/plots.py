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


def plot_run(run_dir: str | Path, out: str | Path | None = None) -> Path:
    """Draw the panels for one run into run_dir/curves.png (or `out`); eval accuracy is overlaid when logged."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from trainer.checkpoint import atomic_write_bytes
    from trainer.metrics import read_metrics

    run_dir = Path(run_dir)
    rows = read_metrics(run_dir / "metrics.jsonl")
    if not rows:
        raise ValueError(f"{run_dir}/metrics.jsonl has no rows yet; train at least one step")
    steps = [r["step"] for r in rows]
    fig, axes = plt.subplots(1, len(PANELS), figsize=(4 * len(PANELS), 3.2))
    for ax, (key, title) in zip(axes, PANELS, strict=True):
        ax.plot(steps, [r.get(key) for r in rows], lw=1.5, label="train")
        if key == "acc":
            ev = [(r["step"], v) for r in rows for k, v in r.items() if k.startswith("eval/avg@")]
            if ev:
                ax.plot(*zip(*ev, strict=True), "o-", label="held-out avg@k")
                ax.legend(fontsize=8)
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("step")
        ax.grid(alpha=0.3)
    fig.tight_layout()
    out = Path(out) if out else run_dir / "curves.png"
    import io

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110)
    plt.close(fig)
    atomic_write_bytes(out, buf.getvalue())
    return out
