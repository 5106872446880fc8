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
            from trainer.checkpoint import atomic_write_text

            keep = [r for r in read_metrics(self.path) if r.get("step", 0) <= resume_step]
            atomic_write_text(self.path, "".join(json.dumps(r) + "\n" for r in keep))
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
