"""DuckDB straight over the Parquet shards: ad-hoc SQL and corpus statistics without a copy.

The view `records` reads the shard files in place (after mathdata checked each file's schema
version), so a 1M-row store is queryable in well under a second with no import step.
"""

from __future__ import annotations

import os
from typing import Any

from mathdata.store import check_store


def connect(path: str | os.PathLike, *, threads: int | None = None):
    """An in-memory DuckDB connection with the records under `path` exposed as view `records`."""
    import duckdb

    files = check_store(path)
    con = duckdb.connect(":memory:")
    if threads:
        con.execute(f"SET threads = {int(threads)}")
    if files:
        listing = ", ".join("'" + str(f).replace("'", "''") + "'" for f in files)
        con.execute(f"CREATE VIEW records AS SELECT * FROM read_parquet([{listing}])")
    else:
        from mathdata.schema import RECORD_SCHEMA

        con.register("records", RECORD_SCHEMA.empty_table())
    return con


def query(path: str | os.PathLike, sql: str) -> Any:
    """Run one SQL statement against `records`; returns a pyarrow Table."""
    con = connect(path)
    try:
        rel = con.sql(sql)
        if rel is None:  # a statement without a result (SET, CREATE ...)
            import pyarrow as pa

            return pa.table({})
        return rel.to_arrow_table()
    finally:
        con.close()


def _counts(con, column: str, limit: int = 50) -> dict[str, int]:
    rows = con.execute(
        f"SELECT coalesce(CAST({column} AS VARCHAR), '<null>') AS k, count(*) AS n FROM records "
        f"GROUP BY ALL ORDER BY n DESC, k LIMIT {limit}"
    ).fetchall()
    return {k: n for k, n in rows}


def stats(path: str | os.PathLike) -> dict:
    """Counts by source, status, transform, competition and year; answer range; length
    percentiles of the statement; reject reasons (status up to its first ':')."""
    con = connect(path)
    try:
        total, kept = con.execute(
            "SELECT count(*), count(*) FILTER (status = 'kept') FROM records"
        ).fetchone()
        lo, hi, n_int = con.execute(
            "SELECT min(a), max(a), count(a) FROM (SELECT TRY_CAST(answer AS HUGEINT) AS a FROM records)"
        ).fetchone()
        p = con.execute(
            "SELECT quantile_cont(l, [0.5, 0.9, 0.99]), max(l), avg(l) FROM "
            "(SELECT length(coalesce(problem, original_problem)) AS l FROM records)"
        ).fetchone()
        rejects = con.execute(
            "SELECT split_part(status, ':', 1) AS reason, count(*) AS n FROM records WHERE status <> 'kept' "
            "GROUP BY ALL ORDER BY n DESC, reason"
        ).fetchall()
        return {
            "path": str(path),
            "rows": total,
            "kept": kept,
            "rejected": total - kept,
            "by_source": _counts(con, "source"),
            "by_status": _counts(con, "status", limit=20),
            "by_transform": _counts(con, "transform"),
            "by_competition": _counts(con, "competition"),
            "by_year": _counts(con, "year", limit=100),
            "answer": {
                "integer_answers": n_int,
                "min": None if lo is None else int(lo),
                "max": None if hi is None else int(hi),
            },
            "problem_length_chars": {
                "p50": None if p[0] is None else round(p[0][0], 1),
                "p90": None if p[0] is None else round(p[0][1], 1),
                "p99": None if p[0] is None else round(p[0][2], 1),
                "max": p[1],
                "mean": None if p[2] is None else round(p[2], 1),
            },
            "reject_reasons": {r: n for r, n in rejects},
        }
    finally:
        con.close()
