"""Whole-toolkit command-line checks: files a build and a run leave, errors, the README."""

from __future__ import annotations

import os

import pytest
import torch

torch.set_num_threads(1)  # toy models; a shared 2-core box

TINY = {"hidden_size": 64, "num_layers": 2, "num_heads": 2, "num_kv_heads": 1, "intermediate_size": 128,
        "vocab_size": 300}  # fmt: skip


@pytest.fixture
def umask022():
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


@pytest.fixture
def tiny_yaml():
    """The helper below (test modules are not a package: `from conftest import` would be ambiguous)."""
    return tiny_train_yaml


def tiny_train_yaml(path, data: str, out: str, steps: int = 1) -> str:
    """A config that trains the untrained tiny model a step or two on `data` (no dynamic sampling:
    an untrained model gets every reward 0 and dynamic sampling would find no useful group)."""
    import yaml

    cfg = {
        "preset": "dapo",
        "model": {"tiny": TINY},
        "data": {"train": data},
        "rollout": {"n": 4, "max_new_tokens": 8},
        "algo": {"dynamic_sampling": False, "override": ["dynamic_sampling"], "overlong_buffer": 2},
        "train": {"steps": steps, "prompts_per_step": 2, "out": out, "tensorboard": False, "threads": 1},
    }
    path.write_text(yaml.safe_dump(cfg))
    return str(path)
