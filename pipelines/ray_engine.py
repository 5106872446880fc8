"""`dapo build CONFIG --engine ray [--address ...]`: the same build on Ray Data.

Nothing here schedules work itself; Ray Data does, and the steps are the ones of the local
engine (`pipelines.steps`), so the same config gives the same corpus:

- Map steps (classify, rewrite, validate, difficulty) are `map_batches` over the previous stage's
  Parquet shards. Each batch drops the ids already stored, processes its records (the LLM
  steps with up to `window` in flight) and writes them as one atomic shard with
  `mathdata.store.write_records`, which skips ids already stored under the store's lock. A
  worker killed mid-batch is retried by Ray Data (its map tasks retry system failures such as
  a dead worker, by default without limit); the retry redoes the batch and writes no row twice. A driver killed with -9 leaves finished shards; the rerun skips them.
- LLM steps call one Ray actor that owns the `LLMClient`: one semaphore (the config's
  `concurrency`) for every worker on every node, the on-disk cache by content hash, the retry
  policy and the token budget, exactly as in a local build.
- Corpus steps (dedup, decontamination) declare their plans (pipelines.plan, pipelines.corpus_plans)
  and this engine executes them with `RayExecutor`: `map_batches` on Ray Data with the shared
  arguments broadcast once (`ray.put`), `group_reduce` as Ray's groupby + map_groups, and the
  global passes on the driver. The engine never asks which step it runs.
- records/ is written as Parquet shards by parallel tasks, and the verl export as shards
  `verl/<split>-0000k-of-0000n.parquet` per split (same schema and rows as the local
  `verl/<split>.parquet`; a shard holds one split only).
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import Counter
from pathlib import Path

import pyarrow as pa

from pipelines.engine import drop_stale_exports, verl_shard_name


class _LLMActor:
    """Owns the build's one LLMClient (made a Ray actor in RayEngine.llm)."""

    def __init__(self, settings, cache_dir: str):
        from verifiers.llm import LLMClient

        self.client = LLMClient(settings, cache_dir=cache_dir)

    async def complete(self, messages, temperature=None, sample=0, model=None):
        return await self.client.complete(messages, temperature=temperature, sample=sample, model=model)

    def usage(self) -> dict:
        return dict(self.client.usage)

    async def aclose(self) -> None:
        await self.client.aclose()


class LLMProxy:
    """What the steps see as `llm` on a Ray worker: `complete` forwards to the actor, and the
    actor's exceptions (LLMError, BudgetExceeded) reach the step as themselves, so reject
    reasons read as in a local build."""

    def __init__(self, actor, settings):
        self._actor = actor
        self.settings = settings  # resolved on the driver, as LLMClient.settings (steps read the model)

    def for_use(self, use: str):
        from verifiers.llm import LLMUse

        return LLMUse(self, use)

    async def complete(self, messages, *, temperature=None, sample=0, model=None):
        import ray

        try:
            return await self._actor.complete.remote(messages, temperature, sample, model)
        except ray.exceptions.RayTaskError as e:
            if isinstance(e.cause, Exception):
                raise e.cause from None
            raise

    @property
    def usage(self) -> dict:
        import ray

        return ray.get(self._actor.usage.remote())

    async def aclose(self) -> None:
        await self._actor.aclose.remote()


def _process_batch(step, records: list[dict], window: int) -> tuple[list[dict], int]:
    """The step over a batch, errors kept as the record's status (as the local runner does)."""
    errors = 0

    def failed(rec: dict, e: Exception) -> dict:
        nonlocal errors
        errors += 1
        return {**rec, "status": f"error:{step.name}: {type(e).__name__}: {e}"[:300]}

    if not step.is_async:
        out = []
        for rec in records:
            try:
                out.append(step.process(rec))
            except Exception as e:  # one bad record must not stop the corpus
                out.append(failed(rec, e))
        return out, errors

    async def run() -> list[dict]:
        sem = asyncio.Semaphore(max(1, window))

        async def one(rec: dict) -> dict:
            async with sem:
                try:
                    res = step.process(rec)
                    return await res if asyncio.iscoroutine(res) else res
                except Exception as e:
                    return failed(rec, e)

        return list(await asyncio.gather(*(one(r) for r in records)))

    return asyncio.run(run()), errors


def _read_shard(batch: pa.Table) -> pa.Table:
    from mathdata.store import read_table

    return pa.concat_tables([read_table(p) for p in batch.column("path").to_pylist()])


def _stage_batch(batch: pa.Table, *, step, out_dir: str, done_ref, window: int) -> pa.Table:
    """One Ray Data batch of a map stage: skip stored ids, process, write one atomic shard."""
    import pyarrow.compute as pc
    import ray

    from mathdata.store import write_records

    done = ray.get(done_ref)
    if len(done):
        batch = batch.filter(pc.invert(pc.is_in(batch.column("id"), value_set=done)))
    if not len(batch):
        return pa.table({"id": pa.array([], pa.string()), "errors": pa.array([], pa.int64())})
    records, errors = _process_batch(step, batch.to_pylist(), window)
    write_records(out_dir, records)  # atomic; ids a killed attempt already wrote are skipped
    ids = [r["id"] for r in records]
    return pa.table({"id": pa.array(ids, pa.string()), "errors": pa.array([errors] + [0] * (len(ids) - 1))})


