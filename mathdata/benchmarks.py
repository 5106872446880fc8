"""The bundled evaluation sets (mathdata/benchmarks/*.jsonl) as records.

They serve twice: as decontamination references and, exported with `to_verl(repeat=k)`, as
avg@k evaluation files. Answers are canonicalised with verifiers.canonical_integer (AIME's
"025" -> "25", AMC's 27.0 -> "27"); a problem whose answer is not an integer keeps its raw
answer in original_answer and gets status "non_integer_answer" (so exports skip it).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import pyarrow as pa

from mathdata.schema import SchemaError, new_record, to_table

BENCHMARK_DIR = Path(__file__).resolve().parent / "benchmarks"
LICENSES = {
    "aime24": "MAA (AoPS wiki)",
    "aime25": "MAA (AoPS wiki)",
    "amc23": "MAA (AoPS wiki)",
    "math500": "MIT",
}
_AOPS_URL = re.compile(r"/(\d{4})_(AIME|AMC)_?(\w+?)_Problems/Problem_(\d+)")


def list_benchmarks() -> list[str]:
    """Names of the bundled sets (file stems): aime24, aime25, amc23, math500."""
    return sorted(p.stem for p in BENCHMARK_DIR.glob("*.jsonl"))


def read_jsonl(path: Path) -> list[dict]:
    """Rows of a JSON Lines file; a bad line is a SchemaError naming file and line (verifiers.files.iter_jsonl)."""
    from verifiers.files import iter_jsonl

    return [row for _, row in iter_jsonl(path, error=SchemaError)]


def _answer_text(value) -> str | None:
    """The answer as acquired, as text (AMC's 27.0 stays "27.0"; canonical_integer makes it "27")."""
    return None if value is None else str(value)


def _provenance(name: str, row: dict, lineno: int) -> dict:
    """competition, year, problem_number and source_ref from the row's AoPS URL or its fields."""
    url = row.get("url")
    m = _AOPS_URL.search(url or "")
    if m:
        year, contest, part, number = m.groups()
        return {
            "competition": f"{contest} {part}",
            "year": int(year),
            "problem_number": number,
            "source_ref": url,
        }
    if name == "aime25":
        return {"competition": "AIME", "year": 2025, "source_ref": f"{name}.jsonl#L{lineno}"}
    if name == "math500":
        return {"competition": "MATH", "source_ref": row.get("unique_id") or f"{name}.jsonl#L{lineno}"}
    return {"source_ref": url or f"{name}.jsonl#L{lineno}"}


def item_key(record: dict) -> str:
    """A short human name for one benchmark item, e.g. '2024 AIME I #1' or 'test/algebra/1.json'."""
    if record.get("year") and record.get("problem_number"):
        return f"{record['year']} {record['competition']} #{record['problem_number']}"
    return str(record.get("source_ref"))


def load_benchmark(name: str) -> pa.Table:
    """One bundled set as a table of records (split "test", source "benchmark:<name>")."""
    from verifiers import canonical_integer

    path = BENCHMARK_DIR / f"{name}.jsonl"
    if not path.exists():
        raise KeyError(f"unknown benchmark {name!r}; bundled: {list_benchmarks()}")
    retrieved = datetime.fromtimestamp(path.stat().st_mtime, UTC)
    records = []
    for lineno, row in enumerate(read_jsonl(path), 1):
        problem = row.get("problem") or row.get("question")
        if not problem:
            raise SchemaError(f"{path}:{lineno}: no 'problem' or 'question' field")
        raw = _answer_text(row.get("answer"))
        answer = canonical_integer(raw) if raw is not None else None
        solution = row.get("solution")
        records.append(
            new_record(
                source=f"benchmark:{name}",
                original_problem=problem,
                original_answer=raw,
                problem=problem,
                answer=answer,
                transform="identity" if answer is not None else None,
                solution=solution if isinstance(solution, str) else None,
                status="kept" if answer is not None else "non_integer_answer",
                split="test",
                license=LICENSES.get(name),
                retrieved_at=retrieved,
                **_provenance(name, row, lineno),
            )
        )
    return to_table(records, where=str(path))
