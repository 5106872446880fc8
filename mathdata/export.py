"""Exports of kept records: verl / DAPO-Math-17K Parquet (what the trainer reads) and TRL.

Both are written atomically and load with `datasets.load_dataset("parquet", data_files=...)`.
A kept row without a canonical integer answer is an error naming the row, and nothing is
written: a reward computed against a bad ground truth silently poisons training.

Splits never leak: `split=` selects the rows of one split (a record whose source names no split
counts as `train`), `export_splits` writes one `<split>.parquet` per split (verl's `train_files` /
`val_files`), and a file named after a split refuses rows of another one.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from mathdata.schema import INTEGER_RE

DAPO_TEMPLATE = (
    "Solve the following math problem step by step. The last line of your response should be of the form "
    "Answer: $Answer (without quotes) where $Answer is the answer to the problem.\n\n{problem}\n\n"
    'Remember to put your answer on its own line after "Answer:".'
)


class ExportError(ValueError):
    """The records cannot be exported as asked; the message names the row and the fix."""


def dapo_prompt(problem: str) -> str:
    """The DAPO user message for one problem (DESIGN.md, exactly)."""
    return DAPO_TEMPLATE.format(problem=problem)


def kept_with_answers(table: pa.Table) -> pa.Table:
    """The kept rows, `problem` filled from `original_problem`; ExportError (naming the row) when one
    has no canonical integer answer. Engines call it before exporting so the error comes first."""
    kept = table.filter(pc.equal(table.column("status"), "kept"))
    answers = kept.column("answer")
    ok = pc.fill_null(pc.match_substring_regex(answers, INTEGER_RE), False)
    if not pc.all(ok).as_py() and len(kept):
        row = int(pc.index(ok, False).as_py())
        raise ExportError(
            f"kept record {kept.column('id')[row].as_py()} (row {row} of the kept rows) has answer "
            f"{answers[row].as_py()!r}, not a canonical integer; fix: rewrite it to an integer answer or give it a "
            f"reject status. Nothing was written"
        )
    problem = pc.coalesce(kept.column("problem"), kept.column("original_problem"))
    return kept.set_column(kept.schema.get_field_index("problem"), "problem", problem)


DEFAULT_SPLIT = "train"  # the split of a record whose source names none
SPLIT_FILE_NAMES = ("train", "test", "validation", "val", "dev", "eval")


def row_splits(table: pa.Table) -> pa.Array:
    """Each row's split, `train` where the source named none (what the exports select on)."""
    if "split" not in table.column_names:
        return pa.array([DEFAULT_SPLIT] * len(table), pa.string())
    return pc.fill_null(table.column("split").combine_chunks(), DEFAULT_SPLIT)


def split_counts(table: pa.Table) -> dict[str, int]:
    """Kept-or-not rows per split (`row_splits`), sorted by split name."""
    from collections import Counter

    return dict(sorted(Counter(row_splits(table).to_pylist()).items()))


def select_split(table: pa.Table, split: str | None) -> pa.Table:
    """The rows of `split` (all rows for None); an error listing the splits there when none match."""
    if split is None:
        return table
    picked = table.filter(pc.equal(row_splits(table), split))
    if not len(picked) and len(table):
        have = ", ".join(f"{k} ({v})" for k, v in split_counts(table).items())
        raise ExportError(f"no kept records of split {split!r}; the kept records have splits: {have}")
    return picked


def split_file_name(split: str) -> str:
    """`<split>.parquet`, with characters that do not belong in a file name replaced."""
    import re

    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", split).strip("._") or "unnamed"
    return f"{safe}.parquet"


def _named_split(out_path: str | os.PathLike) -> str | None:
    """The split a file is named after (train.parquet, test-00001-of-00004.parquet), else None."""
    stem = Path(out_path).name.split(".", 1)[0].split("-", 1)[0].lower()
    return stem if stem in SPLIT_FILE_NAMES else None


