"""The Parquet store: a directory of immutable zstd shards, appended atomically, read many ways.

Appending writes a new shard (temp file, then os.replace) and never rewrites old ones, so a
crash loses at most the shard in flight and readers never see half a file. Ids already
stored are skipped, which makes every stage resumable; the same id with different content is
an error, not a silent overwrite.
"""

from __future__ import annotations

import fcntl
import os
import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from mathdata.files import StoreError, shard_files
from mathdata.schema import (
    RECORD_SCHEMA,
    SCHEMA_VERSION,
    VERSION_KEY,
    SchemaError,
    check_file_schema,
    migrate,
    to_table,
)

ROW_GROUP_ROWS = 16_384  # ~5-10 MB of problem text per group: streams in small steps, still scans fast
SHARD_ROWS = 1_000_000  # one shard per write unless larger; keeps shard count low for DuckDB
# Two rows with one id must agree on these; provenance (retrieved_at, source_ref, ...) may differ.
CONTENT_COLUMNS = ("original_problem", "original_answer", "problem", "answer")


def _open_schema(f: Path) -> pa.Schema:
    try:
        schema = pq.read_schema(f)
    except (pa.ArrowInvalid, OSError) as e:
        raise StoreError(
            f"{f}: not a readable Parquet file ({e}); it may be truncated by an interrupted copy. "
            f"Fix: restore or delete this shard, then re-run the stage that wrote it"
        ) from e
    check_file_schema(schema, where=str(f))
    return schema


def _dataset(path: str | os.PathLike):
    """(pyarrow Dataset or None when shards need migrating, files); pyarrow.dataset is imported
    here because it pulls in pandas (~0.4 s), which `dapo data stats` does not need."""
    import pyarrow.dataset as ds

    files = shard_files(path)
    if not files:
        return None, []
    versions = {(_open_schema(f).metadata or {}).get(VERSION_KEY, b"").decode() for f in files}
    if versions != {SCHEMA_VERSION}:
        return None, files  # older shards: read whole tables and migrate (see read_table)
    return ds.dataset([str(f) for f in files], schema=RECORD_SCHEMA, format="parquet"), files


def _status_filter(filter_status: str | Iterable[str] | None):
    if filter_status is None:
        return None
    wanted = [filter_status] if isinstance(filter_status, str) else list(filter_status)
    return pc.field("status").isin(wanted)


def read_table(
    path: str | os.PathLike,
    columns: list[str] | None = None,
    filter_status: str | Iterable[str] | None = None,
) -> pa.Table:
    """All records under `path` as one table (optionally some columns, optionally one status)."""
    dataset, files = _dataset(path)
    if dataset is None:
        if not files:
            return RECORD_SCHEMA.empty_table().select(columns or RECORD_SCHEMA.names)
        parts = []
        for f in files:
            t = _read_file(f)
            t = migrate(t, (t.schema.metadata or {}).get(VERSION_KEY, b"").decode())
            parts.append(t)
        table = pa.concat_tables(parts)
        expr = _status_filter(filter_status)
        table = table.filter(expr) if expr is not None else table
        return table.select(columns) if columns else table
    try:
        return dataset.to_table(columns=columns, filter=_status_filter(filter_status))
    except (pa.ArrowInvalid, OSError) as e:
        raise StoreError(
            f"{path}: reading failed ({e}); fix: check for truncated shards with `dapo data stats`"
        ) from e


def _read_file(f: Path) -> pa.Table:
    try:
        return pq.read_table(f)
    except (pa.ArrowInvalid, OSError) as e:
        raise StoreError(f"{f}: not a readable Parquet file ({e}); fix: restore or delete it") from e


def iter_batches(
    path: str | os.PathLike,
    batch_size: int = 65_536,
    columns: list[str] | None = None,
    filter_status: str | Iterable[str] | None = None,
) -> Iterator[pa.RecordBatch]:
    """Stream record batches without loading the store into memory."""
    dataset, files = _dataset(path)
    if dataset is None:
        if files:
            yield from read_table(path, columns, filter_status).to_batches(batch_size)
        return
    yield from dataset.to_batches(
        columns=columns, filter=_status_filter(filter_status), batch_size=batch_size
    )


def read_pandas(path: str | os.PathLike, columns: list[str] | None = None, filter_status=None):
    """The records as a pandas DataFrame."""
    return read_table(path, columns, filter_status).to_pandas()


def read_dataset(path: str | os.PathLike, filter_status: str | Iterable[str] | None = None):
    """The records as an in-memory `datasets.Dataset` (same columns and types)."""
    import datasets

    return datasets.Dataset(read_table(path, filter_status=filter_status))


