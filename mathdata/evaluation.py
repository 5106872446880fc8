"""Evaluate a model on math benchmarks, whoever samples it: an OpenAI-compatible endpoint
(pipelines.eval_endpoint) or this trainer's checkpoint (trainer.eval.CheckpointSampler).

The pieces, in run order:

- `load_benchmark_problems`: a bundled set by name (aime24, aime25, amc23, math500) or any
  Parquet/JSONL file, either a verl/DAPO-Math Parquet (prompt, reward_model, extra_info) or a
  table with a problem/answer(/id) mapping.
- `PromptSpec`: the DAPO template by default, a boxed or raw template or the user's own, sent
  as chat messages (the server or tokenizer applies the model's chat template) or as a raw
  completion prompt.
- `SampleStore`: every sample is appended to `DIR/samples.jsonl` as it arrives, keyed by a
  hash of the rendered prompt and the sample index; a killed run resumes by asking only for
  the (prompt, index) pairs the store lacks. `DIR/run.json` pins the model and sampling
  settings, so a resume cannot silently mix temperatures.
- grading with the project's verifier (`verifiers.dapo_reward`: extraction + `is_equivalent`),
  in worker processes for large runs (`verifiers.score_batch`); verdicts are kept in
  `DIR/grades.jsonl` (`GradeCache`), so a rerun grades only new samples.
- metrics (`summarize`): avg@k with its standard error, the unbiased pass@k of Chen et al.
  (2021) for each k in a list, maj@k over *equivalence classes* of extracted answers, the
  share of responses with no extractable answer, the truncation rate and the mean length.
- outputs: `report.json`, `samples.parquet` (one row per sample), `report.md` (a markdown
  table) and `pass_at_k.png` (pass@k curves per benchmark).

No torch here (the checkpoint sampler lives in trainer/), matplotlib only when plotting.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from mathdata.files import StoreError, atomic_write

DEFAULT_PASS_KS = (1, 4, 16)
TEMPLATES = {
    "dapo": None,  # mathdata.export.DAPO_TEMPLATE, filled in lazily (export imports pyarrow)
    "boxed": "{problem}\nPlease reason step by step, and put your final answer within \\boxed{}.",
    "raw": "{problem}",
}


# ----------------------------------------------------------------------------- metrics


def pass_at_k(n: int, c: int, k: int) -> float:
    """Chen et al.'s unbiased pass@k: 1 - C(n-c, k) / C(n, k), n samples of which c are correct."""
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass@k needs 0 <= c <= n and 1 <= k <= n, got n={n} c={c} k={k}")
    if n - c < k:
        return 1.0
    prod = 1.0
    for i in range(n - c + 1, n + 1):  # C(n-c, k)/C(n, k) = prod_{i=n-c+1}^{n} (1 - k/i)
        prod *= 1.0 - k / i
    return 1.0 - prod


def vote_classes(
    answers: Sequence[str | None],
    correct: Sequence[bool],
    same: Callable[[str, str], bool],
) -> list[list[int]]:
    """Group sample indices into classes of equivalent extracted answers, in order of first appearance.

    Answers graded correct against the gold are all equivalent to it, hence to each other: they
    form one class without a comparison. A correct and a wrong answer are never equivalent. Wrong
    answers join the first class whose representative (first member) has the same text or is
    `same` (the verifier's is_equivalent) as it, so `1/2` and `0.5` are one vote. Samples with no
    extracted answer (None) vote for nothing.
    """
    classes: list[list[int]] = []
    for j, a in enumerate(answers):
        if a is None:
            continue
        home = None
        for cls in classes:
            r = cls[0]
            if bool(correct[r]) != bool(correct[j]):
                continue
            if correct[j] or answers[r] == a or same(a, answers[r]):
                home = cls
                break
        if home is None:
            classes.append([j])
        else:
            home.append(j)
    return classes


