"""Run a pipeline stage record by record, Parquet in and Parquet out, safe to kill at any moment.

A stage's output is a mathdata store (a directory of immutable shards). Finished records are
buffered and written a chunk at a time, each chunk one atomic shard; on restart the ids already
in the output are skipped. So `kill -9` loses at most the records in flight, which the next
run redoes, and no record is ever written twice. Records run concurrently (an LLM stage waits
on the network): `window` workers take records in turn, and shards are written off the event
loop so that requests stay in flight while a chunk is written.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

Process = Callable[[dict], Awaitable[dict] | dict]


@dataclass
class StageStats:
    name: str
    total: int = 0  # records given to the stage
    resumed: int = 0  # already in the output from an earlier run
    processed: int = 0  # done by this run
    errors: int = 0  # records whose processing raised (kept with the reason)
    seconds: float = 0.0
    status: Counter = field(default_factory=Counter)  # over the whole output


def status_key(status: str) -> str:
    """A short group for summary tables: `needs_llm: tuple ...` -> `needs_llm`,
    `duplicate_of:<id>` -> `duplicate_of`, but `rejected:proof` keeps its reason."""
    head, _, rest = status.partition(":")
    if head == "rejected" and rest:
        return "rejected:" + re.split(r"[:(]", rest.strip(), maxsplit=1)[0].strip()
    return head


def status_reason(status: str) -> str:
    """The status without record-specific details (ids, parenthesised values), for reason counts."""
    return re.sub(r"\s*\(.*?\)|(_of|contaminated):.*$", r"\1", status).strip()[:80]


async def run_stage_async(
    name: str,
    records: Iterable[dict],
    out_dir: str | Path,
    process: Process,
    *,
    chunk_size: int = 256,
    window: int = 256,
    progress=None,
) -> StageStats:
    """Apply `process` to every record not yet in `out_dir`; write results chunk by chunk."""
    from mathdata.store import read_table, stored_ids, write_records

    out_dir = Path(out_dir)
    t0 = time.perf_counter()
    records = list(records)
    done = stored_ids(out_dir)
    todo = [r for r in records if r["id"] not in done]
    stats = StageStats(name, total=len(records), resumed=len(records) - len(todo))
    task_id = progress.add_task(name, total=len(records), completed=stats.resumed) if progress else None

    async def guarded(rec: dict) -> dict:
        try:
            out = process(rec)
            if asyncio.iscoroutine(out):
                out = await out
            return out
        except Exception as e:  # one bad record must not stop the corpus; keep it with the reason
            stats.errors += 1
            return {**rec, "status": f"error:{name}: {type(e).__name__}: {e}"[:300]}

    buffer: list[dict] = []
    # Shards are written in a worker thread, one at a time, while the workers go on: writing a
    # shard (Arrow conversion, the id check against the store, zstd, the first one also pays
    # pyarrow's lazy set-up) takes 10-400 ms, and done on the event loop it would stall every
    # request in flight. A chunk is handed over whole and written atomically by `write_records`,
    # so kill -9 during a write loses only that chunk's records, which the next run redoes.
    writing: asyncio.Task | None = None

    async def write(chunk: list[dict], previous: asyncio.Task | None) -> None:
        if previous is not None:
            await previous  # shards in order, one writer at a time; re-raises its failure
        await asyncio.to_thread(write_records, out_dir, chunk)

    def flush() -> None:
        nonlocal writing
        if buffer:
            writing = asyncio.create_task(write(buffer.copy(), writing))
            buffer.clear()

    it = iter(todo)  # shared by the workers; next() never awaits, so each record goes to one worker

    def write_failed() -> bool:
        return (
            writing is not None
            and writing.done()
            and not writing.cancelled()
            and writing.exception() is not None
        )

    async def worker() -> None:
        for rec in it:
            buffer.append(await guarded(rec))
            stats.processed += 1
            if progress is not None:
                progress.advance(task_id)
            if len(buffer) >= chunk_size:
                flush()
            if write_failed():
                return  # stop taking records; the failure is raised below

    try:
        await asyncio.gather(*(worker() for _ in range(max(1, min(window, len(todo))))))
    finally:
        flush()  # what is done is written even when the stage is cancelled or fails
        if writing is not None:
            await asyncio.shield(writing)
    if out_dir.exists():
        stats.status = Counter(
            status_key(s) for s in read_table(out_dir, columns=["status"]).column("status").to_pylist()
        )
    stats.seconds = time.perf_counter() - t0
    return stats


def run_stage(name: str, records: Iterable[dict], out_dir: str | Path, process: Process, **kw) -> StageStats:
    """Synchronous wrapper around `run_stage_async` (one event loop per stage)."""
    return asyncio.run(run_stage_async(name, records, out_dir, process, **kw))


def read_records(path: str | Path) -> list[dict]:
    """A stage's output as a list of record dicts (empty when the stage has not run)."""
    from mathdata.store import read_table

    if not Path(path).exists():
        return []
    return read_table(path).to_pylist()


def make_progress():
    """The stage bars (the toolkit's one progress bar, verifiers.progress), to stderr so stdout
    stays clean for scripts."""
    from verifiers.progress import progress_bar

    return progress_bar(stderr=True)


def summary_table(stats: list[StageStats], title: str = "pipeline summary"):
    """A rich table: per stage, records in, resumed, processed, kept, and why the rest is not."""
    from rich.table import Table

    table = Table(title=title)
    for col in ("stage", "in", "resumed", "done", "errors", "kept", "not kept (why)", "s"):
        table.add_column(col, justify="left" if col in ("stage", "not kept (why)") else "right")
    for s in stats:
        why = ", ".join(f"{k} {n}" for k, n in s.status.most_common() if k != "kept")
        table.add_row(
            s.name,
            str(s.total),
            str(s.resumed),
            str(s.processed),
            str(s.errors),
            str(s.status.get("kept", 0)),
            why,
            f"{s.seconds:.1f}",
        )
    return table
