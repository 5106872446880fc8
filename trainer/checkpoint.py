"""Checkpoints that resume exactly: weights (safetensors), optimiser, RNG states and data position.

Each checkpoint is a transformers model directory (config, model.safetensors, tokenizer) plus
`optimizer.pt`, `rng.pt`, `trainer_state.json` and whatever `extra` writes (the PPO critic), all
written to a temp dir and renamed, then the `latest` pointer is replaced atomically: a kill at any
moment leaves `latest` on a complete checkpoint. Saving every step means a kill loses at most one step.

The optimiser state is stored whole and keyed by parameter name (`distributed.optimizer_state_dict`),
so a checkpoint resumes with any number of ranks, with or without FSDP2.
"""

from __future__ import annotations

import json
import os
import random
import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch

from mathdata.files import atomic_write, make_readable


def rng_state() -> dict:
    s = {"torch": torch.get_rng_state(), "python": random.getstate(), "numpy": np.random.get_state()}
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        s["cuda"] = torch.cuda.get_rng_state_all()
    return s


def set_rng_state(s: dict) -> None:
    torch.set_rng_state(s["torch"])
    random.setstate(s["python"])
    np.random.set_state(s["numpy"])
    if "cuda" in s and torch.cuda.is_available() and len(s["cuda"]) == torch.cuda.device_count():
        torch.cuda.set_rng_state_all(s["cuda"])


def save_checkpoint(
    root: str | Path,
    step: int,
    model,
    tokenizer,
    optimizer_state: dict,
    state: dict,
    *,
    model_state: dict | None = None,
    extra: Callable[[Path], None] | None = None,
    keep: int = 2,
) -> Path:
    """Write root/step-NNNNNN (atomically) and point root/latest at it; keep the newest `keep` (0: all).

    `model_state` replaces `model.state_dict()` (FSDP2: the gathered full weights); `extra(dir)`
    writes more files into the checkpoint before it becomes visible.
    """
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    final = root / f"step-{step:06d}"
    tmp = root / f".step-{step:06d}.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    model.save_pretrained(tmp, safe_serialization=True, state_dict=model_state)
    tokenizer.save_pretrained(tmp)
    torch.save(optimizer_state, tmp / "optimizer.pt")
    torch.save(rng_state(), tmp / "rng.pt")
    (tmp / "trainer_state.json").write_text(json.dumps({"step": step, **state}, indent=1))
    if extra is not None:
        extra(tmp)
    make_readable(tmp)  # safetensors writes 0600; a shared run directory must be readable
    shutil.rmtree(final, ignore_errors=True)
    os.replace(tmp, final)
    atomic_write(root / "latest", final.name)
    for old in (
        sorted(p for p in root.glob("step-*") if p.is_dir())[:-keep] if keep > 0 else []
    ):  # 0: keep all
        shutil.rmtree(old, ignore_errors=True)
    return final


def latest_checkpoint(root: str | Path) -> Path | None:
    root = Path(root)
    ptr = root / "latest"
    if not ptr.exists():
        return None
    path = root / ptr.read_text().strip()
    if not (path / "trainer_state.json").exists():
        raise FileNotFoundError(f"{ptr} points at {path}, which is incomplete; delete {ptr} to start over")
    return path


def load_training_state(ckpt: Path, model, optimizer) -> dict:
    """Restore optimiser and RNG in place (every rank); return the trainer_state dict (step, sampler, ...)."""
    from trainer.distributed import load_optimizer_state_dict

    load_optimizer_state_dict(
        model, optimizer, torch.load(ckpt / "optimizer.pt", weights_only=True, map_location="cpu")
    )
    set_rng_state(
        torch.load(ckpt / "rng.pt", weights_only=False, map_location="cpu")
    )  # our own file: numpy state is a tuple
    return json.loads((ckpt / "trainer_state.json").read_text())
