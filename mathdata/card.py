"""Dataset cards in the Hugging Face format, generated from the data and the stage reports.

A card is never written by hand: every count in it comes from the table and the dedup and
decontamination reports, so it cannot drift from the data it describes.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import yaml

from mathdata.files import atomic_write
from mathdata.schema import FIELDS, SCHEMA_VERSION

_SIZES = [
    (1_000, "n<1K"),
    (10_000, "1K<n<10K"),
    (100_000, "10K<n<100K"),
    (1_000_000, "100K<n<1M"),
    (10_000_000, "1M<n<10M"),
    (100_000_000, "10M<n<100M"),
]


def size_category(n: int) -> str:
    """The Hugging Face size bucket for n rows."""
    return next((label for limit, label in _SIZES if n < limit), "n>1T")


def _table_md(header: list[str], rows: list[list]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += [
        "| " + " | ".join(str(c).replace("|", "\\|").replace("\n", " ") for c in r) + " |" for r in rows
    ]
    return "\n".join(lines)


def _counts(table: pa.Table, column: str, top: int = 15) -> list[list]:
    c = Counter(table.column(column).to_pylist())
    return [[k if k is not None else "(unknown)", f"{v:,}"] for k, v in c.most_common(top)]


def _data_files(data_files: str | dict[str, str]) -> list[dict]:
    """The card's `configs.data_files`: one entry per split (a bare pattern is the train split)."""
    if isinstance(data_files, str):
        return [{"split": "train", "path": data_files}]
    return [{"split": k, "path": v} for k, v in data_files.items()]


def _files_section(data_files: str | dict[str, str], kept: pa.Table, repeat: int = 1) -> str:
    """Which file holds which split, with its row count: a verl user points train_files at the
    train file and val_files at the held-out one, and no file named train holds another split."""
    if isinstance(data_files, str):
        return ""
    from mathdata.export import split_counts

    counts = split_counts(kept)
    rows = [[f"`{path}`", split, f"{counts.get(split, 0):,}", f"{counts.get(split, 0) * repeat:,}"]
            for split, path in data_files.items()]  # fmt: skip
    use = ", ".join(
        f"`data.{key}={data_files[split]}`"
        for split, key in (("train", "train_files"), ("test", "val_files"))
        if split in data_files
    )
    return (
        "## Files\n\nOne file (or set of shards) per split; a file holds the rows of its split only "
        "(a record whose source names no split is `train`)."
        + (
            f" Every problem is written {repeat} times in a row (`export.repeat: {repeat}`), so a file holds "
            f"{repeat}x as many rows as problems."
            if repeat > 1
            else ""
        )  # fmt: skip
        + "\n\n"
        + _table_md(["file", "split", "problems", "rows"], rows)
        + (f"\n\nverl: {use}.\n" if use else "\n")
    )


def _languages(kept: pa.Table) -> list[str]:
    """["en"], ["zh"] or both, by the share of kept problems written in Chinese (a CMATH build is no "en")."""
    texts = (
        pc.coalesce(kept.column("problem"), kept.column("original_problem")).to_pylist() if len(kept) else []
    )
    share = sum(bool(_CJK.search(t or "")) for t in texts) / max(len(texts), 1)
    return ["zh"] if share > 0.9 else ["en", "zh"] if share > 0.05 else ["en"]


_CJK = re.compile("[\u4e00-\u9fff]")


def _header(name: str, kept: int, license: str, data_files: str | dict[str, str], language: list[str]) -> str:
    meta = {
        "license": license,
        "pretty_name": name,
        "language": language,
        "task_categories": ["text-generation", "question-answering"],
        "tags": ["math", "reinforcement-learning", "verifiable-rewards", "integer-answers"],
        "size_categories": [size_category(kept)],
        "configs": [{"config_name": "default", "data_files": _data_files(data_files)}],
    }
    return "---\n" + yaml.safe_dump(meta, sort_keys=False, allow_unicode=True) + "---\n"


