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


def _length_stats(path, *, exact: bool, sample_groups: int) -> dict:
    """Percentiles of len(problem or original_problem) in characters, exact or on sampled row groups."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    groups = [(f, i) for f in check_store(path) for i in range(pq.ParquetFile(f).metadata.num_row_groups)]
    sampled = not exact and len(groups) > sample_groups
    if sampled:
        groups = [groups[int(k)] for k in np.linspace(0, len(groups) - 1, sample_groups)]
    parts = []
    for f, i in groups:
        t = pq.ParquetFile(f).read_row_group(i, columns=["problem", "original_problem"])
        parts.append(pc.utf8_length(pc.coalesce(t.column("problem"), t.column("original_problem"))))
    lengths = pa.chunked_array(parts, pa.int32()).to_numpy() if parts else np.zeros(0)
    if not len(lengths):
        return {
            "p50": None,
            "p90": None,
            "p99": None,
            "max": None,
            "mean": None,
            "sample_rows": 0,
            "exact": True,
        }
    p50, p90, p99 = np.percentile(lengths, [50, 90, 99])
    return {
        "p50": round(float(p50), 1),
        "p90": round(float(p90), 1),
        "p99": round(float(p99), 1),
        "max": int(lengths.max()),
        "mean": round(float(lengths.mean()), 1),
        "sample_rows": len(lengths),
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
    bulk of the store, so above `sample_groups` row groups they are computed on that many
    evenly spaced row groups (~16k rows each, so ~65k rows; `sample_rows` says how many) unless exact_lengths.
    """
    con = connect(path)
    try:
        counts = _grouped_counts(con, {"status": 10**9, "year": 100})
        total = sum(counts["status"].values()) if counts["status"] else 0
        kept = counts["status"].get("kept", 0)
        lo, hi, n_int = con.execute(
            "SELECT min(a), max(a), count(a) FROM (SELECT TRY_CAST(answer AS HUGEINT) AS a FROM records)"
        ).fetchone()
        lengths = _length_stats(path, exact=exact_lengths, sample_groups=sample_groups)
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
