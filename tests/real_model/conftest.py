"""Real-model suite: real GGUF weights on this CPU (see docs/real-model.md).

Run with `make test-real-model` (which runs `bash scripts/real_model_setup.sh` first), or by hand:
`.venv-real/bin/python -m pytest -m real_model tests/real_model`. Without the setup every test
skips and names the command. Children run niced with one torch thread: these tests share the CPU.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SETUP = "bash scripts/real_model_setup.sh"
sys.path.insert(0, str(REPO))

from bench import real_model as rm  # noqa: E402


def require_model(name: str) -> Path:
    try:
        return rm.model_file(name)
    except FileNotFoundError as e:
        pytest.skip(f"{e}")


@pytest.fixture(scope="session")
def smol_gguf() -> Path:
    pytest.importorskip("gguf", reason=f"transformers needs the gguf package to read a GGUF; run: {SETUP}")
    return require_model(rm.SMOL_FILE)


@pytest.fixture(scope="session")
def run_dapo():
    return _run_dapo


def _run_dapo(*args: str, timeout: int = 3600) -> subprocess.CompletedProcess:
    """`dapo ARGS` in a child (this interpreter, niced, one torch thread); fails the test with its output."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "OMP_NUM_THREADS": "1", "TOKENIZERS_PARALLELISM": "false"}
    cmd = ["nice", "-n", "10", sys.executable, "-m", "dapo_cli", *args]
    r = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, f"{' '.join(cmd)} exited {r.returncode}\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    return r
