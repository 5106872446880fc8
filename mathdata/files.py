"""What a store looks like on disk: shard files, the schema-version key and the two error types;
and, re-exported, the toolkit's one atomic-write helper (`atomic_write`, verifiers.files).

Kept free of pyarrow so `dapo data stats` (DuckDB only) starts fast; schema.py and store.py
re-export these names.
"""

from __future__ import annotations

import os
from pathlib import Path

from verifiers.files import atomic_write, default_file_mode, make_readable

__all__ = [
    "SCHEMA_VERSION",
    "VERSION_KEY",
    "SchemaError",
    "StoreError",
    "atomic_write",
    "default_file_mode",
    "make_readable",
    "shard_files",
    "write_json",
]

SCHEMA_VERSION = "1"
VERSION_KEY = b"mathdata.schema_version"


class SchemaError(ValueError):
    """A table or file does not match RECORD_SCHEMA; the message names where and how to fix it."""


class StoreError(ValueError):
    """A store path or file cannot be read or written; the message names it and the fix."""


def shard_files(path: str | os.PathLike) -> list[Path]:
    """The Parquet files behind `path`: the file itself, or the directory's shards in write order."""
    p = Path(path)
    if p.is_file():
        return [p]
    if p.is_dir():
        files = sorted(f for f in p.glob("*.parquet") if not f.name.startswith((".", "_")))
        if not files and any((p / "records").glob("*.parquet")):  # a build folder: read as empty, silently
            raise StoreError(
                f"{p}: no Parquet files here; it is a build folder: fix: point at {p / 'records'} (the records)"
                f" or {p / 'verl'} (the export)"
            )
        return files
    raise StoreError(f"{p}: no such records file or directory")


def write_json(path: str | os.PathLike, obj) -> None:
    """`obj` as indented JSON, atomically (values JSON lacks, e.g. dates, written as str())."""
    import json

    atomic_write(path, json.dumps(obj, indent=2, default=str))
