"""Exact and near-duplicate removal: one representative per cluster, every drop recorded.

Exact: rows whose normalised text (mathdata.text.normalize_texts: case, whitespace, LaTeX
spacing, $ delimiters) is identical; found with one Arrow dictionary encoding, no hashing loop.

Near: MinHash over word n-gram shingles of the distinct normalised texts, LSH banding to find
candidates, then a check of every candidate pair. The hashing is vectorised numpy (one
multiply-add-shift per shingle and permutation, the Dietzfelbinger 2-universal family, in
cache-sized blocks) rather than datasketch's per-document loop: bench/mathdata.py measures it
~4x faster per row than datasketch's MinHash.bulk + MinHashLSH. The band layout (b, r) is
datasketch's own optimum for (threshold, num_perm), so the LSH behaves like MinHashLSH.

Clusters are not transitive. Connected components over the verified pairs would collapse a chain
A~B, B~C, C~D of problem variants onto A and drop C and D although they share little with A (a
corpus of variants of one problem family loses distinct problems that way). So the components
only say which texts may belong together: inside each component with more than one distinct
text, greedy leader clustering in representative order (official source, solution, longest
statement, smallest id) makes the first unassigned row a representative and gives it every
unassigned row that is an exact copy of it or estimated >= threshold similar to it (the 16-bit
signatures kept from the LSH step), until the component is used up. Every near-duplicate drop
is therefore >= threshold from the row it names. The rounds run over all components at once
(one round per cluster of the largest component): on bench/mathdata.py's 1M rows, 31,513
multi-text components, 38 split, 2 rounds; 10 ms at 200k rows.

Defaults, measured (bench/mathdata.py's planted edits; the bundled benchmarks + OlympiadBench
+ GSM8K, 2,594 distinct real problems):
- shingle_size=3 word tokens (symbols count as tokens) and threshold=0.6: recall on planted
  near-duplicates 0.987 (0.966 at 0.7; 5-grams: 0.956 at 0.6); 2-grams at 0.5 reach 1.0 on the
  synthetic edits but merge more real problems, so 3/0.6 is the balance.
- same_numbers=True (the sorted list of numbers must agree): in mathematics a changed number
  is a different problem. Without it 24 of the 2,594 real problems are wrongly dropped
  (multi-part olympiad problems sharing a preamble, e.g. "Compute E(6,1)" vs "E(6,2)"); with it, 0.
- num_perm=128: standard error of the Jaccard estimate ~0.04 at 0.6; 18 bands x 7 rows.
"""

from __future__ import annotations

import functools
import os
import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from mathdata.text import _mix64, ngram_hashes, normalize_texts, token_hashes, tokenize
from verifiers.normalize import NUMBER_WORDS

DEFAULT_OFFICIAL_SOURCES = ("aops_wiki", "official", "maa")
_CHUNK = 50_000
_WORKERS = min(4, os.cpu_count() or 1)
_NUM_RE = re.compile(r"\d+(?:\.\d+)?")
# small numbers written as words count as those numbers (`two dogs` and `2 dogs` are one problem)
_WORD_NUMBERS = {w: str(i) for i, w in enumerate((*NUMBER_WORDS, "twenty"))}
_WORD_NUM_RE = re.compile(r"\b(" + "|".join(_WORD_NUMBERS) + r")\b")


def _numbers(text: str) -> tuple[str, ...]:
    """The sorted numbers of a normalised text, small number words as digits."""
    return tuple(sorted(_NUM_RE.findall(_WORD_NUM_RE.sub(lambda m: _WORD_NUMBERS[m.group(1)], text))))


@dataclass
class DedupResult:
    """The table with duplicates marked, the cluster membership table, and the summary report."""

    table: pa.Table
    clusters: pa.Table
    report: dict = field(default_factory=dict)


@functools.lru_cache(maxsize=32)
def lsh_params(threshold: float, num_perm: int) -> tuple[int, int]:
    """(bands, rows) minimising datasketch's weighted false-positive + false-negative area (cached:
    datasketch integrates numerically each time)."""
    from datasketch import MinHashLSH

    lsh = MinHashLSH(threshold=threshold, num_perm=num_perm)
    return lsh.b, lsh.r