def _apply_shared(batch: pa.Table, *, fn, shared_ref) -> pa.Table:
    import ray

    return fn(batch, **ray.get(shared_ref))  # broadcast: one copy per node in the object store


class RayExecutor:
    """pipelines.plan's primitives on Ray Data: `map_batches` over the parts (the shared arguments
    put in the object store once), `group_reduce` as Ray's groupby + map_groups."""

    name = "ray"
    distributed = True

    def __init__(self, engine: RayEngine) -> None:
        self.engine = engine

    def cpus(self) -> int:
        return self.engine.cpus()

    def map_batches(self, fn, parts: list[pa.Table], /, **shared) -> list[pa.Table]:
        import ray
        import ray.data

        ds = ray.data.from_arrow(parts).map_batches(
            _apply_shared,
            batch_size=None,
            batch_format="pyarrow",
            fn_kwargs={"fn": fn, "shared_ref": ray.put(shared)},
        )
        return ray.get(ds.to_arrow_refs())

    def group_reduce(self, parts: list[pa.Table], by: list[str], fn) -> list[pa.Table]:
        import ray
        import ray.data

        parts = [p for p in parts if len(p)]
        if not parts:
            return []
        ds = ray.data.from_arrow(parts).groupby(by, num_partitions=max(2, 2 * self.cpus()))
        return ray.get(ds.map_groups(fn, batch_format="numpy").to_arrow_refs())


def _write_batch(batch: pa.Table, *, records_dir: str) -> pa.Table:
    from mathdata.store import write_records

    return pa.table({"written": [write_records(records_dir, batch)]})


def _export_batch(batch: pa.Table, *, verl_dir: str, plan: dict, repeat: int, difficulty: bool) -> pa.Table:
    from mathdata.export import to_verl

    split = batch.column("_split")[0].as_py()
    k = int(batch.column("_shard")[0].as_py())
    size, shards = plan[split]
    path = to_verl(
        batch.drop_columns(["_shard", "_split"]),
        Path(verl_dir) / verl_shard_name(k, shards, split),
        repeat=repeat,
        split=split,
        index_start=k * size,
        difficulty=difficulty,
    )
    return pa.table({"split": [split], "path": [str(path)]})


def _slices(table: pa.Table, size: int) -> list[pa.Table]:
    return [table.slice(s, size) for s in range(0, len(table), size)] or [table]


