"""Benchmark mathdata on a synthetic million-problem corpus with planted duplicates.

    .venv/bin/python bench/mathdata.py            # 1,000,000 rows (targets apply here)
    .venv/bin/python bench/mathdata.py --rows 100000 --peer-rows 5000

The corpus: distinct problems (Zipfian words, LaTeX expressions, numbers), plus 5% planted
near-duplicates (edits a human would call the same problem: a synonym, a reworded clause, an
added instruction, LaTeX/spacing/case reformatting, a typo; numbers untouched) and 5% exact
copies. Measured: dedup wall time and peak memory (in a child process), precision and recall on
the planted pairs, `dapo data stats` wall time. Peers, same run: datasketch's own
MinHash.bulk + MinHashLSH on a sample (per-row time ratio), and pandas' read_parquet +
value_counts for the stats. Results go to bench/results/mathdata.json.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mathdata.schema import PIPELINE_VERSION, RECORD_SCHEMA, record_id  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TARGETS = {"dedup_seconds": 120.0, "recall": 0.95, "precision": 0.99, "stats_seconds": 2.0}
SYNONYMS = [
    ("find", "determine"),
    ("compute", "calculate"),
    ("what is", "find"),
    ("such that", "so that"),
    ("positive integers", "positive whole numbers"),
    ("the number of", "how many"),
    ("value", "amount"),
    ("real numbers", "reals"),
    ("there are", "there exist"),
    ("let", "suppose"),
]
INSTRUCTIONS = [
    "Express your answer as an integer.",
    "Give your answer in simplest form.",
    "Enter your answer as a number.",
    "Justify nothing; just give the number.",
]
CONNECT = ["Find the value of", "Compute", "What is", "Determine", "How many", "Let", "Suppose that"]


def _vocab(rng: np.random.Generator, size: int = 40_000) -> np.ndarray:
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    lengths = rng.integers(2, 11, size)
    words = {"".join(rng.choice(letters, n)) for n in lengths}
    return np.array(sorted(words))


def _expression(rng: np.random.Generator) -> str:
    a, b, c = rng.integers(1, 1000, 3)
    v = "xyznkmab"[rng.integers(0, 8)]
    forms = [
        f"${v}^{{{a % 9 + 2}}} + {b}{v} = {c}$",
        f"$\\frac{{{a}}}{{{b}}}$",
        f"$\\sqrt{{{a}}}$",
        f"${a} \\cdot {b}$",
        f"$f({v}) = {a}{v} - {b}$",
        f"{a}",
    ]
    return forms[rng.integers(0, len(forms))]


def base_problems(n: int, seed: int = 0) -> list[str]:
    """n distinct synthetic problems of 15-150 tokens with a Zipfian vocabulary."""
    rng = np.random.default_rng(seed)
    vocab = _vocab(rng)
    ranks = np.arange(1, len(vocab) + 1)
    p = 1.0 / ranks**1.05
    p /= p.sum()
    lengths = np.clip(rng.lognormal(3.6, 0.5, n).astype(int), 12, 150)
    words = rng.choice(vocab, size=int(lengths.sum()), p=p)
    out, pos = [], 0
    for length in lengths:
        w = list(words[pos : pos + length])
        pos += length
        for _ in range(1 + length // 25):
            w.insert(int(rng.integers(0, len(w) + 1)), _expression(rng))
        out.append(f"{CONNECT[rng.integers(0, len(CONNECT))]} " + " ".join(w) + ".")
    return out


def near_edit(text: str, rng: np.random.Generator) -> str:
    """One or two edits a human would call the same problem; numbers are never changed."""
    for _ in range(int(rng.integers(1, 3))):
        kind = rng.integers(0, 6)
        words = text.split(" ")
        if kind == 0:  # synonym / reworded phrase
            a, b = SYNONYMS[rng.integers(0, len(SYNONYMS))]
            if a in text.lower():
                text = text.lower().replace(a, b, 1)
            else:
                i = int(rng.integers(0, len(words)))
                if not any(ch.isdigit() for ch in words[i]):
                    words[i] = b.split()[0]
                text = " ".join(words)
        elif kind == 1:  # an added instruction
            text = text + " " + INSTRUCTIONS[rng.integers(0, len(INSTRUCTIONS))]
        elif kind == 2:  # LaTeX and spacing reformatting
            text = (
                text.replace("\\frac", "\\dfrac").replace(" + ", "+").replace("$", " $ ").replace(",", " ,")
            )
        elif kind == 3:  # case
            text = text.upper() if rng.random() < 0.3 else text.lower()
        elif kind == 4:  # a typo inside one word
            i = int(rng.integers(0, len(words)))
            w = words[i]
            if len(w) > 3 and w.isalpha():
                j = int(rng.integers(0, len(w) - 1))
                words[i] = w[:j] + w[j + 1] + w[j] + w[j + 2 :]
            text = " ".join(words)
        else:  # a dropped filler word
            fillers = [i for i, w in enumerate(words) if w.isalpha() and len(w) <= 3]
            if fillers:
                del words[fillers[int(rng.integers(0, len(fillers)))]]
            text = " ".join(words)
    return text


def make_corpus(rows: int, seed: int = 0) -> tuple[pa.Table, np.ndarray]:
    """(records table, family id per row): 90% distinct, 5% near copies, 5% exact copies."""
    rng = np.random.default_rng(seed + 1)
    n_near = rows // 20
    n_exact = rows // 20
    n_base = rows - n_near - n_exact
    texts = base_problems(n_base, seed)
    family = list(range(n_base))
    for src in rng.integers(0, n_base, n_near):
        texts.append(near_edit(texts[src], rng))
        family.append(int(src))
    for src in rng.integers(0, n_base, n_exact):
        texts.append(texts[src])
        family.append(int(src))
    source = [f"synthetic:bench{i % 3}" for i in range(rows)]  # exact copies come from other sources
    ids = [record_id(t, s + f"#{i}") for i, (t, s) in enumerate(zip(texts, source, strict=True))]
    answers = rng.integers(0, 1000, rows).astype(str)
    n = len(texts)
    table = pa.table(
        {
            "id": ids,
            "source": source,
            "source_ref": [f"row{i}" for i in range(n)],
            "competition": pa.array(rng.choice(["AIME I", "AMC 12A", None], n).tolist(), pa.string()),
            "year": pa.array(rng.integers(1983, 2025, n), pa.int32()),
            "problem_number": pa.nulls(n, pa.string()),
            "original_problem": texts,
            "original_answer": answers,
            "problem": texts,
            "answer": answers,
            "transform": rng.choice(["identity", "m_plus_n", "llm"], n),
            "transform_detail": pa.nulls(n, pa.string()),
            "solution": pa.nulls(n, pa.string()),
            "checks": pa.nulls(n, pa.string()),
            "status": np.where(rng.random(n) < 0.03, "reject:not_integer", "kept"),
            "split": pa.array(["train"] * n),
            "license": pa.array(["synthetic"] * n),
            "retrieved_at": pa.nulls(n, pa.timestamp("us", tz="UTC")),
            "pipeline_version": pa.array([PIPELINE_VERSION] * n),
        }
    ).cast(RECORD_SCHEMA)
    return table, np.array(family)


def score(result_table: pa.Table, clusters: pa.Table, family: np.ndarray, kept_mask: np.ndarray) -> dict:
    """Precision: share of (dropped, representative) pairs from one family. Recall: share of planted
    copies (among kept rows) that end up in their original's cluster."""
    ids = np.array(result_table.column("id").to_pylist())
    row_of = {i: r for r, i in enumerate(ids)}
    cluster_of = np.arange(len(ids))
    for i, c in zip(
        clusters.column("id").to_pylist(), clusters.column("cluster_id").to_pylist(), strict=True
    ):
        cluster_of[row_of[i]] = row_of[c]
    n = len(ids)
    base_rows = int((family == np.arange(n)).sum())
    planted = np.flatnonzero((np.arange(n) >= base_rows) & kept_mask & kept_mask[np.minimum(family, n - 1)])
    found = cluster_of[planted] == cluster_of[family[planted]]
    dropped = np.flatnonzero(cluster_of != np.arange(n))
    correct = family[dropped] == family[cluster_of[dropped]]
    return {
        "planted_pairs": len(planted),
        "recall": float(found.mean()) if len(planted) else 1.0,
        "predicted_pairs": len(dropped),
        "precision": float(correct.mean()) if len(dropped) else 1.0,
    }