def _check_file_split(kept: pa.Table, out_path: str | os.PathLike, split: str | None) -> None:
    """A file named after a split (train.parquet, test-00001-of-00004.parquet) holds that split only."""
    stem = _named_split(out_path)
    if stem is None or (split is not None and split == stem):
        return
    other = {k: v for k, v in split_counts(kept).items() if k != stem}
    if not other:
        return
    listed = ", ".join(f"{v} {k}" for k, v in other.items())
    if split is not None or stem not in split_counts(kept):  # the hint must be one that works
        fix = f"name the file after the split it holds ({split_file_name(split or next(iter(other)))})"
    else:
        fix = f"add --split {stem} (split={stem!r}) to export only those rows"
    raise ExportError(
        f"{out_path} is named after split {stem!r} but would hold {listed} rows of other splits; fix: "
        f"{fix}, or export to a directory to get one file per split. Nothing was written"
    )


def _write_atomic(table: pa.Table, out_path: str | os.PathLike) -> Path:
    out = Path(out_path)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp")
    try:
        pq.write_table(table, tmp, compression="zstd")
        os.replace(tmp, out)
    finally:
        if tmp.exists():
            tmp.unlink()
    return out


def _messages(problems: list[str]) -> pa.Array:
    return pa.array(
        [[{"role": "user", "content": dapo_prompt(p)}] for p in problems],
        pa.list_(pa.struct([("role", pa.string()), ("content", pa.string())])),
    )