class RayEngine:
    """Runs a build's stages on Ray Data: a local cluster of `num_cpus`, or the one at `address`."""

    name = "ray"

    def __init__(self, *, address: str | None = None, num_cpus: int | None = None):
        self.address = address
        self.num_cpus = num_cpus
        self._started = False
        self._actor = None

    # -- lifecycle -----------------------------------------------------------------------------

    def __enter__(self):
        import logging

        import ray

        if not ray.is_initialized():
            kw: dict = {"include_dashboard": False, "logging_level": logging.WARNING, "log_to_driver": True}
            if self.address:
                kw["address"] = self.address
            else:
                kw["num_cpus"] = self.num_cpus
            ray.init(**kw)
            self._started = True
        from ray.data import DataContext
        from ray.data.context import ShuffleStrategy

        ctx = DataContext.get_current()
        ctx.enable_progress_bars = False  # the build shows its own per-stage bars
        ctx.print_on_execution_start = False
        # dedup's band groupby: the sort-based pull shuffle runs as plain tasks; the hash shuffle's
        # aggregator actors took 18-25 s to group 300k rows on 2 CPUs where this takes 3 s
        # (docs/scale.md: on a large cluster set DataContext.shuffle_strategy to hash_shuffle)
        ctx.shuffle_strategy = ShuffleStrategy.SORT_SHUFFLE_PULL_BASED
        return self

    def __exit__(self, *exc) -> None:
        import ray

        self._actor = None
        if self._started:
            ray.shutdown()
            self._started = False

    def cpus(self) -> int:
        import ray

        return max(1, int(ray.cluster_resources().get("CPU", 1)))

    # -- the five operations (see pipelines.engine) --------------------------------------------

    def llm(self, settings, cache_dir: Path):
        import ray

        # resolved here: the driver's environment (OPENAI_BASE_URL, DAPO_LLM_MODEL, OPENAI_API_KEY)
        # counts, not a worker's, and a missing endpoint fails before any work starts
        settings = settings.resolved()
        # the client's semaphore is the real limit; the actor takes what the steps keep queued
        actor_cls = ray.remote(num_cpus=0, max_concurrency=settings.in_flight, max_restarts=-1)(_LLMActor)
        self._actor = actor_cls.remote(settings, str(cache_dir))
        return LLMProxy(self._actor, settings)

    async def run_stage(self, step, prev_dir: Path, out_dir: Path, *, chunk_size: int, window: int, progress):
        return await asyncio.to_thread(
            self._run_stage, step, prev_dir, out_dir, chunk_size=chunk_size, window=window, progress=progress
        )

    def _run_stage(self, step, prev_dir: Path, out_dir: Path, *, chunk_size: int, window: int, progress):
        import pyarrow.compute as pc
        import ray

        from mathdata.files import shard_files
        from mathdata.store import read_table, stored_ids
        from pipelines.runner import StageStats, status_key

        t0 = time.perf_counter()
        files = shard_files(prev_dir) if Path(prev_dir).exists() else []
        ids_in = (
            read_table(prev_dir, columns=["id"]).column("id") if files else pa.chunked_array([], pa.string())
        )
        done = pa.array(sorted(stored_ids(out_dir)), pa.string())
        resumed = int(pc.sum(pc.is_in(ids_in, value_set=done)).as_py() or 0) if len(done) else 0
        stats = StageStats(step.name, total=len(ids_in), resumed=resumed)
        task = progress.add_task(step.name, total=stats.total, completed=resumed) if progress else None
        if stats.total > resumed:
            import ray.data

            # the shards are read by tasks with mathdata's reader (same schema handling as a local
            # build; Ray's read_parquet would also pull in fsspec's HTTP filesystem)
            ds = ray.data.from_items([{"path": str(f)} for f in files], override_num_blocks=len(files))
            ds = ds.map_batches(_read_shard, batch_size=1, batch_format="pyarrow")
            out = ds.map_batches(
                _stage_batch,
                batch_size=chunk_size,
                batch_format="pyarrow",
                zero_copy_batch=True,
                fn_kwargs={
                    "step": step,
                    "out_dir": str(out_dir),
                    "done_ref": ray.put(done),
                    "window": window,
                },
            )
            for b in out.iter_batches(batch_size=None, batch_format="pyarrow"):
                stats.processed += len(b)
                stats.errors += int(pc.sum(b.column("errors")).as_py() or 0)
                if progress is not None:
                    progress.advance(task, len(b))
        if Path(out_dir).exists():
            stats.status = Counter(
                status_key(s) for s in read_table(out_dir, columns=["status"]).column("status").to_pylist()
            )
        stats.seconds = time.perf_counter() - t0
        return stats

    def run_corpus_step(self, step, table):
        return step.run_table(table, RayExecutor(self))

    def write_records(self, records_dir: Path, table) -> None:
        import ray.data

        from mathdata.store import stored_ids

        if len(stored_ids(records_dir)) == len(table):
            return
        size = max(1, math.ceil(len(table) / (2 * self.cpus())))
        ray.data.from_arrow(_slices(table, size)).map_batches(
            _write_batch,
            batch_size=None,
            batch_format="pyarrow",
            fn_kwargs={"records_dir": str(records_dir)},
        ).materialize()

    def export_verl(self, kept, verl_dir: Path, *, repeat: int) -> dict[str, list[Path]]:
        """Shards `<split>-0000k-of-0000n.parquet` of each split; {split: [paths]}."""
        import ray.data

        from mathdata.export import (
            ExportError,
            difficulty_column,
            kept_with_answers,
            select_split,
            split_counts,
        )

        kept_with_answers(kept)  # the same one-line errors as the local export, before any task starts
        difficulty = difficulty_column(kept) is not None  # one schema for every shard
        if not len(kept):
            raise ExportError(
                "no kept records to export (all rows rejected or the table is empty); nothing was written"
            )
        verl_dir.mkdir(parents=True, exist_ok=True)
        parts, plan = [], {}
        for split in split_counts(kept):
            rows = select_split(kept, split)
            shards = min(len(rows), 2 * self.cpus())
            size = math.ceil(len(rows) / shards)
            plan[split] = (size, math.ceil(len(rows) / size))
            parts += [
                part.append_column("_shard", pa.array([k] * len(part), pa.int32())).append_column(
                    "_split", pa.array([split] * len(part), pa.string())
                )
                for k, part in enumerate(_slices(rows, size))
            ]
        done = (
            ray.data.from_arrow(parts)
            .map_batches(
                _export_batch,
                batch_size=None,
                batch_format="pyarrow",
                fn_kwargs={
                    "verl_dir": str(verl_dir),
                    "plan": plan,
                    "repeat": repeat,
                    "difficulty": difficulty,
                },
            )
            .take_all()
        )
        files: dict[str, list[Path]] = {}
        for r in sorted(done, key=lambda r: r["path"]):
            files.setdefault(r["split"], []).append(Path(r["path"]))
        drop_stale_exports(verl_dir, [p for ps in files.values() for p in ps])
        return files
