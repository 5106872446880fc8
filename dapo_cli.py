"""The `dapo` command line: the only module that knows all four packages.

Each package contributes its commands through a `register(app)` function in its own
`cli.py`; those modules import only typer at import time so `dapo --help` stays fast.
"""

from __future__ import annotations

import typer

app = typer.Typer(
    name="dapo",
    help="Math RL toolkit: build integer-answer corpora, verify answers, train with DAPO.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
)


@app.callback()
def _root() -> None:
    """Math RL toolkit: build integer-answer corpora, verify answers, train with DAPO."""


@app.command()
def version() -> None:
    """Print the toolkit version."""
    from importlib.metadata import version as _v

    typer.echo(_v("dapo-toolkit"))


def _register_all() -> None:
    from mathdata.cli import register as register_mathdata
    from pipelines.cli import register as register_pipelines
    from trainer.cli import register as register_trainer
    from verifiers.cli import register as register_verifiers

    register_verifiers(app)
    register_mathdata(app)
    register_pipelines(app)
    register_trainer(app)


_register_all()


def main() -> None:
    app()


if __name__ == "__main__":
    main()