def to_verl(
    table: pa.Table,
    out_path: str | os.PathLike,
    *,
    repeat: int = 1,
    data_source: str = "math_dapo",
    split: str | None = None,
    index_start: int = 0,
    difficulty: bool | None = None,
) -> Path:
    """verl / DAPO-Math-17K Parquet of the kept records (of `split` only, when given);
    `repeat=k` for an avg@k eval file.

    Columns: data_source, prompt ([{role: user, content: dapo_prompt(problem)}]), ability
    "MATH", reward_model {style: "rule", ground_truth}, extra_info {index, id, source,
    raw_problem, split[, difficulty {model, n, correct, pass_rate}]}. Each problem's k copies are
    adjacent and share extra_info.index, which counts from `index_start` (one shard of a sharded
    export starts where the previous one ended). `difficulty` None: the field is there when a row
    has one; True/False: always/never (every shard of a sharded export then has one schema).
    """
    if repeat < 1:
        raise ExportError(f"repeat must be >= 1, got {repeat}")
    kept = select_split(kept_with_answers(table), split)
    _check_file_split(kept, out_path, split)
    if not len(kept):
        raise ExportError(
            "no kept records to export (all rows rejected or the table is empty); nothing was written"
        )
    take = pa.array(np.repeat(np.arange(len(kept)), repeat))
    kept = kept.take(take)
    measured = difficulty_column(kept) if difficulty is not False else None  # when the build measured it
    if measured is None and difficulty:
        measured = pa.nulls(len(kept), DIFFICULTY_TYPE)
    difficulty = measured
    problems = kept.column("problem").to_pylist()
    n = len(kept)
    splits = row_splits(kept)
    out = pa.table(
        {
            "data_source": pa.array([data_source] * n, pa.string()),
            "prompt": _messages(problems),
            "ability": pa.array(["MATH"] * n, pa.string()),
            "reward_model": pa.StructArray.from_arrays(
                [pa.array(["rule"] * n, pa.string()), kept.column("answer").combine_chunks()],
                names=["style", "ground_truth"],
            ),
            "extra_info": pa.StructArray.from_arrays(
                [
                    pa.array(index_start + np.arange(n) // repeat, pa.int64()),
                    kept.column("id").combine_chunks(),
                    kept.column("source").combine_chunks(),
                    pa.array(problems, pa.string()),
                    splits,
                    *([difficulty] if difficulty is not None else []),
                ],
                names=["index", "id", "source", "raw_problem", "split"]
                + (["difficulty"] if difficulty is not None else []),
            ),
        }
    )
    return _write_atomic(out, out_path)


DIFFICULTY_TYPE = pa.struct(
    [("model", pa.string()), ("n", pa.int32()), ("correct", pa.int32()), ("pass_rate", pa.float64())]
)


def difficulty_column(kept: pa.Table) -> pa.Array | None:
    """`checks.difficulty` of each row as a struct column, or None when no row has one."""
    import json

    values = []
    for raw in kept.column("checks").to_pylist():
        try:
            d = json.loads(raw).get("difficulty") if raw else None
        except (TypeError, ValueError, AttributeError):
            d = None
        values.append(
            {k: d.get(k) for k in ("model", "n", "correct", "pass_rate")} if isinstance(d, dict) else None
        )
    if all(v is None for v in values):
        return None
    return pa.array(values, DIFFICULTY_TYPE)


def to_trl(table: pa.Table, out_path: str | os.PathLike, *, split: str | None = None) -> Path:
    """TRL / datasets Parquet: `prompt` (chat messages with the DAPO template), `answer`, `id`,
    `source`, `split` (of the kept records of `split` only, when given).

    TRL passes extra columns to reward functions, so `answer` reaches verifiers' TRL reward.
    """
    kept = select_split(kept_with_answers(table), split)
    _check_file_split(kept, out_path, split)
    if not len(kept):
        raise ExportError("no kept records to export; nothing was written")
    out = pa.table(
        {
            "prompt": _messages(kept.column("problem").to_pylist()),
            "answer": kept.column("answer"),
            "id": kept.column("id"),
            "source": kept.column("source"),
            "split": row_splits(kept),
        }
    )
    return _write_atomic(out, out_path)


EXPORTERS = {"verl": to_verl, "trl": to_trl}


def export_splits(table: pa.Table, out_dir: str | os.PathLike, *, fmt: str = "verl", **kw) -> dict[str, Path]:
    """One `<split>.parquet` per split of the kept records in `out_dir` (verl: `train.parquet` is
    `data.train_files`, `test.parquet` `data.val_files`); {split: path}."""
    if fmt not in EXPORTERS:
        raise ExportError(f"unknown export format {fmt!r}; use {' or '.join(EXPORTERS)}")
    kept = kept_with_answers(table)
    if not len(kept):
        raise ExportError(
            "no kept records to export (all rows rejected or the table is empty); nothing was written"
        )
    out = Path(out_dir)
    return {
        split: EXPORTERS[fmt](kept, out / split_file_name(split), split=split, **kw)
        for split in split_counts(kept)
    }


def _format_of(path: Path) -> str | None:
    """verl or trl for one of our exports (by its columns), None for anything else."""
    names = set(pq.read_schema(path).names)
    return "verl" if "reward_model" in names else "trl" if {"prompt", "answer"} <= names else None


def export_store(
    src: str | os.PathLike, out: str | os.PathLike, *, fmt: str, split: str | None = None, **kw
) -> Path | dict[str, Path]:
    """The kept records of the store `src` as `fmt` (verl or trl). OUT.parquet: the rows of `split`
    (of every split without it, unless the file is named after a split); returns the path. OUT
    without .parquet: a folder with one <split>.parquet per split (only `split` if given); {split: path}."""
    from mathdata.store import read_table

    table, out = read_table(src), Path(out)
    if out.suffix.lower() == ".parquet":
        counts = split_counts(kept_with_answers(table))
        if split is None and _named_split(out) is None and len(counts) > 1:
            listed = ", ".join(f"{v} {k}" for k, v in counts.items())
            raise ExportError(
                f"{out} would hold rows of several splits ({listed}); fix: add --split NAME (split=...) to "
                "export one, or give a folder instead of a file to get one <split>.parquet per split. "
                "Nothing was written"
            )
        return EXPORTERS[fmt](table, out, split=split, **kw)
    if split is not None:
        table = select_split(table.filter(pc.equal(table.column("status"), "kept")), split)
    writes = {split_file_name(s) for s in split_counts(kept_with_answers(table))}
    other = [
        p.name for p in sorted(out.glob("*.parquet")) if p.name in writes and _format_of(p) not in (fmt, None)
    ]
    if other:  # a trl export over a verl one: same file names, another layout
        raise ExportError(
            f"{out} holds another export's {', '.join(other)} (not {fmt}); fix: export {fmt} to its own folder. "
            "Nothing was written"
        )
    stale = sorted(p.name for p in out.glob("*.parquet") if p.name not in writes) if out.is_dir() else []
    if stale:  # an earlier export's split file would sit beside this one's, read as if it were part of it
        raise ExportError(
            f"{out} already holds {', '.join(stale)}, which this export (files {', '.join(sorted(writes))}) "
            "would not replace; fix: remove them or export to an empty folder. Nothing was written"
        )
    return export_splits(table, out, fmt=fmt, **kw)
