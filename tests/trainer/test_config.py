import re

import pytest

from trainer.config import ConfigError, build_config, load_config


def test_presets_differ_where_the_papers_do():
    dapo, grpo = build_config(preset="dapo"), build_config(preset="grpo")
    assert (dapo.algo.eps_low, dapo.algo.eps_high) == (0.2, 0.28)
    assert grpo.algo.eps_low == grpo.algo.eps_high == 0.2
    assert dapo.algo.loss_agg == "token_mean" and grpo.algo.loss_agg == "seq_mean_token_mean"
    assert dapo.algo.dynamic_sampling and not grpo.algo.dynamic_sampling
    assert dapo.algo.overlong_filter and dapo.algo.kl_coef == 0.0


def test_user_keys_override_preset(tmp_path):
    p = tmp_path / "c.yaml"
    # a preset's key changed in a file needs the override marker (test_preset_keys.py)
    p.write_text("preset: dapo\nalgo:\n  eps_high: 0.3\n  override: [eps_high]\nrollout:\n  n: 4\n")
    cfg = load_config(p, sets=["train.steps=7", "algo.token_norm=group"])
    assert cfg.algo.eps_high == 0.3 and cfg.rollout.n == 4 and cfg.train.steps == 7
    assert cfg.algo.token_norm == "group" and cfg.algo.eps_low == 0.2
    assert cfg.algo.override == ["eps_high"]


def test_unknown_key_suggests_the_right_one():
    with pytest.raises(ConfigError, match=r"unknown key 'algo.eps_hihg': did you mean 'algo.eps_high'"):
        build_config({"algo": {"eps_hihg": 0.28}})


def test_verl_trl_names_say_what_to_write():
    with pytest.raises(ConfigError, match=r"clip_ratio_high.*write algo.eps_high"):
        build_config({"algo": {"clip_ratio_high": 0.28}})
    with pytest.raises(ConfigError, match=r"num_generations.*write rollout.n"):
        build_config({"num_generations": 8})


@pytest.mark.parametrize(
    ("over", "msg"),
    [
        (
            {"train": {"prompts_per_step": 4, "mini_batch_size": 5}, "rollout": {"n": 4}},
            "mini_batch_size 5 must divide",
        ),
        ({"train": {"mini_batch_size": 16, "micro_batch_size": 6}}, "micro_batch_size 6 must divide"),
        (
            {"rollout": {"max_new_tokens": 16}, "algo": {"overlong_buffer": 16}},
            "overlong_buffer 16 must be smaller",
        ),
        (
            {"algo": {"loss_agg": "seq_mean_token_mean", "token_norm": "group"}},
            "token_norm 'group' only applies",
        ),
        (
            {"rollout": {"top_p": 0.7}, "algo": {"old_logprobs": "engine"}},
            "write algo.old_logprobs: recompute",
        ),
        ({"rollout": {"n": 1}}, "at least two responses"),
        ({"model": {"tiny": {"hidden_size": 64, "num_heads": 4}}}, "head size"),
        ({"train": {"device": "gpu"}}, "write auto, cpu, cuda or cuda:N"),
        ({"train": {"fsdp_param_dtype": "bfloat16"}}, "only with train.fsdp: true"),
    ],
)
def test_contradictions_are_errors(over, msg):
    with pytest.raises(ConfigError, match=msg):
        build_config(over)


def test_preset_and_algo_name_must_agree():
    with pytest.raises(ConfigError, match="contradicts preset"):
        build_config({"preset": "grpo", "algo": {"name": "dapo"}})


def test_bad_yaml_names_the_file(tmp_path):
    p = tmp_path / "bad.yaml"
    p.write_text("- just\n- a list\n")
    with pytest.raises(ConfigError, match=str(p)):
        load_config(p)


