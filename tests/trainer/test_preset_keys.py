"""A preset owns its algorithm keys: a config file that changes one without marking it is refused.

Parametrized over every row of the algorithm table, so a new preset is covered without a new test.
"""

from __future__ import annotations

from pathlib import Path
from typing import get_args

import pytest
import yaml

from trainer.algorithms import ALGORITHMS, NAMES
from trainer.config import (
    ALGORITHM_KEYS,
    AlgoConfig,
    ConfigError,
    build_config,
    config_changes,
    dump_config,
    load_config,
    preset_algo,
    resume_config,
)

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "train.yaml"
# what examples/train.yaml carried before (dapo's clip written out): the file of the report
OLD_EXAMPLE_ALGO = {"eps_low": 0.2, "eps_high": 0.28, "overlong_buffer": 8, "max_gen_batches": 20}


def _write(tmp_path: Path, data: dict) -> Path:
    p = tmp_path / "c.yaml"
    p.write_text(yaml.safe_dump(data))
    return p


def _other_value(name: str, key: str):
    """A valid value of `key` that differs from preset `name`'s."""
    v = getattr(preset_algo(name), key)
    if isinstance(v, bool):
        return not v
    if isinstance(v, str):  # a Literal: another of its choices
        return next(c for c in get_args(AlgoConfig.model_fields[key].annotation) if c != v)
    if isinstance(v, int):
        return v + 1
    return round(v / 2, 6) if v else 0.1  # halving keeps every range (eps, cov_ratio, gamma, ...) valid


@pytest.mark.parametrize("preset", NAMES)
def test_every_row_states_its_shaping_keys(preset):
    row = ALGORITHMS[preset].preset
    missing = [
        k for k in ("dynamic_sampling", "overlong_filter", "overlong_penalty", "kl_coef") if k not in row
    ]
    assert not missing, f"{preset}'s row leaves {missing} to AlgoConfig's defaults; write them in the row"


def test_algorithm_keys_are_the_keys_rows_set_and_options_are_not():
    assert {"eps_low", "eps_high", "loss_agg", "dynamic_sampling", "filter_metric", "overlong_filter",
            "overlong_penalty", "kl_coef", "std_normalize", "gamma", "cov_ratio"} <= set(ALGORITHM_KEYS)  # fmt: skip
    for option in ("overlong_buffer", "max_gen_batches", "tis_cap", "token_norm", "entropy_top_quantile"):
        assert option not in ALGORITHM_KEYS
    assert "name" not in ALGORITHM_KEYS and "override" not in ALGORITHM_KEYS
    for name, row in ALGORITHMS.items():
        assert set(row.preset) <= set(ALGORITHM_KEYS), name
        for s in row.settings:  # a row's own settings are algorithm keys, unless declared an option
            assert (s.name in ALGORITHM_KEYS) != s.option, (name, s.name)


@pytest.mark.parametrize("preset", NAMES)
def test_the_old_example_file_with_a_preset_refuses_or_is_that_preset(tmp_path, preset):
    """The issue's case: a file with dapo's clip + `--preset X` either refuses naming the keys or runs X's clip."""
    p = _write(tmp_path, {"preset": "dapo", "algo": OLD_EXAMPLE_ALGO})
    base = preset_algo(preset)
    differs = [k for k in ("eps_low", "eps_high") if OLD_EXAMPLE_ALGO[k] != getattr(base, k)]
    if differs:
        with pytest.raises(ConfigError) as e:
            load_config(p, preset=preset)
        msg = str(e.value)
        assert "\n" not in msg and f"preset {preset}" in msg and str(p) in msg
        for k in differs:
            assert f"algo.{k} {OLD_EXAMPLE_ALGO[k]} ({preset}: {getattr(base, k)})" in msg
        assert f"override: [{', '.join(differs)}]" in msg and f"--set algo.{differs[0]}=" in msg
        # the options the file sets are never named
        assert "overlong_buffer" not in msg and "max_gen_batches" not in msg
    else:
        cfg = load_config(p, preset=preset)
        assert (cfg.algo.eps_low, cfg.algo.eps_high) == (base.eps_low, base.eps_high)


@pytest.mark.parametrize("preset", NAMES)
def test_the_example_config_runs_every_preset_as_it_is(preset):
    cfg = load_config(EXAMPLE, preset=preset)
    base = preset_algo(preset)
    own = [k for k in ALGORITHM_KEYS if k in AlgoConfig.model_fields or k in ALGORITHMS[preset].keys]
    assert all(getattr(cfg.algo, k) == getattr(base, k) for k in own)
    assert not any(hasattr(cfg.algo, k) for k in set(ALGORITHM_KEYS) - set(own))  # other rows' settings
    assert cfg.algo.override == []
    assert (cfg.algo.overlong_buffer, cfg.algo.max_gen_batches) == (8, 20)  # the file's options


def test_example_configs_carry_no_algorithm_keys():
    algo = yaml.safe_load(EXAMPLE.read_text()).get("algo") or {}
    assert not set(algo) & {*ALGORITHM_KEYS, "override"}, algo


# keys whose other value the algorithm itself refuses (maxrl divides by the success rate: +1/-1 rewards only)
REFUSED_BY_THE_ALGORITHM = {("maxrl", "overlong_penalty")}


