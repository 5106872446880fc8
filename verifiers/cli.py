"""`dapo verify`: judge one answer, or score a JSONL file of completions."""

from __future__ import annotations

from pathlib import Path

import typer


def _fail(msg: str) -> None:
    """A one-line error (no wrapping box) so the file:line stays greppable."""
    typer.echo(f"error: {msg}", err=True)
    raise typer.Exit(2)


def verify(
    pred: str = typer.Option(None, "--pred", help="Predicted answer or a whole completion."),
    gold: str = typer.Option(None, "--gold", help="The gold answer."),
    question: str = typer.Option(
        None, "--question", help="The problem's text: checks that need it (a Countdown task, the unit asked)."
    ),
    file: Path = typer.Option(
        None, "--file", "-f", help="JSONL with {completion, gold} per line (and an optional question)."
    ),
    out: Path = typer.Option(None, "--out", help="With --file: write per-line results here (JSONL)."),
    workers: int = typer.Option(None, "--workers", help="Processes for --file (default: CPU count)."),
    timeout: float = typer.Option(1.0, "--timeout", help="Seconds allowed per comparison."),
) -> None:
    """Judge --pred against --gold (exit 0 if equivalent, 1 if not), or score a --file."""
    from rich.console import Console

    console = Console()
    if file is None:
        if pred is None or gold is None:
            _fail("give --pred and --gold, or --file F.jsonl")
        from verifiers.check import check

        v = check(pred, gold, timeout=timeout, question=question)
        word = "[green]equivalent[/green]" if v.equivalent else "[red]not equivalent[/red]"
        console.print(f"{word}  reason={v.reason}  pred={v.pred!r}  gold={gold!r}", highlight=False)
        raise typer.Exit(0 if v.equivalent else 1)

    from collections import Counter

    from verifiers.batch import read_completions, score_batch, write_results
    from verifiers.progress import progress_bar

    try:
        completions, golds, questions = read_completions(file)
    except (FileNotFoundError, ValueError) as e:
        _fail(str(e))
    with progress_bar(console=console) as bar:
        task = bar.add_task("scoring", total=len(completions))
        results = score_batch(
            completions,
            golds,
            workers=workers,
            timeout=timeout,
            on_progress=lambda n: bar.advance(task, n),
            questions=questions if any(q is not None for q in questions) else None,
        )
    n = len(results)
    correct = sum(r.acc for r in results)
    console.print(f"accuracy {correct / n:.4f} ({int(correct)}/{n})" if n else "accuracy n/a (empty file)")
    reasons = Counter(r.reason for r in results)
    console.print("reasons: " + ", ".join(f"{k}={v}" for k, v in reasons.most_common()), highlight=False)
    if out is not None:
        write_results(out, results)
        console.print(f"wrote {out}")


def register(app: typer.Typer) -> None:
    """Add this package's commands to the top-level `dapo` app."""
    app.command("verify")(verify)