def majority_vote(
    answers: Sequence[str | None], correct: Sequence[bool], same: Callable[[str, str], bool]
) -> bool:
    """maj@k for one problem: is the largest class of equivalent answers (`vote_classes`) correct?
    A tie goes to the class seen first; no answer at all is wrong.

    Exact without comparing every pair: with no correct answer the vote is wrong, and with more
    correct answers than wrong ones (all correct answers are one class) it is right; only the
    cases in between build the classes (each comparison may call the verifier's symbolic step).
    """
    n_ok = sum(1 for a, c in zip(answers, correct, strict=True) if a is not None and c)
    n_wrong = sum(1 for a, c in zip(answers, correct, strict=True) if a is not None and not c)
    if n_ok == 0:
        return False
    if n_ok > n_wrong:
        return True
    classes = vote_classes(answers, correct, same)
    top = max(len(c) for c in classes)
    winner = next(c for c in classes if len(c) == top)
    return bool(correct[winner[0]])


@dataclass
class ProblemResult:
    """One problem's k graded samples, reduced to what the metrics need."""

    n: int
    correct: int
    maj_correct: bool
    no_answer: int = 0
    truncated: int = 0
    tokens: int = 0


def summarize(results: Sequence[ProblemResult], k: int, pass_ks: Iterable[int] = DEFAULT_PASS_KS) -> dict:
    """Metrics over problems (each problem weighs the same).

    avg@k: mean over problems of c_i / n_i; its standard error is the sample standard deviation of
    those per-problem accuracies over sqrt(N) (N problems; None when N < 2). pass@j for each j in
    `pass_ks` plus k (those <= the smallest n): the mean of the unbiased per-problem estimator.
    maj@k: share of problems whose largest answer class is correct. Rates are over samples.
    """
    if not results:
        raise ValueError("no problems to summarise")
    n_min = min(r.n for r in results)
    N = len(results)
    accs = [r.correct / r.n for r in results]
    avg = sum(accs) / N
    se = math.sqrt(sum((a - avg) ** 2 for a in accs) / (N - 1) / N) if N > 1 else None
    samples = sum(r.n for r in results)
    out = {
        "n_problems": N,
        "n_samples": samples,
        f"avg@{k}": avg,
        f"avg@{k}_se": se,
    }
    for j in sorted({*pass_ks, k}):
        if 1 <= j <= n_min:
            out[f"pass@{j}"] = sum(pass_at_k(r.n, r.correct, j) for r in results) / N
    out[f"maj@{k}"] = sum(r.maj_correct for r in results) / N
    out["no_answer_rate"] = sum(r.no_answer for r in results) / samples
    out["truncation_rate"] = sum(r.truncated for r in results) / samples
    out["mean_length"] = sum(r.tokens for r in results) / samples
    return out


def pass_curve(results: Sequence[ProblemResult]) -> dict[int, float]:
    """pass@j for j = 1, 2, 4, ... up to the smallest n (and n itself), for the plot."""
    n_min = min(r.n for r in results)
    js = sorted({2**i for i in range(int(math.log2(n_min)) + 1)} | {n_min})
    return {j: sum(pass_at_k(r.n, r.correct, j) for r in results) / len(results) for j in js}


# ----------------------------------------------------------------------------- benchmarks


@dataclass
class Problem:
    id: str
    problem: str
    answer: str  # the gold as the grader sees it (integers canonical, other answers as written)
    messages: list[dict] | None = None  # a verl file's own chat prompt


@dataclass
class Benchmark:
    name: str
    source: str  # "bundled:aime24" or the file path
    problems: list[Problem]
    notes: list[str] = field(default_factory=list)


def _gold(value) -> str | None:
    from verifiers import canonical_integer

    if value is None:
        return None
    raw = str(value).strip()
    if not raw:
        return None
    return canonical_integer(raw) or raw


def _read_rows(path: Path) -> list[dict]:
    if path.suffix.lower() in (".jsonl", ".json", ".ndjson"):
        from mathdata.benchmarks import read_jsonl

        return read_jsonl(path)
    if path.suffix.lower() == ".parquet" or path.is_dir():
        import pyarrow.parquet as pq

        try:
            return pq.read_table(path).to_pylist()
        except Exception as e:  # pyarrow raises several types for bad files
            raise StoreError(f"{path}: cannot read as Parquet ({e})") from None
    raise StoreError(f"{path}: unknown benchmark file type; use .parquet or .jsonl")


def _is_verl(rows: list[dict]) -> bool:
    return bool(rows) and "prompt" in rows[0] and "reward_model" in rows[0]


def _is_records(rows: list[dict]) -> bool:
    """A mathdata records store (every record, kept or not, with its status)."""
    return bool(rows) and "status" in rows[0] and "original_problem" in rows[0]


