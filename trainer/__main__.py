"""`python -m trainer ...`: the trainer's commands without the rest of the toolkit (what torchrun runs).

Errors are one `error:` line per rank, as with `dapo`; `--debug` or DAPO_DEBUG=1 shows the traceback.
"""

import typer

from dapo_errors import OneLineErrors
from trainer.cli import register

app = typer.Typer(
    cls=OneLineErrors, no_args_is_help=True, add_completion=False, pretty_exceptions_show_locals=False
)


@app.callback()
def _root(
    debug: bool = typer.Option(False, "--debug", help="show an error's full traceback (or set DAPO_DEBUG=1)"),
) -> None:
    """The trainer's commands: train, sft, plot."""


register(app)

if __name__ == "__main__":
    app()
