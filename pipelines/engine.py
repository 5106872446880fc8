"""Where a build's work runs: `local` (this process; asyncio for the LLM stages) or `ray` (Ray Data).

`pipelines.build.build` drives both the same way, through the five operations below, so the
config, the steps (`pipelines.steps`), the stage stores and the outputs are one and the same:

- `llm(settings, cache_dir)`: the object the LLM steps call (`await llm.complete(...)`) with one
  global concurrency limit, cache and retry policy for the whole build;
- `run_stage(step, prev_dir, out_dir, ...)`: a map step over the previous stage's store into its
  own store, one atomic shard per chunk, ids already there skipped (kill -9 safe);
- `run_corpus_step(step, table)`: a corpus step over every record, as the plan it declares
  (pipelines.plan) run by the engine's executor; an engine never asks which step it runs;
- `write_records(records_dir, table)` and `export_verl(kept, verl_dir, repeat)`: the outputs
  (one verl file, or set of shards, per split).

Both engines see the records sorted by id before the corpus steps and the export, so dedup's
representatives and the export's `extra_info.index` do not depend on which shard finished first.
"""

from __future__ import annotations

from pathlib import Path


def verl_shard_name(k: int, n: int, split: str = "train") -> str:
    """`<split>.parquet`, or `<split>-0000k-of-0000n.parquet` for one of n shards: every file is
    named after the one split it holds (verl's train_files never see a test row)."""
    from mathdata.export import split_file_name

    stem = split_file_name(split).removesuffix(".parquet")
    return f"{stem}.parquet" if n == 1 else f"{stem}-{k:05d}-of-{n:05d}.parquet"


def drop_stale_exports(verl_dir: Path, written: list[Path]) -> None:
    """Remove export files of an earlier run (e.g. of the other engine) that this run did not write."""
    keep = {p.name for p in written}
    for f in verl_dir.glob("*.parquet"):
        if f.name not in keep:
            f.unlink(missing_ok=True)


class LocalEngine:
    """Everything in this process: the stages run records concurrently on one event loop."""

    name = "local"

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        return None

    def llm(self, settings, cache_dir: Path):
        from verifiers.llm import LLMClient

        return LLMClient(settings, cache_dir=cache_dir)

    async def run_stage(self, step, prev_dir: Path, out_dir: Path, *, chunk_size: int, window: int, progress):
        from pipelines.runner import read_records, run_stage_async

        return await run_stage_async(
            step.name,
            read_records(prev_dir),
            out_dir,
            step.process,
            chunk_size=chunk_size,
            window=window,
            progress=progress,
        )

    def run_corpus_step(self, step, table):
        from pipelines.plan import LocalExecutor

        return step.run_table(table, LocalExecutor())

    def write_records(self, records_dir: Path, table) -> None:
        from mathdata.store import stored_ids, write_records

        if len(stored_ids(records_dir)) != len(table):
            write_records(records_dir, table)  # one atomic shard; ids already there are skipped

    def export_verl(self, kept, verl_dir: Path, *, repeat: int) -> dict[str, list[Path]]:
        """One `<split>.parquet` per split; {split: [path]}."""
        from mathdata.export import export_splits

        verl_dir.mkdir(parents=True, exist_ok=True)
        files = {k: [v] for k, v in export_splits(kept, verl_dir, fmt="verl", repeat=repeat).items()}
        drop_stale_exports(verl_dir, [p for ps in files.values() for p in ps])
        return files


# columns that say when a run happened, not what it produced
RUN_COLUMNS = ("retrieved_at",)


def build_differences(a: str | Path, b: str | Path) -> list[str]:
    """How two build folders differ in what they produced, order aside: the records (every
    column but RUN_COLUMNS, by id) and the verl export rows (by extra_info.id). Empty when they are the same
    corpus. Used to check that the engines agree (tests, bench/build_engines.py)."""
    import pyarrow.parquet as pq

    from mathdata.store import read_table

    out: list[str] = []
    ra = {r["id"]: r for r in read_table(Path(a) / "records").to_pylist()}
    rb = {r["id"]: r for r in read_table(Path(b) / "records").to_pylist()}
    if ra.keys() != rb.keys():
        only_a, only_b = sorted(ra.keys() - rb.keys()), sorted(rb.keys() - ra.keys())
        out.append(
            f"records: ids only in {a}: {only_a[:5]} ({len(only_a)}); only in {b}: {only_b[:5]} ({len(only_b)})"
        )
    for i in sorted(ra.keys() & rb.keys()):
        cols = [c for c in ra[i] if c not in RUN_COLUMNS and ra[i][c] != rb[i].get(c)]
        if cols:
            out.append(
                f"records: {i} differs in {cols}: {[ra[i][c] for c in cols]} vs {[rb[i][c] for c in cols]}"[
                    :400
                ]
            )

    def rows(d: str | Path) -> list[dict]:
        verl = Path(d) / "verl"
        if not verl.exists():
            return []
        return sorted(pq.read_table(verl).to_pylist(), key=lambda r: (r["extra_info"]["id"], str(r)))

    ea, eb = rows(a), rows(b)
    if ea != eb:
        diff = next((x, y) for x, y in zip(ea + [None], eb + [None], strict=False) if x != y)
        out.append(f"verl export: {len(ea)} vs {len(eb)} rows; first difference {str(diff)[:300]}")
    return out