def parse_mapping(text: str | None) -> dict[str, str]:
    """`problem=question,answer=final,id=uid` -> dict (mathdata.mapping: field=column everywhere)."""
    from mathdata.mapping import parse_mapping as _parse

    return _parse(text, fields=("problem", "answer", "id"))


def load_benchmark_problems(
    spec: str, *, mapping: dict[str, str] | None = None, split: str | None = None, limit: int | None = None
) -> Benchmark:
    """A bundled set by name, or `[NAME=]PATH` to a Parquet/JSONL file (verl layout or mapped columns).

    Errors name the file, the row and the field, and say what to write instead.
    """
    from mathdata.benchmarks import BENCHMARK_DIR, list_benchmarks

    name, sep, target = spec.partition("=")
    if not sep:
        name, target = "", spec
    path = Path(target)
    bundled = not sep and target in list_benchmarks() and not path.exists()
    if bundled:
        path = BENCHMARK_DIR / f"{target}.jsonl"
        name = target
    elif not path.exists():
        raise StoreError(
            f"benchmark {target!r}: not a bundled set ({', '.join(list_benchmarks())}) and no such file"
        )
    name = name or (
        f"{path.stem}[{split}]" if split else path.stem
    )  # train.parquet --split test: train[test]
    rows = _read_rows(path)
    notes: list[str] = []
    problems: list[Problem] = []
    if _is_verl(rows) and not mapping:
        problems, notes = _from_verl(rows, path, split)
    else:
        if _is_records(rows):  # a mathdata records store: its kept rows, with their final text
            kept = [
                {**r, "problem": r.get("problem") or r.get("original_problem")}
                for r in rows
                if r.get("status") == "kept"
            ]
            if len(kept) < len(rows):
                notes.append(f"{len(rows) - len(kept)} records not kept (status other than 'kept') skipped")
            rows = kept
        if split is not None:
            if rows and "split" not in rows[0]:
                raise StoreError(f"{path}: --split {split!r} given but the file has no 'split' column")
            rows = [r for r in rows if r.get("split") == split]
        problems = _from_mapped(rows, path, mapping or {})
    if not problems:
        raise StoreError(f"{path}: no problems{f' in split {split!r}' if split else ''}")
    if limit is not None:
        problems = problems[:limit]
    return Benchmark(name, f"bundled:{name}" if bundled else str(path), problems, notes)


def _from_verl(rows: list[dict], path: Path, split: str | None) -> tuple[list[Problem], list[str]]:
    from collections import Counter

    if split is not None:
        present = Counter((r.get("extra_info") or {}).get("split") for r in rows)
        rows = [r for r in rows if (r.get("extra_info") or {}).get("split") == split]
        if not rows:
            listed = ", ".join(f"{k!r} ({v} rows)" for k, v in sorted(present.items(), key=str)) or "none"
            raise StoreError(
                f"{path}: no rows with extra_info.split == {split!r}; the file holds splits {listed}. "
                "Pass one of those to --split, or build a held-out split (a source with split: test)"
            )
    out, seen, repeats = [], set(), 0
    for i, row in enumerate(rows):
        msgs = row.get("prompt")
        if isinstance(msgs, str):
            msgs = [{"role": "user", "content": msgs}]
        if not msgs or not all(isinstance(m, dict) and "role" in m and "content" in m for m in msgs):
            raise StoreError(f"{path} row {i}: field 'prompt' must be a non-empty list of {{role, content}}")
        rm = row.get("reward_model") or {}
        gold = _gold(rm.get("ground_truth") if isinstance(rm, dict) else None)
        if gold is None:
            raise StoreError(
                f"{path} row {i}: field 'reward_model.ground_truth' is empty; every row needs its answer"
            )
        extra = row.get("extra_info") or {}
        key = extra.get("id") or extra.get("index")
        key = str(i) if key is None or key == "" else str(key)
        if key in seen:  # an avg@k export repeats each problem k times: sample it once, k times
            repeats += 1
            continue
        seen.add(key)
        problem = extra.get("raw_problem") or msgs[-1]["content"]
        out.append(Problem(key, problem, gold, [dict(role=m["role"], content=m["content"]) for m in msgs]))
    notes = [f"{repeats} repeated rows (same extra_info id) read once"] if repeats else []
    return out, notes


