"""Shared fixtures for the pipelines tests: the scripted OpenAI-compatible server on loopback."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from scripted_server import ScriptedServer  # noqa: E402


@pytest.fixture(scope="module")
def server():
    """One real server process per test module; each test scripts it (which also resets stats)."""
    with ScriptedServer() as srv:
        yield srv