# every key a row sets: its values of the shared keys and its own settings (options aside)
ROW_KEYS = [
    (n, k)
    for n in NAMES
    for k in [*ALGORITHMS[n].preset, *(s.name for s in ALGORITHMS[n].settings if not s.option)]
]


@pytest.mark.parametrize(("preset", "key"), ROW_KEYS)
def test_a_changed_key_needs_the_marker_or_a_set(tmp_path, preset, key):
    """Each key of each row: changed in a file, refused; marked or --set, taken."""
    value = _other_value(preset, key)
    if (preset, key) in REFUSED_BY_THE_ALGORITHM:  # no value but the row's is valid: refused however said
        for algo in ({key: value}, {key: value, "override": [key]}):
            with pytest.raises(ConfigError, match=key):
                load_config(_write(tmp_path, {"preset": preset, "algo": algo}))
        return
    plain = _write(tmp_path, {"preset": preset, "algo": {key: value}})
    with pytest.raises(ConfigError, match=rf"disagrees with preset {preset} on algo\.{key} "):
        load_config(plain)
    # marked in the file
    marked = _write(tmp_path, {"preset": preset, "algo": {key: value, "override": [key]}})
    cfg = load_config(marked)
    assert getattr(cfg.algo, key) == value and cfg.algo.override == [key]
    # or set on the command line (no file, or a file without the key)
    cfg = load_config(preset=preset, sets=[f"algo.{key}={value}"])
    assert getattr(cfg.algo, key) == value and cfg.algo.override == [key]


def test_a_file_naming_its_preset_in_algo_name_is_held_to_it(tmp_path):
    p = _write(
        tmp_path, {"preset": "gspo", "algo": {"name": "gspo", "eps_high": 0.28, "overlong_penalty": True}}
    )
    with pytest.raises(ConfigError) as e:
        load_config(p)
    assert "algo.eps_high 0.28 (gspo: 0.0004)" in str(e.value)
    assert "algo.overlong_penalty true (gspo: false)" in str(e.value)


def test_a_set_wins_over_the_file_and_counts_as_explicit(tmp_path):
    p = _write(tmp_path, {"algo": {"eps_high": 0.5}})
    cfg = load_config(p, sets=["algo.eps_high=0.3"])
    assert cfg.algo.eps_high == 0.3 and cfg.algo.override == ["eps_high"]


def test_keys_equal_to_the_preset_and_options_need_no_marker(tmp_path):
    p = _write(tmp_path, {"algo": {"eps_high": 0.28, "overlong_buffer": 4, "tis_cap": 2.0}})
    cfg = load_config(p, preset="dapo")
    assert cfg.algo.override == [] and cfg.algo.tis_cap == 2.0


@pytest.mark.parametrize(
    ("algo", "msg"),
    [
        ({"override": ["eps_high"]}, "algo.override names eps_high, which this config does not set"),
        (
            {"overlong_buffer": 4, "override": ["overlong_buffer"]},
            "'overlong_buffer', which is not an algorithm key",
        ),
        # the unknown key is reported first (a row's settings are checked before the fields)
        ({"eps_hihg": 0.3, "override": ["eps_hihg"]}, r"did you mean '(algo\.)?eps_high'"),
    ],
)
def test_a_wrong_marker_is_an_error(tmp_path, algo, msg):
    with pytest.raises(ConfigError, match=msg):
        load_config(_write(tmp_path, {"algo": algo}))


def test_programmatic_configs_are_not_checked():
    """build_config(dict) is code that says what it means (bench sweeps, the demo); only files are held."""
    assert build_config({"algo": {"eps_high": 0.5}}).algo.eps_high == 0.5


def test_a_saved_config_with_changes_loads_again_and_resumes(tmp_path):
    cfg = load_config(preset="gspo", sets=["algo.eps_high=0.001", f"train.out={tmp_path}"])
    dump_config(cfg, tmp_path / "config.yaml")
    saved = yaml.safe_load((tmp_path / "config.yaml").read_text())
    assert saved["algo"]["override"] == ["eps_high"] and saved["algo"]["eps_high"] == 0.001
    assert config_changes(cfg, load_config(tmp_path / "config.yaml")) == {}
    assert config_changes(cfg, resume_config(tmp_path)) == {}
    # a dict-built config (the demo's way) writes its changes into override too, so its file loads
    demo_like = build_config({"algo": {"kl_coef": 0.01}, "train": {"out": str(tmp_path / "d")}})
    dump_config(demo_like, tmp_path / "d.yaml")
    assert load_config(tmp_path / "d.yaml").algo.override == ["kl_coef"]


def test_filter_metric_is_dynamic_samplings():
    assert AlgoConfig().filter_metric == "acc" and preset_algo("dapo").filter_metric == "acc"
    assert build_config({"algo": {"filter_metric": "reward"}}).algo.filter_metric == "reward"
    with pytest.raises(ConfigError, match="algo.filter_metric applies to dynamic sampling"):
        build_config({"algo": {"filter_metric": "reward"}}, preset="grpo")
    with pytest.raises(ConfigError, match="filter_metric"):
        build_config({"algo": {"filter_metric": "score"}})