def _from_mapped(rows: list[dict], path: Path, mapping: dict[str, str]) -> list[Problem]:
    def pick(row: dict, role: str, defaults: tuple[str, ...], i: int) -> object:
        if role in mapping:
            if mapping[role] not in row:
                raise StoreError(
                    f"{path} row {i}: no field {mapping[role]!r} (mapped to {role}); fields: {sorted(row)}"
                )
            return row[mapping[role]]
        for d in defaults:
            if d in row:
                return row[d]
        if role == "id":
            return None
        raise StoreError(
            f"{path} row {i}: no {role} field (looked for {', '.join(defaults)}); fields: {sorted(row)}. "
            f"Name it with --mapping {role}=COLUMN"
        )

    out = []
    for i, row in enumerate(rows):
        problem = pick(row, "problem", ("problem", "question", "prompt"), i)
        answer = _gold(pick(row, "answer", ("answer", "ground_truth", "final_answer"), i))
        pid = pick(row, "id", ("id", "unique_id", "problem_id"), i)
        if not isinstance(problem, str) or not problem.strip():
            raise StoreError(f"{path} row {i}: the problem text is empty or not a string")
        if answer is None:
            raise StoreError(f"{path} row {i}: the answer is empty; every problem needs its answer")
        out.append(Problem(str(i) if pid is None or pid == "" else str(pid), problem, answer))
    return out


# ----------------------------------------------------------------------------- prompts


@dataclass(frozen=True)
class PromptSpec:
    """How a problem becomes what the model sees.

    `template` holds `{problem}` (replaced literally, so LaTeX braces in a template are safe);
    `mode` "chat" sends messages (the server or tokenizer applies the model's chat template),
    "completion" sends the text as a raw prompt. A verl file's own chat prompt is used as is
    unless a template was asked for explicitly (`use_file_prompts=False`).
    """

    name: str = "dapo"
    template: str = ""
    system: str | None = None
    mode: str = "chat"
    use_file_prompts: bool = True

    @classmethod
    def make(cls, prompt: str | None = None, *, system: str | None = None, mode: str = "chat") -> PromptSpec:
        """`prompt`: None (DAPO, or a verl file's own), a template name (dapo, boxed, raw), a file
        holding a template, or a template text containing {problem}."""
        if mode not in ("chat", "completion"):
            raise ValueError(f"--mode {mode!r}: use chat or completion")
        explicit = prompt is not None
        prompt = prompt or "dapo"
        if prompt in TEMPLATES:
            name, text = prompt, TEMPLATES[prompt]
            if text is None:
                from mathdata.export import DAPO_TEMPLATE

                text = DAPO_TEMPLATE
        elif "{problem}" in prompt:
            name, text = "custom", prompt
        elif Path(prompt).is_file():
            name, text = f"file:{prompt}", Path(prompt).read_text(encoding="utf-8")
        else:
            raise ValueError(
                f"--prompt {prompt[:60]!r}: not a template name ({', '.join(TEMPLATES)}), "
                "a file, or a text containing {problem}"
            )
        if "{problem}" not in text:
            raise ValueError(f"--prompt {name}: the template has no {{problem}} placeholder")
        return cls(name, text, system, mode, use_file_prompts=not explicit)

    def render(self, p: Problem) -> list[dict] | str:
        if p.messages and self.use_file_prompts:
            msgs = list(p.messages)
            if self.system and msgs[0]["role"] != "system":
                msgs = [{"role": "system", "content": self.system}, *msgs]
            if self.mode == "completion":
                return "\n\n".join(m["content"] for m in msgs)
            return msgs
        text = self.template.replace("{problem}", p.problem)
        if self.mode == "completion":
            return f"{self.system}\n\n{text}" if self.system else text
        msgs = [{"role": "user", "content": text}]
        return [{"role": "system", "content": self.system}, *msgs] if self.system else msgs

    def describe(self) -> dict:
        return {
            "name": self.name,
            "mode": self.mode,
            "template": self.template,
            "system": self.system,
            "verl_file_prompts": "used as written" if self.use_file_prompts else "replaced by the template",
        }


