"""What a command prints for an exception: one `error:` line, no traceback (`--debug` shows it).

Shared by `dapo` (dapo_cli) and `python -m trainer` (what torchrun launches), so a bad config under
torchrun is one line per rank, not a traceback per rank. Imports only typer.
"""

from __future__ import annotations

import os
import sys

import typer
from typer.core import TyperGroup
from typer.exceptions import TyperException

# Errors a user can fix, whose messages say how: printed as one `error:` line, exit code 2.
# Exception types defined in our own packages count too; names of other libraries' types are
# looked up only when that library is already imported (it raised, so it is).
_USER_ERRORS = (ValueError, OSError)
_LIBRARY_ERRORS = (("duckdb", "Error"), ("yaml", "YAMLError"), ("pyarrow", "ArrowException"),
                   ("openai", "OpenAIError"), ("httpx", "HTTPError"))  # fmt: skip
_OUR_PACKAGES = ("verifiers", "mathdata", "pipelines", "trainer")


def _is_user_error(e: BaseException) -> bool:
    if isinstance(e, _USER_ERRORS) or type(e).__module__.split(".")[0] in _OUR_PACKAGES:
        return True
    for module, name in _LIBRARY_ERRORS:
        cls = getattr(sys.modules.get(module), name, None)
        if isinstance(cls, type) and isinstance(e, cls):
            return True
    return False


def error_line(e: BaseException) -> tuple[str, int]:
    """What `dapo` prints for an exception a command raised, and the exit code."""
    if isinstance(e, OSError) and e.strerror and e.filename is not None:  # "[Errno 2] ..." -> "path: reason"
        return f"error: {e.filename}: {e.strerror}", 2
    msg = str(e).strip() or type(e).__name__
    if _is_user_error(e):
        return f"error: {msg}", 2
    return (
        f"error: unexpected {type(e).__name__}: {msg}\n"
        "       (a bug: rerun with `--debug` or DAPO_DEBUG=1 for the traceback and report it)",
        1,
    )


class OneLineErrors(TyperGroup):
    """Any command's exception becomes one or two lines without a traceback.

    `--debug` (a root option of the app) or DAPO_DEBUG=1 lets the traceback through.
    """

    def invoke(self, ctx: typer.Context):
        try:
            return super().invoke(ctx)
        except (typer.Exit, typer.Abort, TyperException):
            raise
        except KeyboardInterrupt:  # Ctrl-C: one line, not a silent 130
            typer.secho(
                "interrupted: nothing half-written is left; `dapo build`, `dapo train` (--resume) and `dapo eval` "
                "go on from where they stopped when run again",
                fg="yellow",
                err=True,
            )
            raise typer.Exit(130) from None
        except Exception as e:
            if ctx.params.get("debug") or os.environ.get("DAPO_DEBUG", "") not in ("", "0"):
                raise
            line, code = error_line(e)
            typer.secho(line, fg="red", err=True)
            raise typer.Exit(code) from None
