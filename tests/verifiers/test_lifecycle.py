"""No orphans, no runaways: the symbolic workers, their forkserver and resource tracker and
score_batch's processes all go away with their owner, even when it is SIGKILLed, and a
worker stuck in C code is killed by its CPU limit (see verifiers.symbolic's docstring).

Processes are found through /proc (Linux only), by parent pid, before the owner is killed.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")

ROOT = Path(__file__).resolve().parents[2]
TOWER = "5^{5^{5^{5^5}}}"  # sympy never finishes with this (nor lets go of the GIL)
HUGE_POW = "3^{100000000}"  # a long int pow in C


def _stat(pid: int) -> tuple[int, str, int] | None:
    """(ppid, state, start time) of a live process, None when it is gone."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = raw[raw.rindex(")") + 2 :].split()
    return int(fields[1]), fields[0], int(fields[19])


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _descendants(root: int) -> dict[int, int]:
    """pid -> start time of every live descendant of `root`."""
    table = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (st := _stat(int(entry))) is not None and st[1] not in "ZX":
            table[int(entry)] = st
    out: dict[int, int] = {}
    frontier = [root]
    while frontier:
        parent = frontier.pop()
        for pid, (ppid, _state, start) in table.items():
            if ppid == parent and pid not in out:
                out[pid] = start
                frontier.append(pid)
    return out


def _alive(procs: dict[int, int]) -> dict[int, str]:
    """The processes of `procs` still running (a zombie or a reused pid counts as gone)."""
    out = {}
    for pid, start in procs.items():
        st = _stat(pid)
        if st is not None and st[2] == start and st[1] not in "ZX":
            out[pid] = _cmdline(pid)[:160]
    return out


def _wait_gone(procs: dict[int, int], timeout: float) -> dict[int, str]:
    deadline = time.monotonic() + timeout
    while (left := _alive(procs)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


def _cpu_seconds(pid: int) -> float:
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    fields = raw[raw.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _start(script: str) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen(
        [sys.executable, "-c", script], cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True
    )


def _wait_line(proc: subprocess.Popen, want: str, timeout: float = 90) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if line.startswith(want):
            return line
        if not line and proc.poll() is not None:
            break
    proc.kill()
    pytest.fail(f"child did not print {want!r} (rc={proc.poll()})")


def _kill_and_check(proc: subprocess.Popen, min_descendants: int) -> None:
    """Record the owner's descendants, wait until one burns CPU, SIGKILL the owner, and
    require every descendant to be gone within 5 s."""
    procs = _descendants(proc.pid)
    try:
        assert len(procs) >= min_descendants, {p: _cmdline(p) for p in procs}
        cpu0 = {p: _cpu_seconds(p) for p in procs}
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:  # the runaway computation is really running
            time.sleep(0.5)
            if any(_cpu_seconds(p) - cpu0[p] > 0.3 for p in procs):
                break
        else:
            pytest.fail("no worker was busy")
        procs = _descendants(proc.pid)  # late starters included
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    left = _wait_gone(procs, timeout=5)
    for pid in left:  # don't leave them to the next test
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    assert not left, f"still running 5 s after their owner was SIGKILLed: {left}"


OWNER_MID_CHECK = f"""
import threading, time
from verifiers import check, warmup
warmup()
threading.Thread(target=check, args=({TOWER!r}, "7"), kwargs={{"timeout": 600}}, daemon=True).start()
time.sleep(0.5)
print("busy", flush=True)
time.sleep(600)
"""


def test_owner_killed_mid_computation_leaves_nothing():
    """forkserver, resource tracker, the busy worker and the idle spares all go."""
    proc = _start(OWNER_MID_CHECK)
    _wait_line(proc, "busy")
    _kill_and_check(proc, min_descendants=4)  # forkserver, tracker, >= 2 workers


CALLER_MID_BATCH = f"""
import threading, time
from verifiers import score_batch
comps = ["Answer: {TOWER}", "Answer: 3", "Answer: 4"]
t = threading.Thread(target=score_batch, args=(comps, ["7", "3", "4"]),
                     kwargs={{"workers": 2, "chunk_size": 1, "timeout": 600}}, daemon=True)
t.start()
time.sleep(0.5)
print("busy", flush=True)
time.sleep(600)
"""


def test_score_batch_caller_killed_leaves_nothing():
    """score_batch's processes and the workers they forked go with their caller."""
    proc = _start(CALLER_MID_BATCH)
    _wait_line(proc, "busy")
    deadline = time.monotonic() + 60  # until a pool process has forked its worker
    while time.monotonic() < deadline and len(_descendants(proc.pid)) < 5:
        time.sleep(0.2)
    _kill_and_check(proc, min_descendants=5)  # forkserver, tracker, 2 pool processes, >= 1 worker


SCORE_BATCH_RETURNS = """
import os, sys
sys.path.insert(0, os.path.join(os.getcwd(), "tests", "verifiers"))
from test_lifecycle import _cmdline, _descendants, _wait_gone
from verifiers import score_batch
r = score_batch(["Answer: \\\\sqrt{4}", "Answer: 3", "Answer: x^2"], ["2", "4", "x \\\\cdot x"],
                workers=2, chunk_size=1)
assert [x.acc for x in r] == [1.0, 0.0, 1.0], r
import time
deadline = time.monotonic() + 5
while True:
    left = {p: _cmdline(p) for p in _descendants(os.getpid())}
    extra = {p: c for p, c in left.items() if "forkserver" not in c and "resource_tracker" not in c}
    if not extra or time.monotonic() > deadline:
        break
    time.sleep(0.1)
print("left", extra, flush=True)
print("infra", sorted(left), flush=True)
"""


def test_score_batch_leaves_no_processes():
    """After score_batch returns only the shared forkserver and resource tracker remain (no
    pool process, no symbolic worker), and they go when the caller exits normally."""
    proc = _start(SCORE_BATCH_RETURNS)
    assert _wait_line(proc, "left").strip() == "left {}"
    infra = _descendants(proc.pid)
    out, _ = proc.communicate(timeout=30)
    assert proc.returncode == 0, out
    assert not _wait_gone(infra, timeout=5)


def test_worker_stuck_in_c_is_killed_by_its_cpu_limit():
    """Nobody kills this worker: RLIMIT_CPU (budget + CPU_SLACK) does, via SIGXCPU, while it
    is inside a GIL-holding int pow."""
    from verifiers.symbolic import _Worker

    w = _Worker()
    try:
        assert w.wait_ready()
        w.conn.send(([(HUGE_POW, "7")], 0.5))  # CPU bound: used so far + 0.5 + 2 s
        w.proc.join(timeout=30)
        assert w.proc.exitcode == -signal.SIGXCPU, w.proc.exitcode
    finally:
        w.kill()
        w.reap()
