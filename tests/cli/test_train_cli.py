"""`dapo train` as the README uses it: a run remembers its config, is not overwritten by accident,
and refuses a resume that would silently change the experiment."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from dapo_cli import app
from trainer.algorithms import ALGORITHMS


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    from pipelines.build import build

    out = tmp_path_factory.mktemp("corpus")
    return str(build("examples/demo.yaml", out, offline=True, progress=False).verl_path)


def _train(*args):
    r = CliRunner().invoke(app, ["train", *args, "--no-progress"])
    return r, r.output.strip()


def _steps(run):
    return [json.loads(x)["step"] for x in (run / "metrics.jsonl").read_text().splitlines()]


@pytest.mark.slow
def test_resume_reuses_the_runs_config_and_refuses_changes_and_overwrites(tmp_path, data, tiny_yaml):
    # the first run gets its data and learning rate from --set only, as in the README
    cfg = tiny_yaml(tmp_path / "t.yaml", "unused.parquet", "elsewhere", steps=1)
    run = tmp_path / "run"
    r, out = _train(cfg, "--set", f"data.train={data}", "--set", "optim.lr=3e-4", "--out", str(run))
    assert r.exit_code == 0, out
    assert yaml.safe_load((run / "config.yaml").read_text())["optim"]["lr"] == 3e-4

    # the same --out again, without --resume: refused, nothing deleted
    r, out = _train(cfg, "--set", f"data.train={data}", "--out", str(run))
    assert r.exit_code == 2 and len(out.splitlines()) == 1
    assert (
        f"{run} already holds a run (logged up to step 1)" in out
        and "--resume" in out
        and "--overwrite" in out
    )
    assert _steps(run) == [1] and (run / "checkpoints" / "latest").exists()

    # --resume with a changed learning rate / group size: refused, naming both keys
    r, out = _train("--out", str(run), "--resume", "--set", "optim.lr=1e-3", "--set", "rollout.n=8")
    assert r.exit_code == 2, out
    assert "optim.lr 0.0003 -> 0.001" in out and "rollout.n 4 -> 8" in out and "--allow-config-change" in out
    # the config file given again names a data path the run did not use: also a change
    r, out = _train(cfg, "--out", str(run), "--resume", "--set", "train.steps=2")
    assert r.exit_code == 2 and "data.train" in out and "unused.parquet" in out

    # --resume without repeating any --set: the run's own config.yaml; more steps is allowed
    r, out = _train("--out", str(run), "--resume", "--set", "train.steps=2")
    assert r.exit_code == 0, out
    assert _steps(run) == [1, 2]
    saved = yaml.safe_load((run / "config.yaml").read_text())
    assert saved["optim"]["lr"] == 3e-4 and saved["data"]["train"] == data and saved["train"]["steps"] == 2

    # an explicit change is accepted with the flag
    r, out = _train("--out", str(run), "--resume", "--set", "train.steps=3", "--set", "optim.lr=1e-4",
                    "--allow-config-change")  # fmt: skip
    assert r.exit_code == 0, out
    assert _steps(run) == [1, 2, 3]

    # --overwrite starts over
    r, out = _train(cfg, "--set", f"data.train={data}", "--out", str(run), "--overwrite")
    assert r.exit_code == 0, out
    assert _steps(run) == [1]
    assert yaml.safe_load((run / "config.yaml").read_text())["optim"]["lr"] == 1e-4  # the preset's, not 3e-4


def test_resume_of_a_directory_that_is_no_run_says_so(tmp_path):
    r, out = _train("--out", str(tmp_path / "nothing"), "--resume")
    assert r.exit_code == 2 and len(out.splitlines()) == 1
    assert "config.yaml not found" in out and "not a run directory" in out


def test_missing_verl_columns_name_the_real_export_command(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"question": ["1+1?"], "answer": ["2"]}), tmp_path / "raw.parquet")
    r, out = _train("--set", f"data.train={tmp_path / 'raw.parquet'}", "--out", str(tmp_path / "run"))
    assert r.exit_code == 2, out
    assert "dapo data export verl" in out and "dapo export --format" not in out


@pytest.mark.parametrize("preset", sorted(ALGORITHMS))
def test_a_runs_saved_config_loads_again_as_the_same_config(tmp_path, preset):
    from trainer.config import build_config, config_changes, dump_config, load_config, resume_config

    cfg = build_config({"optim": {"lr": 3e-4}, "train": {"out": str(tmp_path), "steps": 40}}, preset=preset)
    dump_config(cfg, tmp_path / "config.yaml")
    assert config_changes(cfg, load_config(tmp_path / "config.yaml")) == {}
    assert config_changes(cfg, resume_config(tmp_path)) == {}


# ---------------------------------------------------------------- --dry-run and presets owning their keys
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "train.yaml"


def _algo_comments(text: str) -> dict[str, str]:
    """{algo key: its line's comment} of a --dry-run's output."""
    out, section = {}, None
    for line in text.splitlines():
        if line and not line.startswith(" "):
            section = line.split(":")[0]
        elif section == "algo" and line.startswith("  ") and not line.startswith("   ") and "  # " in line:
            out[line.split(":")[0].strip()] = line.split("  # ", 1)[1]
    return out


def _snapshot(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def test_dry_run_without_a_config_file_prints_the_preset_and_writes_nothing(tmp_path, monkeypatch):
    from trainer.config import config_dict, load_config

    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(app, ["train", "--preset", "gspo", "--dry-run", "--out", str(tmp_path / "run")])
    assert r.exit_code == 0, r.output
    assert _snapshot(tmp_path) == []  # no run directory, no config.yaml, nothing in the cwd
    # the layout of a run's config.yaml, exactly
    expected = config_dict(load_config(preset="gspo", sets=[f"train.out={tmp_path / 'run'}"]))
    assert yaml.safe_load(r.output) == expected
    assert expected["algo"]["eps_low"] == 3e-4 and expected["algo"]["eps_high"] == 4e-4
    notes = _algo_comments(r.output)
    assert notes["eps_low"] == notes["overlong_penalty"] == notes["name"] == "preset gspo"
    assert notes["token_norm"] == notes["overlong_buffer"] == "default"
    assert set(notes) == set(expected["algo"])  # every algo line says where it came from


def test_dry_run_names_file_set_and_preset_sources(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    run = tmp_path / "run"
    run.mkdir()
    (run / "metrics.jsonl").write_text('{"step": 1}\n')  # a run there: a real start would refuse
    before = _snapshot(tmp_path)
    args = [
        "train",
        str(EXAMPLE),
        "--preset",
        "grpo",
        "--set",
        "algo.eps_high=0.3",
        "--out",
        str(run),
        "--dry-run",
    ]
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0, r.output
    assert _snapshot(tmp_path) == before and (run / "metrics.jsonl").read_text() == '{"step": 1}\n'
    cfg = yaml.safe_load(r.output)
    assert cfg["preset"] == "grpo" and cfg["algo"]["eps_low"] == 0.2 and cfg["algo"]["eps_high"] == 0.3
    assert cfg["algo"]["override"] == ["eps_high"] and cfg["algo"]["overlong_buffer"] == 8
    notes = _algo_comments(r.output)
    assert notes["eps_high"] == "--set" and notes["eps_low"] == "preset grpo"
    assert notes["overlong_buffer"] == f"file {EXAMPLE}" and notes["tis_cap"] == "default"


@pytest.mark.parametrize("preset", sorted(ALGORITHMS))
def test_a_file_with_algorithm_keys_and_another_preset_is_refused(tmp_path, preset):
    """The issue's case through the CLI, for every preset: refused in one line naming the keys, or run as is."""
    from trainer.config import preset_algo

    p = tmp_path / "t.yaml"
    p.write_text(EXAMPLE.read_text().replace("algo:", "algo:\n  eps_low: 0.2\n  eps_high: 0.28", 1))
    r, out = _train(str(p), "--preset", preset, "--dry-run")
    base = preset_algo(preset)
    if (base.eps_low, base.eps_high) == (0.2, 0.28):
        assert r.exit_code == 0, out
        assert yaml.safe_load(r.output)["algo"]["eps_high"] == 0.28
    else:
        assert r.exit_code == 2 and len(out.splitlines()) == 1, out
        assert f"disagrees with preset {preset}" in out and "override: [" in out and "--set algo." in out
        assert "algo.eps_low" in out or "algo.eps_high" in out


def test_python_m_trainer_dry_run_shares_the_path(tmp_path):
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    cmd = [sys.executable, "-m", "trainer", "train", str(EXAMPLE), "--preset", "gspo", "--dry-run"]
    proc = subprocess.run(
        cmd, cwd=tmp_path, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(root)}
    )
    assert proc.returncode == 0, proc.stderr
    assert yaml.safe_load(proc.stdout)["algo"]["eps_low"] == 3e-4 and list(tmp_path.iterdir()) == []


def test_dry_run_with_resume_prints_the_runs_own_config(tmp_path):
    from trainer.config import dump_config, load_config

    run = tmp_path / "run"
    run.mkdir()
    dump_config(
        load_config(preset="grpo", sets=["algo.kl_coef=0.01", f"train.out={run}"]), run / "config.yaml"
    )
    before = _snapshot(tmp_path)
    r, out = _train("--out", str(run), "--resume", "--set", "train.steps=80", "--dry-run")
    assert r.exit_code == 0, out
    cfg = yaml.safe_load(r.output)
    assert cfg["preset"] == "grpo" and cfg["algo"]["kl_coef"] == 0.01 and cfg["train"]["steps"] == 80
    notes = _algo_comments(r.output)
    assert notes["kl_coef"] == f"file {run / 'config.yaml'}" and notes["eps_high"] == "preset grpo"
    assert _snapshot(tmp_path) == before
