"""The toolkit's one progress bar (rich), in the lowest package that shows one (`dapo score`);
the build's stage bars and `dapo train` / `dapo sft` use it too."""

from __future__ import annotations


def progress_bar(
    enabled: bool = True, *, info: bool = False, eta: bool = False, console=None, stderr: bool = False
):
    """A rich Progress: description, bar, done/total, elapsed; `eta` adds the time remaining and
    `info` a per-task `info` field. `stderr` keeps stdout clean for scripts; disabled, it prints nothing."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    columns = [
        TextColumn("[bold]{task.description:<10}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    ]
    if eta:
        columns.append(TimeRemainingColumn())
    if info:
        columns.append(TextColumn("{task.fields[info]}"))
    if console is None and stderr:
        console = Console(stderr=True)
    return Progress(*columns, console=console, disable=not enabled)
