"""Parity tests: our arithmetic against verl's and TRL's own code (`make test-parity` installs both).

verl's `core_algos` imports omegaconf, which needs antlr4 4.9 while math-verify (a core dependency)
needs antlr4 4.13; the two cannot share site-packages. `make test-parity` therefore installs verl's
import-time dependencies (omegaconf, antlr4 4.9, tensordict, ...) into `.venv/parity-deps` and the
`verl` fixture puts that folder first on sys.path (only then, so a default `pytest` run is untouched).
Nothing under tests/parity imports math-verify, so the older antlr4 is the only one loaded. Missing peers skip the tests, unless PARITY_STRICT=1 (set by make), where they fail.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
import torch

PARITY_DEPS = Path(os.environ.get("PARITY_DEPS", Path(sys.prefix) / "parity-deps"))

torch.set_num_threads(1)


def _use_parity_deps() -> None:
    """Put .venv/parity-deps first on sys.path, only when a verl test runs: in a default `pytest`
    run (parity deselected) its antlr4 4.9 must not shadow the 4.13 that math-verify needs."""
    if PARITY_DEPS.is_dir() and str(PARITY_DEPS) not in sys.path:
        sys.path.insert(0, str(PARITY_DEPS))
    antlr = sys.modules.get("antlr4")
    if antlr is not None and not str(getattr(antlr, "__file__", "")).startswith(str(PARITY_DEPS)):
        raise ImportError(
            "antlr4 was imported before verl's omegaconf could get its 4.9 (math-verify loads 4.13); "
            "run the parity tests on their own: make test-parity (pytest -m parity tests/parity)"
        )


def pytest_collection_modifyitems(config, items):
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.parity)


def _peer(import_it, what: str):
    try:
        return import_it()
    except ImportError as e:
        msg = f"{what} is not importable ({e}); run `make test-parity`, which installs the pinned peers"
        if os.environ.get("PARITY_STRICT") == "1":
            pytest.fail(msg)
        pytest.skip(msg)


@pytest.fixture(scope="session")
def verl():
    """verl.trainer.ppo.core_algos, with the config classes its loss functions take and
    `rollout_corr` (verl.trainer.ppo.rollout_corr_helper)."""

    def load():
        _use_parity_deps()
        import verl.trainer.ppo.core_algos as core
        import verl.trainer.ppo.rollout_corr_helper as rollout_corr
        from verl.trainer.config import AlgoConfig
        from verl.workers.config import ActorConfig, PolicyLossConfig

        core.ActorConfig, core.PolicyLossConfig, core.VerlAlgoConfig = (
            ActorConfig,
            PolicyLossConfig,
            AlgoConfig,
        )
        core.rollout_corr = rollout_corr
        return core

    return _peer(load, "verl")


@pytest.fixture(scope="session")
def trl():
    """The trl module with GRPOTrainer / RLOOTrainer importable."""

    def load():
        import trl
        from trl import GRPOConfig, GRPOTrainer, RLOOConfig, RLOOTrainer  # noqa: F401

        return trl

    return _peer(load, "trl")
