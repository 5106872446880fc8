"""Import existing problem sets (JSONL, Parquet, CSV, or a `datasets` name/path) as records.

Datasets name their columns differently, so a mapping says which column feeds which record
field; without one, common names are recognised (question/problem -> original_problem,
final_answer/answer -> original_answer, ...). Two source habits get a fixed rule:

- List-valued answers (OlympiadBench's `final_answer`): one element is taken as it is;
  several are joined with ", " and the list itself is kept as JSON in `checks.import.answers`.
- GSM8K answers (`...worked solution...\\n#### 72`): the number after `####` is the answer,
  the text before it (calculator annotations `<<3*4=12>>` removed) is the solution.
- Options in their own column (MMLU's `choices` list, AQuA's `['A)21', ...]`, MathQA's `a ) 38 , b ) 27`, ARC's
  `{label, text}`): they are written under the statement as lettered lines the classifier reads, and the key
  becomes the option's letter. How a file keys its options (a letter, a 0- or 1-based position, or the option's
  text) is one convention per file: given as `choice_key`, or inferred from the file's first rows when only one
  convention fits all of them (a quiz export keying `1` for `4 / 2 / 1 / 3` means position 1, not the option `1`).
"""

from __future__ import annotations

import csv
import json
import os
import re
import warnings
from collections.abc import Iterator
from itertools import chain, islice
from pathlib import Path
from typing import Any, Literal

from mathdata.schema import new_record
from pipelines.sources.base import AcquireContext, SourceConfig

# Record fields a column may feed; `context` is text placed before the problem statement.
TARGETS = (
    "original_problem",
    "original_answer",
    "solution",
    "source_ref",
    "competition",
    "year",
    "problem_number",
    "split",
    "license",
    "context",
    "choices",
)
# Without a mapping, the first column present from each list feeds that field.
DEFAULT_NAMES = {
    "original_problem": ["problem", "question", "Problem", "Question", "prompt"],
    "original_answer": ["final_answer", "answer", "Answer", "gold", "ground_truth", "expected_answer"],
    "solution": ["solution", "Solution", "solutions"],
    "source_ref": ["id", "unique_id", "idx", "ID", "index"],
    # SVAMP's `Body` and ASDiv's `body` hold the setup their `Question` asks about: without it the
    # question alone (`How much did the candy bar cost?`) has nothing to answer from
    "context": ["context", "Body", "body"],
    "choices": ["choices", "options", "Choices", "Options"],
    "competition": ["competition", "contest"],
    "year": ["year"],
    "problem_number": ["problem_number"],
}
_GSM8K = re.compile(r"\n?\s*####\s*(?P<ans>[^\n]+?)\s*$")
_CALC = re.compile(r"<<[^<>]*>>")
_MAX_EXTRA = 200  # unmapped columns shorter than this are kept in checks.import.extra
# columns in which visual benchmarks (MathVista, MATH-Vision, MathVerse, DynaMath, ...) carry a row's
# figure: a row with one filled needs an image its text does not hold, whatever the text says
IMAGE_COLUMNS = ("image", "images", "decoded_image", "image_path", "image_paths", "image_url", "img", "figure",
                 "figure_path", "picture", "diagram")  # fmt: skip
_COLUMN_LOOKAHEAD = 1000  # rows read before the mapping is settled


class ImportDataError(ValueError):
    """Bad input: the message names the file, the row and the column, and how to fix it."""


ChoiceKey = Literal["auto", "letter", "index0", "index1", "content"]
_LETTERS = "ABCDEFGHIJ"
# a key that names a letter: `C`, `c`, `(C)`, `C)`, `C.`
_KEY_LETTER = re.compile(r"\s*\(?\s*([A-Ja-j])\s*[).]?\s*")


