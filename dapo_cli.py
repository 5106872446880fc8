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


@app.command()
def demo(
    out: str = typer.Option("demo_out", help="output directory (corpus, SFT policy, RL run, report.json)"),
    seed: int = typer.Option(0, help="one seed for corpus, SFT and RL"),
    rl_steps: int | None = typer.Option(None, help="override the number of DAPO steps"),
    threads: int | None = typer.Option(None, help="torch threads (default: torch's choice)"),
) -> None:
    """Build a synthetic corpus, SFT-warm a tiny model, train it with DAPO, and compare held-out accuracy."""
    from pathlib import Path

    from pipelines.build import build
    from trainer.demo import DEMO_CORPUS, run

    result = build(DEMO_CORPUS, Path(out) / "data", offline=True)
    run(
        Path(out),
        records=result.records_dir,
        verl=result.verl_path,
        seed=seed,
        rl_steps=rl_steps,
        threads=threads,
    )


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
