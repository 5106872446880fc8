"""A row of the algorithm table declares its own settings; a new algorithm with one is one function + one row.

The toy algorithm below is added the way docs/algorithms.md ("Adding an algorithm") says: one loss
function and one row with one `Setting`, nothing in trainer/config.py. It is validated, shown by
`--dry-run`, saved in the run's config.yaml and read by the loss in a real one-step run.
"""

from __future__ import annotations

import math
import re
import warnings

import pytest
import torch
import yaml

from trainer import objective as obj
from trainer.algorithms import ALGORITHMS, Algorithm, Setting
from trainer.config import (
    AlgoConfig,
    ConfigError,
    algorithm_keys,
    build_config,
    config_changes,
    config_dict,
    config_yaml,
    load_config_sources,
    resume_config,
)

SEEN_SCALES: list[float] = []  # what the toy loss read from its setting, call by call


def toy_loss(logp, old, adv, mask, mb, a):
    """The toy algorithm's one function: the clipped token loss scaled by its own setting algo.toy_scale."""
    SEEN_SCALES.append(a.toy_scale)
    loss, clip_low, clip_high = obj.clipped_token_loss(logp, old, adv, eps_low=a.eps_low, eps_high=a.eps_high)
    return a.toy_scale * loss, clip_low, clip_high


TOY_ROW = Algorithm(
    "toy", "Toy: the clipped token loss times algo.toy_scale",
    ALGORITHMS["grpo"].advantage, toy_loss, "token_mean",
    {"eps_low": 0.2, "eps_high": 0.2, "dynamic_sampling": False, "overlong_filter": False,
     "overlong_penalty": False, "kl_coef": 0.0},
    settings=(Setting("toy_scale", 0.5, float, "factor on the token loss"),),
)  # fmt: skip


@pytest.fixture
def toy_row(monkeypatch):
    """The toy row in the table for one test (monkeypatch takes it out again)."""
    monkeypatch.setitem(ALGORITHMS, "toy", TOY_ROW)
    SEEN_SCALES.clear()
    return TOY_ROW


def _sets(out, train) -> list[str]:
    tiny = {"hidden_size": 64, "num_layers": 2, "num_heads": 2, "num_kv_heads": 1, "intermediate_size": 128,
            "vocab_size": 300}  # fmt: skip
    return [
        *(f"model.tiny.{k}={v}" for k, v in tiny.items()),
        f"data.train={train}", "data.max_prompt_len=256", "rollout.n=4", "rollout.max_new_tokens=12",
        "algo.overlong_buffer=3", "optim.lr=1e-3", "optim.warmup_steps=1", "train.steps=1",
        "train.prompts_per_step=3", "train.mini_batch_size=6", "train.micro_batch_size=3", f"train.out={out}",
        "train.tensorboard=false",
    ]  # fmt: skip


def test_a_new_algorithm_with_a_setting_is_one_function_and_one_row(toy_row, toy_verl, tmp_path):
    from trainer.loop import train

    assert build_config(preset="toy").algo.toy_scale == 0.5  # the row's default fills the key
    assert "toy_scale" in algorithm_keys()  # a preset's key: a file changing it must say so
    out = tmp_path / "run"
    cfg, sources = load_config_sources(preset="toy", sets=[*_sets(out, toy_verl), "algo.toy_scale=0.25"])
    assert cfg.algo.toy_scale == 0.25 and cfg.algo.override == ["toy_scale"]
    assert "  toy_scale: 0.25  # --set" in config_yaml(cfg, sources).splitlines()  # what --dry-run prints

    run = train(cfg, progress=False)
    rows = [yaml.safe_load(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in rows] == [1] and math.isfinite(rows[0]["loss"])
    assert SEEN_SCALES and set(SEEN_SCALES) == {0.25}  # the loss read the setting
    saved = yaml.safe_load((run / "config.yaml").read_text())
    assert saved["preset"] == "toy"
    assert saved["algo"]["toy_scale"] == 0.25 and saved["algo"]["override"] == ["toy_scale"]
    assert resume_config(run).algo.toy_scale == 0.25  # the run's config.yaml loads again


def test_a_setting_under_another_preset_names_the_key_the_preset_and_who_takes_it(toy_row):
    with pytest.raises(ConfigError) as e:
        build_config({"algo": {"toy_scale": 1.0}}, preset="dapo")
    assert "dapo does not use algo.toy_scale: it is toy's (factor on the token loss); " in str(e.value)
    assert "write preset: toy" in str(e.value)
    with pytest.raises(ConfigError) as e:
        build_config({"algo": {"cov_ratio": 0.01}}, preset="grpo")
    assert "grpo does not use algo.cov_ratio: it is clip_cov / kl_cov's" in str(e.value)


@pytest.mark.parametrize(
    ("algo", "msg"),
    [
        ({"cov_ratoi": 0.01}, "unknown key 'algo.cov_ratoi': did you mean 'algo.cov_ratio'?"),
        (
            {"clip_ratio_high": 0.28},
            "unknown key 'algo.clip_ratio_high': write algo.eps_high instead",
        ),  # verl's
        ({"epsilon_high": 0.28}, "unknown key 'algo.epsilon_high': write algo.eps_high instead"),  # TRL's
        ({"cov_ratio": "many"}, "algo.cov_ratio 'many': Input should be a valid number"),
        ({"value_pretrain_steps": 1.5}, "algo.value_pretrain_steps 1.5: Input should be a valid integer"),
    ],
)
def test_unknown_aliased_and_mistyped_settings_say_what_to_write(algo, msg):
    preset = "ppo" if "value_pretrain_steps" in algo else "clip_cov"
    with pytest.raises(ConfigError, match=re.escape(msg)):
        build_config({"algo": algo}, preset=preset)


def test_settings_are_checked_on_assignment_too():
    a = build_config(preset="sapo").algo
    a.sapo_tau_pos = "2"  # a YAML-ish string becomes the declared float
    assert a.sapo_tau_pos == 2.0
    with pytest.raises(ValueError, match="sapo does not use algo.cov_ratio"):
        a.cov_ratio = 0.1


@pytest.mark.parametrize("name", list(ALGORITHMS))
def test_every_row_declares_its_settings_completely(name):
    """Name, a default of the declared type, a one-line meaning; no setting shadows a shared key."""
    row = ALGORITHMS[name]
    a = AlgoConfig(name=name)
    for s in row.settings:
        assert s.name.isidentifier() and s.name not in AlgoConfig.model_fields, s
        assert s.meaning and "\n" not in s.meaning, s
        assert getattr(a, s.name) == s.default  # the default passes the declared type unchanged
        for other in ALGORITHMS.values():  # one key, one meaning: rows sharing it declare the same type
            twin = other.setting(s.name)
            assert twin is None or twin.type == s.type, (name, other.name, s.name)


def test_an_old_run_dir_with_every_algorithm_knob_resumes(tmp_path):
    """Run dirs written when AlgoConfig had every algorithm's knobs as fields list them all; they resume."""
    cfg = build_config({"train": {"out": str(tmp_path)}}, preset="clip_cov")
    old = config_dict(cfg)
    old["algo"].update({"gamma": 1.0, "lam": 0.95, "value_clip": 0.5, "critic_lr": None, "value_pretrain_steps": 0,
                        "alpha": 0.05, "ntp_coef": 0.0, "cov_kl_coef": 1.0, "sapo_tau_pos": 1.0,
                        "sapo_tau_neg": 1.05, "dppo_ratio_cap": 20.0})  # fmt: skip
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(old, sort_keys=False))
    resumed = resume_config(tmp_path)
    assert config_changes(cfg, resumed) == {}
    assert (resumed.algo.cov_ratio, resumed.algo.cov_low, resumed.algo.cov_high) == (2e-4, 1.0, 5.0)
    assert not hasattr(resumed.algo, "cov_kl_coef")  # kl_cov's, never read by clip_cov


