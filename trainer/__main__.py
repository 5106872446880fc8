"""`python -m trainer ...`: the trainer's commands without the rest of the toolkit."""

import typer

from trainer.cli import register

app = typer.Typer(no_args_is_help=True, add_completion=False, pretty_exceptions_show_locals=False)
register(app)

if __name__ == "__main__":
    app()