def _solver_section(kept: pa.Table) -> str:
    """How many kept answers a solver model confirmed, and how many nobody cross-checked ("" when
    no row says: rows that never went through a build's validate step)."""
    import json

    if "checks" not in kept.column_names or not len(kept):
        return ""
    confirmed = unchecked = other = 0
    for raw in kept.column("checks").to_pylist():
        try:
            checks = json.loads(raw) if raw else {}
        except (TypeError, ValueError):
            checks = {}
        if not isinstance(checks, dict) or "solver" not in checks:
            continue
        solver = checks["solver"]
        if isinstance(solver, dict):
            confirmed += 1
        elif solver is None:
            unchecked += 1
        else:
            other += 1
    text = (
        f"- {confirmed:,} kept answers agree with a majority of solver samples (`checks.solver`).\n"
        f"- **{unchecked:,} kept answers were not cross-checked by a solver** (`checks.solver: null`, "
        "e.g. an offline build): their answer is the source's key, rewritten by exact rules, and a wrong "
        "key in the source would not have been caught."
    )
    if not confirmed + unchecked + other:
        return ""
    return text + (f"\n- {other:,} rows carry another solver value." if other else "")


def _ordered(keys, first: tuple[str, ...]) -> list[str]:
    """`first` (those present) in that order, then the other keys sorted."""
    keys = list(keys)
    return [k for k in first if k in keys] + sorted(k for k in keys if k not in first)


