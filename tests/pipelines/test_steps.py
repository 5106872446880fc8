"""The pipeline as a list of steps: each step alone, config reaching it, rules-report == build."""

import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from mathdata.schema import new_record
from mathdata.store import read_table
from pipelines.build import build, load_config
from pipelines.report import rules_report_file
from pipelines.steps import STEPS, ClassifyStep, DedupStep, RewriteStep, StepContext, ValidateStep, make_steps

ROOT = Path(__file__).parents[2]
GSM8K = ROOT / "data" / "sources" / "gsm8k_test.jsonl"


def _rec(problem: str, answer: str | None, i: int = 0) -> dict:
    return new_record(source="t", original_problem=problem, original_answer=answer, source_key=f"t#{i}")


def _write(tmp_path: Path, cfg: dict, name: str = "cfg.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(cfg))
    return path


def test_each_step_runs_alone_on_a_batch():
    cfg = load_config({"sources": [{"kind": "synthetic", "n": 1}]})
    batch = [
        _rec("What is $\\frac12+\\frac18$?", "\\frac{5}{8}", 0),
        _rec("Prove that there are infinitely many primes.", None, 1),
        _rec("Find $n$ such that $n+1=3$.", "2", 2),
    ]
    classified = ClassifyStep(cfg.classify)(batch)
    assert [r["status"] for r in classified] == ["kept", "rejected:proof", "kept"]
    rewritten = RewriteStep(cfg.rewrite)(classified)
    assert rewritten[0]["transform"] == "fraction" and rewritten[0]["answer"] == "13"
    assert rewritten[1]["status"] == "rejected:proof"  # not kept: passes through untouched
    validated = ValidateStep(cfg.validate_)(rewritten)
    assert json.loads(validated[0]["checks"])["consistent"] is True
    assert json.loads(validated[2]["checks"])["solver"] is None  # no solver ran: said, not hidden
    dup = DedupStep(cfg.dedup)([*validated, {**validated[2], "id": "other", "source_ref": "x"}])
    assert dup[-1]["status"].startswith("duplicate_of:")


def test_every_section_reaches_its_step_whole():
    cfg = load_config(
        {
            "sources": [{"kind": "synthetic", "n": 1}],
            "classify": {"reject_diagrams": True},
            "dedup": {"near": False},
        }
    )
    steps = make_steps(cfg)
    # difficulty is off by default (it needs an endpoint); every other step runs
    assert [s.name for s in steps] == [c.name for c in STEPS if c.name != "difficulty"]
    for step in steps:
        assert step.config is getattr(cfg, step.section)  # the section object itself, nothing copied out
    assert steps[0].config.reject_diagrams is True
    on = load_config(
        {"sources": [{"kind": "synthetic", "n": 1}], "difficulty": {"enabled": True, "n": 3, "max_pass": 0.9}}
    )
    assert "difficulty" not in [s.name for s in make_steps(on)]  # no endpoint: nothing to sample
    from verifiers.llm import LLMClient, LLMSettings

    client = LLMClient(LLMSettings(base_url="http://127.0.0.1:9", model="m"))  # never asked here
    with_llm = make_steps(on, StepContext(llm=client))
    step = next(s for s in with_llm if s.name == "difficulty")
    assert step.config is on.difficulty and step.scope == "record" and step.is_async


def test_reject_diagrams_setting_is_honoured_by_the_build(tmp_path):
    rows = [
        {
            "question": "In the figure below [asy]draw((0,0)--(1,1));[/asy] the segment has length $x$. Find $x^2$.",
            "answer": "2",
        },
        {"question": "What is $3+4$?", "answer": "7"},
    ]
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    base = {
        "sources": [{"kind": "import", "name": "d", "path": str(data)}],
        "decontaminate": {"enabled": False},
    }
    res_off = build(_write(tmp_path, base, "a.yaml"), tmp_path / "a", progress=False)
    res_on = build(
        _write(tmp_path, {**base, "classify": {"reject_diagrams": True}}, "b.yaml"),
        tmp_path / "b",
        progress=False,
    )
    st_off = sorted(r["status"] for r in read_table(tmp_path / "a" / "records").to_pylist())
    st_on = sorted(r["status"] for r in read_table(tmp_path / "b" / "records").to_pylist())
    assert st_off == ["kept", "kept"] and res_off.kept == 2
    assert st_on == ["kept", "rejected:diagram"] and res_on.kept == 1


def test_rules_report_agrees_with_the_build_on_gsm8k(tmp_path):
    lines = GSM8K.read_text().splitlines()[:120]
    part = tmp_path / "gsm8k_part.jsonl"
    part.write_text("\n".join(lines) + "\n")
    report = rules_report_file(part)
    cfg = {
        "sources": [{"kind": "import", "name": "gsm8k_part", "path": str(part)}],
        "dedup": {"enabled": False},
        "decontaminate": {"enabled": False},
    }
    res = build(_write(tmp_path, cfg), tmp_path / "out", progress=False)
    assert report["total"] == 120
    assert report["rewritten"] == res.kept >= 115  # the `#### N` rule, in both
    assert report["by_rule"] == {"identity": res.kept}


def _cli(*args: str):
    from dapo_cli import app

    return CliRunner().invoke(app, list(args))


@pytest.mark.parametrize(
    ("args", "expect"),
    [
        (["missing.jsonl"], "missing.jsonl: no such file"),
        ([str(GSM8K), "--mapping", "answer=final_answer"], "mapping names column(s) ['final_answer']"),
        ([str(GSM8K), "--answer-field", "final_answer"], "mapping names column(s) ['final_answer']"),
        (
            [str(GSM8K), "--mapping", "answr=final_answer"],
            "--mapping 'answr=final_answer': write FIELD=COLUMN",
        ),
    ],
)
def test_rules_report_bad_input_is_one_line(args, expect):
    res = _cli("rules-report", *args)
    assert res.exit_code == 2
    assert expect in res.output
    assert "Traceback" not in res.output and len(res.output.strip().splitlines()) <= 3


def test_rules_report_reads_parquet(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = [json.loads(line) for line in GSM8K.read_text().splitlines()[:20]]
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "g.parquet")
    res = _cli("rules-report", str(tmp_path / "g.parquet"), "--json")
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["total"] == 20


@pytest.mark.parametrize("problem", ["missing_file", "broken_line", "missing_column"])
def test_build_bad_input_is_one_line_and_a_fixed_rerun_works(tmp_path, problem):
    good = tmp_path / "good.jsonl"
    good.write_text(json.dumps({"question": "What is $2+2$?", "answer": "4"}) + "\n")
    src = {"kind": "import", "name": "x", "path": str(good)}
    if problem == "missing_file":
        src["path"] = str(tmp_path / "nope.jsonl")
        expect = "nope.jsonl: no such file"
    elif problem == "broken_line":
        bad = tmp_path / "bad.jsonl"
        bad.write_text(good.read_text() + '{"question": "x", \n')
        src["path"], expect = str(bad), "bad.jsonl:2: not valid JSON"
    else:
        src["mapping"], expect = {"problem": "problem"}, "mapping names column(s) ['problem']"
    cfg = {"sources": [src], "decontaminate": {"enabled": False}}
    out = tmp_path / "out"
    res = _cli("build", str(_write(tmp_path, cfg)), "--out", str(out), "-q")
    assert res.exit_code == 2
    assert expect in res.output
    assert "Traceback" not in res.output and len(res.output.strip().splitlines()) <= 3
    fixed = {
        "sources": [{"kind": "import", "name": "x", "path": str(good)}],
        "decontaminate": {"enabled": False},
    }
    res = _cli("build", str(_write(tmp_path, fixed)), "--out", str(out), "-q")
    assert res.exit_code == 0, res.output
    assert len(read_table(out / "records")) == 1


def test_acquire_says_why_repeated_records_are_stored_once(tmp_path):
    # two difficulty levels of `add` can draw the same numbers: the same statement, the same id
    cfg = {
        "sources": [{"kind": "synthetic", "n": 600, "seed": 0, "kinds": ["add"], "difficulty": [1, 1]}],
        "decontaminate": {"enabled": False},
        "dedup": {"enabled": False},
    }
    res = build(_write(tmp_path, cfg), tmp_path / "out", progress=False)
    dropped = res.reports["acquire_dropped"]
    assert dropped == {"synthetic:add": 600 - res.stages[0].total}
    assert dropped["synthetic:add"] > 0
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["reports"]["acquire_dropped"] == dropped


def test_rules_report_field_options(tmp_path):
    path = tmp_path / "carp_like.jsonl"
    path.write_text(
        json.dumps({"content": "What is $\\frac{1}{2}+\\frac{1}{3}$?", "answer": "\\frac{5}{6}"}) + "\n"
    )
    res = _cli("rules-report", str(path))
    assert (
        res.exit_code == 2
        and "no problem field among ['content', 'answer']; fix: pass --mapping problem=COLUMN" in res.output
    )
    res = _cli("rules-report", str(path), "--mapping", "problem=content", "--json")
    assert res.exit_code == 0, res.output
    report = json.loads(res.output)
    assert report["by_rule"] == {"fraction": 1}  # the answer column is still found by its usual name
