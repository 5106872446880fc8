"""`dapo data ...`: the mathdata commands (stats, sql, dedup, decontam, export, card, benchmarks).

Only typer is imported at module level so `dapo --help` stays fast; each command imports
what it needs.
"""

from __future__ import annotations

import json
from pathlib import Path

import typer

data_app = typer.Typer(
    name="data",
    help="Record stores: stats, SQL, dedup, decontamination, exports, data cards.",
    no_args_is_help=True,
)
export_app = typer.Typer(
    name="export", help="Export kept records for training or evaluation.", no_args_is_help=True
)
data_app.add_typer(export_app)


def register(app: typer.Typer) -> None:
    """Add this package's commands to the top-level `dapo` app."""
    app.add_typer(data_app, name="data")


def _fail(err: Exception) -> None:
    typer.secho(f"error: {err}", fg=typer.colors.RED, err=True)
    raise typer.Exit(1)


def _errors():
    from mathdata.schema import SchemaError
    from mathdata.store import StoreError

    return (SchemaError, StoreError, FileNotFoundError, ValueError)


@data_app.command()
def stats(
    path: Path = typer.Argument(..., help="store directory or .parquet file"),
    as_json: bool = typer.Option(False, "--json", help="print JSON instead of tables"),
    exact: bool = typer.Option(
        False, "--exact", help="length percentiles over every row, not sampled row groups"
    ),
) -> None:
    """Counts by source, status, transform, competition, year; answer range; lengths; reject reasons."""
    from mathdata.catalog import print_stats
    from mathdata.catalog import stats as _stats

    try:
        s = _stats(path, exact_lengths=exact)
    except _errors() as e:
        _fail(e)
    if as_json:
        typer.echo(json.dumps(s, indent=2))
        return
    print_stats(s)


@data_app.command()
def sql(
    path: Path = typer.Argument(
        ..., help="store directory or .parquet file: a records store, or a verl / TRL export it wrote"
    ),
    query: str = typer.Argument(
        ..., help='SQL over the view `records`, e.g. "SELECT source, count(*) FROM records GROUP BY 1"'
    ),
    fmt: str = typer.Option("table", "--format", help="table, csv or json"),
    limit: int = typer.Option(100, help="rows shown in table format"),
) -> None:
    """Run SQL with the records exposed as the DuckDB view `records` (no copy)."""
    import duckdb

    from mathdata.catalog import print_query_result
    from mathdata.catalog import query as _query

    try:
        result = _query(path, query)
    except (*_errors(), duckdb.Error) as e:
        _fail(e)
    print_query_result(result, fmt=fmt, limit=limit)


@data_app.command()
def dedup(
    src: Path = typer.Argument(..., help="input store"),
    out: Path = typer.Argument(..., help="output store directory (all rows, duplicates marked)"),
    threshold: float = typer.Option(None, help="near-duplicate Jaccard threshold (default: mathdata.dedup)"),
    num_perm: int = typer.Option(None, help="MinHash permutations"),
    shingle_size: int = typer.Option(None, help="word n-gram size of the shingles"),
    near: bool = typer.Option(True, help="also remove near duplicates (MinHash LSH)"),
) -> None:
    """Exact + near-duplicate removal; writes OUT, OUT/_dedup_report.json and OUT/_dedup_clusters.parquet."""
    from mathdata.dedup import dedup_store, save_dedup_report

    kw = {
        k: v
        for k, v in {"threshold": threshold, "num_perm": num_perm, "shingle_size": shingle_size}.items()
        if v
    }
    try:
        res, n = dedup_store(src, out, near=near, progress=True, **kw)
    except _errors() as e:
        _fail(e)
    save_dedup_report(out, res)
    r = res.report
    typer.echo(
        f"{r['kept_in']:,} kept -> {r['kept_out']:,} ({r['exact_dropped']:,} exact, {r['near_dropped']:,} near "
        f"duplicates marked) in {r['seconds']['total']}s; {n:,} rows written to {out}"
    )


