import subprocess
import sys

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from mathdata.schema import (
    COLUMNS,
    RECORD_SCHEMA,
    SCHEMA_VERSION,
    VERSION_KEY,
    SchemaError,
    new_record,
    record_id,
    to_table,
    validate,
)
from mathdata.store import StoreError, read_table, write_records


def test_record_id_is_stable_and_whitespace_insensitive():
    a = record_id("Find  $x$.\n", "aops_wiki")
    assert a == record_id("Find $x$.", "aops_wiki")
    assert a != record_id("Find $x$.", "import:other")
    assert a != record_id("Find $y$.", "aops_wiki")
    # another interpreter (fresh hash seed) computes the same id
    code = "from mathdata.schema import record_id; print(record_id('Find  $x$.\\n', 'aops_wiki'))"
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONHASHSEED": "123"},
    )
    assert out.stdout.strip() == a


def test_new_record_fills_defaults_and_rejects_unknown_fields():
    r = new_record(source="s", original_problem="P?", answer="3", checks={"integer": True})
    assert set(r) == set(COLUMNS)
    assert r["status"] == "kept" and r["retrieved_at"] is not None and r["pipeline_version"]
    assert r["checks"] == '{"integer": true}'
    with pytest.raises(SchemaError, match="unknown field"):
        new_record(source="s", original_problem="P?", anwser="3")


def test_table_carries_schema_version(small_table):
    assert small_table.schema.metadata[VERSION_KEY].decode() == SCHEMA_VERSION
    assert small_table.schema.equals(RECORD_SCHEMA, check_metadata=False)


def test_wrong_column_type_names_column(small_table):
    bad = small_table.set_column(
        small_table.schema.get_field_index("year"), "year", pc.cast(small_table.column("year"), pa.string())
    )
    with pytest.raises(
        SchemaError, match=r"f\.parquet: column 'year' has type string, expected int32; fix: cast"
    ):
        validate(bad, where="f.parquet")


def test_null_in_required_column_names_row(small_table):
    src = small_table.column("source").to_pylist()
    src[2] = None
    bad = small_table.set_column(1, pa.field("source", pa.string()), pa.array(src, pa.string()))
    with pytest.raises(SchemaError, match=r"row 2: column 'source' is null"):
        validate(bad)


def test_non_canonical_answer_names_row_and_fix(small_records):
    small_records[1]["answer"] = "025"
    with pytest.raises(SchemaError, match=r"row 1: column 'answer' is '025'.*canonical_integer"):
        to_table(small_records)


def test_foreign_parquet_file_is_refused(tmp_path, small_table):
    f = tmp_path / "foreign.parquet"
    pq.write_table(small_table.replace_schema_metadata(None), f)
    with pytest.raises(SchemaError, match=r"foreign\.parquet: not a mathdata records file"):
        read_table(f)


def test_newer_schema_version_is_refused(tmp_path, small_table):
    f = tmp_path / "future.parquet"
    pq.write_table(small_table.replace_schema_metadata({VERSION_KEY: b"99"}), f)
    with pytest.raises(SchemaError, match="schema version 99"):
        read_table(f)


def test_write_rejects_wrong_type_and_writes_nothing(tmp_path, small_table):
    bad = small_table.set_column(
        small_table.schema.get_field_index("answer"), "answer", pa.array([1, 2, 3, None], pa.int64())
    )
    with pytest.raises(SchemaError, match="column 'answer' has type int64"):
        write_records(tmp_path / "store", bad)
    assert not (tmp_path / "store").exists() or not list((tmp_path / "store").glob("*.parquet"))
    with pytest.raises(StoreError):
        read_table(tmp_path / "store")
