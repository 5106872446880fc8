"""The corpus steps' plans (pipelines.plan): dedup and decontamination written against an
executor's primitives, so any engine runs them without knowing the step. The batch functions are
the ones the Ray engine ran (moved here unchanged but for the broadcast, now the executor's).

mathdata never calls back into this module: a plan calls mathdata's passes (e.g. dedup's
`exact_groups` and `mark_duplicates`) and runs the parallel part between them itself."""

from __future__ import annotations

import math

import numpy as np
import pyarrow as pa


def _slices(table: pa.Table, size: int) -> list[pa.Table]:
    return [table.slice(s, size) for s in range(0, len(table), size)] or [table]


def _sketch_batch(batch: pa.Table, *, num_perm, shingle_size, bands, rows, seed) -> pa.Table:
    from mathdata.dedup import sketch

    keys, sig16, empty = sketch(
        batch.column("text").combine_chunks(),
        num_perm=num_perm,
        shingle_size=shingle_size,
        bands=bands,
        rows=rows,
        seed=seed,
    )
    n = len(batch)
    return pa.table(
        {
            "idx": batch.column("idx"),
            "sig": pa.FixedSizeListArray.from_arrays(pa.array(sig16.ravel()), num_perm),
            "keys": pa.FixedSizeListArray.from_arrays(pa.array(keys.ravel()), bands),
            "empty": pa.array(empty[:n]),
        }
    )


def _band_rows(batch: pa.Table, *, bands: int, parts: int) -> pa.Table:
    """(band, part, key, idx) per band of every text with shingles: the rows Ray groups."""
    keep = np.logical_not(batch.column("empty").to_numpy(zero_copy_only=False))
    idx = batch.column("idx").to_numpy()[keep]
    keys = batch.column("keys").combine_chunks().flatten().to_numpy().reshape(-1, bands)[keep]
    band = np.repeat(np.arange(bands, dtype=np.int32)[None, :], len(idx), axis=0)
    return pa.table(
        {
            "band": band.ravel(),
            "part": (keys % np.uint64(parts)).astype(np.int32).ravel(),
            "key": keys.ravel(),
            "idx": np.repeat(idx, bands),
        }
    )


def _group_edges(group: dict) -> dict:
    """Candidate pairs inside one (band, partition) group, as the local code forms them."""
    from mathdata.dedup import bucket_edges

    order = np.argsort(group["idx"], kind="stable")  # texts in index order, as locally
    idx, keys = group["idx"][order], group["key"][order]
    u, v = bucket_edges(keys)
    return {"u": idx[u].astype(np.int64), "v": idx[v].astype(np.int64)}


def _match_batch(batch: pa.Table, *, index) -> pa.Table:
    from mathdata.decontam import match_rows

    best = match_rows(batch.drop_columns(["pos"]), index)
    pos = batch.column("pos").to_numpy()
    items = sorted(best.items())
    return pa.table(
        {
            "pos": pa.array([int(pos[p]) for p, _ in items], pa.int64()),
            "overlap": pa.array([b[0] for _, b in items], pa.float64()),
            "shared": pa.array([b[1] for _, b in items], pa.int64()),
            "ref": pa.array([b[2] for _, b in items], pa.int64()),
            "method": pa.array([b[3] for _, b in items], pa.string()),
        }
    )


def near_duplicate_pairs(
    ex, texts, *, threshold, num_perm, shingle_size, same_numbers=True, seed=1, progress=False
):
    """mathdata.dedup.near_duplicate_pairs as a plan: sketches by `map_batches`, the LSH band buckets
    by `group_reduce` on (band, key partition), pairs verified on the driver."""
    from mathdata.dedup import lsh_params, unique_pairs, verify_pairs

    n = len(texts)
    bands, rows = lsh_params(threshold, num_perm)
    cpus = ex.cpus()
    size = max(1_000, math.ceil(n / (4 * cpus)))
    parts = [
        pa.table({"idx": pa.array(np.arange(s, min(n, s + size)), pa.int64()), "text": texts.slice(s, size)})
        for s in range(0, n, size)
    ]
    sketched = ex.map_batches(
        _sketch_batch, parts, num_perm=num_perm, shingle_size=shingle_size, bands=bands, rows=rows, seed=seed
    )
    # the 16-bit signatures come to the driver: pairs are verified and clusters split there
    sig_table = pa.concat_tables([t.select(["idx", "sig"]) for t in sketched])
    order = np.argsort(sig_table.column("idx").to_numpy())
    sig16 = sig_table.column("sig").combine_chunks().flatten().to_numpy().reshape(-1, num_perm)[order]
    # LSH buckets with Ray's groupby: one group per (band, key partition); a bucket never spans groups
    partitions = max(1, math.ceil(4 * cpus / bands))
    band_rows = ex.map_batches(_band_rows, sketched, bands=bands, parts=partitions)
    tables = [t for t in ex.group_reduce(band_rows, ["band", "part"], _group_edges) if len(t)]
    if tables:
        et = pa.concat_tables(tables)
        u, v = unique_pairs(et.column("u").to_numpy(), et.column("v").to_numpy(), n)
    else:
        u = v = np.zeros(0, dtype=np.int64)
    u, v, sim, stats = verify_pairs(
        texts,
        u,
        v,
        sig16,
        threshold=threshold,
        same_numbers=same_numbers,
        stats={"bands": bands, "rows": rows, "engine": ex.name, "band_partitions": partitions},
    )
    return u, v, sim, stats, sig16


def dedup(
    ex,
    table: pa.Table,
    *,
    threshold: float = 0.6,
    num_perm: int = 128,
    shingle_size: int = 3,
    same_numbers: bool = True,
    near: bool = True,
    seed: int = 1,
):
    """mathdata.dedup.dedup as a plan: the exact groups on the driver (a global pass), the near pairs
    among their texts by the sub-plan `near_duplicate_pairs`, the clusters marked on the driver."""
    from mathdata.dedup import NearPairs, exact_groups, mark_duplicates

    groups = exact_groups(table)
    kw = {
        "threshold": threshold,
        "num_perm": num_perm,
        "shingle_size": shingle_size,
        "same_numbers": same_numbers,
    }
    pairs = None
    if near and len(groups.texts) > 1:
        pairs = NearPairs(*near_duplicate_pairs(ex, groups.texts, seed=seed, **kw))
    return mark_duplicates(groups, pairs, seed=seed, **kw)


def decontaminate(ex, table, config):
    """mathdata.decontam.decontaminate as a plan: the index built once on the driver, the kept rows
    matched against it by `map_batches` (the index broadcast), the hits applied on the driver."""
    from mathdata.decontam import apply_hits, build_index, kept_texts

    kw = {"n": config.n} if config.n else {}
    # no LLM judge on Ray: borderline pairs are reported; the semantic layer's encoder loads once
    # per worker (the index carries the references' embeddings, not the model)
    index = build_index(config.benchmarks, fuzzy=config.fuzzy, semantic=config.semantic,
                        judge_from=config.judge_from, **kw)  # fmt: skip
    kept, texts = kept_texts(table)
    if not len(kept):
        return apply_hits(table, kept, {}, index)
    texts = texts.append_column("pos", pa.array(np.arange(len(kept)), pa.int64()))
    size = max(1_000, math.ceil(len(kept) / (2 * ex.cpus())))
    hits = [h for t in ex.map_batches(_match_batch, _slices(texts, size), index=index) for h in t.to_pylist()]
    best = {int(h["pos"]): (float(h["overlap"]), int(h["shared"]), int(h["ref"]), h["method"]) for h in hits}
    return apply_hits(table, kept, best, index)
