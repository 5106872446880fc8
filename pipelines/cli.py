"""`dapo` subcommands contributed by the pipelines package: `build` and `rules-report`."""

from __future__ import annotations

from pathlib import Path

import typer


def register(app: typer.Typer) -> None:
    """Add this package's commands to the top-level `dapo` app."""
    app.command("build")(build_cmd)
    app.command("rules-report")(rules_report_cmd)


def _input_errors() -> tuple[type[BaseException], ...]:
    """Errors that mean bad input (a file, a row, a field, a config key): shown as one line."""
    from mathdata.files import SchemaError, StoreError
    from mathdata.mapping import MappingError
    from pipelines.build import ConfigError
    from pipelines.report import ReportInputError
    from pipelines.sources.aops import AopsParseError
    from pipelines.sources.fetch import FetchError
    from pipelines.sources.importer import ImportDataError

    return (
        ConfigError,
        ImportDataError,
        ReportInputError,
        SchemaError,
        StoreError,
        FetchError,
        AopsParseError,
        MappingError,
    )


def _fail(e: BaseException) -> None:
    text = str(e).strip()
    first, *rest = text.splitlines() or [type(e).__name__]
    typer.echo(f"error: {first}", err=True)
    for line in rest[:8]:  # a config error lists one problem per line
        typer.echo(f"  {line.strip()}", err=True)
    typer.echo("(run again with --debug for the traceback)", err=True)
    raise typer.Exit(2) from None


def build_cmd(
    config: Path = typer.Argument(..., help="build config (YAML); see examples/*.yaml"),
    out: Path = typer.Option(..., "--out", "-o", help="output folder: records/, verl/, README.md"),
    offline: bool = typer.Option(False, "--offline", help="no network: saved pages and caches only"),
    limit: int | None = typer.Option(None, "--limit", help="at most this many records per source"),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="no progress bars"),
    debug: bool = typer.Option(False, "--debug", help="show the full traceback of an error"),
    engine: str = typer.Option(
        "local", "--engine", help="local (this process) or ray (Ray Data; needs the ray extra)"
    ),
    address: str | None = typer.Option(
        None, "--address", help="with --engine ray: the cluster to join (e.g. auto, or HEAD_IP:6379)"
    ),
) -> None:
    """Build an integer-answer corpus: acquire, classify, rewrite, validate, dedup, decontaminate, export."""
    from dapo_extras import MissingExtra
    from pipelines.build import build

    if engine not in ("local", "ray"):
        _fail(ValueError(f"--engine {engine!r}: use local or ray"))
    if address is not None and engine != "ray":
        _fail(ValueError("--address joins a Ray cluster: add --engine ray"))
    try:
        result = build(
            config, out, offline=offline, limit=limit, progress=not quiet, engine=engine, address=address
        )
    except MissingExtra as e:  # one line naming the extra; there is no traceback worth showing
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2) from None
    except _input_errors() as e:
        if debug:
            raise
        _fail(e)
    typer.echo(
        f"{result.out_dir}: {result.kept} kept; records in {result.records_dir}, card {result.card_path}"
    )


def rules_report_cmd(
    path: Path = typer.Argument(
        ...,
        help="JSONL, JSON, Parquet or CSV with a problem and an answer per row (e.g. OlympiadBench, GSM8K)",
    ),
    mapping: str | None = typer.Option(
        None,
        "--mapping",
        help="columns, field=column: problem=COL,answer=COL (default: question, problem, ... / final_answer, "
        "answer, ... as `dapo build` reads them; a list answer uses its only item)",
    ),
    problem_field: str | None = typer.Option(None, hidden=True, help="old form of --mapping problem=COL"),
    answer_field: str | None = typer.Option(None, hidden=True, help="old form of --mapping answer=COL"),
    config: Path | None = typer.Option(
        None, "--config", help="a build config whose classify/rewrite/validate sections to use"
    ),
    as_json: bool = typer.Option(False, "--json", help="print JSON instead of a table"),
    debug: bool = typer.Option(False, "--debug", help="show the full traceback of an error"),
) -> None:
    """What `dapo build` does to these rows offline: rewritten by the exact rules, left for the LLM,
    or rejected, with reasons, per verifiability class and per source."""
    import json

    from pipelines.report import print_rules_report, rules_report_file

    try:
        cfg = None
        if config is not None:
            from pipelines.build import load_config

            cfg = load_config(config)
        if problem_field or answer_field:
            typer.echo(
                "warning: --problem-field/--answer-field are now --mapping problem=COL,answer=COL", err=True
            )
        report = rules_report_file(
            path, mapping=mapping, problem_field=problem_field, answer_field=answer_field, cfg=cfg
        )
    except _input_errors() as e:
        if debug:
            raise
        _fail(e)
    if as_json:
        typer.echo(json.dumps(report, indent=2))
        return
    print_rules_report(report, path.name)