def _dedup_child(path: str, out: str, kwargs: dict) -> None:
    from mathdata.dedup import dedup
    from mathdata.store import read_table

    table = read_table(path)
    base_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t, c = time.perf_counter(), time.process_time()
    res = dedup(table, **kwargs)
    seconds, cpu = time.perf_counter() - t, time.process_time() - c
    import pyarrow.parquet as pq

    pq.write_table(res.clusters, out)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    Path(out + ".json").write_text(
        json.dumps(
            {
                "seconds": seconds,
                "cpu_seconds": cpu,
                "peak_rss_mb": peak / 1024,
                "input_rss_mb": base_rss / 1024,
                "report": res.report,
            }
        )
    )


def datasketch_peer(texts: list[str], threshold: float, num_perm: int, shingle_size: int) -> float:
    """Seconds per row for datasketch used as documented: MinHash.bulk + MinHashLSH insert/query."""
    from datasketch import MinHash, MinHashLSH

    from mathdata.text import normalize_texts

    norm = normalize_texts(texts).to_pylist()
    t = time.perf_counter()
    shingles = []
    for s in norm:
        toks = s.split()
        shingles.append(
            [
                " ".join(toks[i : i + shingle_size]).encode()
                for i in range(max(1, len(toks) - shingle_size + 1))
            ]
        )
    hashes = MinHash.bulk(shingles, num_perm=num_perm)
    lsh = MinHashLSH(threshold=threshold, num_perm=num_perm)
    with lsh.insertion_session() as session:
        for i, m in enumerate(hashes):
            session.insert(i, m)
    for m in hashes:
        lsh.query(m)
    return (time.perf_counter() - t) / len(texts)


