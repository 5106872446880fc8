"""`dapo` subcommands contributed by the pipelines package: `build` and `rules-report`."""

from __future__ import annotations

from pathlib import Path

import typer


def register(app: typer.Typer) -> None:
    """Add this package's commands to the top-level `dapo` app."""
    app.command("build")(build_cmd)
    app.command("rules-report")(rules_report_cmd)


def build_cmd(
    config: Path = typer.Argument(..., help="build config (YAML); see examples/*.yaml"),
    out: Path = typer.Option(..., "--out", "-o", help="output folder: records/, verl/, README.md"),
    offline: bool = typer.Option(False, "--offline", help="no network: saved pages and caches only"),
    limit: int | None = typer.Option(None, "--limit", help="at most this many records per source"),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="no progress bars"),
) -> None:
    """Build an integer-answer corpus: acquire, classify, rewrite, validate, dedup, decontaminate, export."""
    from pipelines.build import ConfigError, build

    try:
        result = build(config, out, offline=offline, limit=limit, progress=not quiet)
    except ConfigError as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2) from None
    typer.echo(
        f"{result.out_dir}: {result.kept} kept; records in {result.records_dir}, card {result.card_path}"
    )


def rules_report_cmd(
    path: Path = typer.Argument(
        ..., help="JSONL with a question and an answer per line (e.g. OlympiadBench)"
    ),
    problem_field: str = typer.Option("question", help="field holding the statement"),
    answer_field: str = typer.Option(
        "final_answer", help="field holding the answer (a list uses its only item)"
    ),
    as_json: bool = typer.Option(False, "--json", help="print JSON instead of a table"),
) -> None:
    """How many answers the integer rules rewrite, how many need the LLM, how many are rejected, and why."""
    import json

    from pipelines.rewrite import rules_report_file

    report = rules_report_file(path, problem_field=problem_field, answer_field=answer_field)
    if as_json:
        typer.echo(json.dumps(report, indent=2))
        return
    from rich.console import Console
    from rich.table import Table

    t = Table(title=f"integer rules on {path.name}: {report['total']} answers")
    t.add_column("outcome")
    t.add_column("reason / rule")
    t.add_column("count", justify="right")
    for group, key in (
        ("rewritten", "by_rule"),
        ("needs LLM", "needs_llm_reasons"),
        ("rejected", "rejected_reasons"),
    ):
        for reason, n in report[key].items():
            t.add_row(group, reason, str(n))
    Console().print(t)
    typer.echo(
        f"rewritten {report['rewritten']}, needs LLM {report['needs_llm']}, rejected {report['rejected']}"
    )