def prompt_key(prompt: list[dict] | str) -> str:
    """The store key of a rendered prompt: a hash of exactly what the model is sent."""
    blob = json.dumps(prompt, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(blob.encode()).hexdigest()[:24]


# ----------------------------------------------------------------------------- sampling


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
        if run.exists():
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


# ----------------------------------------------------------------------------- the run


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
        self.header = {k: grader[k] for k in ("source_sha256", "version", "timeout_s")}
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


def grader_info(timeout: float) -> dict:
    """The grader named with its version and a hash of its source, since graders move scores."""
    from importlib.metadata import PackageNotFoundError, version

    import verifiers

    def ver(dist: str) -> str | None:
        try:
            return version(dist)
        except PackageNotFoundError:
            return None

    h = hashlib.sha256()
    for f in sorted(Path(verifiers.__file__).parent.glob("*.py")):
        h.update(f.name.encode() + b"\0" + f.read_bytes())
    return {
        "name": "dapo-toolkit verifiers (verifiers.dapo_reward: verifiers.extract + check)",
        "version": ver("dapo-toolkit"),
        "source_sha256": h.hexdigest()[:16],
        "math_verify": ver("math-verify"),
        "sympy": ver("sympy"),
        "timeout_s": timeout,
        "truncated_responses": "graded as written, reading only an answer line or a box (cut_off)",
        "maj_vote": "largest class of extracted answers merged with is_equivalent; ties go to the class seen first",
    }


def _same_answer(timeout: float) -> Callable[[str, str], bool]:
    from verifiers import is_equivalent

    def same(a: str, b: str) -> bool:
        return is_equivalent(f"\\boxed{{{a}}}", f"\\boxed{{{b}}}", timeout=timeout)

    return same


def grade(texts: Sequence[str], golds: Sequence[str], *, workers: int = 0, timeout: float = 1.0,
          on_progress: Callable[[int], None] | None = None,
          cut_off: Sequence[bool] | None = None) -> list[Graded]:  # fmt: skip
    """Each response against its gold with the project's verifier. `workers` > 1 grades in that
    many processes (verifiers.score_batch); otherwise in this process. `cut_off[i]`: response i
    stopped at the token limit (only an answer line or a box is read from it). `extracted` is the
    answer the verdict was about, as verifiers.extract read it (None: no answer)."""
    from verifiers import dapo_reward, warmup

    if not texts:
        return []
    cuts = list(cut_off) if cut_off is not None else [False] * len(texts)
    if workers > 1 and len(texts) > 64:
        from verifiers import score_batch

        res = score_batch(list(texts), list(golds), workers=workers, timeout=timeout, on_progress=on_progress,
                          cut_off=cuts)  # fmt: skip
    else:
        warmup()
        res = []
        for t, g, cut in zip(texts, golds, cuts, strict=True):
            res.append(dapo_reward(t, g, timeout=timeout, cut_off=cut))
            if on_progress:
                on_progress(1)
    return [Graded(bool(r.acc), r.reason, r.extracted) for r in res]


@dataclass
class EvalConfig:
    out: Path
    params: SamplingParams
    prompt: PromptSpec
    pass_ks: tuple[int, ...] = DEFAULT_PASS_KS
    grade_workers: int = 0
    grade_timeout: float = 1.0
    fresh: bool = False
    progress: bool = True
    model: str = ""


def _progress(enabled: bool):
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        disable=not enabled,
    )