def choice_items(value: Any, where: str, column: str) -> list[str] | None:
    """A choices cell as the options in order: a list (items that carry their own letter, `A)21`, lose it), a
    dict {letter: text} or ARC's {label: [...], text: [...]}, a JSON or Python-list string, or MathQA's one line
    `a ) 38 , b ) 27.675 , c ) 30`. None for an empty cell."""
    from pipelines.classify import option_items, without_own_letters
    from verifiers.forms import mathqa_options

    if value is None or (isinstance(value, str | list | tuple | dict) and not value):
        return None
    if isinstance(value, dict):
        if set(value) >= {"label", "text"} and isinstance(value["text"], list | tuple):
            value = dict(zip(value["label"], value["text"], strict=False))
        keys = [str(k).strip().upper() for k in value]
        if keys != list(_LETTERS[: len(keys)]):
            raise ImportDataError(
                f"{where}: column {column!r} is a dict whose keys are not the letters A, B, C, ..."
            )
        value = list(value.values())
    if isinstance(value, str):
        text = value.strip()
        try:
            parsed = json.loads(text) if text.startswith("[") else None
        except json.JSONDecodeError:
            parsed = None
        mathqa = mathqa_options(text) if parsed is None else None
        if mathqa is not None and mathqa[0] == 0:
            value = list(mathqa[1].values())
        elif parsed is not None:
            value = parsed
        else:
            items = option_items(text)
            if items is None:
                raise ImportDataError(
                    f"{where}: column {column!r} holds {text[:60]!r}, not a list of options; "
                    "fix: a list, a {letter: text} dict, or `a ) x , b ) y` text"
                )
            value = items
    if not isinstance(value, list | tuple) or not all(isinstance(v, str | int | float) for v in value):
        raise ImportDataError(
            f"{where}: column {column!r} holds a {type(value).__name__}, expected a list of options"
        )
    return without_own_letters(
        [_text(v, where, column).strip() for v in value]
    )  # `A)21`, `(B) 21.5`: no letter


def with_choices(problem: str, items: list[str]) -> str:
    """The statement with its options under it as lettered lines (`A. 21` ...), the form
    `pipelines.classify.find_choices` reads; an option that breaks a line is written on one."""
    lines = [f"{_LETTERS[i]}. {' '.join(x.split())}" for i, x in enumerate(items)]
    return problem.rstrip() + "\n" + "\n".join(lines)


def _option_index(key: str, items: list[str], convention: str) -> int | None:
    """The position of the option `key` names under `convention`, or None when it names none."""
    from verifiers.forms import clean_choice

    if convention == "letter":
        m = _KEY_LETTER.fullmatch(key)
        i = _LETTERS.index(m.group(1).upper()) if m else len(items)
    elif convention in ("index0", "index1"):
        i = int(key) - (convention == "index1") if key.isdigit() else -1
    else:
        same = [j for j, x in enumerate(items) if clean_choice(x) == clean_choice(key)]
        i = same[0] if len(same) == 1 else -1
    return i if 0 <= i < len(items) else None


def choice_key_convention(keyed: list[tuple[str, str, list[str]]], source: str) -> str:
    """The one convention (letter, index0, index1, content) under which every (where, key, options) names an option;
    an error naming the file or the row when none or several fit (then `choice_key` says it)."""
    conventions = ("letter", "index0", "index1", "content")
    fits = [c for c in conventions if all(_option_index(k, o, c) is not None for _, k, o in keyed)]
    if len(fits) == 1:
        return fits[0]
    fix = "fix: set choice_key (letter, index0, index1 or content) on the import source"
    if fits:
        raise ImportDataError(
            f"{source}: the keys of the first {len(keyed)} rows with options fit {' and '.join(fits)} alike; {fix}"
        )
    odd = next(
        ((w, k, o) for w, k, o in keyed if not any(_option_index(k, o, c) is not None for c in conventions)),
        None,
    )
    if odd:
        raise ImportDataError(f"{odd[0]}: key {odd[1]!r} names none of the options {odd[2]}; {fix}")
    raise ImportDataError(f"{source}: the rows key their options in different conventions; {fix}")


def keyed_letter(key: str, items: list[str], convention: str) -> str | None:
    """The letter of the option `key` names under `convention`, or None when it names none."""
    i = _option_index(key, items, convention)
    return None if i is None else _LETTERS[i]


def _rows_jsonl(path: Path) -> Iterator[tuple[str, dict]]:
    from verifiers.files import iter_jsonl

    for lineno, row in iter_jsonl(path, error=ImportDataError):
        yield f"{path}:{lineno}", row


