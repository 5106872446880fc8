"""score_batch: parallel processes, input order kept, a worker killed mid-batch survived."""

from __future__ import annotations

import multiprocessing as mp
import os
import signal

import pytest

from verifiers import score_batch


def _items(n: int) -> tuple[list[str], list[str], list[float]]:
    """Half right, half wrong, mixing the integer and the symbolic path."""
    comps, golds, want = [], [], []
    for i in range(n):
        right = i % 2 == 0
        if i % 3 == 0:
            comps.append(f"reasoning...\nAnswer: \\sqrt{{{i * i if right else i * i + 1}}}")
        else:
            comps.append(f"reasoning...\nAnswer: {i if right else i + 1}")
        golds.append(str(i))
        want.append(1.0 if right else 0.0)
    return comps, golds, want


def test_order_and_values():
    comps, golds, want = _items(40)
    results = score_batch(comps, golds, workers=2, chunk_size=3)
    assert [r.acc for r in results] == want
    assert [r.score for r in results] == [1.0 if w else -1.0 for w in want]
    assert results[1].pred == "2" and results[0].pred == "\\sqrt{0}"


def test_empty_and_mismatched_lengths():
    assert score_batch([], []) == []
    with pytest.raises(ValueError, match="3 completions but 2 golds"):
        score_batch(["a", "b", "c"], ["1", "2"])


def test_survives_a_worker_killed_mid_batch():
    comps, golds, want = _items(60)
    killed: list[int] = []

    def kill_one_worker(_n: int) -> None:
        if killed:
            return
        for p in mp.active_children():
            if p.name != "verifiers-symbolic" and p.pid and p.is_alive():
                os.kill(p.pid, signal.SIGKILL)  # a real kill of a real pool process
                killed.append(p.pid)
                return

    results = score_batch(comps, golds, workers=2, chunk_size=2, on_progress=kill_one_worker)
    assert killed, "no pool worker was found to kill"
    assert [r.acc for r in results] == want
    assert all(r.reason != "worker_died" for r in results)