def run_eval(benchmarks: Sequence[Benchmark], sampler: Sampler, cfg: EvalConfig) -> dict:
    """Sample what the store lacks, grade everything, compute metrics, write the four outputs."""
    p = cfg.params
    out = Path(cfg.out)
    # what decides the samples: the model, the kind of sampler and the sampling settings (not the
    # server's address: a restarted server on another port still serves the same model)
    fingerprint = {"model": cfg.model, "sampler": sampler.describe()["kind"], **p.fingerprint()}
    store = SampleStore(out, fingerprint, fresh=cfg.fresh)
    items = []  # (bench, problem, key, rendered prompt)
    for b in benchmarks:
        for pr in b.problems:
            rendered = cfg.prompt.render(pr)
            items.append((b, pr, prompt_key(rendered), rendered))
    jobs, seen = [], set()
    for _b, _pr, key, rendered in items:
        if key in seen:
            continue
        seen.add(key)
        jobs += [Job(key, i, rendered) for i in range(p.k) if (key, i) not in store.samples]
    total = len(seen) * p.k
    cached = total - len(jobs)
    t0 = time.monotonic()
    try:
        with _progress(cfg.progress) as bar:
            task = bar.add_task("sampling", total=total, completed=cached, rate="")
            drawn = 0

            def emit(job: Job, r: Response) -> None:
                nonlocal drawn
                store.add(job, r)
                drawn += 1
                dt = time.monotonic() - t0
                bar.update(task, advance=1, rate=f"{drawn / dt:.1f}/s" if dt > 0 else "")

            if jobs:
                sampler.run(jobs, p, emit)
    finally:
        store.close()
    sample_s = time.monotonic() - t0

    rows = []  # (bench, problem, index, response)
    gkeys = []  # the grade cache key of each row
    for b, pr, key, _r in items:
        for i in range(p.k):
            r = store.samples[(key, i)]
            rows.append((b, pr, i, r))
            gkeys.append(GradeCache.key(key, i, pr.answer, r.text))
    t1 = time.monotonic()
    grader = grader_info(cfg.grade_timeout)
    cache = GradeCache(out, grader, fresh=cfg.fresh)
    todo = [j for j, gk in enumerate(gkeys) if gk not in cache.grades]
    with _progress(cfg.progress) as bar:
        task = bar.add_task("grading", total=len(rows), completed=len(rows) - len(todo), rate="")
        fresh_grades = grade(
            [rows[j][3].text for j in todo],
            [rows[j][1].answer for j in todo],
            workers=cfg.grade_workers,
            timeout=cfg.grade_timeout,
            on_progress=lambda n: bar.update(task, advance=n),
            cut_off=[rows[j][3].finish_reason == "length" for j in todo],
        )
    cache.add(list(zip([gkeys[j] for j in todo], fresh_grades, strict=True)))
    graded = [cache.grades[gk] for gk in gkeys]
    grade_s = time.monotonic() - t1

    same = _same_answer(cfg.grade_timeout)
    per_bench: dict[str, list[ProblemResult]] = {}
    table_rows = []
    for start in range(0, len(rows), p.k):
        chunk = rows[start : start + p.k]
        gs = graded[start : start + p.k]
        b, pr = chunk[0][0], chunk[0][1]
        answers = [g.extracted for g in gs]
        correct = [g.correct for g in gs]
        maj = majority_vote(answers, correct, same)
        per_bench.setdefault(b.name, []).append(
            ProblemResult(
                n=p.k,
                correct=sum(correct),
                maj_correct=maj,
                no_answer=sum(a is None for a in answers),
                truncated=sum(r.finish_reason == "length" for *_, r in chunk),
                tokens=sum(r.tokens for *_, r in chunk),
            )
        )
        for (_b, _pr, i, r), g in zip(chunk, gs, strict=True):
            table_rows.append(
                {
                    "benchmark": b.name,
                    "problem_id": pr.id,
                    "sample_index": i,
                    "gold": pr.answer,
                    "response": r.text,
                    "extracted_answer": g.extracted,
                    "correct": g.correct,
                    "reason": g.reason,
                    "length": r.tokens,
                    "finish_reason": r.finish_reason,
                }
            )
    report = {
        "model": cfg.model,
        "sampler": sampler.describe(),
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "grader": grader,
        "prompt": {
            **cfg.prompt.describe(),
            "example": items[0][3] if items else None,
        },
        "sampling": {"k": p.k, **p.fingerprint()},
        "benchmarks": {},
        "overall": summarize([r for rs in per_bench.values() for r in rs], p.k, cfg.pass_ks),
        "samples": {
            "total": total,
            "from_store": cached,
            "drawn_now": len(jobs),
            "sample_s": round(sample_s, 2),
            "graded_now": len(todo),
            "grade_s": round(grade_s, 2),
        },  # fmt: skip
    }
    usage = getattr(sampler, "usage", None)
    if usage:
        report["samples"]["requests"] = usage
    for b in benchmarks:
        report["benchmarks"][b.name] = {
            "source": b.source,
            **({"notes": b.notes} if b.notes else {}),
            **summarize(per_bench[b.name], p.k, cfg.pass_ks),
        }
    if len(per_bench) > 1:
        report["overall"]["macro_avg"] = sum(v[f"avg@{p.k}"] for v in report["benchmarks"].values()) / len(
            per_bench
        )
    curves = {name: pass_curve(rs) for name, rs in per_bench.items()}
    report["files"] = _write_outputs(out, report, table_rows, curves)
    return report