@pytest.mark.parametrize(
    ("over", "msg"),
    [
        ({"algo": {"rc_seq_band": [1.2, 2.0]}}, r"algo.rc_seq_band \[1.2, 2.0\]: write \[low, high\] with 0 <= low < 1 < high"),
        ({"algo": {"rc_token_band": [0.5, 0.9]}}, r"algo.rc_token_band .*0 <= low < 1 < high"),
        ({"algo": {"tis_level": "sequence"}}, "algo.tis_level sets what algo.tis_cap weights"),
        ({"preset": "gspo", "algo": {"rc_seq_band": [0.5, 2.0]}}, "gspo's loss is per sequence"),
        ({"algo": {"rc_token_band": [0.5, 2.0], "old_logprobs": "engine"}}, "write algo.old_logprobs: recompute"),
        ({"data": {"difficulty_skip_below": 0.1}}, "applies to data.difficulty_sampling: skip"),
        ({"data": {"difficulty_sampling": "skip", "difficulty_skip_below": 0.6, "difficulty_skip_above": 0.5}},
         "0 <= below < above <= 1"),
        ({"algo": {"dynamic_sampling": False, "keep_surplus": True}}, "algo.keep_surplus applies to dynamic sampling"),
        ({"algo": {"on_max_gen_batches": "ignore"}}, "on_max_gen_batches"),
        # a sequence-level loss: loss_agg and token_norm were shown by --dry-run and silently not used
        ({"preset": "gspo", "algo": {"loss_agg": "token_sum"}}, "algo.loss_agg token_sum: gspo.s loss is one ratio per response"),
        ({"preset": "gmpo", "algo": {"token_norm": "group"}}, r"algo.token_norm group: gmpo.s loss"),
        # values that crashed mid-run (a modulo by zero after the first step, a division by zero)
        ({"train": {"save_every": 0}}, r"train.save_every: Input should be greater than or equal to 1"),
        ({"train": {"prompts_per_step": 0}}, r"train.prompts_per_step"),
        ({"optim": {"lr": -1.0}}, r"optim.lr: Input should be greater than 0"),
    ],
)  # fmt: skip
def test_sampling_and_correction_keys_are_checked(over, msg):
    with pytest.raises(ConfigError, match=msg):
        build_config(over)


def test_sampling_and_correction_keys_accepted():
    cfg = build_config({"data": {"difficulty_sampling": "skip", "difficulty_skip_above": 0.9},
                        "algo": {"keep_surplus": True, "on_max_gen_batches": "train", "tis_cap": 3.0,
                                 "tis_level": "sequence", "rc_seq_band": [0.5, 2.0], "rc_token_band": [0.1, 10]}})  # fmt: skip
    assert cfg.algo.rc_seq_band == (0.5, 2.0) and cfg.data.difficulty_skip_above == 0.9


def test_set_accepts_a_bare_top_level_key_and_explains_an_alias():
    """`--set preset=grpo` picks the preset; a verl/TRL key given bare gets the key to write instead."""
    from trainer.config import ConfigError, load_config

    cfg = load_config(sets=["preset=grpo", "optim.lr=3e-4"])
    assert (cfg.algo.name, cfg.optim.lr) == ("grpo", 3e-4)
    with pytest.raises(ConfigError, match="write optim.grad_clip instead"):
        load_config(sets=["max_grad_norm=0.5"])
    with pytest.raises(ConfigError, match="write key.sub=value"):
        load_config(sets=["algo.eps_high"])


def test_dual_clip_key_dapo_preset_and_its_checks():
    assert build_config(preset="dapo").algo.clip_ratio_c == 10.0  # DAPO's verl recipe
    assert build_config(preset="grpo").algo.clip_ratio_c is None  # the papers' objective: no cap
    assert build_config(preset="grpo", overrides={"algo": {"clip_ratio_c": 3.0}}).algo.clip_ratio_c == 3.0
    with pytest.raises(ConfigError, match=r"clip_ratio_c .* must be > 1"):
        build_config(preset="grpo", overrides={"algo": {"clip_ratio_c": 0.5}})
    with pytest.raises(
        ConfigError,
        match=r"clip_ratio_c = 3.0: dual-clip applies to the clipped token loss \(grpo, dapo, .*\), not gspo's, it is never read",
    ):
        build_config(preset="gspo", overrides={"algo": {"clip_ratio_c": 3.0}})


def test_kl_kind_k2_is_accepted():
    assert (
        build_config(preset="grpo", overrides={"algo": {"kl_coef": 0.001, "kl_kind": "k2"}}).algo.kl_kind
        == "k2"
    )


@pytest.mark.parametrize(
    ("over", "hint"),
    [
        ({"actor_rollout_ref": {"actor": {"clip_ratio_high": 0.28}}}, "'actor_rollout_ref.actor.clip_ratio_high': write algo.eps_high"),
        ({"actor_rollout_ref": {"rollout": {"n": 4}}}, "'actor_rollout_ref.rollout.n': write rollout.n"),
        ({"algorithm": {"filter_groups": {"enable": True}}}, "write algo.dynamic_sampling"),
        ({"scale_rewards": "none"}, "write algo.std_normalize"),
        ({"epsilon": 0.2}, "TRL's epsilon is both bounds"),
    ],
)  # fmt: skip
def test_a_verl_or_trl_path_names_our_key(over, hint):
    """Bare borrowed keys named ours; full verl paths got "did you mean 'train.rollout_threads'?"."""
    with pytest.raises(ConfigError, match=re.escape(hint)):
        build_config(over)


def test_preset_given_twice_on_the_command_line_must_agree():
    from trainer.config import load_config

    with pytest.raises(ConfigError, match="--preset dapo and --set preset=gspo disagree"):
        load_config(preset="dapo", sets=["preset=gspo"])
    assert load_config(preset="gspo", sets=["preset=gspo"]).algo.name == "gspo"