def _rows_json(path: Path) -> Iterator[tuple[str, dict]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise ImportDataError(
            f"{path}: not valid JSON ({e.msg} at line {e.lineno}); JSON Lines should end in .jsonl"
        ) from e
    if not isinstance(data, list):
        raise ImportDataError(f"{path}: expected a JSON array of objects, got {type(data).__name__}")
    for i, row in enumerate(data):
        if not isinstance(row, dict):
            raise ImportDataError(f"{path} row {i}: expected an object, got {type(row).__name__}")
        yield f"{path} row {i}", row


def _rows_parquet(path: Path) -> Iterator[tuple[str, dict]]:
    import pyarrow.parquet as pq

    try:
        pf = pq.ParquetFile(path)
    except Exception as e:  # pyarrow raises several types for a file that is not Parquet
        raise ImportDataError(f"{path}: cannot read as Parquet: {e}") from e
    i = 0
    for batch in pf.iter_batches(batch_size=4096):
        for row in batch.to_pylist():
            yield f"{path} row {i}", row
            i += 1


def _rows_csv(path: Path) -> Iterator[tuple[str, dict]]:
    with path.open(encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        for row in reader:
            if None in row:
                raise ImportDataError(
                    f"{path}:{reader.line_num}: more fields than the header's {len(reader.fieldnames)}"
                )
            yield f"{path}:{reader.line_num}", row


def _rows_datasets(name: str, split: str | None) -> Iterator[tuple[str, dict]]:
    import datasets

    path = Path(name)
    if path.is_dir() and ((path / "dataset_info.json").exists() or (path / "dataset_dict.json").exists()):
        ds = datasets.load_from_disk(str(path))
        if isinstance(ds, datasets.DatasetDict):
            if (split or "train") not in ds:
                raise ImportDataError(f"{name}: no split {split or 'train'!r}; it has {list(ds)}")
            ds = ds[split or "train"]
    else:
        try:
            ds = datasets.load_dataset(name, split=split or "train")
        except Exception as e:
            raise ImportDataError(
                f"{name}: not a JSONL/JSON/Parquet/CSV file and `datasets` cannot load it ({type(e).__name__}: {e})"
            ) from e
    for i, row in enumerate(ds):
        yield f"{name}[{split or 'train'}] row {i}", row


_FILE_SUFFIXES = (".jsonl", ".ndjson", ".json", ".parquet", ".csv")


def read_rows(path_or_name: str | os.PathLike, split: str | None = None) -> Iterator[tuple[str, dict]]:
    """(location, row) pairs; the location ("file:line" or "file row i") goes into error messages."""
    path = Path(path_or_name)
    suffix = path.suffix.lower()
    readers = {  # keys: _FILE_SUFFIXES
        ".jsonl": _rows_jsonl,
        ".ndjson": _rows_jsonl,
        ".json": _rows_json,
        ".parquet": _rows_parquet,
        ".csv": _rows_csv,
    }
    if suffix in readers:
        if not path.is_file():
            raise ImportDataError(
                f"{path}: no such file; fix: check the path (relative paths start at the config's folder)"
            )
        return readers[suffix](path)
    return _rows_datasets(str(path_or_name), split)


def _resolve_mapping(columns: list[str], mapping: dict[str, str] | None, where: str) -> dict[str, str]:
    """target field -> source column."""
    if mapping is None:
        out = {}
        for target, names in DEFAULT_NAMES.items():
            found = next((n for n in names if n in columns), None)
            if found:
                out[target] = found
    else:
        from mathdata.mapping import MappingError, field_to_column

        try:
            out = field_to_column(mapping, fields=TARGETS, where=where)
        except MappingError as e:
            raise ImportDataError(str(e)) from None
        missing = [c for c in out.values() if c not in columns]
        if missing:
            raise ImportDataError(
                f"{where}: mapping names column(s) {missing} that the data lacks; columns: {columns}; fix: name one of those columns"
            )
        setup = next((c for c in ("Body", "body") if c in columns and c not in out.values()), None)
        if setup and "context" not in out:
            warnings.warn(
                f"{where}: column {setup!r} (the setup the question asks about, in SVAMP/ASDiv) is not mapped, so "
                f"each problem is the question alone; add context={setup} to the mapping",
                stacklevel=2,
            )
        listed = next((c for c in DEFAULT_NAMES["choices"] if c in columns and c not in out.values()), None)
        if listed and "choices" not in out:
            warnings.warn(
                f"{where}: column {listed!r} (a multiple-choice question's options) is not mapped, so each problem "
                f"is imported without its options; add choices={listed} to the mapping",
                stacklevel=2,
            )
    if "original_problem" not in out:
        raise ImportDataError(
            f"{where}: no problem column found among {columns}; "
            "pass a mapping {field: column} such as {problem: question, answer: final_answer}"
        )
    return out


def _text(value: Any, where: str, column: str) -> str | None:
    """A cell as text: lists of strings are joined (see `answer_text`), numbers written plainly."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int | float):
        return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)
    if isinstance(value, list | tuple) and all(isinstance(v, str | int | float) for v in value):
        return "\n\n".join(_text(v, where, column) for v in value)
    raise ImportDataError(f"{where}: column {column!r} holds a {type(value).__name__}, expected text")


def answer_text(value: Any, where: str, column: str) -> tuple[str | None, list[str] | None]:
    """(answer, the list it came from): one element as is; several joined with ", "."""
    if isinstance(value, str) and value.startswith("[") and value.endswith("]"):
        try:  # CSV cells that hold a JSON list
            parsed = json.loads(value)
            value = parsed if isinstance(parsed, list) else value
        except json.JSONDecodeError:
            pass
    if isinstance(value, list | tuple):
        items = [_text(v, where, column) for v in value if v is not None]
        items = [s.strip() for s in items if s and s.strip()]
        if not items:
            return None, []
        return (items[0] if len(items) == 1 else ", ".join(items)), items
    text = _text(value, where, column)
    return (text.strip() if text else None), None


def gsm8k_split(text: str) -> tuple[str, str] | None:
    """A GSM8K answer field -> (solution, final answer), or None when it has no `#### N` line."""
    m = _GSM8K.search(text)
    if not m or "####" in text[: m.start()]:
        return None
    solution = _CALC.sub("", text[: m.start()]).strip()
    return solution, m["ans"].replace(",", "").strip()


def _solution_text(value: Any, where: str, column: str) -> str | None:
    if isinstance(value, list | tuple):
        items = [s.strip() for s in (_text(v, where, column) for v in value) if s and s.strip()]
        if len(items) > 1:
            return "\n\n".join(f"Solution {i}:\n{s}" for i, s in enumerate(items, 1))
        return items[0] if items else None
    text = _text(value, where, column)
    return text.strip() if text and text.strip() else None


def _filled(value: Any) -> bool:
    """A cell that holds something: an image path, bytes, a `datasets` Image struct, a non-empty list."""
    if value is None or value is False:
        return False
    if isinstance(value, str | bytes | list | tuple | dict):
        if isinstance(value, dict):
            return any(_filled(v) for v in value.values())
        if isinstance(value, list | tuple):
            return any(_filled(v) for v in value)
        return bool(value.strip()) if isinstance(value, str) else bool(value)
    return True


def _choice_row(row: dict, fields: dict[str, str], where: str) -> tuple[str | None, list[str] | None]:
    """(the row's key as text, its options) for inferring the file's key convention."""
    key, _ = answer_text(row.get(fields["original_answer"]), where, fields["original_answer"])
    return key, choice_items(row.get(fields["choices"]), where, fields["choices"])


def _jsonable(value: Any) -> bool:
    return isinstance(value, str | int | float | bool) or value is None


def import_records(
    path_or_name: str | os.PathLike,
    *,
    name: str,
    mapping: dict[str, str] | None = None,
    split: str | None = None,
    limit: int | None = None,
    license: str | None = None,
    choice_key: ChoiceKey = "auto",
) -> list[dict]:
    """Records with source `import:<name>` from a file or a `datasets` name/path.

    `mapping` is {field: column} (a field in TARGETS, or problem / answer / id; mathdata.mapping);
    without it common column names are recognised. `split` picks the `datasets` split (default "train") and is written
    to every record unless a column feeds `split`. Each record's id hashes its text with the
    row key (the `source_ref` column, else the row number), so repeated texts stay distinct
    rows for dedup to judge. `choice_key` says how a `choices` column is keyed (module docstring).
    """
    if not name or not re.fullmatch(r"[\w.\-]+", name):
        raise ImportDataError(
            f"import name {name!r}: use letters, digits, '_', '-' or '.' (it becomes source import:<name>)"
        )
    source = f"import:{name}"
    records: list[dict] = []
    rows = read_rows(path_or_name, split)
    if limit is not None:
        rows = islice(rows, limit)
    # the columns are those of the first rows together, not of row 1 alone: a JSON line may leave out a
    # key (a null cell), and a first row without `answer` must not leave every row without an answer
    head = list(islice(rows, _COLUMN_LOOKAHEAD))
    fields: dict[str, str] = {}
    if head:
        fields = _resolve_mapping(list(dict.fromkeys(k for _, r in head for k in r)), mapping, head[0][0])
    convention = choice_key
    if convention == "auto" and {"choices", "original_answer"} <= set(fields):
        keyed = [(where, *_choice_row(row, fields, where)) for where, row in head]
        keyed = [(w, k, o) for w, k, o in keyed if k and o]
        convention = choice_key_convention(keyed, str(path_or_name)) if keyed else "letter"
    rows_read = 0
    for i, (where, full) in enumerate(chain(head, rows)):
        rows_read += 1
        row = {col: full.get(col) for col in fields.values()} | full  # a key a row leaves out is a null cell
        pcol = fields["original_problem"]
        problem = _text(row[pcol], where, pcol)
        if not problem or not problem.strip():
            raise ImportDataError(f"{where}: column {pcol!r} is empty; every row needs a problem statement")
        if "context" in fields:
            context = _text(row[fields["context"]], where, fields["context"])
            problem = f"{context.strip()}\n\n{problem}" if context and context.strip() else problem
        out: dict[str, Any] = {}
        info: dict[str, Any] = {}
        if "original_answer" in fields:
            acol = fields["original_answer"]
            answer, items = answer_text(row[acol], where, acol)
            if items is not None and len(items) > 1:
                info["answers"] = items
            gsm = gsm8k_split(answer) if answer and "####" in answer else None
            if gsm:
                info["answer_rule"] = "gsm8k"
                solution, answer = gsm
                out["solution"] = solution
            out["original_answer"] = answer
        items = (
            choice_items(row.get(fields["choices"]), where, fields["choices"])
            if "choices" in fields
            else None
        )
        if items:
            problem = with_choices(problem, items)
            key = out.get("original_answer")
            if key:
                letter = keyed_letter(key, items, convention)
                if letter is None:
                    raise ImportDataError(
                        f"{where}: key {key!r} names none of the options {items} as a {convention} key; fix: set "
                        "choice_key (letter, index0, index1 or content) to how the file keys its options"
                    )
                info["choice_key"] = convention
                if letter != key:
                    info["key"] = key
                out["original_answer"] = letter
        if "solution" in fields:
            scol = fields["solution"]
            out["solution"] = _solution_text(row[scol], where, scol) or out.get("solution")
        for target in ("source_ref", "competition", "problem_number", "split", "license"):
            if target in fields:
                out[target] = _text(row[fields[target]], where, fields[target])
        if "year" in fields and row[fields["year"]] not in (None, ""):
            try:
                out["year"] = int(row[fields["year"]])
            except (TypeError, ValueError) as e:
                raise ImportDataError(
                    f"{where}: column {fields['year']!r} is {row[fields['year']]!r}, not a year"
                ) from e
        used = set(fields.values())
        image = next((c for c in IMAGE_COLUMNS if c not in used and _filled(row.get(c))), None)
        if image:
            info["image_column"] = image
        extra = {k: v for k, v in row.items() if k not in used and _jsonable(v) and len(str(v)) <= _MAX_EXTRA}
        if extra:
            info["extra"] = extra
        row_key = out.get("source_ref") or str(i)
        out.setdefault("source_ref", f"{Path(str(path_or_name)).name}#{i}")
        out.setdefault("split", split)
        out.setdefault("license", license)
        records.append(
            new_record(
                source=source,
                original_problem=problem,
                source_key=f"{source}#{row_key}",
                checks={"import": info} if info else None,
                **{k: v for k, v in out.items() if v is not None},
            )
        )
    if not rows_read and limit != 0:
        raise ImportDataError(
            f"{path_or_name}: no rows (an empty file or split); fix: point `path` of import source {name!r} "
            "at a file with one problem per row, or remove the source"
        )
    return records


class ImportSource(SourceConfig):
    """An existing dataset: JSONL, Parquet, CSV, or a `datasets` name/path, with a column mapping."""

    kind: Literal["import"]
    name: str
    path: str
    mapping: dict[str, str] | None = None
    split: str | None = None
    limit: int | None = None
    choice_key: ChoiceKey = "auto"

    def acquire(self, ctx: AcquireContext) -> list[dict]:
        path = ctx.path(self.path)
        suffix = Path(self.path).suffix.lower()
        # a `datasets` hub name or local builder when it is neither a file here nor a file name
        target = str(path) if path.exists() or suffix in _FILE_SUFFIXES else self.path
        return import_records(
            target,
            name=self.name,
            mapping=self.mapping,
            split=self.split,
            limit=ctx.cap(self.limit),
            choice_key=self.choice_key,
        )