def _write_outputs(out: Path, report: dict, rows: list[dict], curves: dict[str, dict[int, float]]) -> dict:
    import pyarrow as pa

    from mathdata.export import _write_atomic

    files = {
        "report": str(out / "report.json"),
        "samples": str(out / "samples.parquet"),
        "table": str(out / "report.md"),
        "plot": str(out / "pass_at_k.png"),
    }
    _write_atomic(pa.Table.from_pylist(rows), out / "samples.parquet")
    atomic_write(out / "report.md", markdown_table(report))
    try:
        atomic_write(out / "pass_at_k.png", plot_pass_at_k(curves, report))
    except ImportError as e:  # matplotlib is a core dependency; say so rather than fail the run
        files["plot"] = f"not drawn: {e}"
    atomic_write(out / "report.json", json.dumps({**report, "files": files}, indent=1, ensure_ascii=False))
    return files


def _pct(x) -> str:
    return "" if x is None else f"{100 * x:.1f}"


def markdown_table(report: dict) -> str:
    """One row per benchmark plus overall: avg@k ± se, pass@j, maj@k, no answer, truncated, length."""
    k = report["sampling"]["k"]
    pass_cols = [c for c in report["overall"] if c.startswith("pass@")]
    head = [
        "benchmark",
        "problems",
        f"avg@{k}",
        *pass_cols,
        f"maj@{k}",
        "no answer %",
        "truncated %",
        "mean length",
    ]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    entries = list(report["benchmarks"].items())
    if len(entries) > 1:
        entries.append(("overall", report["overall"]))
    for name, m in entries:
        se = m.get(f"avg@{k}_se")
        avg = _pct(m[f"avg@{k}"]) + (f" ± {100 * se:.1f}" if se is not None else "")
        cells = [name, str(m["n_problems"]), avg, *[_pct(m.get(c)) for c in pass_cols], _pct(m[f"maj@{k}"]),
                 _pct(m["no_answer_rate"]), _pct(m["truncation_rate"]), f"{m['mean_length']:.0f}"]  # fmt: skip
        lines.append("| " + " | ".join(cells) + " |")
    s = report["sampling"]
    g = report["grader"]
    lines += [
        "",
        f"Model `{report['model']}`; prompt `{report['prompt']['name']}` ({report['prompt']['mode']}); "
        f"k={k}, temperature {s['temperature']}, top-p {s['top_p']}, max tokens {s['max_tokens']}. "
        f"Percentages; avg@{k} ± one standard error over problems. Grader: dapo-toolkit verifiers "
        f"{g['version']} (source {g['source_sha256']}, math-verify {g['math_verify']}).",
    ]
    return "\n".join(lines) + "\n"


def plot_pass_at_k(curves: dict[str, dict[int, float]], report: dict) -> bytes:
    """PNG bytes: pass@j against j (log2 axis), one line per benchmark."""
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.2), dpi=120)
    try:
        ticks: set[int] = set()
        for name, curve in curves.items():
            js = sorted(curve)
            ticks |= set(js)
            n = report["benchmarks"].get(name, {}).get("n_problems")
            ax.plot(
                js, [100 * curve[j] for j in js], marker="o", label=f"{name} ({n} problems)" if n else name
            )
        ax.set_xscale("log", base=2)
        ax.set_xticks(sorted(ticks), [str(j) for j in sorted(ticks)])
        ax.minorticks_off()
        ax.set_xlabel("k (samples)")
        ax.set_ylabel("pass@k (%)")
        ax.set_ylim(0, 100)
        ax.grid(alpha=0.3)
        ax.legend()
        s = report["sampling"]
        ax.set_title(
            f"{report['model']}: pass@k (T={s['temperature']}, top-p={s['top_p']}, {report['prompt']['name']} prompt)",
            fontsize=9,
        )
        buf = io.BytesIO()
        fig.savefig(buf, format="png", bbox_inches="tight")
        return buf.getvalue()
    finally:
        plt.close(fig)
