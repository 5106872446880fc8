import os

import datasets
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import mathdata.store as store_mod
from mathdata.schema import new_record
from mathdata.store import (
    StoreError,
    iter_batches,
    read_dataset,
    read_pandas,
    read_table,
    shard_files,
    stored_ids,
    write_records,
)


def test_append_adds_shards_and_never_rewrites(tmp_path, small_records):
    s = tmp_path / "s"
    assert write_records(s, small_records[:2]) == 2
    first = shard_files(s)
    mtime = first[0].stat().st_mtime_ns
    assert write_records(s, small_records) == 2  # two new, two already stored
    files = shard_files(s)
    assert len(files) == 2 and files[0] == first[0] and files[0].stat().st_mtime_ns == mtime
    assert sorted(read_table(s).column("id").to_pylist()) == sorted(r["id"] for r in small_records)
    assert write_records(s, small_records) == 0
    assert len(shard_files(s)) == 2
    meta = pq.ParquetFile(files[0]).metadata
    assert meta.row_group(0).column(0).compression == "ZSTD"


def test_repeated_rows_in_one_batch_are_stored_once(tmp_path):
    rec = new_record(source="import:x", original_problem="Find 1+1.", answer="2")
    assert write_records(tmp_path / "s", [rec] * 100) == 1
    assert len(read_table(tmp_path / "s")) == 1


def test_same_id_different_content_is_an_error_and_nothing_written(tmp_path, small_records):
    s = tmp_path / "s"
    write_records(s, small_records[:1])
    changed = dict(small_records[0], answer="11")
    with pytest.raises(StoreError, match=rf"id {changed['id']} is already stored .* different content"):
        write_records(s, [small_records[1], changed])
    assert len(read_table(s)) == 1
    with pytest.raises(StoreError, match=r"appears in rows \[0, 1\] with different content"):
        write_records(tmp_path / "t", [small_records[0], changed])
    assert not (tmp_path / "t").exists()


def test_crash_during_write_leaves_store_unchanged(tmp_path, small_records, monkeypatch):
    s = tmp_path / "s"
    write_records(s, small_records[:1])

    def exploding(table, where, **kw):
        with open(where, "wb") as fh:
            fh.write(b"PAR1 half a file")
        raise OSError("disk full")

    monkeypatch.setattr(store_mod.pq, "write_table", exploding)
    with pytest.raises(OSError, match="disk full"):
        write_records(s, small_records[1:])
    assert [f.name for f in s.iterdir() if f.suffix == ".parquet"] == [shard_files(s)[0].name]
    assert len(read_table(s)) == 1


def test_truncated_shard_is_named(tmp_path, small_records):
    s = tmp_path / "s"
    write_records(s, small_records)
    f = shard_files(s)[0]
    data = f.read_bytes()
    f.write_bytes(data[: len(data) // 2])
    with pytest.raises(StoreError, match=rf"{f.name}: not a readable Parquet file.*truncated"):
        read_table(s)


def test_read_modes_agree(tmp_path, small_records):
    s = tmp_path / "s"
    write_records(s, small_records[:2])
    write_records(s, small_records[2:])
    table = read_table(s)
    assert len(table) == 4
    assert read_table(s, columns=["id", "status"]).column_names == ["id", "status"]
    assert len(read_table(s, filter_status="kept")) == 3
    batches = list(iter_batches(s, batch_size=1))
    assert sum(len(b) for b in batches) == 4 and max(len(b) for b in batches) == 1
    df = read_pandas(s)
    assert sorted(df["id"]) == sorted(table.column("id").to_pylist())
    ds = read_dataset(s)
    assert (
        isinstance(ds, datasets.Dataset)
        and ds.num_rows == 4
        and set(ds.column_names) == set(table.column_names)
    )
    assert stored_ids(s) == set(table.column("id").to_pylist())
    assert stored_ids(tmp_path / "missing") == set()


def test_single_parquet_file_reads_but_is_not_a_write_target(tmp_path, small_records):
    s = tmp_path / "s"
    write_records(s, small_records)
    single = tmp_path / "one.parquet"
    os.replace(shard_files(s)[0], single)
    assert len(read_table(single)) == 4
    with pytest.raises(StoreError, match="pass a directory"):
        write_records(single, small_records)


def test_empty_store_reads_as_empty_table(tmp_path):
    (tmp_path / "e").mkdir()
    t = read_table(tmp_path / "e")
    assert isinstance(t, pa.Table) and len(t) == 0 and "id" in t.column_names
