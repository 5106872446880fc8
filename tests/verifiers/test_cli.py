"""`dapo verify` through typer's CliRunner."""

from __future__ import annotations

import json

import typer
from typer.testing import CliRunner

from verifiers.cli import register

runner = CliRunner()


def _app() -> typer.Typer:
    app = typer.Typer()

    @app.callback()
    def _root() -> None:
        """test root"""

    register(app)
    return app


def test_verify_pred_gold():
    ok = runner.invoke(_app(), ["verify", "--pred", "Answer: 034", "--gold", "34"])
    assert ok.exit_code == 0 and "equivalent" in ok.output and "integer_match" in ok.output
    bad = runner.invoke(_app(), ["verify", "--pred", "(1,2)", "--gold", "[1,2]"])
    assert bad.exit_code == 1 and "not equivalent" in bad.output and "structure_mismatch" in bad.output


def test_verify_file_accuracy_and_out(tmp_path):
    rows = [{"completion": "...\nAnswer: 3", "gold": "3"}, {"completion": "Answer: 4", "gold": "5"}]
    f = tmp_path / "c.jsonl"
    f.write_text("\n".join(json.dumps(r) for r in rows) + "\n\n")
    out = tmp_path / "res.jsonl"
    res = runner.invoke(_app(), ["verify", "--file", str(f), "--workers", "1", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "accuracy 0.5000 (1/2)" in res.output
    written = [json.loads(line) for line in out.read_text().splitlines()]
    assert [w["acc"] for w in written] == [1.0, 0.0]


COUNTDOWN = "Using the numbers [79, 17, 60], create an equation that equals 36. Use each number exactly once."


def test_verify_question_reaches_the_checks():
    """With --question the checks that need it apply: a Countdown answer that writes the target after a wrong
    expression is not the target; without it, the last number is read (as any math answer)."""
    wrong = "<answer> 79 + 17 + 60 = 36 </answer>"
    asked = runner.invoke(_app(), ["verify", "--pred", wrong, "--gold", "36", "--question", COUNTDOWN])
    assert asked.exit_code == 1 and "countdown_value" in asked.output
    right = runner.invoke(
        _app(),
        ["verify", "--pred", "<answer>(79 - 60) + 17</answer>", "--gold", "36", "--question", COUNTDOWN],
    )
    assert right.exit_code == 0 and "countdown_match" in right.output


def test_verify_file_reads_a_question_field(tmp_path):
    rows = [
        {"completion": "<answer> 79 + 17 + 60 = 36 </answer>", "gold": "36", "question": COUNTDOWN},
        {"completion": "<answer>(79 - 60) + 17</answer>", "gold": "36", "problem": COUNTDOWN},
        {"completion": "Answer: 4", "gold": "4"},
    ]
    f = tmp_path / "q.jsonl"
    f.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    out = tmp_path / "res.jsonl"
    res = runner.invoke(_app(), ["verify", "--file", str(f), "--workers", "1", "--out", str(out)])
    assert res.exit_code == 0, res.output
    written = [json.loads(line) for line in out.read_text().splitlines()]
    assert [w["acc"] for w in written] == [0.0, 1.0, 1.0]
    assert written[0]["reason"] == "countdown_value"


def test_verify_file_bad_json_names_the_line(tmp_path):
    f = tmp_path / "bad.jsonl"
    f.write_text('{"completion": "Answer: 1", "gold": "1"}\n{oops\n')
    res = runner.invoke(_app(), ["verify", "--file", str(f)])
    assert res.exit_code != 0
    assert "bad.jsonl:2: not valid JSON" in res.output


def test_verify_file_missing_field_names_the_line(tmp_path):
    f = tmp_path / "m.jsonl"
    f.write_text('{"completion": "Answer: 1"}\n')
    res = runner.invoke(_app(), ["verify", "--file", str(f)])
    assert res.exit_code != 0
    assert "m.jsonl:1: missing field(s) 'gold'" in res.output


def test_verify_symbolic_in_a_fresh_process_answers_right():
    """`dapo verify` is a fresh process that never calls warmup(): its one symbolic check waits
    for the worker's start-up instead of answering "timeout" (issue 11's cold start)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, PYTHONPATH=str(root))
    code = "import sys; from dapo_cli import main; sys.argv = ['dapo'] + sys.argv[1:]; main()"
    args = ["verify", "--pred", r"\frac{\sqrt{8}}{2}", "--gold", r"\sqrt{2}"]
    out = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120, env=env, cwd=root
    )
    assert out.returncode == 0, out.stdout + out.stderr[-2000:]
    assert "symbolic_match" in out.stdout and "not equivalent" not in out.stdout
