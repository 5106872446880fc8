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


def stats(path: str | os.PathLike) -> dict:
    """Counts by source, status, transform, competition and year; answer range; length
    percentiles of the statement; reject reasons (status up to its first ':')."""
    con = connect(path)
    try:
        counts = _grouped_counts(con, {"status": 10**9, "year": 100})
        total = sum(counts["status"].values()) if counts["status"] else 0
        kept = counts["status"].get("kept", 0)
        lo, hi, n_int = con.execute(
            "SELECT min(a), max(a), count(a) FROM (SELECT TRY_CAST(answer AS HUGEINT) AS a FROM records)"
        ).fetchone()
        # lengths of the rewritten statement, or of the original where no rewrite exists; two branches so
        # DuckDB reads original_problem only for row groups that have null problems
        p = con.execute(
            "SELECT quantile_cont(l, [0.5, 0.9, 0.99]), max(l), avg(l) FROM ("
            "SELECT length(problem) AS l FROM records WHERE problem IS NOT NULL UNION ALL "
            "SELECT length(original_problem) FROM records WHERE problem IS NULL)"
        ).fetchone()
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
            "problem_length_chars": {
                "p50": None if p[0] is None else round(p[0][0], 1),
                "p90": None if p[0] is None else round(p[0][1], 1),
                "p99": None if p[0] is None else round(p[0][2], 1),
                "max": p[1],
                "mean": None if p[2] is None else round(p[2], 1),
            },
            "reject_reasons": dict(sorted(rejects.items(), key=lambda kv: (-kv[1], kv[0]))),
        }
    finally:
        con.close()
