"""bench/mechanisms_same_rollouts.py: the second update beside each real one is undone exactly, and it
differs from the real one only through the tokens the upper clip bound holds back."""

import importlib.util
import json
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parents[2]
LR = 1e-3  # large enough for ratios past 1.2 within a toy step, small enough that not all pass 1.28


@pytest.fixture(scope="module")
def same():
    spec = importlib.util.spec_from_file_location(
        "mechanisms_same_rollouts", ROOT / "bench" / "mechanisms_same_rollouts.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _cfg(train_path, out, model_path, lr):
    from trainer.config import build_config

    return build_config(
        {
            "preset": "dapo",
            "model": {"path": str(model_path)},
            "data": {"train": train_path, "max_prompt_len": 256},
            "rollout": {"n": 8, "max_new_tokens": 48},
            "algo": {"overlong_buffer": 4, "dynamic_sampling": False},
            "optim": {"lr": lr, "warmup_steps": 1},
            "train": {
                "steps": 3,
                "prompts_per_step": 4,
                "mini_batch_size": 8,
                "epochs": 2,
                "out": str(out),
                "tensorboard": False,
            },
        }  # fmt: skip
    )


def _train(cfg, wrapper=None):
    import trainer.loop

    real = trainer.loop.update
    if wrapper is not None:
        trainer.loop.update = wrapper(real)
    try:
        return trainer.loop.train(cfg, progress=False)
    finally:
        trainer.loop.update = real


def _params(run):
    from safetensors.torch import load_file

    return load_file(str(run / "checkpoints" / "step-000003" / "model.safetensors"))


def _rows(path):
    return [json.loads(x) for x in path.read_text().splitlines()]


def test_the_measured_second_update_is_undone_and_the_run_is_the_plain_run(same, toy_verl, sft_dir, tmp_path):
    plain = _train(_cfg(toy_verl, tmp_path / "plain", sft_dir[0], LR))
    rows_path = tmp_path / "rows.jsonl"
    paired = _train(
        _cfg(toy_verl, tmp_path / "paired", sft_dir[0], LR), lambda u: same.SameRollouts(u, rows_path)
    )
    assert (plain / "rollouts.jsonl").read_text() == (paired / "rollouts.jsonl").read_text()
    a, b = _params(plain), _params(paired)
    assert all(torch.equal(a[k], b[k]) for k in a)
    rows = _rows(rows_path)
    assert [r["step"] for r in rows] == [1, 2, 3]
    assert all(r["eps_high"] == 0.28 and r["eps_high_alt"] == 0.2 for r in rows)
    # at this learning rate the symmetric bound holds back tokens the higher one lets through (ratio in
    # (1.2, 1.28]), and then the two updates differ; where both hold back the same tokens they do not
    freed = [r for r in rows if r["clip_frac_high_alt"] > r["clip_frac_high"]]
    assert freed, "the toy run should push some ratios into (1.2, 1.28]"
    assert all(r["d_entropy"] != 0 and r["d_low_logp"] for r in freed)


def test_the_same_bound_on_both_sides_differs_by_exactly_nothing(same, toy_verl, sft_dir, tmp_path):
    rows_path = tmp_path / "rows.jsonl"
    _train(
        _cfg(toy_verl, tmp_path / "run", sft_dir[0], LR), lambda u: same.SameRollouts(u, rows_path, eps=0.28)
    )
    rows = _rows(rows_path)
    assert len(rows) == 3
    assert all(r["d_entropy"] == 0 and r["d_entropy_fixed"] == 0 for r in rows)
    assert all(r["d_low_logp"] in (0, None) for r in rows)


def test_the_token_loss_pair_differs_only_by_the_aggregation(same, toy_verl, sft_dir, tmp_path):
    """The same loss on both sides: exactly no difference; the sample-level mean beside the token-level one: the long
    and short negative responses move differently."""
    alt, _ = same.TECHNIQUES["token_loss"]
    rows_path = tmp_path / "rows.jsonl"
    _train(_cfg(toy_verl, tmp_path / "a", sft_dir[0], LR), lambda u: same.SameRollouts(u, rows_path, alt=alt))
    rows = _rows(rows_path)
    assert all(r["alt"] == {"loss_agg": "seq_mean_token_mean"} for r in rows)
    assert any(r["d_long_neg"] not in (None, 0) for r in rows)
    same_path = tmp_path / "same.jsonl"
    _train(_cfg(toy_verl, tmp_path / "b", sft_dir[0], LR),
           lambda u: same.SameRollouts(u, same_path, alt={"loss_agg": "token_mean"}))  # fmt: skip
    assert all(r["d_long_neg"] in (None, 0) and r["d_entropy"] == 0 for r in _rows(same_path))


def test_the_summary_shows_an_effect_only_at_three_standard_errors(same, tmp_path):
    def write(seed, ds):
        p = tmp_path / f"{seed}.jsonl"
        keys = [
            "d_entropy_fixed",
            "d_low_logp",
            "clip_frac_high",
            "clip_frac_high_alt",
            "entropy_old",
            "kl_old",
        ]
        p.write_text("".join(json.dumps({"d_entropy": d, **dict.fromkeys(keys, 0.0)}) + "\n" for d in ds))
        return p

    steady = same.summarise({s: write(s, [1e-4 + s * 1e-6, 1e-4]) for s in range(5)})
    assert steady["shown"] and steady["d_entropy"]["mean"] > 0
    assert steady["per_seed"][0]["positive_steps"] == 2
    pytest.importorskip("matplotlib")
    from PIL import Image

    figure = same.plot({s: tmp_path / f"{s}.jsonl" for s in range(5)}, tmp_path)
    assert Image.open(figure).size[0] > 500
    mixed = same.summarise({s: write(s, [(-1) ** s * 1e-4, 0.0]) for s in range(5)})
    assert not mixed["shown"]
    assert mixed["per_seed"][1]["zero_steps"] == 1
