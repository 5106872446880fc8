"""The evaluation core (evals/, metrics in verifiers.metrics): metrics against hand-computed values, the vote over
equivalence classes, benchmark loading and its errors, prompts, and the sample store.

Every expected number below was worked out by hand from the definitions (the comment next to it
shows the arithmetic), not read off the code.
"""

from __future__ import annotations

import json
from math import comb, sqrt

import pytest

from evals.benchmarks import load_benchmark_problems, parse_mapping
from evals.prompts import PromptSpec
from evals.store import Job, Response, SampleStore
from mathdata.files import SchemaError, StoreError
from verifiers.metrics import ProblemResult, majority_vote, pass_at_k, pass_curve, summarize, vote_classes


def test_pass_at_k_is_chen_et_al():
    assert pass_at_k(5, 2, 2) == pytest.approx(1 - 3 / 10)  # 1 - C(3,2)/C(5,2)
    assert pass_at_k(8, 3, 1) == pytest.approx(3 / 8)
    assert pass_at_k(5, 1, 4) == pytest.approx(1 - 1 / 5)  # 1 - C(4,4)/C(5,4)
    assert pass_at_k(4, 2, 3) == 1.0 and pass_at_k(4, 0, 4) == 0.0
    assert pass_at_k(32, 5, 16) == pytest.approx(1 - comb(27, 16) / comb(32, 16))
    with pytest.raises(ValueError, match="k=9"):
        pass_at_k(8, 1, 9)


def test_summarize_by_hand():
    # three problems, k=5: 3/5, 1/5 and 0/5 correct
    rs = [
        ProblemResult(n=5, correct=3, maj_correct=True, no_answer=0, truncated=0, tokens=50),
        ProblemResult(n=5, correct=1, maj_correct=False, no_answer=1, truncated=0, tokens=100),
        ProblemResult(n=5, correct=0, maj_correct=False, no_answer=0, truncated=2, tokens=150),
    ]
    m = summarize(rs, 5, (1, 4, 16))
    assert m["n_problems"] == 3 and m["n_samples"] == 15
    assert m["avg@5"] == pytest.approx(0.8 / 3)  # (0.6 + 0.2 + 0) / 3
    # sample sd of (0.6, 0.2, 0) around 0.2667: squares 0.1111 + 0.0044 + 0.0711 = 0.18667, /2, /3 problems
    assert m["avg@5_se"] == pytest.approx(sqrt(0.186666667 / 2 / 3))
    assert m["avg@5_se"] == pytest.approx(0.176383, abs=1e-6)
    assert m["pass@1"] == pytest.approx(0.8 / 3)  # pass@1 is avg@k
    assert m["pass@4"] == pytest.approx((1 + 0.8 + 0) / 3)  # P1: only 2 wrong, any 4 hit; P2: 1 - 1/5
    assert m["pass@5"] == pytest.approx(2 / 3)
    assert "pass@16" not in m  # cannot estimate pass@16 from 5 samples
    assert m["maj@5"] == pytest.approx(1 / 3)
    assert m["no_answer_rate"] == pytest.approx(1 / 15)
    assert m["truncation_rate"] == pytest.approx(2 / 15)
    assert m["mean_length"] == pytest.approx(20.0)  # 300 tokens / 15 samples
    one = summarize(rs[:1], 5)
    assert one["avg@5_se"] is None  # one problem: no spread to estimate


def test_pass_curve_points():
    c = pass_curve([ProblemResult(n=6, correct=1, maj_correct=False)])
    assert sorted(c) == [1, 2, 4, 6]
    assert c[1] == pytest.approx(1 / 6) and c[2] == pytest.approx(1 - comb(5, 2) / comb(6, 2))  # 1 - 10/15
    assert c[6] == 1.0


def _same(a: str, b: str) -> bool:
    """Stand-in equivalence for the vote's bookkeeping: halves written three ways are one answer."""
    halves = {"1/2", "0.5", "\\frac{1}{2}"}
    return a == b or (a in halves and b in halves)


def test_vote_merges_equivalent_answers_and_counts_classes():
    # exact strings would elect "3" (2 votes against 1, 1, 1); as classes the correct half has 3
    ans = ["0.5", "1/2", "\\frac{1}{2}", "3", "3"]
    ok = [True, True, True, False, False]
    assert vote_classes(ans, ok, _same) == [[0, 1, 2], [3, 4]]
    assert majority_vote(ans, ok, _same) is True
    # wrong answers merge too: 1/2 and 0.5 (wrong, gold 7) outvote the single correct 7
    ans = ["1/2", "7", "0.5", "9", None]
    ok = [False, True, False, False, False]
    assert majority_vote(ans, ok, _same) is False
    # a tie goes to the class seen first; no answers at all is wrong
    assert majority_vote(["8", "7", "7", "8"], [False, True, True, False], _same) is False
    assert majority_vote([None, None], [False, False], _same) is False

    # decided without comparisons when the count settles it (none right, or more right than wrong)
    def never(a, b):
        raise AssertionError("compared")

    assert majority_vote(["1", "2", "3", None], [True, True, False, False], never) is True
    assert majority_vote(["2", "3", "4"], [False, False, False], never) is False
    # a correct and a wrong answer never share a class, whatever `same` says
    assert vote_classes(["2", "2.0"], [True, False], lambda a, b: True) == [[0], [1]]


