"""Importing real source files (OlympiadBench, GSM8K) and the same rows through every format."""

import csv
import json
import re
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipelines.sources.importer import ImportDataError, answer_text, gsm8k_split, import_records

DATA = Path(__file__).resolve().parents[2] / "data" / "sources"
OLY = DATA / "olympiadbench.jsonl"
GSM = DATA / "gsm8k_test.jsonl"


def _raw(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_olympiadbench_with_default_names():
    raw = _raw(OLY)
    records = import_records(OLY, name="olympiadbench")
    assert len(records) == len(raw) == 675
    assert len({r["id"] for r in records}) == 675
    for row, rec in zip(raw, records, strict=True):
        assert rec["source"] == "import:olympiadbench"
        assert rec["source_ref"] == str(row["id"])
        assert rec["original_problem"] == row["question"]
        assert rec["original_answer"] == row["final_answer"][0].strip()  # one-element lists: the element
        extra = json.loads(rec["checks"])["import"]["extra"]
        assert extra["answer_type"] == row["answer_type"]
        assert extra["is_multiple_answer"] == row["is_multiple_answer"]
    multi = next(
        r for r in records if r["source_ref"] == str(next(x["id"] for x in raw if len(x["solution"]) > 1))
    )
    assert multi["solution"].startswith("Solution 1:\n")


def test_gsm8k_answers_are_the_number_after_hashes():
    raw = _raw(GSM)
    records = import_records(GSM, name="gsm8k", split="test", limit=200)
    assert len(records) == 200
    for row, rec in zip(raw[:200], records, strict=True):
        assert rec["original_answer"] == row["answer"].rsplit("####", 1)[1].strip().replace(",", "")
        assert rec["original_answer"].lstrip("-").isdigit()
        assert "####" not in rec["solution"] and "<<" not in rec["solution"]
        assert rec["split"] == "test"
        assert json.loads(rec["checks"])["import"]["answer_rule"] == "gsm8k"
    assert records[0]["solution"].startswith("Janet sells 16 - 3 - 4 = 9 duck eggs a day.")


def test_list_answers_and_context_rule(tmp_path):
    path = tmp_path / "rows.jsonl"
    rows = [
        {"q": "Find all x with x^2 = 4.", "a": ["$-2$", "$2$"], "ctx": "A warm-up."},
        {"q": "Find y.", "a": ["$3$"], "ctx": None},
        {"q": "Find z.", "a": [], "ctx": ""},
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    recs = import_records(path, name="demo", mapping={"problem": "q", "answer": "a", "context": "ctx"})
    assert recs[0]["original_answer"] == "$-2$, $2$"
    assert json.loads(recs[0]["checks"])["import"]["answers"] == ["$-2$", "$2$"]
    assert recs[0]["original_problem"] == "A warm-up.\n\nFind all x with x^2 = 4."
    assert recs[1]["original_answer"] == "$3$" and recs[1]["original_problem"] == "Find y."
    assert recs[2]["original_answer"] is None
    assert [r["source_ref"] for r in recs] == ["rows.jsonl#0", "rows.jsonl#1", "rows.jsonl#2"]


def test_parquet_csv_and_datasets_give_the_same_records(tmp_path):
    import datasets

    rows = [
        {
            "question": r["question"],
            "final_answer": r["final_answer"],
            "id": r["id"],
            "answer_type": r["answer_type"],
        }
        for r in _raw(OLY)[:25]
    ]
    mapping = {"problem": "question", "answer": "final_answer", "id": "id"}
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "o.parquet")
    with (tmp_path / "o.csv").open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        for r in rows:  # lists are stored as JSON text in a CSV cell
            w.writerow({**r, "final_answer": json.dumps(r["final_answer"])})
    datasets.Dataset.from_list(rows).save_to_disk(str(tmp_path / "ds"))
    datasets.DatasetDict({"test": datasets.Dataset.from_list(rows)}).save_to_disk(str(tmp_path / "dd"))

    def key(recs):
        return [(r["id"], r["original_problem"], r["original_answer"], r["source_ref"]) for r in recs]

    want = key(import_records(OLY, name="o", mapping=mapping, limit=25))
    assert key(import_records(tmp_path / "o.parquet", name="o", mapping=mapping)) == want
    assert key(import_records(tmp_path / "o.csv", name="o", mapping=mapping)) == want
    assert key(import_records(tmp_path / "ds", name="o", mapping=mapping)) == want
    assert key(import_records(tmp_path / "dd", name="o", mapping=mapping, split="test")) == want
    with pytest.raises(ImportDataError, match=r"no split 'train'; it has \['test'\]"):
        import_records(tmp_path / "dd", name="o", mapping=mapping)


def test_bad_input_names_file_row_and_column(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"problem": "ok", "answer": "1"}\n{"problem": "oops", \n', encoding="utf-8")
    with pytest.raises(ImportDataError, match=r"bad\.jsonl:2: not valid JSON"):
        import_records(bad, name="b")
    empty = tmp_path / "empty.jsonl"
    empty.write_text('{"problem": "ok"}\n{"problem": "  "}\n', encoding="utf-8")
    with pytest.raises(ImportDataError, match=r"empty\.jsonl:2: column 'problem' is empty"):
        import_records(empty, name="e")
    with pytest.raises(ImportDataError, match=r"gsm8k_test\.jsonl:1: no problem column found among"):
        import_records(GSM, name="g", mapping={"answer": "answer"})
    with pytest.raises(
        ImportDataError, match=r"mapping fields \['query'\] are not fields; write \{field: column\}"
    ):
        import_records(GSM, name="g", mapping={"problem": "question", "query": "answer"})
    with pytest.raises(ImportDataError, match=r"names column\(s\) \['final_answer'\] that the data lacks"):
        import_records(GSM, name="g", mapping={"problem": "question", "answer": "final_answer"})
    years = tmp_path / "y.csv"
    years.write_text("problem,year\nWhat is 1+1?,2001\nWhat is 2+2?,soon\n", encoding="utf-8")
    with pytest.raises(ImportDataError, match=r"y\.csv:3: column 'year' is 'soon', not a year"):
        import_records(years, name="y")
    assert import_records(years, name="y", limit=1)[0]["year"] == 2001
    with pytest.raises(ImportDataError, match="no such file"):
        import_records(tmp_path / "missing.parquet", name="m")
    with pytest.raises(ImportDataError, match="import name"):
        import_records(GSM, name="has space")


def test_helpers():
    assert gsm8k_split("a <<1+1=2>>2\nb\n#### 1,234") == ("a 2\nb", "1234")
    assert gsm8k_split("no marker") is None
    assert answer_text(["1", " 2 "], "w", "c") == ("1, 2", ["1", "2"])
    assert answer_text('["7"]', "w", "c") == ("7", ["7"])
    assert answer_text(12.0, "w", "c") == ("12", None)


def test_mapping_is_field_to_column_and_the_old_direction_still_reads(tmp_path):
    """One syntax everywhere ({field: column}); a config written {column: field} gets a one-line
    warning showing the new spelling, and the same records."""
    new = import_records(GSM, name="g", mapping={"problem": "question", "answer": "answer"}, limit=3)
    with pytest.warns(
        FutureWarning, match=r"old direction; write \{field: column\}: \{'original_problem': 'question'"
    ):
        old = import_records(
            GSM, name="g", mapping={"question": "original_problem", "answer": "original_answer"}, limit=3
        )
    assert [(r["id"], r["original_problem"], r["original_answer"]) for r in old] == [
        (r["id"], r["original_problem"], r["original_answer"]) for r in new
    ]
    assert new[0]["original_problem"].startswith("Janet")


def test_columns_come_from_the_first_rows_not_row_one_alone(tmp_path):
    """A JSON line may leave out a key: a first row without `answer` (or `idx`) must not leave every
    row without an answer (all 20 were rejected:no_answer), nor make an explicit mapping fail."""
    path = tmp_path / "first_no_answer.jsonl"
    rows = [{"problem": "What is 1 + 1?"}] + [
        {"problem": f"What is {k} + 1?", "answer": str(k + 1), "idx": k} for k in range(2, 21)
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    for mapping in (None, {"problem": "problem", "answer": "answer"}):
        recs = import_records(path, name="t", mapping=mapping)
        assert len(recs) == 20
        assert recs[0].get("original_answer") in (None, "")  # the row that has none
        assert [r["original_answer"] for r in recs[1:]] == [str(k + 1) for k in range(2, 21)]


# SVAMP (`Body`, `Question`) and ASDiv (`body`, `question`) rows as those files write them
SVAMP_ROW = {"ID": "chal-1", "Body": "Each pack of dvds costs 76 dollars. If there is a discount of 25 dollars on each pack",
             "Question": "How much do you have to pay to buy each pack?", "Equation": "( 76.0 - 25.0 )",
             "Answer": 51.0, "Type": "Subtraction"}  # fmt: skip
ASDIV_ROW = {"body": "Seven red apples and two green apples are in the basket.",
             "question": "How many apples are in the basket?", "answer": "9 (apples)", "formula": "7+2=9"}  # fmt: skip


@pytest.mark.parametrize("row, body", [(SVAMP_ROW, "Body"), (ASDIV_ROW, "body")])
def test_a_question_is_imported_with_the_setup_it_asks_about(tmp_path, row, body):
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps(row) + "\n")
    (rec,) = import_records(path, name="wp")
    question = row.get("Question") or row["question"]
    assert rec["original_problem"].startswith(row[body]) and rec["original_problem"].endswith(question)
    # a mapping that names the question but not the setup imports the question alone, and says so
    with pytest.warns(UserWarning, match=f"context={body}"):
        (alone,) = import_records(
            path, name="wp", mapping={"problem": "Question" if body == "Body" else "question"}
        )
    assert alone["original_problem"] == question
    (both,) = import_records(path, name="wp", mapping={"problem": "Question" if body == "Body" else "question",
                                                        "context": body})  # fmt: skip
    assert both["original_problem"] == rec["original_problem"]


def test_a_row_whose_figure_is_in_an_image_column_is_rejected_as_needing_it(tmp_path):
    from pipelines.classify import classify

    # MathVista-style rows: the text never names the figure; the `image` / `decoded_image` columns hold it
    rows = [
        {"pid": "1", "question": "Subtract all red things. How many objects are left?", "answer": "5",
         "image": "images/1.jpg", "decoded_image": None},
        {"pid": "2", "question": "How many bars have values larger than 4?", "answer": "3", "image": None,
         "decoded_image": {"bytes": b"\x89PNG...", "path": None}},
        {"pid": "3", "question": "How many positive divisors does 36 have?", "answer": "9", "image": "",
         "decoded_image": None},
        {"pid": "4", "question": "What is 7 times 8?", "answer": "56", "image": None, "decoded_image": {"bytes": None,
                                                                                                      "path": None}},
    ]  # fmt: skip
    path = tmp_path / "vista.parquet"
    pq.write_table(pa.Table.from_pylist(rows), path)
    recs = import_records(path, name="vista")
    flagged = [
        json.loads(r["checks"])["import"].get("image_column") if r.get("checks") else None for r in recs
    ]
    assert flagged == ["image", "decoded_image", None, None]
    out = [classify(r) for r in recs]
    assert [o["status"] for o in out][:2] == ["rejected:needs_diagram"] * 2
    assert not any(str(o["status"]).startswith("rejected") for o in out[2:])


def _write_jsonl(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def _through_rules(path, **kw) -> list[tuple[str, str | None]]:
    from pipelines.report import run_offline_steps

    return [(r["status"], r.get("answer")) for r in run_offline_steps(import_records(path, **kw))]


# options in their own column, the forms real sets store them in; each key labelled from its statement
CHOICE_FILES = {
    # MMLU: a list and a 0-based position
    "mmlu": ([{"question": "What is 2+3?", "choices": ["4", "5", "6", "7"], "answer": 1},
              {"question": "What is 10-4?", "choices": ["6", "5", "4", "3"], "answer": 0},
              {"question": "What is 3*3?", "choices": ["6", "8", "9", "12"], "answer": 2}], None, ["5", "6", "9"]),
    # AQuA: items that carry their own letter, keyed by letter
    "aqua": ([{"question": "A train covers 120 km in 2 hours. What is its speed in km/h?",
               "options": ["A)40", "B)50", "C)60", "D)70", "E)80"], "correct": "C"}],
             {"problem": "question", "answer": "correct", "choices": "options"}, ["60"]),
    # MathQA: one line of lower-case letters, a lower-case key
    "mathqa": ([{"Problem": "what is 15 % of 200 ?", "options": "a ) 20 , b ) 25 , c ) 30 , d ) 35 , e ) 40",
                 "correct": "c"}], {"problem": "Problem", "answer": "correct", "choices": "options"}, ["30"]),
    # ARC: {label, text}
    "arc": ([{"question": "How many legs does a spider have?",
              "choices": {"label": ["A", "B", "C", "D"], "text": ["6", "8", "10", "4"]}, "answerKey": "B"}],
            {"problem": "question", "answer": "answerKey", "choices": "choices"}, ["8"]),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(CHOICE_FILES))
def test_options_in_their_own_column_are_read_and_the_key_names_one(tmp_path, name):
    rows, mapping, values = CHOICE_FILES[name]
    path = tmp_path / f"{name}.jsonl"
    _write_jsonl(path, rows)
    recs = import_records(path, name=name, mapping=mapping)
    assert all(
        re.search(r"\nA\. .+\nB\. ", r["original_problem"]) for r in recs
    )  # the options under the statement
    assert all(r["original_answer"] in "ABCDE" for r in recs)  # the key is the option's letter
    assert _through_rules(path, name=name, mapping=mapping) == [("kept", v) for v in values]
    if mapping:  # a mapping that leaves the options out imports the bare questions, and says so
        with pytest.warns(UserWarning, match=f"choices={mapping['choices']}"):
            bare = import_records(
                path, name=name, mapping={k: v for k, v in mapping.items() if k != "choices"}
            )
        assert [r["original_problem"] for r in bare] == [r.get("question") or r.get("Problem") for r in rows]


def test_a_quiz_export_keyed_by_position_is_read_by_position(tmp_path):
    # `1` for `4 / 2 / 1 / 3`: position 1 (the option 2), not the option `1`; the file's row keyed `0` rules out
    # content and 1-based positions, so the file's convention is inferred
    rows = [{"question": "What is 8/4?", "options": ["4", "2", "1", "3"], "answer": "1"},
            {"question": "What is 9-6?", "options": ["1", "3", "2", "0"], "answer": "1"},
            {"question": "What is 6-2?", "options": ["4", "2", "8", "6"], "answer": "0"}]  # fmt: skip
    path = tmp_path / "quiz.jsonl"
    _write_jsonl(path, rows)
    assert _through_rules(path, name="quiz") == [("kept", "2"), ("kept", "3"), ("kept", "4")]
    assert json.loads(import_records(path, name="quiz")[0]["checks"])["import"] == {
        "choice_key": "index0",
        "key": "1",
    }


def test_a_key_convention_the_rows_cannot_fix_is_an_error_until_it_is_given(tmp_path):
    # keys 1, 1, 2 fit a 0-based position, a 1-based one and the option's text alike
    rows = [{"question": "What is 8/4?", "options": ["4", "2", "1", "3"], "answer": "1"},
            {"question": "What is 9-8?", "options": ["1", "3", "2", "0"], "answer": "1"},
            {"question": "What is 2*2?", "options": ["2", "3", "4", "5"], "answer": "2"}]  # fmt: skip
    path = tmp_path / "quiz.jsonl"
    _write_jsonl(path, rows)
    with pytest.raises(ImportDataError, match=r"quiz\.jsonl.*index0 and index1 and content.*choice_key"):
        import_records(path, name="quiz")
    letters = {c: [r["original_answer"] for r in import_records(path, name="quiz", choice_key=c)]
               for c in ("content", "index0", "index1")}  # fmt: skip
    assert letters == {"content": ["C", "A", "A"], "index0": ["B", "B", "C"], "index1": ["A", "A", "B"]}
    # a build config gives it as `choice_key` on the import source
    from pipelines.sources.base import AcquireContext
    from pipelines.sources.importer import ImportSource

    source = ImportSource(kind="import", name="quiz", path="quiz.jsonl", choice_key="index1")
    recs = source.acquire(AcquireContext(base_dir=tmp_path, out_dir=tmp_path))
    assert [r["original_answer"] for r in recs] == letters["index1"]
    # a key that names no option under the convention given: the row is named
    rows.append({"question": "What is 1+1?", "options": ["2", "3"], "answer": "7"})
    _write_jsonl(path, rows)
    with pytest.raises(ImportDataError, match=r"quiz\.jsonl:4: key '7' names none of the options"):
        import_records(path, name="quiz", choice_key="content")


def test_bad_choices_cells_are_named():
    from pipelines.sources.importer import choice_items

    assert choice_items(["(A) 1/2", "(B) 3/4"], "f:1", "options") == ["1/2", "3/4"]
    assert choice_items('["x", "y", "z"]', "f:1", "options") == [
        "x",
        "y",
        "z",
    ]  # a CSV cell holding a JSON list
    assert choice_items("", "f:1", "options") is None
    with pytest.raises(ImportDataError, match="f:2: column 'options' holds 'see the figure'"):
        choice_items("see the figure", "f:2", "options")
    with pytest.raises(
        ImportDataError, match="f:3: column 'options' is a dict whose keys are not the letters"
    ):
        choice_items({"x": "1", "y": "2"}, "f:3", "options")