def stats_peer(path: str) -> float:
    import pandas as pd

    t = time.perf_counter()
    df = pd.read_parquet(
        path, columns=["source", "status", "transform", "competition", "year", "answer", "problem"]
    )
    for c in ["source", "status", "transform", "competition", "year"]:
        df[c].value_counts()
    pd.to_numeric(df["answer"], errors="coerce").agg(["min", "max"])
    df["problem"].str.len().quantile([0.5, 0.9, 0.99])
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--peer-rows", type=int, default=20_000)
    ap.add_argument("--threshold", type=float, default=None)
    ap.add_argument("--shingle-size", type=int, default=None)
    ap.add_argument("--num-perm", type=int, default=None)
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "mathdata.json"))
    args = ap.parse_args()
    from mathdata.dedup import dedup
    from mathdata.store import write_records

    kwargs = {
        k: v
        for k, v in {
            "threshold": args.threshold,
            "shingle_size": args.shingle_size,
            "num_perm": args.num_perm,
        }.items()
        if v is not None
    }
    defaults = {
        k: v.default
        for k, v in __import__("inspect").signature(dedup).parameters.items()
        if v.default is not v.empty
    }
    params = {**{k: defaults[k] for k in ("threshold", "num_perm", "shingle_size")}, **kwargs}

    t = time.perf_counter()
    table, family = make_corpus(args.rows)
    print(f"corpus: {len(table):,} rows generated in {time.perf_counter() - t:.1f}s")
    with tempfile.TemporaryDirectory() as tmp:
        store = os.path.join(tmp, "store")
        write_records(store, table)
        out = os.path.join(tmp, "clusters.parquet")
        ctx = mp.get_context("spawn")
        proc = ctx.Process(target=_dedup_child, args=(store, out, kwargs))
        proc.start()
        proc.join()
        if proc.exitcode != 0:
            raise SystemExit(f"dedup child failed with exit code {proc.exitcode}")
        child = json.loads(Path(out + ".json").read_text())
        import pyarrow.parquet as pq

        clusters = pq.read_table(out)
        kept_mask = np.array(table.column("status").to_pylist()) == "kept"
        quality = score(table, clusters, family, kept_mask)

        env = {**os.environ, "COLUMNS": "120"}
        dapo = str(ROOT / ".venv" / "bin" / "dapo")
        cmd = (
            [dapo, "data", "stats", store]
            if os.path.exists(dapo)
            else [sys.executable, "-m", "dapo_cli", "data", "stats", store]
        )
        t = time.perf_counter()
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(cmd, check=True, capture_output=True, env=env)
        stats_cli = time.perf_counter() - t
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        stats_cli_cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        from mathdata.catalog import stats

        t = time.perf_counter()
        stats(store)
        stats_fn = time.perf_counter() - t
        stats_pandas = stats_peer(store)

    peer_rows = min(args.peer_rows, len(table))
    sample = table.column("problem").to_pylist()[:peer_rows]
    peer_per_row = datasketch_peer(sample, params["threshold"], params["num_perm"], params["shingle_size"])
    ours_per_row = child["seconds"] / len(table)
    results = {
        "rows": len(table),
        "params": params,
        "dedup_seconds": round(child["seconds"], 2),
        "dedup_cpu_seconds_all_threads": round(child["cpu_seconds"], 2),
        "dedup_peak_rss_mb": round(child["peak_rss_mb"], 1),
        "rss_after_loading_input_mb": round(child["input_rss_mb"], 1),
        **{k: (round(v, 5) if isinstance(v, float) else v) for k, v in quality.items()},
        "report": child["report"],
        "peer_datasketch_rows": peer_rows,
        "peer_datasketch_seconds_per_row": peer_per_row,
        "speedup_vs_datasketch": round(peer_per_row / ours_per_row, 1),
        "stats_cli_seconds": round(stats_cli, 3),
        "stats_cli_cpu_seconds": round(stats_cli_cpu, 3),
        "stats_function_seconds": round(stats_fn, 3),
        "peer_pandas_stats_seconds": round(stats_pandas, 3),
        "stats_speedup_vs_pandas": round(stats_pandas / stats_fn, 1),
        "load_average": os.getloadavg(),
        "cpus": os.cpu_count(),
    }
    checks = {
        "dedup_seconds": results["dedup_seconds"] <= TARGETS["dedup_seconds"],
        "recall": results["recall"] >= TARGETS["recall"],
        "precision": results["precision"] >= TARGETS["precision"],
        "stats_seconds": results["stats_cli_seconds"] <= TARGETS["stats_seconds"],
    }
    results["targets"] = TARGETS
    results["pass"] = checks
    print(
        f"dedup: {results['dedup_seconds']}s wall, {results['dedup_cpu_seconds_all_threads']}s CPU (all threads), "
        f"peak RSS {results['dedup_peak_rss_mb']} MB (input table alone {results['rss_after_loading_input_mb']} MB) "
        f"({results['speedup_vs_datasketch']}x datasketch MinHash.bulk+MinHashLSH per row)"
    )
    print(
        f"quality: recall {results['recall']:.4f} precision {results['precision']:.4f} "
        f"on {results['planted_pairs']:,} planted pairs"
    )
    print(
        f"stats: CLI {results['stats_cli_seconds']}s wall ({results['stats_cli_cpu_seconds']}s CPU), "
        f"function {results['stats_function_seconds']}s "
        f"({results['stats_speedup_vs_pandas']}x pandas)"
    )
    load = ", ".join(f"{x:.1f}" for x in results["load_average"])
    print(
        f"machine: {results['cpus']} cores, load average {load} (shared: wall times include waiting for CPU)"
    )
    note = "" if args.rows == 1_000_000 else f" (targets are for 1,000,000 rows; this run had {args.rows:,})"
    for k, ok in checks.items():
        print(f"  target {k}: {'PASS' if ok else 'FAIL'}{note}")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    tmp_out = args.out + ".tmp"
    Path(tmp_out).write_text(json.dumps(results, indent=2))
    os.replace(tmp_out, args.out)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
