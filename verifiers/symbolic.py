"""A hard time budget for symbolic comparison, in any thread and any process.

math-verify's own timeout is `signal.alarm` (main thread only), and sympy can hang in C
code that ignores Python signals (`str()` of a parsed 5^{5^{5^{5^5}}}). So the symbolic
step runs in persistent worker processes; a call that overruns its budget has its worker
killed (SIGKILL always works) and replaced, and the caller gets a "timeout".

Budget choice: the budget covers the comparison itself, not the one-time start of a
worker. Workers are forked from a forkserver that has sympy and math-verify preloaded, so
a replacement after a timeout is ready in milliseconds; only the very first start in a
process pays the imports (about a second). Call `warmup()` to pay that before timing
anything. Threads share a small pool of workers; waiting for a free worker is not counted
either, and every wait is bounded because every holder is bounded by its own budget.
"""

from __future__ import annotations

import atexit
import contextlib
import multiprocessing as mp
import os
import threading
import time

STARTUP_TIMEOUT = 60.0  # seconds a fresh worker may take to import sympy + math-verify
MAX_WORKERS = max(2, min(8, os.cpu_count() or 2))

_ctx = None
_ctx_lock = threading.Lock()


def _context():
    global _ctx
    with _ctx_lock:
        if _ctx is None:
            if "forkserver" in mp.get_all_start_methods():
                _ctx = mp.get_context("forkserver")
                _ctx.set_forkserver_preload(["verifiers._symworker"])
            else:  # pragma: no cover - platforms without fork
                _ctx = mp.get_context("spawn")
        return _ctx


def _serve(conn) -> None:
    from verifiers._symworker import serve

    serve(conn)


def _fork_is_safe() -> bool:
    """Fork directly when this process already holds warm sympy and has no other threads:
    true inside score_batch's pool processes (forked from the preloaded forkserver), where
    starting a second forkserver would pay the imports again."""
    import sys

    return (
        "verifiers._symworker" in sys.modules
        and threading.active_count() == 1
        and "fork" in mp.get_all_start_methods()
    )


class _Worker:
    """One child process and the parent's end of its pipe."""

    def __init__(self) -> None:
        ctx = mp.get_context("fork") if _fork_is_safe() else _context()
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_serve, args=(child,), daemon=True, name="verifiers-symbolic")
        self.proc.start()
        child.close()
        self.ready = False

    @property
    def pid(self) -> int | None:
        return self.proc.pid

    def wait_ready(self, timeout: float = STARTUP_TIMEOUT) -> bool:
        if self.ready:
            return True
        try:
            if self.conn.poll(timeout):
                msg = self.conn.recv()
                self.ready = isinstance(msg, tuple) and msg[0] == "ready"
        except (EOFError, OSError):
            self.ready = False
        return self.ready

    def alive(self) -> bool:
        return self.proc.is_alive()

    def kill(self) -> None:
        """SIGKILL now; reaping happens off the caller's clock (see _drop)."""
        with contextlib.suppress(OSError, ValueError, AssertionError):
            self.proc.kill()

    def reap(self) -> None:
        with contextlib.suppress(OSError, ValueError, AssertionError):
            self.proc.join(timeout=5)
        self.conn.close()


class SymbolicPool:
    """Workers shared by all threads of this process; at most `max_workers` at once."""

    def __init__(self, max_workers: int = MAX_WORKERS) -> None:
        self._idle: list[_Worker] = []
        self._all: set[_Worker] = set()
        self._lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(max_workers)

    def pids(self) -> list[int]:
        with self._lock:
            return [w.pid for w in self._all if w.pid is not None]

    def _take(self) -> _Worker:
        with self._lock:
            while self._idle:
                w = self._idle.pop()
                if w.alive():
                    return w
                self._all.discard(w)
                w.kill()
                w.reap()
            w = _Worker()
            self._all.add(w)
            return w

    def _give(self, w: _Worker) -> None:
        with self._lock:
            self._idle.append(w)

    def _drop(self, w: _Worker, replace: bool) -> None:
        """Kill w at once; reap it and fork its successor in the background, so the caller
        returns at its deadline and the next call finds a warm worker waiting."""
        w.kill()
        with self._lock:
            self._all.discard(w)

        def finish() -> None:
            w.reap()
            if not replace:
                return
            try:
                nw = _Worker()
            except OSError:
                return
            with self._lock:
                self._all.add(nw)
                self._idle.append(nw)

        threading.Thread(target=finish, daemon=True, name="verifiers-symbolic-reaper").start()

    def compare(self, pairs: list[tuple[str, str]], timeout: float) -> list[str] | str:
        """Per-pair 'match'/'mismatch'/'unparsable'/'too_large', or 'timeout' / 'crashed' for the call."""
        with self._slots:
            for attempt in range(2):
                w = self._take()
                if not w.wait_ready():
                    self._drop(w, replace=False)
                    return "crashed"
                deadline = time.monotonic() + timeout
                try:
                    w.conn.send(pairs)
                except (OSError, ValueError):  # worker died while idle (e.g. killed): retry once
                    self._drop(w, replace=False)
                    if attempt:
                        return "crashed"
                    continue
                try:
                    if w.conn.poll(max(0.0, deadline - time.monotonic())):
                        out = w.conn.recv()
                        self._give(w)
                        return out
                except (EOFError, OSError):
                    self._drop(w, replace=True)
                    return "crashed"
                self._drop(w, replace=True)
                return "timeout"
            return "crashed"

    def warmup(self, n: int = 1) -> None:
        with self._lock:
            need = max(0, n - len(self._idle))
        workers = [_Worker() for _ in range(need)]
        for w in workers:
            w.wait_ready()
        with self._lock:
            self._all.update(workers)
            self._idle.extend(workers)
        with self._lock:
            idle = list(self._idle)
        for w in idle:
            w.wait_ready()

    def close(self) -> None:
        with self._lock:
            workers, self._all, self._idle = list(self._all), set(), []
        for w in workers:
            w.kill()
            w.reap()


_pool: SymbolicPool | None = None
_pool_lock = threading.Lock()
_pool_pid: int | None = None


def pool() -> SymbolicPool:
    """The process-wide pool (a fresh one after fork, so children never share pipes)."""
    global _pool, _pool_pid
    with _pool_lock:
        if _pool is None or _pool_pid != os.getpid():
            _pool, _pool_pid = SymbolicPool(), os.getpid()
        return _pool


def compare_symbolic(pairs: list[tuple[str, str]], timeout: float) -> list[str] | str:
    """Compare (pred, gold) pairs in a worker under one wall-clock budget for all of them."""
    return pool().compare(pairs, timeout)


_warm_pids: set[int] = set()


def warmup() -> None:
    """Start the symbolic worker now (imports sympy + math-verify) so no later call pays for it.

    Cheap after the first call in a process; the reward adapters call it on first use."""
    if os.getpid() in _warm_pids:
        return
    pool().warmup(1)
    _warm_pids.add(os.getpid())


@atexit.register
def _shutdown() -> None:
    if _pool is not None and _pool_pid == os.getpid():
        _pool.close()
