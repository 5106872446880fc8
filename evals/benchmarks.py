"""Benchmarks to evaluate on: a bundled set by name (aime24, aime25, amc23, math500) or any
Parquet/JSONL file, either a verl/DAPO-Math Parquet (prompt, reward_model, extra_info; read by
mathdata.verl, the trainer's reader too) or a table with a problem/answer(/id) mapping, or a
mathdata records store (its kept rows). Errors name the file, the row and the field.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from mathdata.files import StoreError


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
        split, notes = _held_out(Counter((r.get("extra_info") or {}).get("split") for r in rows), split, path)
        problems, more = _from_verl(rows, path, split)
        notes += more
    else:
        if _is_records(rows):  # a mathdata records store: its kept rows, with their final text
            kept = [
                {**r, "problem": r.get("problem") or r.get("original_problem"), "split": r.get("split") or "train"}
                for r in rows
                if r.get("status") == "kept"
            ]  # fmt: skip
            if len(kept) < len(rows):
                notes.append(f"{len(rows) - len(kept)} records not kept (status other than 'kept') skipped")
            rows = kept
            split, more = _held_out(Counter(r["split"] for r in rows), split, path)
            notes += more
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


def _held_out(splits: Counter, split: str | None, path: Path) -> tuple[str | None, list[str]]:
    """The split to score when none is given: a corpus with a training split and one other scores the
    other (a score over training rows is no held-out result); several others: the caller must choose."""
    if split is not None or len(splits) < 2 or "train" not in splits:
        return split, []
    others = sorted((k for k in splits if k != "train"), key=str)
    if len(others) > 1:
        listed = ", ".join(f"{k!r} ({splits[k]})" for k in others)
        raise StoreError(
            f"{path}: holds train rows and several held-out splits ({listed}); fix: pass --split NAME"
        )
    return others[0], [
        f"scored split {others[0]!r} ({splits[others[0]]} rows); its {splits['train']} train rows are left out "
        "(--split train scores them)"
    ]


def _from_verl(rows: list[dict], path: Path, split: str | None) -> tuple[list[Problem], list[str]]:
    from mathdata.verl import verl_rows

    if split is not None:
        present = Counter((r.get("extra_info") or {}).get("split") for r in rows)
        if not any((r.get("extra_info") or {}).get("split") == split for r in rows):
            listed = ", ".join(f"{k!r} ({v} rows)" for k, v in sorted(present.items(), key=str)) or "none"
            raise StoreError(
                f"{path}: no rows with extra_info.split == {split!r}; the file holds splits {listed}. "
                "Pass one of those to --split, or build a held-out split (a source with split: test)"
            )
    out, seen, repeats = [], set(), 0
    for row in verl_rows(rows, path, split=split):
        if row.key in seen:  # an avg@k export repeats each problem k times: sample it once, k times
            repeats += 1
            continue
        seen.add(row.key)
        msgs = row.messages
        problem = row.extra.get("raw_problem") or msgs[-1]["content"]
        gold = _gold(row.gold)
        out.append(
            Problem(row.key, problem, gold, [dict(role=m["role"], content=m["content"]) for m in msgs])
        )
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