def _permutations(num_perm: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = rng.integers(1, 2**63, num_perm, dtype=np.uint64) | np.uint64(1)
    b = rng.integers(0, 2**63, num_perm, dtype=np.uint64)
    return a, b


def minhash_signatures(
    docs: np.ndarray, grams: np.ndarray, ndocs: int, num_perm: int, seed: int = 1, block: int = 16_384
) -> np.ndarray:
    """(ndocs, num_perm) uint32 MinHash signatures; docs without shingles get all-max rows.

    `docs` must be sorted (ngram_hashes returns it so). Shingles are processed in blocks of
    whole documents small enough to stay in cache, with in-place ufuncs: 4x less CPU than
    hashing the whole array once per permutation.
    """
    sig = np.full((ndocs, num_perm), np.iinfo(np.uint32).max, dtype=np.uint32)
    if len(grams) == 0:
        return sig
    present, starts = np.unique(docs, return_index=True)
    x = grams >> np.uint64(32)  # 32-bit shingle value; the multiply-shift below needs w=32 inputs
    a, b = _permutations(num_perm, seed)
    cuts = np.unique(np.searchsorted(starts, np.arange(block, len(x), block)))
    bounds = np.unique(np.concatenate([[0], cuts[(cuts > 0) & (cuts < len(starts))], [len(starts)]]))
    buf = np.empty(len(x), dtype=np.uint64)
    shift = np.uint64(32)
    with np.errstate(over="ignore"):
        for i0, i1 in zip(bounds[:-1], bounds[1:], strict=True):
            s0 = starts[i0]
            s1 = starts[i1] if i1 < len(starts) else len(x)
            xs, h, local = x[s0:s1], buf[: s1 - s0], starts[i0:i1] - s0
            out = np.empty((i1 - i0, num_perm), dtype=np.uint32)
            for k in range(num_perm):
                np.multiply(xs, a[k], out=h)
                np.add(h, b[k], out=h)
                np.right_shift(h, shift, out=h)
                out[:, k] = np.minimum.reduceat(h, local)
            sig[present[i0:i1]] = out
    return sig


def _band_keys(sig: np.ndarray, bands: int, rows: int) -> np.ndarray:
    """(ndocs, bands) uint64: one hash per band of `rows` signature values."""
    keys = np.empty((sig.shape[0], bands), dtype=np.uint64)
    h = np.empty(sig.shape[0], dtype=np.uint64)
    with np.errstate(over="ignore"):
        for i in range(bands):
            h.fill(i + 1)
            for j in range(i * rows, (i + 1) * rows):
                np.multiply(h, np.uint64(0x100000001B3), out=h)
                np.add(h, sig[:, j], out=h, casting="unsafe")
            keys[:, i] = _mix64(h)
    return keys


def bucket_edges(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pairs inside equal-key buckets: each member to the bucket's first and to its predecessor.

    The sort is stable, so a bucket's members come in index order: the pairs depend only on the
    keys, and an engine that groups the buckets elsewhere (pipelines' Ray engine groups them with
    Ray's groupby and calls this on each group) finds the same pairs.
    """
    order = np.argsort(keys, kind="stable")
    sk = keys[order]
    new = np.ones(len(sk), dtype=bool)
    new[1:] = sk[1:] != sk[:-1]
    first = np.maximum.accumulate(np.where(new, np.arange(len(sk)), 0))
    dup = np.flatnonzero(~new)
    u = np.concatenate([order[first[dup]], order[dup - 1]])
    v = np.concatenate([order[dup], order[dup]])
    keep = u != v
    return u[keep], v[keep]


def _similarity(sig: np.ndarray, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    out = np.empty(len(u), dtype=np.float32)
    for s in range(0, len(u), 100_000):
        out[s : s + 100_000] = (sig[u[s : s + 100_000]] == sig[v[s : s + 100_000]]).mean(axis=1)
    return out


def sketch(
    texts: pa.Array, *, num_perm: int, shingle_size: int, bands: int, rows: int, seed: int = 1
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(band keys (n, bands) uint64, 16-bit signatures (n, num_perm), no-shingle mask) of
    normalised texts. Each row depends on its own text only, so chunks can be sketched anywhere."""
    offsets, hashes = token_hashes(tokenize(texts))
    docs, grams = ngram_hashes(offsets, hashes, shingle_size)
    sig = minhash_signatures(docs, grams, len(texts), num_perm, seed)
    return _band_keys(sig, bands, rows), sig.astype(np.uint16), np.diff(offsets) == 0


def unique_pairs(u: np.ndarray, v: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Undirected pairs (lo, hi) without repeats, sorted."""
    lo, hi = np.minimum(u, v), np.maximum(u, v)
    pair = np.unique(lo.astype(np.uint64) * np.uint64(n) + hi.astype(np.uint64))
    return (pair // np.uint64(n)).astype(np.int64), (pair % np.uint64(n)).astype(np.int64)


def verify_pairs(
    texts: pa.Array,
    u: np.ndarray,
    v: np.ndarray,
    sig16: np.ndarray,
    *,
    threshold: float,
    same_numbers: bool,
    stats: dict,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict]:
    """Keep the candidate pairs estimated >= threshold similar (and, with same_numbers, whose
    sorted numbers agree); returns (u, v, similarity, stats)."""
    sim = _similarity(sig16, u, v)
    ok = sim >= threshold
    stats = {**stats, "candidate_pairs": len(u), "above_threshold": int(ok.sum())}
    u, v, sim = u[ok], v[ok], sim[ok]
    if same_numbers and len(u):
        involved = np.unique(np.concatenate([u, v]))
        nums = {int(i): _numbers(t) for i, t in zip(involved, texts.take(involved).to_pylist(), strict=True)}
        agree = np.fromiter(
            (nums[a] == nums[b] for a, b in zip(u.tolist(), v.tolist(), strict=True)), bool, len(u)
        )
        stats["rejected_numbers_differ"] = int((~agree).sum())
        u, v, sim = u[agree], v[agree], sim[agree]
    stats["verified_pairs"] = len(u)
    return u, v, sim, stats


def near_duplicate_pairs(
    texts: pa.Array,
    *,
    threshold: float,
    num_perm: int,
    shingle_size: int,
    same_numbers: bool = True,
    seed: int = 1,
    progress: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict, np.ndarray]:
    """Verified near-duplicate pairs (u, v, similarity) among already-normalised texts, the
    stats, and the (16-bit) signatures for later similarity estimates."""
    from rich.progress import Progress

    n = len(texts)
    bands, rows = lsh_params(threshold, num_perm)
    keys = np.empty((n, bands), dtype=np.uint64)
    sig16 = np.empty((n, num_perm), dtype=np.uint16)  # enough bits to estimate Jaccard, half the memory
    empty = np.zeros(n, dtype=bool)

    def one(start: int):
        chunk = texts.slice(start, _CHUNK)
        return start, *sketch(
            chunk, num_perm=num_perm, shingle_size=shingle_size, bands=bands, rows=rows, seed=seed
        )

    # chunks run in threads: Arrow kernels and numpy ufuncs release the GIL
    with Progress(disable=not progress, transient=True) as prog, ThreadPoolExecutor(_WORKERS) as pool:
        task = prog.add_task("minhash", total=n)
        for start, k, s16, e in pool.map(one, range(0, n, _CHUNK)):
            keys[start : start + len(k)] = k
            sig16[start : start + len(k)] = s16
            empty[start : start + len(k)] = e
            prog.advance(task, len(k))
    us, vs = [], []
    for i in range(bands):
        u, v = bucket_edges(np.where(empty, np.arange(n, dtype=np.uint64), keys[:, i]))
        us.append(u)
        vs.append(v)
    u, v = unique_pairs(np.concatenate(us), np.concatenate(vs), n)
    u, v, sim, stats = verify_pairs(
        texts,
        u,
        v,
        sig16,
        threshold=threshold,
        same_numbers=same_numbers,
        stats={"bands": bands, "rows": rows},
    )
    return u, v, sim, stats, sig16


def _components(n: int, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    graph = coo_matrix((np.ones(len(u), dtype=np.int8), (u, v)), shape=(n, n))
    return connected_components(graph, directed=False)[1]


def _leader_clusters(
    comp: np.ndarray, priority: np.ndarray, sig16: np.ndarray, threshold: float
) -> tuple[np.ndarray, dict]:
    """Split connected components into leader clusters; returns each text's leader and stats.

    `comp` is the component of each distinct text, `priority` its best row's place in
    representative order (lower first). In each component the first unassigned text leads a
    cluster and takes every unassigned text whose estimated Jaccard with it is >= threshold. One
    round handles every component at once, so the rounds number the clusters of the largest one.
    """
    leader = np.arange(len(comp))
    sizes = np.bincount(comp) if len(comp) else np.zeros(0, dtype=np.int64)
    texts = np.flatnonzero(sizes[comp] > 1)
    stats = {"multi_text_components": int((sizes > 1).sum()), "split_chains": 0, "leader_rounds": 0}
    if not len(texts):
        return leader, stats
    texts = texts[np.lexsort((priority[texts], comp[texts]))]  # by component, then priority
    todo = texts
    clusters_per_comp = np.zeros(len(sizes), dtype=np.int64)
    while len(todo):
        c = comp[todo]
        head = np.ones(len(todo), dtype=bool)
        head[1:] = c[1:] != c[:-1]
        heads = np.flatnonzero(head)
        lead = todo[heads][np.cumsum(head) - 1]  # each unassigned text's current leader
        clusters_per_comp[c[heads]] += 1
        join = _similarity(sig16, todo, lead) >= threshold
        join[heads] = True
        leader[todo[join]] = lead[join]
        todo = todo[~join]
        stats["leader_rounds"] += 1
    stats["split_chains"] = int((clusters_per_comp > 1).sum())
    return leader, stats


@dataclass
class ExactGroups:
    """dedup's first global pass: the kept rows grouped by normalised text. `texts` (the distinct
    normalised texts) is what near-pair finding runs on, in this process or as an engine's plan."""

    table: pa.Table
    kept_mask: np.ndarray
    sub: pa.Table  # the kept rows, only the columns dedup reads
    exact_group: np.ndarray  # each kept row's index into `texts`
    texts: pa.Array
    started: float  # time.perf_counter() at the start, for the report's seconds
    seconds_exact: float


@dataclass
class NearPairs:
    """Verified near-duplicate pairs among `ExactGroups.texts`: what `near_duplicate_pairs` returns."""

    u: np.ndarray
    v: np.ndarray
    similarity: np.ndarray
    stats: dict
    sig16: np.ndarray


def exact_groups(table: pa.Table) -> ExactGroups:
    """Group the kept rows by normalised text (one Arrow dictionary encoding)."""
    import time

    t0 = time.perf_counter()
    kept_mask = pc.equal(table.column("status"), "kept").to_numpy(zero_copy_only=False)
    kept = np.flatnonzero(kept_mask)
    needed = ["id", "source", "original_problem", "problem", "answer", "solution", "status", "split"]
    # filter, not take: take on a many-chunk table (one chunk per row group) is very slow
    sub = table.select(needed) if len(kept) == len(table) else table.select(needed).filter(kept_mask)
    texts = pc.coalesce(sub.column("problem"), sub.column("original_problem"))
    enc = pc.dictionary_encode(normalize_texts(texts))
    exact_group = enc.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    return ExactGroups(table, kept_mask, sub, exact_group, enc.dictionary, t0, time.perf_counter() - t0)


def dedup(
    table: pa.Table,
    *,
    threshold: float = 0.6,
    num_perm: int = 128,
    shingle_size: int = 3,
    same_numbers: bool = True,
    near: bool = True,
    official_sources: tuple[str, ...] = DEFAULT_OFFICIAL_SOURCES,
    seed: int = 1,
    progress: bool = False,
) -> DedupResult:
    """Mark exact and near duplicates among kept rows; one representative per cluster stays kept.

    The representative is a row of a held-out split (not train) first, then one from an official
    source, then one with a solution,
    then the longest statement (then the smallest id, so the choice is deterministic). Every
    other member gets status `duplicate_of:<id>` (exact) or `near_duplicate_of:<id>` (near)
    and stays in the table; `clusters` lists every member of every multi-row cluster.
    Three passes, so an engine can run the middle one as its own plan (pipelines.corpus_plans):
    `exact_groups`, `near_duplicate_pairs` over its texts, `mark_duplicates`.
    """
    groups = exact_groups(table)
    pairs = None
    if near and len(groups.texts) > 1:
        pairs = NearPairs(
            *near_duplicate_pairs(
                groups.texts,
                threshold=threshold,
                num_perm=num_perm,
                shingle_size=shingle_size,
                same_numbers=same_numbers,
                seed=seed,
                progress=progress,
            )
        )
    return mark_duplicates(
        groups,
        pairs,
        threshold=threshold,
        num_perm=num_perm,
        shingle_size=shingle_size,
        same_numbers=same_numbers,
        official_sources=official_sources,
        seed=seed,
    )


def mark_duplicates(
    groups: ExactGroups,
    pairs: NearPairs | None,
    *,
    threshold: float,
    num_perm: int,
    shingle_size: int,
    same_numbers: bool,
    official_sources: tuple[str, ...] = DEFAULT_OFFICIAL_SOURCES,
    seed: int = 1,
) -> DedupResult:
    """dedup's last global pass: clusters from the exact groups and the near pairs (None: exact
    only), a representative per cluster, statuses, the cluster table and the report."""
    import time

    table, kept_mask, sub, exact_group = groups.table, groups.kept_mask, groups.sub, groups.exact_group
    kept, uniques, t0, t_exact = np.flatnonzero(kept_mask), groups.texts, groups.started, groups.seconds_exact
    near_stats: dict = {}
    sig16 = None
    if pairs is not None:
        near_stats, sig16 = pairs.stats, pairs.sig16
        comp_of_unique = _components(len(uniques), pairs.u, pairs.v)
    else:
        comp_of_unique = np.arange(len(uniques))

    # representative order: lexsort sorts by the last key first
    prefix_src = pc.replace_substring_regex(sub.column("source"), ":.*$", "")
    official = pc.is_in(prefix_src, value_set=pa.array(list(official_sources), pa.string())).to_numpy(
        zero_copy_only=False
    )
    has_solution = pc.fill_null(pc.greater(pc.utf8_length(sub.column("solution")), 0), False).to_numpy(
        zero_copy_only=False
    )
    length = pc.utf8_length(sub.column("original_problem")).to_numpy(zero_copy_only=False)
    id_rank = pc.rank(sub.column("id"), sort_keys="ascending", tiebreaker="first").to_numpy(
        zero_copy_only=False
    )
    # a problem in a held-out split and in train keeps its held-out copy: the test set does not shrink,
    # and the train copy (the leak) is the one marked
    held_out = pc.not_equal(pc.fill_null(sub.column("split"), "train"), "train").to_numpy(
        zero_copy_only=False
    )
    by_priority = np.lexsort((id_rank, -length, ~has_solution, ~official, ~held_out))
    if sig16 is not None:
        # a text's priority is that of its best row: the first of its rows in representative order
        groups, first = np.unique(exact_group[by_priority], return_index=True)
        priority = np.empty(len(uniques), dtype=np.int64)
        priority[groups] = first
        leader_of_unique, split_stats = _leader_clusters(comp_of_unique, priority, sig16, threshold)
        near_stats.update(split_stats)
        cluster = leader_of_unique[exact_group]
    else:
        cluster = comp_of_unique[exact_group]
    order = by_priority[np.argsort(cluster[by_priority], kind="stable")]
    sorted_cluster = cluster[order]
    head = np.ones(len(order), dtype=bool)
    head[1:] = sorted_cluster[1:] != sorted_cluster[:-1]
    rep_sorted = order[np.maximum.accumulate(np.where(head, np.arange(len(order)), 0))]
    rep = np.empty(len(order), dtype=np.int64)
    rep[order] = rep_sorted
    sizes = np.bincount(cluster) if len(cluster) else np.zeros(0, dtype=np.int64)

    dropped = rep != np.arange(len(rep))
    is_exact = exact_group == exact_group[rep]
    ids = sub.column("id").combine_chunks() if len(sub) else pa.array([], pa.string())
    rep_ids = ids.take(pa.array(rep))
    prefix = np.where(is_exact, "duplicate_of:", "near_duplicate_of:")
    new_status = pc.if_else(
        pa.array(dropped),
        pc.binary_join_element_wise(pa.array(prefix, pa.string()), rep_ids, ""),
        sub.column("status").combine_chunks() if len(sub) else pa.array([], pa.string()),
    )
    status = pc.replace_with_mask(table.column("status").combine_chunks(), pa.array(kept_mask), new_status)
    out = table.set_column(table.schema.get_field_index("status"), table.schema.field("status"), status)

    in_cluster = sizes[cluster] > 1
    members = np.flatnonzero(in_cluster)
    kind = np.where(~dropped, "representative", np.where(is_exact, "exact", "near"))
    similarity = np.ones(len(rep), dtype=np.float32)
    near_members = members[~is_exact[members]]
    if len(near_members):
        similarity[near_members] = _similarity(
            sig16, exact_group[near_members], exact_group[rep[near_members]]
        )
    clusters = pa.table(
        {
            "id": ids.take(pa.array(members)),
            "cluster_id": rep_ids.take(pa.array(members)),
            "kind": pa.array(kind[members], pa.string()),
            "similarity": pa.array(similarity[members]),
        }
    )
    answers = sub.column("answer").take(pa.array(members)) if len(members) else pa.array([], pa.string())
    conflicts = 0
    if len(members):
        per = (
            pa.table({"c": clusters.column("cluster_id"), "a": answers})
            .group_by("c")
            .aggregate([("a", "count_distinct")])
        )
        conflicts = int(pc.sum(pc.greater(per.column("a_count_distinct"), 1)).as_py() or 0)
    report = {
        "rows": len(table),
        "kept_in": len(kept),
        "kept_out": int(len(kept) - dropped.sum()),
        "exact_dropped": int((dropped & is_exact).sum()),
        "near_dropped": int((dropped & ~is_exact).sum()),
        "clusters": int((sizes > 1).sum()),
        "largest_cluster": int(sizes.max()) if len(sizes) else 0,
        "clusters_with_answer_conflict": conflicts,
        "params": {
            "threshold": threshold,
            "num_perm": num_perm,
            "shingle_size": shingle_size,
            "same_numbers": same_numbers,
            "seed": seed,
            "official_sources": list(official_sources),
        },
        "near": near_stats,
        "seconds": {"exact": round(t_exact, 3), "total": round(time.perf_counter() - t0, 3)},
    }
    return DedupResult(out, clusters, report)


def dedup_store(
    src: str | os.PathLike, out: str | os.PathLike, *, near: bool = True, progress: bool = False, **params
) -> tuple[DedupResult, int]:
    """`dedup` over the store `src`, every row written to the store `out` (duplicates marked);
    the result and the rows written. `save_dedup_report` puts its report and clusters beside them."""
    from mathdata.store import read_table, write_records

    res = dedup(read_table(src), near=near, progress=progress, **params)
    return res, write_records(out, res.table)


def save_dedup_report(out: str | os.PathLike, res: DedupResult) -> None:
    """OUT/_dedup_report.json and OUT/_dedup_clusters.parquet (each written atomically)."""
    import pyarrow.parquet as pq

    from mathdata.files import write_json

    out = Path(out)
    write_json(out / "_dedup_report.json", res.report)
    pq.write_table(res.clusters, out / ".clusters.tmp.parquet")
    (out / ".clusters.tmp.parquet").replace(out / "_dedup_clusters.parquet")