def render_card(
    *,
    name: str,
    table: pa.Table,
    steps: list[dict],
    dedup_report: dict | None = None,
    decontam_report: dict | None = None,
    sources: list | None = None,
    license: str = "other",
    data_files: str | dict[str, str] = "*.parquet",
    description: str | None = None,
    repeat: int = 1,
) -> str:
    """The card's Markdown text (YAML header + sections); `repeat`: copies of each problem per file."""
    status = table.column("status")
    kept_mask = pc.equal(status, "kept")
    kept = table.filter(kept_mask)
    n_kept = len(kept)
    out = [_header(name, n_kept, license, data_files, _languages(kept))]
    out.append(f"# {name}\n")
    out.append(
        f"{description or 'Math problems with integer answers for reinforcement learning with verifiable rewards.'}\n\n"
        f"Generated by `mathdata.card` on {datetime.now(UTC):%Y-%m-%d} from the data itself "
        f"(record schema v{SCHEMA_VERSION}); regenerate it with `dapo data card` instead of editing it.\n"
    )
    out.append(f"**{n_kept:,} kept problems** out of {len(table):,} records.\n")
    files = _files_section(data_files, kept, repeat)
    if files:
        out.append(files)

    out.append("## Sources\n")
    by_src = Counter(table.column("source").to_pylist())
    kept_src = Counter(kept.column("source").to_pylist())
    lic = {}
    for s, li in zip(table.column("source").to_pylist(), table.column("license").to_pylist(), strict=True):
        if li:
            lic.setdefault(s, set()).add(li)
    out.append(
        _table_md(
            ["source", "records", "kept", "licence"],
            [
                [s, f"{n:,}", f"{kept_src.get(s, 0):,}", ", ".join(sorted(lic.get(s, []))) or "-"]
                for s, n in by_src.most_common()
            ],
        )
        + "\n"
    )
    # these first, then the rest by name: the same card from a dict read back from JSON (keys sorted)
    first = ("kind", "name", "in", "rows", "records", "kept")
    for s in sources or []:
        out.append(f"- {s if isinstance(s, str) else ', '.join(f'{k}: {s[k]}' for k in _ordered(s, first))}")
    out.append("")

    out.append("## Pipeline steps\n")
    keys = _ordered(dict.fromkeys(k for st in steps for k in st if k != "name"), first)
    out.append(
        _table_md(["step", *keys], [[st.get("name", "?"), *[st.get(k, "") for k in keys]] for st in steps])
        + "\n"
    )

    out.append("## Filters and reject reasons\n")
    reasons = Counter(s.split(":", 1)[0] for s in status.to_pylist() if s != "kept")
    if reasons:
        out.append(_table_md(["reason", "records"], [[r, f"{n:,}"] for r, n in reasons.most_common()]) + "\n")
        out.append(
            "Rejected records stay in the Parquet with their reason in `status`; nothing is dropped silently.\n"
        )
    else:
        out.append("No record was rejected.\n")

    solver = _solver_section(kept)
    if solver:  # only for records that went through a build's validate step
        out.append("## Answer cross-checks\n")
        out.append(solver + "\n")

    out.append("## Deduplication\n")
    if dedup_report:
        r, p = dedup_report, dedup_report.get("params", {})
        out.append(
            f"Exact (normalised text) and near-duplicate (MinHash LSH, Jaccard >= {p.get('threshold')}, "
            f"{p.get('num_perm')} permutations, word {p.get('shingle_size')}-gram shingles, same numbers required: "
            f"{p.get('same_numbers')}) removal kept {r['kept_out']:,} of {r['kept_in']:,} problems: "
            f"{r['exact_dropped']:,} exact and {r['near_dropped']:,} near duplicates marked in {r['clusters']:,} "
            f"clusters (largest {r['largest_cluster']}). Representative per cluster: official source, then with "
            f"a solution, then the longest statement.\n"
        )
    else:
        out.append("No dedup report was given for this card.\n")

    out.append("## Decontamination\n")
    if decontam_report:
        r = decontam_report
        refs = ", ".join(f"{k} ({v})" for k, v in r.get("references", {}).items())
        out.append(
            f"Word {r['n']}-gram overlap (numbers masked, boilerplate n-grams ignored, min overlap "
            f"{r['min_overlap']}) against: {refs}. {r['contaminated']:,} of {r['checked']:,} checked rows "
            f"were marked contaminated.\n"
        )
        if r.get("by_benchmark"):
            out.append(
                _table_md(["benchmark", "rows marked"], [[b, n] for b, n in r["by_benchmark"].items()]) + "\n"
            )
        if r.get("items_hit"):
            out.append(
                "Items hit: "
                + ", ".join(r["items_hit"][:50])
                + ("..." if len(r["items_hit"]) > 50 else "")
                + "\n"
            )
    else:
        out.append(
            "No decontamination report was given for this card; do not evaluate on overlapping sets.\n"
        )

    out.append("## Contents\n")
    answers = (
        pc.cast(pc.drop_null(kept.column("answer")), pa.float64()).to_numpy() if n_kept else np.array([])
    )
    lengths = (
        pc.utf8_length(pc.coalesce(kept.column("problem"), kept.column("original_problem"))).to_numpy(
            zero_copy_only=False
        )
        if n_kept
        else np.array([])
    )
    if len(answers):
        out.append(
            f"- answers: {len(answers):,} integers from {int(answers.min())} to {int(answers.max())}, "
            f"median {int(np.median(answers))}"
        )
    if len(lengths):
        p50, p90, p99 = np.percentile(lengths, [50, 90, 99])
        out.append(
            f"- statement length (characters): median {p50:.0f}, p90 {p90:.0f}, p99 {p99:.0f}, max {lengths.max()}"
        )
    out.append("")
    for col, title in (("transform", "transform"), ("competition", "competition"), ("year", "year")):
        if n_kept and kept.column(col).null_count < n_kept:
            out.append(f"By {title} (kept):\n\n" + _table_md([title, "problems"], _counts(kept, col)) + "\n")

    out.append("## Schema\n")
    out.append(
        _table_md(
            ["column", "type", "required", "meaning"],
            [[f"`{n}`", str(t), "yes" if not nullable else "", doc] for n, t, nullable, doc in FIELDS],
        )
        + "\n"
    )
    out.append(
        "Exports: `dapo data export verl` writes the verl / DAPO-Math-17K layout (`prompt` chat messages with "
        "the DAPO template, `reward_model.ground_truth`, `extra_info`), `dapo data export trl` a TRL layout.\n"
    )
    out.append("## Intended use\n")
    out.append(
        "Training and evaluating language models with reinforcement learning from verifiable rewards "
        "(DAPO, GRPO and relatives): every kept problem has one integer answer that a rule-based verifier "
        "can check.\n"
    )
    out.append("## Limitations\n")
    out.append(
        "- Rewritten problems (transform other than `identity`) ask for an integer derived from the original "
        "answer; their wording was produced by rules or an LLM and may read less naturally than the original.\n"
        "- Near-duplicate detection uses surface similarity (MinHash over word n-grams); paraphrases that share "
        "few words are not caught, and problems that differ only in their numbers are deliberately kept apart.\n"
        "- Decontamination covers only the reference sets named above; other evaluation sets may overlap.\n"
        "- Competition problems keep the licence of their source (see Sources).\n"
    )
    return "\n".join(out)


def write_card(
    out_dir_or_file: str | os.PathLike,
    *,
    name: str,
    table: pa.Table,
    steps: list[dict],
    dedup_report: dict | None = None,
    decontam_report: dict | None = None,
    sources: list | None = None,
    license: str = "other",
    data_files: str | dict[str, str] = "*.parquet",
    description: str | None = None,
    repeat: int = 1,
) -> Path:
    """Write the card to `<dir>/README.md` (or the given .md path) atomically; return the path."""
    out = Path(out_dir_or_file)
    if out.suffix.lower() != ".md":
        out = out / "README.md"
    text = render_card(
        name=name,
        table=table,
        steps=steps,
        dedup_report=dedup_report,
        decontam_report=decontam_report,
        sources=sources,
        license=license,
        data_files=data_files,
        description=description,
        repeat=repeat,
    )
    atomic_write(out, text)
    return out


