"""The record: one row per problem, one pyarrow schema, defined here and nowhere else.

Every stage reads and writes this schema, so a column added or renamed here is the whole
change. The schema version travels in each Parquet file's metadata; readers refuse files
without it (foreign) or with a version they cannot migrate, instead of guessing.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from datetime import UTC, datetime
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from mathdata.files import SCHEMA_VERSION, VERSION_KEY, SchemaError

PIPELINE_VERSION = "mathdata-0.1.0"

# (name, type, nullable, meaning): the DESIGN.md table. The card and `dapo data` print it.
FIELDS: list[tuple[str, pa.DataType, bool, str]] = [
    ("id", pa.string(), False, "stable hash of the normalised original problem and its source key"),
    (
        "source",
        pa.string(),
        False,
        "where it came from: aops_wiki, import:<name>, synthetic:<gen>, benchmark:<name>",
    ),
    ("source_ref", pa.string(), True, "URL, file path relative to the input, or dataset row key"),
    ("competition", pa.string(), True, "contest name where known (AIME I, AMC 12A, ...)"),
    ("year", pa.int32(), True, "contest year where known"),
    ("problem_number", pa.string(), True, "problem number within the contest"),
    ("original_problem", pa.string(), False, "the statement as acquired, LaTeX kept"),
    ("original_answer", pa.string(), True, "the answer as acquired"),
    ("problem", pa.string(), True, "the statement after rewriting to an integer answer"),
    ("answer", pa.string(), True, "canonical integer: optional '-', digits, no leading zeros"),
    ("transform", pa.string(), True, "identity, a rule name, or llm"),
    ("transform_detail", pa.string(), True, "JSON: what the transform used (e.g. m, n for m/n)"),
    ("solution", pa.string(), True, "official solution text when acquired"),
    ("checks", pa.string(), True, "JSON: validation outcomes (integer, consistency, solver agreement k/n)"),
    ("status", pa.string(), False, "kept, or the reject reason (rejects are written, never dropped)"),
    ("split", pa.string(), True, "train / test / ... where the source says"),
    ("license", pa.string(), True, "licence of the source text"),
    ("retrieved_at", pa.timestamp("us", tz="UTC"), True, "when the source was read"),
    ("pipeline_version", pa.string(), True, "the mathdata/pipeline version that wrote the row"),
]

RECORD_SCHEMA = pa.schema(
    [pa.field(name, typ, nullable=nullable) for name, typ, nullable, _ in FIELDS],
    metadata={VERSION_KEY: SCHEMA_VERSION.encode()},
)
COLUMNS = [name for name, *_ in FIELDS]
REQUIRED = [name for name, _, nullable, _ in FIELDS if not nullable]
JSON_COLUMNS = ("transform_detail", "checks")
INTEGER_RE = r"^-?(0|[1-9][0-9]*)$"

# Older schema versions -> function upgrading a table to the next version. Version 1 is the
# first, so nothing to migrate yet; a future version 2 adds `"1": _v1_to_v2` here.
MIGRATIONS: dict[str, Any] = {}


def normalize_for_id(text: str) -> str:
    """Unicode NFKC, whitespace collapsed and stripped: what the id hashes (cosmetic edits keep ids)."""
    return " ".join(unicodedata.normalize("NFKC", text).split())


def record_id(original_problem: str, source_key: str) -> str:
    """Stable id: sha256 of the normalised text and the source key, 16 hex digits (64 bits).

    The same problem from the same source gets the same id on every machine and run, so
    re-running a stage skips finished work; 64 bits keep collisions negligible (~3e-8 at 1M rows).
    """
    if not isinstance(original_problem, str) or not original_problem.strip():
        raise SchemaError("record_id: original_problem must be a non-empty string")
    payload = normalize_for_id(original_problem) + "\x1f" + source_key
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]


def _json_field(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def new_record(*, source: str, original_problem: str, source_key: str | None = None, **fields: Any) -> dict:
    """A complete record dict with id, defaults, status="kept", retrieved_at and pipeline_version.

    The id hashes `original_problem` with `source_key` (default: `source`); pass a finer key
    (e.g. the row key) when one source legitimately holds the same text twice with different answers.
    """
    unknown = set(fields) - set(COLUMNS)
    if unknown:
        raise SchemaError(f"new_record: unknown field(s) {sorted(unknown)}; the record columns are {COLUMNS}")
    rec: dict[str, Any] = dict.fromkeys(COLUMNS)
    rec.update(fields)
    rec["source"] = source
    rec["original_problem"] = original_problem
    rec["id"] = fields.get("id") or record_id(original_problem, source_key or source)
    rec["status"] = fields.get("status") or "kept"
    rec["retrieved_at"] = fields.get("retrieved_at") or datetime.now(UTC)
    rec["pipeline_version"] = fields.get("pipeline_version") or PIPELINE_VERSION
    for col in JSON_COLUMNS:
        rec[col] = _json_field(rec[col])
    if rec["year"] is not None:
        rec["year"] = int(rec["year"])
    return rec


def to_table(records: Any, *, where: str = "<in-memory>") -> pa.Table:
    """Records (dicts or a table) as a table in RECORD_SCHEMA order; missing nullable columns become null."""
    if isinstance(records, pa.Table):
        table = records
    else:
        rows = list(records)
        for i, row in enumerate(rows):
            extra = set(row) - set(COLUMNS)
            if extra:
                raise SchemaError(f"{where}: row {i}: unknown column(s) {sorted(extra)}; allowed: {COLUMNS}")
        rows = [{**r, **{c: _json_field(r.get(c)) for c in JSON_COLUMNS}} for r in rows]
        try:
            table = pa.Table.from_pylist(rows, schema=RECORD_SCHEMA)
        except (pa.ArrowInvalid, pa.ArrowTypeError) as e:
            raise SchemaError(
                f"{where}: cannot build records: {e}; build rows with mathdata.schema.new_record"
            ) from e
    return conform(table, where=where)


def conform(table: pa.Table, *, where: str = "<in-memory>") -> pa.Table:
    """Add missing nullable columns as nulls, order columns, attach the version; then validate."""
    extra = [c for c in table.column_names if c not in COLUMNS]
    if extra:
        raise SchemaError(
            f"{where}: unknown column(s) {extra}; fix: drop them or keep their content in the JSON "
            f"columns {list(JSON_COLUMNS)}"
        )
    cols = []
    for field in RECORD_SCHEMA:
        if field.name in table.column_names:
            cols.append(table.column(field.name))
        elif field.nullable:
            cols.append(pa.nulls(len(table), field.type))
        else:
            raise SchemaError(f"{where}: required column {field.name!r} is missing; fix: add it (see FIELDS)")
    out = pa.Table.from_arrays(cols, names=COLUMNS)
    validate(out, where=where)
    return out.cast(RECORD_SCHEMA)


def _first_bad_row(mask: pa.ChunkedArray | pa.Array) -> int:
    return int(pc.index(mask, True).as_py())


def validate(table: pa.Table, *, where: str = "<in-memory>") -> None:
    """Raise SchemaError naming file, row, column and the fix for the first problem found."""
    for field in RECORD_SCHEMA:
        if field.name not in table.column_names:
            if field.nullable:
                continue
            raise SchemaError(f"{where}: required column {field.name!r} is missing; fix: add it (see FIELDS)")
        got = table.schema.field(field.name).type
        if got != field.type and not (pa.types.is_null(got) and field.nullable):
            raise SchemaError(
                f"{where}: column {field.name!r} has type {got}, expected {field.type}; "
                f"fix: cast it (e.g. table.set_column(..., pc.cast(col, pa.{field.type})))"
            )
        col = table.column(field.name)
        if not field.nullable and col.null_count:
            row = _first_bad_row(pc.is_null(col))
            raise SchemaError(f"{where}: row {row}: column {field.name!r} is null; it is required")
    if "status" in table.column_names and len(table):
        empty = pc.equal(pc.utf8_length(table.column("status")), 0)
        if pc.any(empty).as_py():
            raise SchemaError(
                f"{where}: row {_first_bad_row(empty)}: column 'status' is empty; use 'kept' or a reason"
            )
    if (
        "answer" in table.column_names
        and len(table)
        and pa.types.is_string(table.schema.field("answer").type)
    ):
        bad = pc.invert(pc.fill_null(pc.match_substring_regex(table.column("answer"), INTEGER_RE), True))
        if pc.any(bad).as_py():
            row = _first_bad_row(bad)
            value = table.column("answer")[row].as_py()
            raise SchemaError(
                f"{where}: row {row}: column 'answer' is {value!r}, not a canonical integer; "
                f"fix: store verifiers.canonical_integer(...) (or null) and keep the raw text in original_answer"
            )


def check_file_schema(schema: pa.Schema, *, where: str) -> None:
    """Refuse files that mathdata did not write or whose schema version it cannot read."""
    meta = schema.metadata or {}
    version = meta.get(VERSION_KEY)
    if version is None:
        raise SchemaError(
            f"{where}: not a mathdata records file (no {VERSION_KEY.decode()} in its Parquet metadata, "
            f"columns {schema.names[:8]}...); fix: import it with pipelines' importers or "
            f"mathdata.store.write_records(new_dir, records)"
        )
    version = version.decode()
    if version != SCHEMA_VERSION and version not in MIGRATIONS:
        raise SchemaError(
            f"{where}: schema version {version}, this mathdata reads version {SCHEMA_VERSION} and knows no "
            f"migration from {version}; fix: use the mathdata release that wrote it, or re-export"
        )


def migrate(table: pa.Table, version: str) -> pa.Table:
    """Upgrade a table written with an older schema version, one step at a time."""
    while version != SCHEMA_VERSION:
        table, version = MIGRATIONS[version](table)
    return table


def is_canonical_integer(value: Any) -> bool:
    """True for '-12', '0', '204'; False for '025', '27.0', None."""
    return isinstance(value, str) and re.fullmatch(INTEGER_RE, value) is not None
