"""Every `dapo` error is one line without a traceback (exit 2); `dapo --debug` shows the traceback."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from dapo_cli import app, error_line


def test_uncaught_user_error_is_one_line_and_debug_shows_the_traceback(tmp_path):
    # `dapo demo --out FILE`: the OSError from making FILE/data is caught by no command, only by dapo
    (tmp_path / "afile").write_text("")
    r = CliRunner().invoke(app, ["demo", "--out", str(tmp_path / "afile")])
    assert r.exit_code == 2, r.output
    assert r.output.strip() == f"error: {tmp_path / 'afile' / 'data'}: Not a directory"
    r = CliRunner().invoke(app, ["--debug", "demo", "--out", str(tmp_path / "afile")])
    assert isinstance(r.exception, NotADirectoryError)  # raised through: the traceback is shown


def test_error_lines():
    assert error_line(FileNotFoundError(2, "No such file or directory", "x.jsonl")) == (
        "error: x.jsonl: No such file or directory",
        2,
    )
    assert error_line(ValueError("data.jsonl:3: field 'answer' missing; fix: ...")) == (
        "error: data.jsonl:3: field 'answer' missing; fix: ...",
        2,
    )
    assert error_line(json.JSONDecodeError("Expecting value", "x", 0))[1] == 2
    line, code = error_line(ZeroDivisionError("division by zero"))  # a bug, not bad input
    assert code == 1 and len(line.splitlines()) == 2 and "--debug" in line and "ZeroDivisionError" in line


def test_python_m_trainer_errors_are_one_line_too(tmp_path, monkeypatch):
    """`python -m trainer` (what torchrun launches) prints one error line per rank, not a traceback."""
    import trainer.loop
    from trainer.__main__ import app as trainer_app

    missing = tmp_path / "nope.yaml"
    r = CliRunner().invoke(trainer_app, ["train", str(missing)])
    assert r.exit_code == 2 and r.output.strip() == f"error: config file {missing} not found"

    # an exception no command catches (a bug): two lines naming it, exit 1; --debug lets it through
    cfg = tmp_path / "run.yaml"
    cfg.write_text(f"train:\n  out: {tmp_path / 'run'}\n")

    def boom(*a, **k):
        raise RuntimeError("boom")

    monkeypatch.setattr(trainer.loop, "train", boom)
    r = CliRunner().invoke(trainer_app, ["train", str(cfg), "--no-progress"])
    assert r.exit_code == 1, r.output
    assert r.output.splitlines()[0] == "error: unexpected RuntimeError: boom" and "DAPO_DEBUG" in r.output
    r = CliRunner().invoke(trainer_app, ["--debug", "train", str(cfg), "--no-progress", "--overwrite"])
    assert isinstance(r.exception, RuntimeError)


def test_ctrl_c_is_one_line_and_exit_130(monkeypatch):
    """Ctrl-C ended a build with exit 130 and no word."""
    import mathdata.cli as mcli

    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(mcli, "_export", interrupted)
    r = CliRunner().invoke(app, ["data", "export", "verl", "x", "y"])
    assert r.exit_code == 130 and r.output.startswith("interrupted: nothing half-written is left"), r.output
