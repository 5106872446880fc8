"""The scripted OpenAI-compatible server of the pipelines tests, for `dapo eval --endpoint`."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "pipelines"))

from scripted_server import ScriptedServer  # noqa: E402


@pytest.fixture(scope="module")
def server():
    """One real server process per test module; each test scripts it (which also resets stats)."""
    with ScriptedServer() as srv:
        yield srv