@data_app.command()
def decontam(
    src: Path = typer.Argument(..., help="input store"),
    out: Path = typer.Argument(..., help="output store directory (contaminated rows marked)"),
    ref: list[str] = typer.Option(
        None,
        "--ref",
        help="benchmark name, JSONL/Parquet file, or datasets dir; repeatable (default: all bundled)",
    ),
    n: int = typer.Option(None, help="word n-gram size (default: mathdata.decontam)"),
) -> None:
    """Mark rows that overlap evaluation sets; writes OUT and OUT/_decontam_report.json."""
    from mathdata.decontam import decontaminate_store, save_decontam_report

    try:
        report, written = decontaminate_store(src, out, ref or None, **({"n": n} if n else {}))
    except _errors() as e:
        _fail(e)
    save_decontam_report(out, report)
    typer.echo(
        f"{report['contaminated']:,} contaminated rows of {report['checked']:,} checked; {written:,} rows written to {out}"
    )
    for hit in report["hits"][:20]:
        typer.echo(f"  {hit['id']} ~ {hit['benchmark']}:{hit['item']} (overlap {hit['overlap']:.2f})")


def _export(fmt: str, src: Path, out: Path, split: str | None, **kw) -> None:
    """OUT.parquet: the kept rows of --split (of every split without it, unless the file is named
    after a split); OUT without .parquet: a folder with one <split>.parquet per split."""
    from mathdata.export import export_store

    try:
        written = export_store(src, out, fmt=fmt, split=split, **kw)
    except _errors() as e:
        _fail(e)
    if not isinstance(written, dict):
        typer.echo(f"wrote {written}")
        return
    for name, path in written.items():
        typer.echo(f"wrote {path} (split {name})")


_SPLIT_HELP = (
    "export only the kept rows of this split (a record with no split is train); default: every split"
)
_OUT_HELP = "output .parquet file, or a folder: one <split>.parquet per split (train.parquet, test.parquet)"


@export_app.command("verl")
def export_verl(
    src: Path = typer.Argument(..., help="input store"),
    out: Path = typer.Argument(..., help=_OUT_HELP),
    repeat: int = typer.Option(1, help="repeat each row k times (avg@k evaluation files)"),
    split: str = typer.Option(None, help=_SPLIT_HELP),
    data_source: str = typer.Option("math_dapo", help="data_source column (verl picks the reward by it)"),
) -> None:
    """verl / DAPO-Math-17K Parquet of the kept records (train.parquet = train_files, test.parquet = val_files)."""
    _export("verl", src, out, split, repeat=repeat, data_source=data_source)


@export_app.command("trl")
def export_trl(
    src: Path = typer.Argument(..., help="input store"),
    out: Path = typer.Argument(..., help=_OUT_HELP),
    split: str = typer.Option(None, help=_SPLIT_HELP),
) -> None:
    """TRL / datasets Parquet (prompt messages, answer, id, source, split) of the kept records."""
    _export("trl", src, out, split)


@data_app.command()
def card(
    src: Path = typer.Argument(..., help="store to describe"),
    name: str = typer.Option(..., help="dataset name"),
    out: Path = typer.Option(None, help="directory or README.md path (default: data_cards/<name>/README.md)"),
    license: str = typer.Option("other", help="SPDX id or HF licence name"),
) -> None:
    """Generate a Hugging Face dataset card from the store (and its dedup/decontam reports)."""
    from mathdata.card import store_reports, write_store_card

    reports = store_reports(src)
    try:
        path = write_store_card(
            src, out or Path("data_cards") / name, name=name, reports=reports, license=license
        )
    except _errors() as e:
        _fail(e)
    typer.echo(f"wrote {path}")


@data_app.command()
def benchmarks() -> None:
    """List the bundled evaluation sets."""
    from mathdata.benchmarks import list_benchmarks, load_benchmark

    for name in list_benchmarks():
        t = load_benchmark(name)
        kept = sum(s == "kept" for s in t.column("status").to_pylist())
        typer.echo(f"{name}: {len(t)} problems, {kept} with integer answers")


@data_app.command("import-benchmark")
def import_benchmark(
    name: str = typer.Argument(..., help="aime24, aime25, amc23, math500"),
    out: Path = typer.Argument(..., help="output store directory"),
) -> None:
    """Write a bundled evaluation set as records (for `export verl --repeat k`)."""
    from mathdata.benchmarks import load_benchmark
    from mathdata.store import write_records

    try:
        n = write_records(out, load_benchmark(name))
    except (*_errors(), KeyError) as e:
        _fail(e)
    typer.echo(f"{n} records written to {out}")


@data_app.command("card-benchmarks")
def card_benchmarks(
    out: Path = typer.Option(Path("data_cards/mathdata-benchmarks"), help="directory or README.md path"),
) -> None:
    """Regenerate the example card of the bundled evaluation sets (data_cards/mathdata-benchmarks)."""
    from mathdata.card import bundled_benchmarks_card

    typer.echo(f"wrote {bundled_benchmarks_card(out)}")
