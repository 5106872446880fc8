"""The engines' shared pieces, without a cluster: the Ray engine's band grouping must form the
same candidate pairs as the local dedup whatever order the shuffle delivers rows in."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from mathdata.dedup import bucket_edges, lsh_params, sketch, unique_pairs
from pipelines.build import make_engine
from pipelines.corpus_plans import _band_rows, _group_edges
from pipelines.engine import LocalEngine, verl_shard_name


def _texts(n: int, seed: int) -> pa.Array:
    rng = np.random.default_rng(seed)
    words = [f"{a}{b}" for a in "abcdefgh" for b in "ijklmnop"]
    base = [" ".join(rng.choice(words, 20)) for _ in range(n // 4)]
    out = []
    for t in base:  # each text with three edited copies: buckets of several members
        out.append(t)
        for k in range(3):
            w = t.split()
            w[int(rng.integers(0, 20))] = words[(k * 7) % len(words)]
            out.append(" ".join(w))
    return pa.array(out)


@pytest.mark.parametrize("parts", [1, 3])
def test_band_groups_give_the_local_pairs_in_any_row_order(parts):
    texts = _texts(400, 1)
    n = len(texts)
    bands, rows = lsh_params(0.6, 128)
    keys, _, empty = sketch(texts, num_perm=128, shingle_size=3, bands=bands, rows=rows)
    us, vs = [], []
    for i in range(bands):  # exactly what mathdata.dedup.near_duplicate_pairs does
        u, v = bucket_edges(np.where(empty, np.arange(n, dtype=np.uint64), keys[:, i]))
        us.append(u)
        vs.append(v)
    local = unique_pairs(np.concatenate(us), np.concatenate(vs), n)
    assert len(local[0]) > n // 4  # the planted copies share buckets

    batch = pa.table(
        {
            "idx": pa.array(np.arange(n), pa.int64()),
            "keys": pa.FixedSizeListArray.from_arrays(pa.array(keys.ravel()), bands),
            "empty": pa.array(empty),
        }
    )
    exploded = _band_rows(batch, bands=bands, parts=parts)
    rng = np.random.default_rng(2)
    shuffled = exploded.take(pa.array(rng.permutation(len(exploded))))  # rows arrive in any order
    band, part = shuffled.column("band").to_numpy(), shuffled.column("part").to_numpy()
    us, vs = [], []
    for b in range(bands):
        for p in range(parts):
            sel = np.flatnonzero((band == b) & (part == p))
            g = {c: shuffled.column(c).to_numpy()[sel] for c in ("band", "part", "key", "idx")}
            e = _group_edges(g)
            us.append(e["u"])
            vs.append(e["v"])
    grouped = unique_pairs(np.concatenate(us), np.concatenate(vs), n)
    assert np.array_equal(grouped[0], local[0]) and np.array_equal(grouped[1], local[1])


def test_engine_names_and_export_names():
    assert isinstance(make_engine("local"), LocalEngine)
    with pytest.raises(ValueError, match="unknown engine 'spark'"):
        make_engine("spark")
    with pytest.raises(ValueError, match="--address is for --engine ray"):
        make_engine("local", address="auto")
    assert verl_shard_name(0, 1) == "train.parquet"
    assert verl_shard_name(2, 12) == "train-00002-of-00012.parquet"


def test_the_dedup_plan_on_the_local_executor_finds_mathdatas_pairs():
    """The plan the Ray engine executes (pipelines.corpus_plans), run by the in-process executor,
    gives exactly mathdata's near-duplicate pairs and similarities."""
    from mathdata.dedup import near_duplicate_pairs
    from pipelines.corpus_plans import near_duplicate_pairs as planned
    from pipelines.plan import LocalExecutor

    texts = _texts(400, 3)
    kw = {"threshold": 0.6, "num_perm": 128, "shingle_size": 3}
    u, v, sim, _, sig = near_duplicate_pairs(texts, **kw)
    pu, pv, psim, stats, psig = planned(LocalExecutor(), texts, **kw)
    assert len(u) > 100 and stats["engine"] == "local"
    assert np.array_equal(u, pu) and np.array_equal(v, pv) and np.array_equal(sim, psim)
    assert np.array_equal(sig, psig)


def test_group_reduce_sees_each_key_once_with_all_its_rows():
    from pipelines.plan import LocalExecutor

    parts = [pa.table({"k": [2, 1, 2], "x": [1, 2, 3]}), pa.table({"k": [1, 3], "x": [4, 5]})]
    out = LocalExecutor().group_reduce(parts, ["k"], lambda g: {"k": g["k"][:1], "sum": [int(g["x"].sum())]})
    assert [(t.column("k")[0].as_py(), t.column("sum")[0].as_py()) for t in out] == [(1, 6), (2, 4), (3, 5)]


def test_the_dedup_plan_on_the_local_executor_marks_what_mathdatas_dedup_marks():
    """The whole dedup plan (mathdata's exact and marking passes around the engine's pair finding)
    gives mathdata.dedup.dedup's statuses, clusters and counts; only the engine's own stats differ."""
    import inspect

    from mathdata.dedup import dedup
    from mathdata.schema import new_record, to_table
    from pipelines.corpus_plans import dedup as planned
    from pipelines.plan import LocalExecutor

    texts = _texts(200, 5).to_pylist()
    rows = [
        new_record(source="import:x", original_problem=t, source_key=str(i), answer="1")
        for i, t in enumerate(texts)
    ]
    rows.append(
        new_record(source="import:y", original_problem=texts[0].upper(), source_key="copy", answer="1")
    )
    table = to_table(rows)
    want, got = dedup(table), planned(LocalExecutor(), table)
    assert want.report["near_dropped"] > 20 and want.report["exact_dropped"] == 1
    assert got.table.equals(want.table) and got.clusters.equals(want.clusters)
    same = lambda r: {k: v for k, v in r.items() if k not in ("seconds", "near")}  # noqa: E731
    assert same(got.report) == same(want.report)
    extra = {"engine", "band_partitions"}
    assert {k: v for k, v in got.report["near"].items() if k not in extra} == want.report["near"]
    # mathdata runs its own passes: the engine no longer hands it a pair finder
    assert "pair_finder" not in inspect.signature(dedup).parameters
