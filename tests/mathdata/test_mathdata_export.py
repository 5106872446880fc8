import datasets
import pyarrow.parquet as pq
import pytest

from mathdata.export import DAPO_TEMPLATE, ExportError, dapo_prompt, to_trl, to_verl
from mathdata.schema import new_record, to_table

DESIGN_TEMPLATE = (
    "Solve the following math problem step by step. The last line of your response should be of the form Answer: "
    "$Answer (without quotes) where $Answer is the answer to the problem.\n\n{problem}\n\nRemember to put your answer "
    'on its own line after "Answer:".'
)


def test_template_is_the_design_text():
    assert DAPO_TEMPLATE == DESIGN_TEMPLATE
    assert dapo_prompt("What is 1+1?").count("What is 1+1?") == 1


@pytest.mark.parametrize("k", [1, 4])
def test_aime24_verl_export_loads_with_datasets(tmp_path, aime24, k):
    path = to_verl(aime24, tmp_path / "aime24.parquet", repeat=k)
    ds = datasets.load_dataset(
        "parquet", data_files=str(path), split="train", cache_dir=str(tmp_path / "cache")
    )
    assert ds.num_rows == 30 * k
    assert ds.column_names == ["data_source", "prompt", "ability", "reward_model", "extra_info"]
    row = ds[k]  # second problem's first copy
    src = aime24.to_pylist()[1]
    assert row["data_source"] == "math_dapo" and row["ability"] == "MATH"
    assert row["prompt"] == [{"role": "user", "content": dapo_prompt(src["problem"])}]
    assert row["reward_model"] == {"style": "rule", "ground_truth": src["answer"]}
    assert row["extra_info"] == {
        "index": 1,
        "id": src["id"],
        "source": "benchmark:aime24",
        "raw_problem": src["problem"],
        "split": "test",
    }
    assert sorted(set(ds["extra_info"][i]["index"] for i in range(ds.num_rows))) == list(range(30))
    gts = [r["ground_truth"] for r in ds["reward_model"]]
    assert "25" in gts and "025" not in gts  # canonicalised AIME answer


def test_verl_refuses_non_integer_ground_truth_and_writes_nothing(tmp_path):
    good = new_record(source="s", original_problem="P1", answer="3")
    bad = new_record(source="s", original_problem="P2", original_answer="1/2")
    out = tmp_path / "v.parquet"
    with pytest.raises(
        ExportError, match=rf"kept record {bad['id']} .* has answer None, not a canonical integer"
    ):
        to_verl(to_table([good, bad]), out)
    assert not out.exists() and not list(tmp_path.iterdir())
    path = to_verl(
        to_table([good, {**bad, "status": "non_integer_answer"}]), out, split="train", data_source="x"
    )
    t = pq.read_table(path)
    assert (
        len(t) == 1
        and t.column("extra_info")[0]["split"].as_py() == "train"
        and t.column("data_source")[0].as_py() == "x"
    )


def test_trl_export(tmp_path, aime24):
    path = to_trl(aime24, tmp_path / "trl.parquet")
    ds = datasets.load_dataset(
        "parquet", data_files=str(path), split="train", cache_dir=str(tmp_path / "cache")
    )
    assert ds.num_rows == 30 and ds[0]["answer"] == aime24.column("answer")[0].as_py()
    assert ds[0]["prompt"][0]["role"] == "user" and ds[0]["prompt"][0]["content"].startswith(
        "Solve the following"
    )


def test_splits_select_rows_and_a_missing_split_is_train(tmp_path):
    """`split=` selects (it once relabelled every row); a record whose source names no split is train;
    export_splits writes one file per split; a file named after a split refuses other splits."""
    from mathdata.export import export_splits

    rows = [
        new_record(source="s", original_problem="P1", answer="1", split="train"),
        new_record(source="s", original_problem="P2", answer="2", split="test"),
        new_record(source="s", original_problem="P3", answer="3"),  # no split: train
    ]
    table = to_table(rows)
    ids = {r["original_problem"]: r["id"] for r in rows}

    def got(path, col="extra_info"):
        t = pq.read_table(path).to_pylist()
        return sorted((r[col]["id"], r[col]["split"]) if col else (r["id"], r["split"]) for r in t)

    assert got(to_verl(table, tmp_path / "a.parquet", split="test")) == [(ids["P2"], "test")]
    assert got(to_verl(table, tmp_path / "train.parquet", split="train")) == sorted(
        [(ids["P1"], "train"), (ids["P3"], "train")]
    )
    assert got(to_trl(table, tmp_path / "t.parquet", split="test"), col=None) == [(ids["P2"], "test")]
    files = export_splits(table, tmp_path / "both", fmt="trl")
    assert sorted(p.name for p in files.values()) == ["test.parquet", "train.parquet"]
    with pytest.raises(
        ExportError,
        match="no kept records of split 'val'; the kept records have splits: test \\(1\\), train \\(2\\)",
    ):
        to_verl(table, tmp_path / "v.parquet", split="val")
    with pytest.raises(ExportError, match="named after split 'test' but would hold 2 train rows"):
        to_trl(table, tmp_path / "test.parquet")
    assert not (tmp_path / "test.parquet").exists() and not (tmp_path / "v.parquet").exists()


def _two_split_store(tmp_path, where="store"):
    from mathdata.store import write_records

    rows = [new_record(source="s", original_problem=f"What is {k}+1?", answer=str(k + 1)) for k in range(3)]
    rows += [
        new_record(source="s", original_problem=f"What is {k}+2?", answer=str(k + 2), split="test")
        for k in range(2)
    ]
    write_records(tmp_path / where, to_table(rows))
    return tmp_path / where


def test_a_file_export_never_mixes_splits_silently(tmp_path):
    """`export verl store all.parquet` wrote 1642 train and 526 test rows into one file, no word said."""
    from mathdata.export import export_store

    store = _two_split_store(tmp_path)
    with pytest.raises(ExportError, match=r"several splits \(2 test, 3 train\).*--split NAME"):
        export_store(store, tmp_path / "all.parquet", fmt="verl")
    assert not (tmp_path / "all.parquet").exists()
    assert pq.read_table(export_store(store, tmp_path / "t.parquet", fmt="verl", split="test")).num_rows == 2
    # a file named after one split, another asked: the hint names a file name that works
    with pytest.raises(ExportError, match=r"name the file after the split it holds \(test.parquet\)"):
        export_store(store, tmp_path / "train.parquet", fmt="verl", split="test")


def test_a_folder_export_refuses_to_leave_an_earlier_exports_split_beside_its_own(tmp_path):
    from mathdata.export import export_store

    store = _two_split_store(tmp_path)
    export_store(store, tmp_path / "ex", fmt="verl")  # train.parquet and test.parquet
    with pytest.raises(ExportError, match=r"already holds test.parquet"):
        export_store(store, tmp_path / "ex", fmt="verl", split="train")
    assert set(export_store(store, tmp_path / "ex", fmt="verl")) == {"train", "test"}  # the same files: fine
    with pytest.raises(ExportError, match=r"holds another export's test.parquet, train.parquet \(not trl\)"):
        export_store(store, tmp_path / "ex", fmt="trl")  # a TRL export over the verl one's files


def test_a_build_folder_is_no_store_and_says_where_the_records_are(tmp_path):
    from mathdata.files import StoreError
    from mathdata.store import read_table

    _two_split_store(tmp_path / "build", where="records")
    with pytest.raises(StoreError, match=r"build folder: fix: point at .*records"):
        read_table(tmp_path / "build")
    assert read_table(tmp_path / "build" / "records").num_rows == 5
