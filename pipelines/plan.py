"""What a corpus step declares and an engine executes, without knowing which step it is.

A corpus step (dedup, decontamination) is written as a plan over three primitives an executor
provides: `map_batches` (a function over each Arrow table of a list, shared arguments broadcast
once), `group_reduce` (group rows by key columns, then a function over each group) and the
global passes, which are plain code on the driver between them. `LocalExecutor` runs them in
this process; pipelines.ray_engine.RayExecutor runs them on Ray Data. An executor with
`distributed = False` leaves the step to its in-process implementation (mathdata's own).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pyarrow as pa


class LocalExecutor:
    """The primitives in this process (threads for `map_batches`: Arrow and numpy release the GIL)."""

    name = "local"
    distributed = False

    def cpus(self) -> int:
        return os.cpu_count() or 1

    def map_batches(self, fn: Callable[..., pa.Table], parts: list[pa.Table], /, **shared) -> list[pa.Table]:
        with ThreadPoolExecutor(min(len(parts), self.cpus()) or 1) as pool:
            return list(pool.map(lambda p: fn(p, **shared), parts))

    def group_reduce(
        self, parts: list[pa.Table], by: list[str], fn: Callable[[dict], dict]
    ) -> list[pa.Table]:
        """`fn` over each group of rows with equal `by` columns (as numpy columns), groups in key order."""
        parts = [p for p in parts if len(p)]
        if not parts:
            return []
        table = pa.concat_tables(parts)
        cols = {c: table.column(c).to_numpy() for c in table.column_names}
        order = np.lexsort([cols[c] for c in reversed(by)])
        keys = np.stack([cols[c][order] for c in by], axis=1)
        starts = np.flatnonzero(np.r_[True, np.any(keys[1:] != keys[:-1], axis=1)]) if len(keys) else []
        ends = list(starts[1:]) + [len(order)]
        return [
            pa.table(fn({c: v[order[s:e]] for c, v in cols.items()}))
            for s, e in zip(starts, ends, strict=True)
        ]