def store_reports(src: str | os.PathLike) -> dict[str, dict | None]:
    """The dedup and decontamination reports saved in a store directory ({"dedup": ..., "decontam": ...};
    None where there is none)."""
    import json

    src, reports = Path(src), {}
    for key in ("dedup", "decontam"):
        f = src / f"_{key}_report.json" if src.is_dir() else None
        reports[key] = json.loads(f.read_text()) if f and f.exists() else None
    return reports


def write_store_card(
    src: str | os.PathLike,
    out_dir_or_file: str | os.PathLike,
    *,
    name: str,
    reports: dict[str, dict | None],
    license: str = "other",
) -> Path:
    """`write_card` for a whole store (one step, "store"), with its saved reports (`store_reports`).
    The records of a `dapo build` get the build's own card: its steps, sources, files and reports, read
    from the build folder's summary.json."""
    import json

    from mathdata.store import read_table

    table = read_table(src)
    summary = Path(src).parent / "summary.json"
    built = json.loads(summary.read_text()) if Path(src).name == "records" and summary.exists() else {}
    if "card" in built:
        return write_card(out_dir_or_file, name=name, table=table, license=license,
                          dedup_report=built["reports"].get("dedup"), decontam_report=built["reports"].get("decontam"),
                          **built["card"])  # fmt: skip
    return write_card(
        out_dir_or_file,
        name=name,
        table=table,
        steps=[{"name": "store", "rows": len(table)}],
        dedup_report=reports["dedup"],
        decontam_report=reports["decontam"],
        license=license,
    )


def bundled_benchmarks_card(out_dir_or_file: str | os.PathLike = "data_cards/mathdata-benchmarks") -> Path:
    """The example card in data_cards/: the four bundled evaluation sets, deduplicated and
    checked against each other (each set against the other three), as `dapo data` would."""
    from mathdata.benchmarks import LICENSES, list_benchmarks, load_benchmark
    from mathdata.decontam import decontaminate
    from mathdata.dedup import dedup

    names = list_benchmarks()
    parts = [load_benchmark(n) for n in names]
    table = pa.concat_tables(parts)
    d = dedup(table)
    hits: dict = {
        "n": None,
        "references": {},
        "checked": 0,
        "contaminated": 0,
        "by_benchmark": {},
        "items_hit": [],
    }
    marked = []
    for name in names:
        part = d.table.filter(pc.equal(d.table.column("source"), f"benchmark:{name}"))
        t, rep = decontaminate(part, [o for o in names if o != name])
        marked.append(t)
        hits.update({k: rep[k] for k in ("n", "min_overlap")})
        hits["references"] = {n: len(p) for n, p in zip(names, parts, strict=True)}
        hits["checked"] += rep["checked"]
        hits["contaminated"] += rep["contaminated"]
        for b, c in rep["by_benchmark"].items():
            hits["by_benchmark"][b] = hits["by_benchmark"].get(b, 0) + c
        hits["items_hit"] += rep["items_hit"]
    final = pa.concat_tables(marked)
    steps = [
        {
            "name": "import bundled JSONL",
            "records": len(table),
            "kept": int(pc.sum(pc.equal(table.column("status"), "kept")).as_py()),
        },
        {"name": "dedup", "records": len(d.table), "kept": d.report["kept_out"]},
        {
            "name": "decontaminate (each set vs the others)",
            "records": len(final),
            "kept": int(pc.sum(pc.equal(final.column("status"), "kept")).as_py()),
        },
    ]
    return write_card(
        out_dir_or_file,
        name="mathdata-benchmarks",
        table=final,
        steps=steps,
        dedup_report=d.report,
        decontam_report=hits,
        license="other",
        sources=[f"{n}: mathdata/benchmarks/{n}.jsonl ({LICENSES.get(n, 'see source')})" for n in names],
        description="The evaluation sets bundled with mathdata (AIME 2024, AIME 2025, AMC 2023, MATH-500) as "
        "records. For evaluation and decontamination only: never train on them.",
    )