def stored_ids(path: str | os.PathLike) -> set[str]:
    """Ids already stored (empty for a store that does not exist yet)."""
    p = Path(path)
    if not p.exists():
        return set()
    return set(read_table(p, columns=["id"]).column("id").to_pylist())


@contextmanager
def _locked(directory: Path):
    """One writer at a time per store: the id check and the shard write must not interleave."""
    with open(directory / ".lock", "a+") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _content_key(table: pa.Table) -> pa.ChunkedArray:
    parts = [pc.fill_null(table.column(c), "\x00<null>") for c in CONTENT_COLUMNS]
    return pc.binary_join_element_wise(*parts, "\x1f")


def _dedupe_batch(table: pa.Table, *, where: str) -> pa.Table:
    """Drop repeated ids inside one batch (first wins); error on one id with two contents."""
    ids = table.column("id")
    if pc.count_distinct(ids).as_py() == len(table):
        return table
    idx = pa.table({"id": ids, "key": _content_key(table), "row": pa.array(range(len(table)))})
    groups = idx.group_by("id").aggregate([("key", "count_distinct"), ("row", "min"), ("row", "list")])
    bad = groups.filter(pc.greater(groups.column("key_count_distinct"), 1))
    if len(bad):
        rows = bad.column("row_list")[0].as_py()
        raise StoreError(
            f"{where}: id {bad.column('id')[0].as_py()} appears in rows {rows[:5]} with different content "
            f"(columns {list(CONTENT_COLUMNS)}); fix: give them distinct source keys "
            f"(new_record(..., source_key=...)) or drop the wrong row. Nothing was written"
        )
    first_rows = pc.sort_indices(groups.column("row_min"))
    return table.take(pc.take(groups.column("row_min"), first_rows))


def write_records(path: str | os.PathLike, records: Iterable[dict] | pa.Table) -> int:
    """Append records as a new zstd shard in directory `path`; return how many rows were new.

    Ids already in the store are skipped when their content matches and rejected when it
    does not; the whole call writes nothing if any row is invalid.
    """
    directory = Path(path)
    if directory.is_file() or directory.suffix == ".parquet":
        raise StoreError(
            f"{directory}: write_records appends shards to a directory; fix: pass a directory path "
            f"(a single .parquet file can be read but is never rewritten)"
        )
    where = f"records for {directory}"
    table = _dedupe_batch(to_table(records, where=where), where=where)
    if not len(table):
        return 0
    directory.mkdir(parents=True, exist_ok=True)
    with _locked(directory):
        table = _skip_stored(directory, table, where=where)
        for start in range(0, len(table), SHARD_ROWS):
            _write_shard(directory, table.slice(start, SHARD_ROWS))
    return len(table)


def _skip_stored(directory: Path, table: pa.Table, *, where: str) -> pa.Table:
    if not shard_files(directory):
        return table
    stored = read_table(directory, columns=["id"]).column("id")
    seen = pc.is_in(table.column("id"), value_set=stored)
    if not pc.any(seen).as_py():
        return table
    new_side = table.filter(seen)
    old = read_table(directory, columns=["id", *CONTENT_COLUMNS])
    old = old.filter(pc.is_in(old.column("id"), value_set=new_side.column("id")))
    a = pa.table({"id": new_side.column("id"), "new": _content_key(new_side)})
    b = pa.table({"id": old.column("id"), "old": _content_key(old)})
    joined = a.join(b, "id")
    differ = pc.not_equal(joined.column("new"), joined.column("old"))
    if pc.any(differ).as_py():
        bad = joined.filter(differ).column("id")[0].as_py()
        raise StoreError(
            f"{where}: id {bad} is already stored in {directory} with different content "
            f"(columns {list(CONTENT_COLUMNS)}); fix: write the corrected record to a new store, or give it "
            f"a distinct source key. Nothing was written"
        )
    return table.filter(pc.invert(seen))


def _write_shard(directory: Path, table: pa.Table) -> Path:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%f")
    final = directory / f"part-{stamp}-{uuid.uuid4().hex[:8]}.parquet"
    tmp = directory / f".tmp-{final.name}"
    table = table.replace_schema_metadata(RECORD_SCHEMA.metadata)
    try:
        pq.write_table(table, tmp, compression="zstd", row_group_size=ROW_GROUP_ROWS)
        os.replace(tmp, final)
    finally:
        if tmp.exists():
            tmp.unlink()
    return final


def check_store(path: str | os.PathLike) -> list[Path]:
    """Open every shard's footer and schema; raise naming the first bad file. Returns the files."""
    files = shard_files(path)
    for f in files:
        _open_schema(f)
    return files


__all__ = [
    "StoreError",
    "SchemaError",
    "check_store",
    "iter_batches",
    "read_dataset",
    "read_pandas",
    "read_table",
    "shard_files",
    "stored_ids",
    "write_records",
]
