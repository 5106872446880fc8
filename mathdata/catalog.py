"""DuckDB straight over the Parquet shards: ad-hoc SQL and corpus statistics without a copy.

The view `records` reads the shard files in place (after mathdata checked each file's schema
version), so a 1M-row store is queryable in well under a second with no import step.
"""

from __future__ import annotations

import os
from typing import Any

from mathdata.files import SCHEMA_VERSION, VERSION_KEY, SchemaError, StoreError, shard_files

SAMPLE_ROWS = 16_384  # one row group as mathdata writes them (store.ROW_GROUP_ROWS)


def _sql_list(files) -> str:
    return "[" + ", ".join("'" + str(f).replace("'", "''") + "'" for f in files) + "]"


EXPORT_COLUMNS = {"verl": {"prompt", "reward_model", "extra_info"}, "trl": {"prompt", "answer", "id"}}


def _export_format(con, files) -> str | None:
    """`verl` / `trl` when every file is one of mathdata's own exports (no records metadata, the
    export's columns), else None: `dapo data sql` reads what `dapo build` and `dapo data export` wrote."""
    import duckdb

    found = set()
    for f in files:
        try:
            if con.execute(
                "SELECT 1 FROM parquet_kv_metadata(?) WHERE key = ?", [str(f), VERSION_KEY]
            ).fetchall():
                return None
            cols = {r[0] for r in con.execute("SELECT name FROM parquet_schema(?)", [str(f)]).fetchall()}
        except duckdb.Error:
            return None  # _check_files names the unreadable file
        kind = next((k for k, need in EXPORT_COLUMNS.items() if need <= cols), None)
        if kind is None:
            return None
        found.add(kind)
    return found.pop() if len(found) == 1 else None


def _check_files(con, files) -> None:
    """Every file must be readable Parquet carrying this schema version (read from the footer by DuckDB)."""
    import duckdb

    versions: dict[str, str] = {}
    for f in files:  # one call per file so an error names the file
        try:
            rows = con.execute(
                "SELECT value FROM parquet_kv_metadata(?) WHERE key = ?", [str(f), VERSION_KEY]
            ).fetchall()
        except duckdb.Error as e:
            raise StoreError(
                f"{f}: not a readable Parquet file ({e}); it may be truncated by an interrupted copy. "
                f"Fix: restore or delete this shard, then re-run the stage that wrote it"
            ) from e
        versions[str(f)] = rows[0][0].decode() if rows else None
    for f, v in versions.items():
        if v is None:
            raise SchemaError(
                f"{f}: not a mathdata records file (no {VERSION_KEY.decode()} in its Parquet metadata); "
                f"fix: import it with mathdata.store.write_records(new_dir, records)"
            )
        if v != SCHEMA_VERSION:
            raise SchemaError(
                f"{f}: schema version {v}, this catalog reads version {SCHEMA_VERSION}; fix: read it with "
                f"mathdata.store.read_table (which migrates known versions) and write a new store"
            )


def connect(path: str | os.PathLike, *, threads: int | None = None, exports: bool = False):
    """An in-memory DuckDB connection with the records under `path` exposed as view `records`.

    `exports`: a verl or TRL export (a file or a folder of them) is accepted too; its rows, with
    the export's own columns, are the view `records`."""
    import duckdb

    files = shard_files(path)
    con = duckdb.connect(":memory:")
    if threads:
        con.execute(f"SET threads = {int(threads)}")
    if exports and files and _export_format(con, files):
        con.execute(
            f"CREATE VIEW records AS SELECT * FROM read_parquet({_sql_list(files)}, union_by_name = true)"
        )
        return con
    _check_files(con, files)
    if files:
        con.execute(f"CREATE VIEW records AS SELECT * FROM read_parquet({_sql_list(files)})")
        con.execute(
            f"CREATE VIEW records_rownum AS SELECT * FROM read_parquet({_sql_list(files)}, file_row_number = true)"
        )
    else:
        from mathdata.schema import RECORD_SCHEMA

        con.register("records", RECORD_SCHEMA.empty_table())
        con.execute("CREATE VIEW records_rownum AS SELECT *, 0::BIGINT AS file_row_number FROM records")
    return con


def query(path: str | os.PathLike, sql: str) -> Any:
    """Run one SQL statement against `records` (a records store, or a verl / TRL export);
    returns a pyarrow Table."""
    con = connect(path, exports=True)
    try:
        rel = con.sql(sql)
        if rel is None:  # a statement without a result (SET, CREATE ...)
            import pyarrow as pa

            return pa.table({})
        return rel.to_arrow_table()
    finally:
        con.close()


