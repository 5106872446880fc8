"""`dapo` subcommands contributed by the trainer package."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Add this package's commands to the top-level `dapo` app."""
    return None
