"""`dapo rules-report`: what the offline steps of a build do to a file of problems.

It reads the file through the same import source as `dapo build` (so GSM8K's `#### N`, list
answers and column mapping behave identically) and runs the same step objects (classify,
rules-only rewrite, validate) with the build's default config or a given one. A record
counts as *rewritten* when it leaves validate kept, as *needs LLM* when the rules left it
for the LLM stage, and as *rejected* otherwise, each with its reason, per class and per source.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from pipelines.runner import status_key, status_reason
from pipelines.steps import checks_of, make_steps


class ReportInputError(ValueError):
    """Bad input for the report: one line naming the file, field and fix."""


def _outcome(status: str) -> tuple[str, str]:
    if status == "kept":
        return "rewritten", ""
    if status.startswith("needs_llm"):
        return "needs_llm", _reason_key(status.partition(":")[2].strip())
    if status.startswith("rejected"):
        return "rejected", _reason_key(status.partition(":")[2].strip()) or "rejected"
    return "rejected", status_reason(status)


def _reason_key(reason: str) -> str:
    """Group reasons: drop the specifics in parentheses and after a colon."""
    return re.sub(r"\s*\(.*\)$|:.*$", "", reason).strip()


def offline_steps(cfg=None) -> list:
    """classify, rewrite (rules only) and validate, configured as `cfg` (default: a build's defaults)."""
    from types import SimpleNamespace

    from pipelines.steps import ClassifyConfig, RewriteConfig, ValidateConfig

    classify = cfg.classify if cfg else ClassifyConfig()
    rewrite = cfg.rewrite if cfg else RewriteConfig()
    validate = cfg.validate_ if cfg else ValidateConfig()
    sections = SimpleNamespace(
        classify=classify,
        rewrite=rewrite.model_copy(update={"llm": False}),
        validate_=validate.model_copy(
            update={"solver": validate.solver.model_copy(update={"enabled": False})}
        ),
    )
    return make_steps(sections, only=("classify", "rewrite", "validate"))


def run_offline_steps(records: list[dict], cfg=None) -> list[dict]:
    for step in offline_steps(cfg):
        records = step(records)
    return records


def report_records(records: list[dict]) -> dict:
    """Counts over records that went through the offline steps."""
    by_rule: Counter = Counter()
    needs_llm: Counter = Counter()
    rejected: Counter = Counter()
    by_class: Counter = Counter()
    by_source: dict[str, Counter] = {}
    for r in records:
        outcome, reason = _outcome(r["status"])
        if outcome == "rewritten":
            by_rule[r.get("transform") or "none"] += 1
        elif outcome == "needs_llm":
            needs_llm[reason] += 1
        else:
            rejected[reason] += 1
        cls = checks_of(r).get("classify", {}).get("verifiability") or status_key(r["status"])
        by_class[cls] += 1
        src = by_source.setdefault(r.get("source") or "?", Counter())
        src[outcome] += 1
    return {
        "total": len(records),
        "rewritten": sum(by_rule.values()),
        "needs_llm": sum(needs_llm.values()),
        "rejected": sum(rejected.values()),
        "by_rule": dict(by_rule.most_common()),
        "needs_llm_reasons": dict(needs_llm.most_common()),
        "rejected_reasons": dict(rejected.most_common()),
        "by_class": dict(by_class.most_common()),
        "by_source": {k: dict(v) for k, v in sorted(by_source.items())},
    }


def rules_report(answers: list[tuple[str, str | None]], cfg=None) -> dict:
    """The report for (problem, original_answer) pairs, as the build's offline steps see them."""
    from mathdata.schema import new_record

    records = [
        new_record(source="pairs", original_problem=p, original_answer=a, source_key=f"pairs#{i}")
        for i, (p, a) in enumerate(answers)
    ]
    return report_records(run_offline_steps(records, cfg))


def read_file_records(
    path: str | Path,
    *,
    mapping: dict[str, str] | None = None,
    problem_field: str | None = None,
    answer_field: str | None = None,
) -> list[dict]:
    """The file's rows as the build's import source reads them (errors: one line, file/row/field).

    `mapping` is {field: column} (problem, answer, id, ...; mathdata.mapping); fields it does not
    name are found by their usual column names. `problem_field` / `answer_field` are its old form."""
    from pipelines.sources.base import AcquireContext
    from pipelines.sources.importer import (
        _FILE_SUFFIXES,
        DEFAULT_NAMES,
        ImportDataError,
        ImportSource,
        read_rows,
    )

    path = Path(path)
    if path.suffix.lower() not in _FILE_SUFFIXES:
        raise ReportInputError(f"{path}: unsupported file type; use one of {', '.join(_FILE_SUFFIXES)}")
    if not path.is_file():
        raise ReportInputError(f"{path}: no such file")
    try:
        first = next(iter(read_rows(path)), None)
        if first is None:
            raise ReportInputError(f"{path}: no rows")
        where, row = first
        columns = list(row)
        named = dict(mapping or {})
        named.update({k: v for k, v in (("problem", problem_field), ("answer", answer_field)) if v})
        mapping = None
        if named:
            from mathdata.mapping import FIELD_ALIASES

            # the named fields, and the usual names for everything else (as the build's import reads them)
            auto = {t: next((c for c in names if c in columns), None) for t, names in DEFAULT_NAMES.items()}
            auto.update({FIELD_ALIASES.get(k, k): v for k, v in named.items()})
            if auto["original_problem"] is None:
                raise ReportInputError(
                    f"{where}: no problem field among {columns}; fix: pass --mapping problem=COLUMN"
                )
            mapping = {target: col for target, col in auto.items() if col is not None}
        elif not any(n in columns for n in DEFAULT_NAMES["original_problem"]):
            raise ReportInputError(
                f"{where}: no problem field among {columns}; fix: pass --mapping problem=COLUMN"
            )
        elif not any(n in columns for n in DEFAULT_NAMES["original_answer"]):
            raise ReportInputError(
                f"{where}: no answer field among {columns}; fix: pass --mapping answer=COLUMN"
            )
        name = re.sub(r"[^\w.\-]", "_", path.stem) or "file"
        src = ImportSource(kind="import", name=name, path=str(path.resolve()), mapping=mapping)
        return src.acquire(AcquireContext(path.parent, path.parent))
    except ImportDataError as e:
        raise ReportInputError(str(e)) from None


def rules_report_file(
    path,
    *,
    mapping: dict[str, str] | str | None = None,
    problem_field: str | None = None,
    answer_field: str | None = None,
    cfg=None,
) -> dict:
    """`report_records` over a JSONL/JSON/Parquet/CSV file read like `dapo build` reads it.

    `mapping` is {field: column} or its command-line text `problem=COL,answer=COL`."""
    if isinstance(mapping, str):
        from mathdata.mapping import FIELD_ALIASES, parse_mapping
        from pipelines.sources.importer import TARGETS

        fields = [*FIELD_ALIASES, *(t for t in TARGETS if t not in FIELD_ALIASES.values())]
        mapping = parse_mapping(mapping, fields=fields)
    records = read_file_records(path, mapping=mapping, problem_field=problem_field, answer_field=answer_field)
    return report_records(run_offline_steps(records, cfg))


def print_rules_report(report: dict, title: str) -> None:
    """`dapo rules-report`'s tables: outcome and reason counts, the classes, a line per source."""
    from rich.console import Console
    from rich.table import Table

    t = Table(title=f"the build's offline steps on {title}: {report['total']} rows")
    t.add_column("outcome")
    t.add_column("reason / rule")
    t.add_column("count", justify="right")
    for group, key in (
        ("rewritten", "by_rule"),
        ("needs LLM", "needs_llm_reasons"),
        ("rejected", "rejected_reasons"),
    ):
        for reason, n in report[key].items():
            t.add_row(group, reason, str(n))
    Console().print(t)
    c = Table(title="per verifiability class")
    c.add_column("class")
    c.add_column("count", justify="right")
    for cls, n in report["by_class"].items():
        c.add_row(cls, str(n))
    Console().print(c)
    for src, row in report["by_source"].items():
        print(f"{src}: " + ", ".join(f"{k} {v}" for k, v in sorted(row.items())))
    print(f"rewritten {report['rewritten']}, needs LLM {report['needs_llm']}, rejected {report['rejected']}")
