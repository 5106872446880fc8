"""The symbolic workers work whatever the caller's __main__ is, and a pool that cannot start backs off.

multiprocessing re-imports the parent's `__main__` in every forkserver/spawn child: a script read
from stdin cannot be re-read (every worker died at start-up, and the pool re-forked in a tight loop
printing tracebacks), and an unguarded script ran its top level once per worker.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SYMBOLIC = 'is_equivalent("Answer: \\\\sqrt{8}", "2\\\\sqrt{2}")'  # needs the symbolic worker


def _run(args: list[str], stdin: str | None = None, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(args, input=stdin, capture_output=True, text=True, timeout=120, env=env, cwd=cwd)


def test_script_from_stdin():
    code = f"from verifiers import is_equivalent, warmup\nwarmup()\nprint({SYMBOLIC})\n"
    t0 = time.monotonic()
    proc = _run([sys.executable, "-"], stdin=code)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip() == "True", proc.stdout + proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert time.monotonic() - t0 < 60  # warmup() no longer waits out its 60 s start-up timeout


def test_unguarded_script_runs_its_top_level_once(tmp_path):
    marker = tmp_path / "ran.txt"
    script = tmp_path / "reward_script.py"  # no `if __name__ == "__main__":` guard, as users write
    script.write_text(
        "from pathlib import Path\n"
        f"with open({str(marker)!r}, 'a') as f:\n    f.write('x')\n"
        "from verifiers import is_equivalent, score_batch, warmup\nwarmup()\n"
        f"print({SYMBOLIC})\n"
        "print(score_batch(['Answer: \\\\frac{1}{2}'] * 40, ['0.5'] * 40, workers=2)[0].acc == 1.0)\n"
    )
    proc = _run([sys.executable, str(script)], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.split() == ["True", "True"], proc.stdout + proc.stderr[-3000:]
    assert marker.read_text() == "x"  # no worker re-ran the script


def test_workers_that_die_at_start_up_back_off(monkeypatch, caplog):
    from verifiers import symbolic

    started = []

    class Dying(symbolic._Worker):
        def wait_ready(self, timeout: float = 0) -> bool:  # a fault we cannot cause from outside
            started.append(self.pid)
            return False

    monkeypatch.setattr(symbolic, "_Worker", Dying)
    pool = symbolic.SymbolicPool()
    try:
        t0 = time.monotonic()
        results = [pool.compare([("\\sqrt{8}", "2\\sqrt{2}")], time.monotonic() + 0.5) for _ in range(6)]
        elapsed = time.monotonic() - t0
    finally:
        pool.close()
    assert results == ["timeout"] * 6 and elapsed < 6
    assert len(started) <= 6, started  # backed off instead of re-forking in a tight loop
    assert any("died at start-up" in r.message for r in caplog.records)
