"""bench/ablation.py rewrites only its marked table region of ablation.md; the prose around it survives."""

import importlib.util
from pathlib import Path

import pytest

from trainer.config import build_config

ROOT = Path(__file__).resolve().parents[2]


def _ablation():
    spec = importlib.util.spec_from_file_location("ablation", ROOT / "bench" / "ablation.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_table_region_is_replaced_and_prose_kept(tmp_path):
    ab = _ablation()
    md = tmp_path / "ablation.md"
    assert ab.with_table(md, "| a |\n") == f"{ab.TABLE_START}\n| a |\n{ab.TABLE_END}\n"  # no file yet
    md.write_text(
        f"# title\n\n{ab.TABLE_START}\n| old |\n{ab.TABLE_END}\n\n## What this run shows\n\nprose\n"
    )
    out = ab.with_table(md, "| new |\n| row |\n")
    assert (
        out
        == f"# title\n\n{ab.TABLE_START}\n| new |\n| row |\n{ab.TABLE_END}\n\n## What this run shows\n\nprose\n"
    )
    # an older report without markers: the table goes on top, nothing of the old text is lost
    md.write_text("old report\n")
    assert ab.with_table(md, "| t |") == f"{ab.TABLE_START}\n| t |\n{ab.TABLE_END}\n\nold report\n"
    md.write_text(f"{ab.TABLE_END}\n{ab.TABLE_START}\n")
    with pytest.raises(ValueError, match="fix the markers by hand"):
        ab.with_table(md, "| t |")


def test_every_preset_of_the_algorithm_table_is_in_the_sweep():
    from trainer.config import PRESETS

    ab = _ablation()
    assert sorted(ab.PRESETS) == sorted(PRESETS) and ab.PRESETS[:3] == ["grpo", "dr_grpo", "dapo"]


def test_variant_parses_to_nested_overrides_and_rejects_malformed_text():
    ab = _ablation()
    name, preset, over = ab.parse_variant(
        "vapo_long=vapo:algo.alpha=0.5; algo.value_pretrain_steps=10;optim.lr=3e-4"
    )
    assert (name, preset) == ("vapo_long", "vapo")
    assert over == {"algo": {"alpha": 0.5, "value_pretrain_steps": 10}, "optim": {"lr": "3e-4"}}
    # merged over the sweep's own settings: the variant's keys win, the others stay; the config types them
    merged = ab._merge({"algo": {"overlong_buffer": 8}, "optim": {"lr": 1e-4, "warmup_steps": 2}}, over)
    assert merged["algo"] == {"overlong_buffer": 8, "alpha": 0.5, "value_pretrain_steps": 10}
    cfg = build_config(merged, preset=preset)
    assert (cfg.algo.name, cfg.algo.alpha, cfg.algo.value_pretrain_steps) == ("vapo", 0.5, 10)
    assert (cfg.optim.lr, cfg.optim.warmup_steps, cfg.algo.overlong_buffer) == (3e-4, 2, 8)
    for bad in ("vapo:algo.alpha=0.5", "x=vapo", "x=vapo:alpha=0.5", "x=vapo:algo.alpha"):
        with pytest.raises(ValueError, match="--variant"):
            ab.parse_variant(bad)


def test_unknown_variant_preset_is_a_clear_error(capsys):
    ab = _ablation()
    with pytest.raises(SystemExit):
        ab.main(["--variant", "x=nosuch:algo.alpha=1", "--presets", "grpo"])
    assert "unknown preset 'nosuch'" in capsys.readouterr().err