def _length_stats(con, total: int, *, exact: bool, sample_groups: int) -> dict:
    """Percentiles of len(problem or original_problem) in characters, over every row or over
    `sample_groups` evenly spaced row groups (DuckDB prunes the others by file_row_number)."""
    where = ""
    sampled = not exact and total > sample_groups * SAMPLE_ROWS
    if sampled:
        period = -(-total // sample_groups // SAMPLE_ROWS) * SAMPLE_ROWS
        where = f"WHERE file_row_number % {period} < {SAMPLE_ROWS}"
    p = con.execute(
        "SELECT quantile_cont(l, [0.5, 0.9, 0.99]), max(l), avg(l), count(l) FROM ("
        f"SELECT length(coalesce(problem, original_problem)) AS l FROM records_rownum {where})"
    ).fetchone()
    if not p[3]:
        return {
            "p50": None,
            "p90": None,
            "p99": None,
            "max": None,
            "mean": None,
            "sample_rows": 0,
            "exact": True,
        }
    return {
        "p50": round(p[0][0], 1),
        "p90": round(p[0][1], 1),
        "p99": round(p[0][2], 1),
        "max": p[1],
        "mean": round(p[2], 1),
        "sample_rows": p[3],
        "exact": not sampled,
    }


GROUPED = ("source", "status", "transform", "competition", "year")


def _grouped_counts(con, limits: dict[str, int]) -> dict[str, dict[str, int]]:
    """All per-column counts in one scan (GROUPING SETS), most frequent first."""
    cols = ", ".join(GROUPED)
    sets = ", ".join(f"({c})" for c in GROUPED)
    rows = con.execute(
        f"SELECT {cols}, grouping({cols}) AS g, count(*) AS n FROM records GROUP BY GROUPING SETS ({sets})"
    ).fetchall()
    out: dict[str, list] = {c: [] for c in GROUPED}
    for row in rows:
        g = row[len(GROUPED)]
        i = [k for k in range(len(GROUPED)) if not (g >> (len(GROUPED) - 1 - k)) & 1][0]
        key = "<null>" if row[i] is None else str(row[i])
        out[GROUPED[i]].append((key, row[-1]))
    return {c: dict(sorted(v, key=lambda kv: (-kv[1], kv[0]))[: limits.get(c, 50)]) for c, v in out.items()}


def stats(path: str | os.PathLike, *, exact_lengths: bool = False, sample_groups: int = 4) -> dict:
    """Counts by source, status, transform, competition and year; answer range; length
    percentiles of the statement; reject reasons (status up to its first ':').

    Everything but the lengths comes from small columns. Lengths need the statement text, the
    bulk of the store, so above `sample_groups` row groups they are computed on about that many
    evenly spaced row groups (16k rows each; `sample_rows` says how many) unless exact_lengths.
    """
    con = connect(path)
    try:
        counts = _grouped_counts(con, {"status": 10**9, "year": 100})
        total = sum(counts["status"].values()) if counts["status"] else 0
        kept = counts["status"].get("kept", 0)
        lo, hi, n_int = con.execute(
            "SELECT min(a), max(a), count(a) FROM (SELECT TRY_CAST(answer AS HUGEINT) AS a FROM records "
            "WHERE status = 'kept')"  # the kept rows' answers (duplicates and rejects carry answers too)
        ).fetchone()
        lengths = _length_stats(con, total, exact=exact_lengths, sample_groups=sample_groups)
        rejects: dict[str, int] = {}
        for status, n in counts["status"].items():
            if status != "kept":
                reason = status.split(":", 1)[0]
                rejects[reason] = rejects.get(reason, 0) + n
        counts["status"] = dict(list(counts["status"].items())[:20])
        return {
            "path": str(path),
            "rows": total,
            "kept": kept,
            "rejected": total - kept,
            **{f"by_{c}": counts[c] for c in GROUPED},
            "answer": {
                "integer_answers": n_int,
                "min": None if lo is None else int(lo),
                "max": None if hi is None else int(hi),
            },
            "problem_length_chars": lengths,
            "reject_reasons": dict(sorted(rejects.items(), key=lambda kv: (-kv[1], kv[0]))),
        }
    finally:
        con.close()


def print_stats(s: dict) -> None:
    """`dapo data stats`'s tables for a `stats` result: totals, answers, lengths, then one table per count."""
    from rich.console import Console
    from rich.table import Table

    con = Console()
    con.print(f"[bold]{s['path']}[/]: {s['rows']:,} rows, {s['kept']:,} kept, {s['rejected']:,} rejected")
    a, p = s["answer"], s["problem_length_chars"]
    con.print(f"answers of kept rows: {a['integer_answers']:,} integers in [{a['min']}, {a['max']}]")
    how = "all rows" if p["exact"] else f"sample of {p['sample_rows']:,} rows; --exact for all"
    con.print(
        f"problem length (chars, {how}): p50 {p['p50']}  p90 {p['p90']}  p99 {p['p99']}  max {p['max']}"
    )
    for key in ("by_source", "by_status", "by_transform", "by_competition", "by_year", "reject_reasons"):
        t = Table(title=key.replace("_", " "), title_justify="left")
        t.add_column("value")
        t.add_column("rows", justify="right")
        for k, n in s[key].items():
            t.add_row(str(k), f"{n:,}")
        con.print(t)


def print_query_result(result, *, fmt: str = "table", limit: int = 100) -> None:
    """`dapo data sql`'s output for a `query` result: CSV or JSON on stdout, or a table of the first
    `limit` rows (cells cut at 120 characters) and how many more there are."""
    import sys

    if fmt == "csv":
        import pyarrow.csv as pcsv

        pcsv.write_csv(result, sys.stdout.buffer)
    elif fmt == "json":
        import json

        print(json.dumps(result.to_pylist(), default=str, indent=1))
    else:
        from rich.console import Console
        from rich.table import Table

        t = Table()
        for name in result.column_names:
            t.add_column(name)
        for row in result.slice(0, limit).to_pylist():
            t.add_row(*["" if v is None else str(v)[:120] for v in row.values()])
        Console().print(t)
        if len(result) > limit:
            print(f"... {len(result) - limit:,} more rows (use --limit or --format csv)")