def test_vote_with_the_project_verifier():
    from verifiers.metrics import same_answer

    same = same_answer(2.0)
    # 1/2 and 0.5 are one vote (the example); (1,2) and [1,2] are not (DESIGN.md hard negative)
    assert vote_classes(["1/2", "2", "0.5"], [False, False, False], same) == [[0, 2], [1]]
    assert vote_classes(["(1,2)", "[1,2]"], [False, False], same) == [[0], [1]]


def test_bundled_benchmarks_load_with_graders_gold():
    aime = load_benchmark_problems("aime24")
    assert aime.name == "aime24" and len(aime.problems) == 30 and aime.source == "bundled:aime24"
    assert all(p.answer.isdigit() and not p.answer.startswith("0") for p in aime.problems)
    amc = load_benchmark_problems("amc23", limit=3)
    assert len(amc.problems) == 3 and amc.problems[0].answer == "27"  # stored as 27.0 (README)
    m5 = load_benchmark_problems("math500")
    assert len(m5.problems) == 500 and len({p.id for p in m5.problems}) == 500
    assert m5.problems[0].answer == "\\left( 3, \\frac{\\pi}{2} \\right)"  # LaTeX gold kept as written


def test_custom_jsonl_with_mapping_and_its_errors(tmp_path):
    f = tmp_path / "mine.jsonl"
    f.write_text(
        json.dumps({"question": "What is 1+1?", "final": 2, "uid": "a"}) + "\n"
        + json.dumps({"question": "Half of 1?", "final": "1/2", "uid": "b"}) + "\n"
    )  # fmt: skip
    b = load_benchmark_problems(f"my={f}", mapping=parse_mapping("problem=question,answer=final,id=uid"))
    assert b.name == "my" and [(p.id, p.answer) for p in b.problems] == [("a", "2"), ("b", "1/2")]
    with pytest.raises(StoreError, match=r"mine.jsonl row 0: no field 'solution' \(mapped to answer\)"):
        load_benchmark_problems(str(f), mapping={"problem": "question", "answer": "solution"})
    with pytest.raises(StoreError, match=r"row 0: no answer field .* --mapping answer=COLUMN"):
        load_benchmark_problems(str(f), mapping={"problem": "question"})
    with pytest.raises(
        ValueError, match=r"--mapping 'question': write FIELD=COLUMN.* one of problem, answer, id"
    ):
        parse_mapping("question")
    with pytest.raises(StoreError, match="not a bundled set"):
        load_benchmark_problems("aime2099")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"problem": "x", "answer": "1"}\n{"problem": \n')
    with pytest.raises(SchemaError, match="bad.jsonl:2: not valid JSON"):
        load_benchmark_problems(str(bad))


def test_verl_file_split_dedup_and_the_missing_split_message(tmp_path):
    import pyarrow as pa

    from mathdata.export import to_verl
    from mathdata.schema import new_record, to_table

    recs = [new_record(source="s", original_problem=f"What is {i} + 1?", problem=f"What is {i} + 1?",
                       answer=str(i + 1), status="kept", split="train") for i in range(3)]  # fmt: skip
    path = to_verl(to_table(recs), tmp_path / "v.parquet", repeat=4)
    assert pa.parquet.read_table(path).num_rows == 12
    b = load_benchmark_problems(str(path))
    assert len(b.problems) == 3 and b.notes == ["9 repeated rows (same extra_info id) read once"]
    assert b.problems[0].messages[0]["content"].startswith("Solve the following math problem")
    assert load_benchmark_problems(str(path), split="train").name == "v[train]"
    with pytest.raises(
        StoreError, match=r"no rows with extra_info.split == 'test'; the file holds splits 'train' \(12"
    ):
        load_benchmark_problems(str(path), split="test")


def test_prompt_modes():
    from evals.benchmarks import Problem

    p = Problem("1", "Find $x$ if $x^{2} = 4$.", "2")
    dapo = PromptSpec.make()
    msgs = dapo.render(p)
    assert msgs[0]["role"] == "user" and "$x^{2} = 4$" in msgs[0]["content"]
    assert msgs[0]["content"].endswith('Remember to put your answer on its own line after "Answer:".')
    boxed = PromptSpec.make("boxed", system="Be careful.", mode="completion").render(p)
    assert (
        boxed
        == "Be careful.\n\nFind $x$ if $x^{2} = 4$.\nPlease reason step by step, and put your final answer within \\boxed{}."
    )
    assert (
        PromptSpec.make("Q: {problem}\nA:", mode="completion").render(p) == "Q: Find $x$ if $x^{2} = 4$.\nA:"
    )
    # a verl file's own prompt is used unless a template is asked for
    v = Problem("2", "What is 2+2?", "4", messages=[{"role": "user", "content": "FILE PROMPT"}])
    assert dapo.render(v) == [{"role": "user", "content": "FILE PROMPT"}]
    assert "What is 2+2?" in PromptSpec.make("raw").render(v)[0]["content"]
    with pytest.raises(ValueError, match="not a template name"):
        PromptSpec.make("nonsense")
    with pytest.raises(ValueError, match="--mode 'json'"):
        PromptSpec.make(mode="json")


def test_store_resumes_drops_a_torn_line_and_refuses_other_settings(tmp_path):
    fp = {"model": "m", "temperature": 1.0}
    s = SampleStore(tmp_path, fp)
    s.add(Job("k1", 0, "p"), Response("Answer: 1", 5, "stop"))
    s.add(Job("k1", 1, "p"), Response("Answer: 2", 6, "length"))
    s.close()
    with open(tmp_path / "samples.jsonl", "a") as fh:
        fh.write('{"key": "k1", "i": 2, "te')  # a kill in the middle of a write
    again = SampleStore(tmp_path, fp)
    assert again.torn == 1 and set(again.samples) == {("k1", 0), ("k1", 1)}
    assert again.samples[("k1", 1)] == Response("Answer: 2", 6, "length")
    again.add(Job("k1", 2, "p"), Response("Answer: 3", 7, "stop"))
    again.close()
    assert len(SampleStore(tmp_path, fp).samples) == 3  # the append after the torn line is intact
    with pytest.raises(StoreError, match=r"temperature: 1.0 then, 0.6 now.*--fresh"):
        SampleStore(tmp_path, {"model": "m", "temperature": 0.6})
    assert SampleStore(tmp_path, {"model": "m", "temperature": 0.6}, fresh=True).samples == {}


def test_grading_in_worker_processes_matches_in_process():
    from evals.runner import grade

    texts = [f"so\nAnswer: {t}" for t in ("1/2", "0.5", "\\frac{2}{4}", "3", "x")] * 14 + [
        "no answer\nhere"
    ] * 10
    golds = ["\\frac{1}{2}"] * 80
    inline = grade(texts, golds, workers=0, timeout=2.0)
    pooled = grade(texts, golds, workers=2, timeout=2.0)  # > 64 items: verifiers.score_batch
    assert inline == pooled
    assert sum(g.correct for g in inline) == 42  # 1/2, 0.5, 2/4 in each of 14 rounds
    assert [g.extracted for g in inline[:5]] == ["1/2", "0.5", "\\frac{2}{4}", "3", "x"]
    assert inline[-1].extracted is None and inline[-1].reason == "no_answer"


def test_grading_with_questions_refuses_a_restated_question_in_process_and_in_workers():
    from evals.runner import grade

    texts = ["Answer: 23+45", "Answer: 68"] * 40
    questions = ["What is $23+45$?"] * 80
    for workers in (0, 2):  # 80 items > 64: the pool path passes the questions too
        g = grade(texts, ["68"] * 80, workers=workers, timeout=2.0, questions=questions)
        assert [x.reason for x in g[:2]] == ["restates_question", "integer_match"]
        assert sum(x.correct for x in g) == 40


def test_grade_cache_is_per_grader_and_per_response(tmp_path):
    from evals.store import GradeCache, Graded

    grader = {"source_sha256": "abc", "version": "0.1.0", "timeout_s": 1.0}
    c = GradeCache(tmp_path, grader)
    k1 = GradeCache.key("k", 0, "7", "Answer: 7")
    c.add([(k1, Graded(True, "integer_match", "7"))])
    with open(tmp_path / "grades.jsonl", "a") as fh:
        fh.write('{"key": "k", "i": 1, "go')  # torn by a kill
    again = GradeCache(tmp_path, grader)
    assert again.grades == {k1: Graded(True, "integer_match", "7")}
    assert GradeCache.key("k", 0, "7", "Answer: 8") not in again.grades  # another response is graded anew
    again.add([(GradeCache.key("k", 1, "7", "x"), Graded(False, "no_answer", None))])
    assert len(GradeCache(tmp_path, grader).grades) == 2
    assert GradeCache(tmp_path, {**grader, "source_sha256": "def"}).grades == {}  # another grader: regrade
    assert not (tmp_path / "grades.jsonl").exists()


def test_records_store_reads_kept_rows_and_says_how_many_it_skipped(tmp_path):
    """A records store holds rejected rows too (no final problem text): eval reads the kept ones."""
    from mathdata.schema import new_record, to_table
    from mathdata.store import write_records

    kept = new_record(source="s", original_problem="What is 2+3?", answer="5", split="test")
    rewritten = {**new_record(source="s", original_problem="Find 0.5 * 8.", answer="4", split="test"),
                 "problem": "Find half of 8."}  # fmt: skip
    rejected = {**new_record(source="s", original_problem="Prove it."), "status": "rejected:proof"}
    write_records(tmp_path / "store", to_table([kept, rewritten, rejected]))
    b = load_benchmark_problems(str(tmp_path / "store"))
    assert sorted((p.problem, p.answer) for p in b.problems) == [
        ("Find half of 8.", "4"),
        ("What is 2+3?", "5"),
    ]
    assert b.notes == ["1 records not kept (status other than 'kept') skipped"]
    assert len(load_benchmark_problems(str(tmp_path / "store"), split="test").problems) == 2


class _ScriptedSampler:
    """An evals sampler answering each (prompt, index) from a script: no model."""

    def __init__(self, replies: list[Response]):
        self.replies = replies

    def describe(self) -> dict:
        return {"kind": "scripted"}

    def run(self, jobs, params, emit) -> None:
        for j in jobs:
            emit(j, self.replies[j.index])


def test_samples_parquet_holds_what_was_extracted_and_cut_off_prose_is_no_answer(tmp_path):
    import pyarrow.parquet as pq

    from evals.benchmarks import Benchmark, Problem
    from evals.runner import EvalConfig, run_eval
    from evals.store import SamplingParams

    replies = [
        Response("Adding, $x = \\frac{28}{6}$, so the answer is \\boxed{\\frac{14}{3}}.", 30, "stop"),
        Response("We simplify to get \\boxed{\\frac{14}{3}}. Now let us double-check this by", 64, "length"),
        Response("Let $x=3$, so the value is $x+4=7$ and then we find that the", 64, "length"),
    ]
    bench = Benchmark("t", "test", [Problem("p1", "What is 28/6?", "\\frac{14}{3}")])
    cfg = EvalConfig(out=tmp_path, params=SamplingParams(k=3, temperature=1.0, top_p=1.0, max_tokens=64),
                     prompt=PromptSpec.make(), progress=False, model="scripted")  # fmt: skip
    report = run_eval([bench], _ScriptedSampler(replies), cfg)
    rows = pq.read_table(tmp_path / "samples.parquet").to_pylist()
    got = [(r["extracted_answer"], r["correct"], r["reason"]) for r in rows]
    assert got == [
        ("\\frac{14}{3}", True, "string_match"),
        ("\\frac{14}{3}", True, "string_match"),  # cut off after its box: the box is read
        (None, False, "no_answer"),  # cut off in prose: nothing is read out of it
    ]
    assert report["overall"]["no_answer_rate"] == 1 / 3
    assert "verifiers.extract" in report["grader"]["name"]


def test_a_corpus_with_train_and_test_scores_its_test_split_unless_told(tmp_path):
    """`dapo eval policy build/records` (or build/verl) scored training rows beside the test rows and
    said nothing; a record without a split is a train record (README), so `--split train` finds it."""
    from mathdata.export import export_splits
    from mathdata.schema import new_record, to_table
    from mathdata.store import write_records

    train = [new_record(source="s", original_problem=f"What is {k}+1?", answer=str(k + 1)) for k in range(3)]
    test = [
        new_record(source="s", original_problem=f"What is {k}+2?", answer=str(k + 2), split="test")
        for k in range(2)
    ]
    write_records(tmp_path / "store", to_table(train + test))
    b = load_benchmark_problems(str(tmp_path / "store"))
    assert sorted(p.answer for p in b.problems) == ["2", "3"]
    assert any("scored split 'test' (2 rows)" in n and "3 train rows are left out" in n for n in b.notes)
    assert len(load_benchmark_problems(str(tmp_path / "store"), split="train").problems) == 3
    assert len(load_benchmark_problems(str(tmp_path / "store"), split="test").problems) == 2
    three = test + [new_record(source="s", original_problem="What is 9+9?", answer="18", split="validation")]
    write_records(tmp_path / "three", to_table(train + three))
    with pytest.raises(StoreError, match="several held-out splits"):
        load_benchmark_problems(str(tmp_path / "three"))
    export_splits(to_table(train + test), tmp_path / "verl")  # train.parquet and test.parquet
    b = load_benchmark_problems(str(tmp_path / "verl"))
    assert sorted(p.answer for p in b.problems) == ["2", "3"] and "scored split 'test'" in b.notes[0]
