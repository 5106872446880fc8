"""What is drawn and where it is kept.

`SampleStore`: every sample is appended to `DIR/samples.jsonl` as it arrives, keyed by a hash of
the rendered prompt and the sample index; a killed run resumes by asking only for the (prompt,
index) pairs the store lacks. `DIR/run.json` pins the model and sampling settings, so a resume
cannot silently mix temperatures. `GradeCache`: the verdicts in `DIR/grades.jsonl`, so a rerun
grades only new samples.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from mathdata.files import StoreError, atomic_write


@dataclass(frozen=True)
class SamplingParams:
    k: int = 32
    temperature: float = 1.0
    top_p: float = 0.7
    max_tokens: int = 1024
    seed: int | None = None

    def fingerprint(self) -> dict:
        return {
            "temperature": self.temperature,
            "top_p": self.top_p,
            "max_tokens": self.max_tokens,
            "seed": self.seed,
        }


@dataclass(frozen=True)
class Job:
    """One sample to draw: sample `index` of the prompt whose store key is `key`."""

    key: str
    index: int
    prompt: list[dict] | str


@dataclass(frozen=True)
class Response:
    text: str
    tokens: int  # completion tokens as the sampler counted them
    finish_reason: str | None  # "length": cut at max_tokens


class Sampler(Protocol):
    """Draws samples. `run` calls `emit(job, response)` for each one as soon as it is drawn (the
    store writes it at once) and raises on a failure it could not retry away."""

    def describe(self) -> dict: ...

    def run(self, jobs: list[Job], params: SamplingParams, emit: Callable[[Job, Response], None]) -> None: ...


class SampleStore:
    """`DIR/samples.jsonl`, appended and flushed per sample; `DIR/run.json` pins the settings."""

    def __init__(self, out: Path, fingerprint: dict, *, fresh: bool = False):
        self.out = Path(out)
        self.path = self.out / "samples.jsonl"
        self.out.mkdir(parents=True, exist_ok=True)
        run = self.out / "run.json"
        if fresh:
            self.path.unlink(missing_ok=True)
            run.unlink(missing_ok=True)
        # a store without samples (a run that failed at once) takes the new settings
        holds = self.path.exists() and self.path.stat().st_size > 0
        if run.exists() and holds:
            old = json.loads(run.read_text(encoding="utf-8"))
            diff = [f"{k}: {old.get(k)!r} then, {v!r} now" for k, v in fingerprint.items() if old.get(k) != v]
            if diff:
                raise StoreError(
                    f"{self.out} holds samples drawn with other settings ({'; '.join(diff)}); "
                    "use another --out, or --fresh to discard them"
                )
        else:
            atomic_write(run, json.dumps(fingerprint, indent=1))
        self.samples: dict[tuple[str, int], Response] = {}
        self.torn = 0
        if self.path.exists():
            self._load()
        self._fh = None

    def _load(self) -> None:
        data = self.path.read_bytes()
        good_end = data.rfind(b"\n") + 1
        if good_end < len(data):  # a kill mid-write left a partial last line: drop it
            self.torn += 1
            with open(self.path, "r+b") as fh:
                fh.truncate(good_end)
        for lineno, line in enumerate(data[:good_end].splitlines(), 1):
            if not line.strip():
                continue
            try:
                d = json.loads(line)
                self.samples[(d["key"], int(d["i"]))] = Response(d["text"], int(d["tokens"]), d.get("finish"))
            except (json.JSONDecodeError, KeyError, TypeError, ValueError) as e:
                raise StoreError(
                    f"{self.path}:{lineno}: not a sample line ({e}); delete the line or rerun with --fresh"
                ) from None

    def add(self, job: Job, r: Response) -> None:
        if self._fh is None:
            self._fh = open(self.path, "a", encoding="utf-8")  # noqa: SIM115 (closed in close())
        rec = {"key": job.key, "i": job.index, "text": r.text, "tokens": r.tokens, "finish": r.finish_reason}
        self._fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
        self._fh.flush()  # in the page cache at once: a killed process loses nothing written
        self.samples[(job.key, job.index)] = r

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None


@dataclass
class Graded:
    correct: bool
    reason: str
    extracted: str | None


class GradeCache:
    """`DIR/grades.jsonl`: verdicts of earlier runs, keyed by (prompt key, sample index, gold, hash of
    the response), so a resumed or extended run grades only new samples. Valid for one grader: the
    first line names its source hash, version and time budget; another grader starts it afresh."""

    def __init__(self, out: Path, grader: dict, *, fresh: bool = False):
        self.path = Path(out) / "grades.jsonl"
        self.header = {k: grader.get(k) for k in ("source_sha256", "version", "timeout_s", "question")}
        self.grades: dict[tuple, Graded] = {}
        if fresh:
            self.path.unlink(missing_ok=True)
        if not self.path.exists():
            return
        data = self.path.read_bytes()
        good_end = data.rfind(b"\n") + 1
        lines = data[:good_end].decode("utf-8").splitlines()
        try:
            same = bool(lines) and json.loads(lines[0]) == self.header
        except json.JSONDecodeError:
            same = False
        if not same:
            self.path.unlink()
            return
        if good_end < len(data):  # a kill mid-write left a partial last line: drop it
            with open(self.path, "r+b") as fh:
                fh.truncate(good_end)
        for line in lines[1:]:
            try:
                d = json.loads(line)
                self.grades[(d["key"], d["i"], d["gold"], d["h"])] = Graded(
                    d["correct"], d["reason"], d["extracted"]
                )
            except (json.JSONDecodeError, KeyError, TypeError):
                continue  # an unreadable verdict is graded again

    @staticmethod
    def key(key: str, i: int, gold: str, text: str) -> tuple:
        return (key, i, gold, hashlib.sha256(text.encode()).hexdigest()[:16])

    def add(self, items: list[tuple[tuple, Graded]]) -> None:
        if not items:
            return
        new = not self.path.exists()
        with open(self.path, "a", encoding="utf-8") as fh:
            if new:
                fh.write(json.dumps(self.header) + "\n")
            for (key, i, gold, h), g in items:
                rec = {"key": key, "i": i, "gold": gold, "h": h, "correct": g.correct, "reason": g.reason,
                       "extracted": g.extracted}  # fmt: skip
                fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
                self.grades[(key, i, gold, h)] = g