def _reads(name: str, key: str, values: tuple) -> bool:
    """Whether row `name`'s functions give a different result for two values of shared key `key`: the
    loss for the clip range (ratios e^(+-1), far outside any range), the advantage for std_normalize."""
    from types import SimpleNamespace

    row, a, outs = ALGORITHMS[name], build_config(preset=name).algo, []
    for v in values:
        b = a.model_copy(update=dict(zip(key.split("+"), v, strict=True)))
        g = torch.Generator().manual_seed(0)
        if key == "std_normalize":
            rewards, mask = (
                torch.rand(3, 4, generator=g),
                torch.ones(12, 5),
            )  # in [0, 1]: maxrl's success rates
            if row.critic:  # (a, scores [N], values [N, R], mask, pretrain) -> (adv, returns)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # vapo's note on 5-token responses
                    out = row.advantage(b, rewards.flatten(), torch.randn(12, 5, generator=g), mask, False)[0]
            else:
                out = row.advantage(b, rewards, ["k0", "k1", "k2"], mask, row.state() if row.state else None)
        else:
            old = -torch.rand(6, 5, generator=g) * 3
            logp = old + torch.randn(6, 5, generator=g)
            adv = torch.randn(6, generator=g) if row.seq_level else torch.randn(6, 5, generator=g)
            mb = SimpleNamespace(selected=torch.rand(6, 5, generator=g) < 0.3)
            out = row.loss(logp, old, adv, torch.ones(6, 5), mb, b)[0]
        outs.append(out)
    return not torch.equal(outs[0], outs[1])


@pytest.mark.parametrize("name", list(ALGORITHMS))
def test_a_row_lists_a_shared_key_as_unread_exactly_when_its_functions_ignore_it(name):
    """`unread` refuses a changed value (a user's eps_high for sapo would be ignored silently), so it must
    say what the functions do: a very different value changes their result exactly when it is read."""
    row = ALGORITHMS[name]
    clip = _reads(name, "eps_low+eps_high", ((0.9, 5.0), (0.01, 0.01)))
    assert clip is not ({"eps_low", "eps_high"} <= set(row.unread)), (name, row.unread)
    std = _reads(name, "std_normalize", ((True,), (False,)))
    assert std is ("std_normalize" not in row.unread), (name, row.unread)


@pytest.mark.parametrize(("name", "key", "value"), [(n, k, v) for n, r in ALGORITHMS.items() for k, v in
                         (("eps_high", 0.5), ("std_normalize", False)) if k in r.unread])  # fmt: skip
def test_a_shared_key_a_row_never_reads_is_refused_and_the_dry_run_says_so(name, key, value):
    with pytest.raises(ValueError, match=f"algo.{key} = {value}: .*it is never read; drop it"):
        build_config({"algo": {key: value}}, preset=name)
    text = config_yaml(build_config(preset=name), {"name": f"preset {name}"})
    assert re.search(rf"\n  {key}: \S+  # not read: ", text), text
