"""Per-step metrics to JSONL (the source of truth for plots) and TensorBoard."""

from __future__ import annotations

import json
import math
from pathlib import Path


class MetricsLog:
    """Append-only JSONL; on resume, rows past the checkpoint's step are dropped first."""

    def __init__(
        self,
        out: str | Path,
        *,
        tensorboard: bool = True,
        resume_step: int | None = None,
        name: str = "metrics.jsonl",
    ) -> None:
        self.path = Path(out) / name
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if resume_step is None:
            self.path.write_text("")
        elif self.path.exists():
            from mathdata.files import atomic_write

            keep = [r for r in read_metrics(self.path) if r.get("step", 0) <= resume_step]
            atomic_write(self.path, "".join(json.dumps(r) + "\n" for r in keep))
        self._f = self.path.open("a")
        self.tb = None
        if tensorboard:
            from torch.utils.tensorboard import SummaryWriter

            self.tb = SummaryWriter(
                str(Path(out) / "tb"), purge_step=resume_step + 1 if resume_step else None
            )

    def log(self, step: int, metrics: dict) -> None:
        row = {"step": step, **{k: _clean(v) for k, v in metrics.items()}}
        self._f.write(json.dumps(row) + "\n")
        self._f.flush()
        if self.tb is not None:
            for k, v in row.items():
                if k != "step" and isinstance(v, int | float) and v is not None:
                    self.tb.add_scalar(k, v, step)

    def close(self) -> None:
        self._f.close()
        if self.tb is not None:
            self.tb.close()


def _clean(v):
    if hasattr(v, "item"):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def read_metrics(path: str | Path) -> list[dict]:
    rows = []
    for i, line in enumerate(Path(path).read_text().splitlines()):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError:
                raise ValueError(
                    f"{path} line {i + 1}: not JSON (a half-written line?): {line[:80]!r}"
                ) from None
    return rows


def rollout_metrics(rb, batch) -> dict:
    """The DAPO paper's monitors over every sampled response (acc, length, truncation, filtering).

    `rb` is the step's sampling.RolloutBatch, `batch` the trained batch.Batch (None: a skipped step).
    """
    # (a step filled entirely from the previous step's surplus sampled nothing: its trained groups then)
    gen = [(s, sc) for g in rb.generated or rb.groups for s, sc in zip(g.samples, g.scores, strict=True)]
    lens = [len(s.response_ids) for s, _ in gen]
    return {
        "reward_mean": sum(sc.score for _, sc in gen) / len(gen),
        "acc": sum(sc.acc for _, sc in gen) / len(gen),
        "response_length_mean": sum(lens) / len(lens),
        "response_length_max": max(lens),
        "truncation_ratio": sum(s.truncated for s, _ in gen) / len(gen),
        "length_penalty_mean": sum(sc.length_penalty for _, sc in gen) / len(gen),
        "gen_batches": rb.gen_batches,
        "filtered_share": rb.filtered / max(len(rb.generated), 1),
        "groups_trained": len(rb.groups),
        "carried_groups": rb.carried,  # taken from the previous step's surplus (algo.keep_surplus)
        "surplus_groups": len(rb.surplus),  # informative groups beyond the target this step
        "dynamic_sampling_short": rb.short,  # groups missing at max_gen_batches (on_max_gen_batches: train/skip)
        "train_acc": float(batch.acc.float().mean()) if batch is not None else None,
        "_gen_tokens": sum(lens),
    }


def progress_bar(enabled: bool):
    """The progress bar of `dapo train` / `dapo sft` (the toolkit's one, verifiers.progress)."""
    from verifiers.progress import progress_bar as bar

    return bar(enabled, eta=True, info=True)
