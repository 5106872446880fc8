"""The update step: accumulation equals one big batch, a toy run trains and resumes exactly."""

import json

import pytest
import torch

from trainer.algorithms import ALGORITHMS, advantages
from trainer.batch import make_batch
from trainer.config import build_config
from trainer.data import Prompt
from trainer.objective import entropy_top_mask
from trainer.rollout import Sample
from trainer.sampling import Group
from trainer.update import accumulate_grads, score_tokens
from verifiers import RewardResult

TINY = {
    "hidden_size": 64,
    "num_layers": 2,
    "num_heads": 2,
    "num_kv_heads": 1,
    "intermediate_size": 128,
    "vocab_size": 300,
}


def _random_groups(n_groups: int, G: int, vocab: int, seed: int = 0) -> list[Group]:
    g = torch.Generator().manual_seed(seed)
    groups = []
    for k in range(n_groups):
        samples, scores = [], []
        for i in range(G):
            plen, rlen = (
                int(torch.randint(3, 8, (1,), generator=g)),
                int(torch.randint(1, 9, (1,), generator=g)),
            )
            trunc = i == G - 1 and k == 0  # one truncated response
            samples.append(Sample(torch.randint(3, vocab, (plen,), generator=g).tolist(),
                                  torch.randint(3, vocab, (rlen,), generator=g).tolist(), [-1.0] * rlen, trunc, ""))  # fmt: skip
            r = float(i % 2) * 2 - 1
            scores.append(RewardResult(r, float(r > 0), None, "", 0.0))
        groups.append(Group(Prompt(str(k), [], "1", ""), samples, scores))
    return groups


def _grads(model, cfg, batch, adv, old, micro):
    model.zero_grad(set_to_none=True)
    b = batch.with_(adv=adv, old=old)
    accumulate_grads(cfg, model, b, b, 1, micro)
    return [p.grad.clone() for p in model.parameters()]


@pytest.mark.parametrize(
    "over",
    [
        {"preset": "dapo"},
        {"preset": "dapo", "algo": {"token_norm": "group"}},
        {"preset": "dapo", "algo": {"token_norm": "batch"}},
        {"preset": "grpo"},
        {"preset": "dr_grpo"},
        {"preset": "gspo"},
        {"preset": "dapo", "algo": {"kl_coef": 0.1}},
        {"preset": "rloo"},
        {"preset": "reinforce_pp"},
        {"preset": "cispo"},
        {"preset": "gmpo"},
        {"preset": "clip_cov", "algo": {"cov_ratio": 0.2, "cov_low": -5.0}},
        {"preset": "kl_cov", "algo": {"cov_ratio": 0.2}},
        {"preset": "dapo", "algo": {"entropy_top_quantile": 0.3}},
    ],
)
def test_accumulation_equals_one_big_batch(tiny_policy, over):
    model, tok = tiny_policy
    cfg = build_config({**over, "rollout": {"n": 4, "max_new_tokens": 16}, "algo": {**over.get("algo", {}), "overlong_buffer": 4},
                        "train": {"prompts_per_step": 3}})  # fmt: skip
    groups = _random_groups(3, 4, len(tok))
    batch = make_batch(groups, tok.pad_token_id, overlong_filter=True)
    old, ent = score_tokens(model, batch, temperature=1.0, micro=12)
    old = old - 0.05 * torch.randn(
        old.shape, generator=torch.Generator().manual_seed(1)
    )  # ratios != 1: clipping matters
    adv = advantages(cfg.algo, groups, batch.loss_mask)
    ref = old + 0.1 if cfg.algo.kl_coef else None
    batch = batch.with_(adv=adv, old=old, ref=ref)
    algo = ALGORITHMS[cfg.algo.name]
    if algo.select:  # token selections are made once per batch, so micro-batching cannot change them
        adv_tok = adv if adv.dim() == 2 else adv[:, None].expand_as(batch.loss_mask)
        batch = batch.with_(selected=algo.select(old, adv_tok, batch.loss_mask, cfg.algo, torch.Generator()))
        assert batch.selected.any()
    if cfg.algo.entropy_top_quantile:
        batch = batch.with_(pg_mask=entropy_top_mask(ent, batch.loss_mask, cfg.algo.entropy_top_quantile))
    model.zero_grad(set_to_none=True)
    accumulate_grads(cfg, model, batch, batch, 1, 12)
    big = [p.grad.clone() for p in model.parameters()]
    model.zero_grad(set_to_none=True)
    accumulate_grads(cfg, model, batch, batch, 1, 3)
    small = [p.grad.clone() for p in model.parameters()]
    assert sum(float(b.abs().sum()) for b in big) > 0
    for b, s in zip(big, small, strict=True):
        torch.testing.assert_close(s, b, rtol=1e-4, atol=1e-6)


def test_truncated_responses_contribute_no_gradient(tiny_policy):
    model, tok = tiny_policy
    cfg = build_config(
        {
            "rollout": {"n": 4, "max_new_tokens": 16},
            "algo": {"overlong_buffer": 4},
            "train": {"prompts_per_step": 1},
        }
    )
    groups = _random_groups(1, 4, len(tok))  # response 3 is truncated
    batch = make_batch(groups, tok.pad_token_id, overlong_filter=True)
    old, _ = score_tokens(model, batch, temperature=1.0, micro=4)
    adv = advantages(cfg.algo, groups, batch.loss_mask)
    with_trunc = _grads(model, cfg, batch, adv, old, 4)
    adv2 = adv.clone()
    adv2[3] = 123.0  # the truncated response's advantage must not matter
    changed = _grads(model, cfg, batch, adv2, old, 4)
    for a, b in zip(with_trunc, changed, strict=True):
        torch.testing.assert_close(a, b)


def _toy_cfg(train_path, out, model_path, steps=2, kl=0.0):
    return build_config(
        {
            "preset": "dapo",
            "model": {"path": str(model_path)} if model_path else {"tiny": TINY},
            "data": {"train": train_path, "max_prompt_len": 256},
            "rollout": {"n": 4, "max_new_tokens": 16},
            "algo": {"overlong_buffer": 4, "dynamic_sampling": False, "kl_coef": kl},
            "optim": {"lr": 1e-3, "warmup_steps": 1},
            "train": {
                "steps": steps,
                "prompts_per_step": 2,
                "mini_batch_size": 4,
                "micro_batch_size": 2,
                "epochs": 2,
                "out": str(out),
                "tensorboard": False,
            },
        }  # fmt: skip
    )


def _params(path):
    from safetensors.torch import load_file

    return load_file(str(path / "model.safetensors"))


@pytest.mark.parametrize("kl", [0.0, pytest.param(0.05, marks=pytest.mark.slow)])
def test_train_step_on_toy_parquet_and_exact_resume(toy_verl, tmp_path, sft_dir, kl):
    from trainer.loop import train

    a = train(_toy_cfg(toy_verl, tmp_path / "a", sft_dir[0], kl=kl), progress=False)
    rows = [json.loads(x) for x in (a / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in rows] == [1, 2]
    for key in ("reward_mean", "acc", "response_length_mean", "truncation_ratio", "entropy", "mean_prob",
                "clip_frac_low", "clip_frac_high", "clip_frac_dual", "gen_batches", "filtered_share", "kl_old",
                "grad_norm", "lr",
                "tokens_per_s", "step_time"):  # fmt: skip
        assert key in rows[0], key
    assert rows[0]["updates"] == 4  # 8 responses / mini-batch 4 x 2 epochs
    assert rows[1]["grad_norm"] > 0

    if kl:
        assert rows[1]["kl_ref"] > 0 and (a / "reference/model.safetensors").exists()
    b_cfg = _toy_cfg(toy_verl, tmp_path / "b", sft_dir[0], kl=kl)
    train(b_cfg, progress=False, max_steps=1)
    assert (tmp_path / "b/checkpoints/latest").read_text() == "step-000001"
    train(b_cfg, progress=False, resume=True)  # a new "process": state comes only from the checkpoint
    ra = [json.loads(x) for x in (a / "rollouts.jsonl").read_text().splitlines()]
    rb = [json.loads(x) for x in (tmp_path / "b/rollouts.jsonl").read_text().splitlines()]
    assert ra == rb  # the same prompts and the same sampled responses at step 2
    pa, pb = _params(a / "checkpoints/step-000002"), _params(tmp_path / "b/checkpoints/step-000002")
    assert pa.keys() == pb.keys()
    for k in pa:
        assert torch.equal(pa[k], pb[k]), k
    # the step-1 weights differ from step 2: the run did update
    p1 = _params(tmp_path / "b/checkpoints/step-000001")
    assert any(not torch.equal(p1[k], pb[k]) for k in pb)


def test_resume_without_checkpoint_is_an_error(toy_verl, tmp_path):
    from trainer.loop import train

    with pytest.raises(FileNotFoundError, match="no checkpoint"):
        train(_toy_cfg(toy_verl, tmp_path / "none", None), progress=False, resume=True)


def _sampling_cfg(train_path, out, model_path, steps=3):
    return build_config(
        {
            "preset": "dapo",
            "model": {"path": str(model_path)},
            "data": {"train": train_path, "max_prompt_len": 256, "difficulty_sampling": "weight"},
            "rollout": {"n": 4, "max_new_tokens": 16},
            "algo": {
                "overlong_buffer": 4,
                # the toy policy is rarely right: its groups differ by overlong penalty, not correctness
                "filter_metric": "reward",
                "keep_surplus": True,
                "max_gen_batches": 2,
                "on_max_gen_batches": "train",
                "tis_cap": 2.0,
                "tis_level": "sequence",
                "rc_seq_band": [0.5, 2.0],
                "rc_token_band": [0.2, 5.0],
            },
            "optim": {"lr": 1e-3, "warmup_steps": 1},
            "train": {
                "steps": steps,
                "prompts_per_step": 2,
                "gen_prompts": 6,
                "mini_batch_size": 4,
                "epochs": 2,
                "out": str(out),
                "tensorboard": False,
            },
        }  # fmt: skip
    )


def _with_difficulty(src, dst):
    """The toy Parquet with a made-up pass-rate estimate on every other row (the rest have none)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = pq.read_table(src).to_pylist()
    for i, r in enumerate(rows):
        if i % 2 == 0:
            c = i % 5
            r["extra_info"]["difficulty"] = {"model": "toy", "n": 4, "correct": c % 5 if c < 5 else 4,
                                             "pass_rate": (c % 5) / 4 if c < 5 else 1.0}  # fmt: skip
    for r in rows:  # correct <= n
        d = r["extra_info"].get("difficulty")
        if d and d["correct"] > 4:
            d["correct"], d["pass_rate"] = 4, 1.0
    pq.write_table(pa.Table.from_pylist(rows), dst)
    return str(dst)


def test_surplus_buffer_difficulty_weights_and_correction_resume_exactly(toy_verl, tmp_path, sft_dir):
    from trainer.loop import train

    data = _with_difficulty(toy_verl, tmp_path / "d.parquet")
    a = train(_sampling_cfg(data, tmp_path / "a", sft_dir[0]), progress=False)
    rows = [json.loads(x) for x in (a / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in rows] == [1, 2, 3]
    for r in rows:
        for key in ("carried_groups", "surplus_groups", "dynamic_sampling_short", "rc_masked_share",
                    "engine_trainer_kl", "engine_trainer_chi2", "prompts_left_out"):  # fmt: skip
            assert key in r, key
        assert 0 <= r["rc_masked_share"] <= 1 and r["engine_trainer_chi2"] >= 0
        assert r["groups_trained"] + r["dynamic_sampling_short"] == 2
    # what a step kept over is what the next one started from
    for prev, cur in zip(rows, rows[1:], strict=False):
        assert cur["carried_groups"] == min(prev["surplus_groups"], 2)
    state = json.loads((a / "checkpoints/step-000003/trainer_state.json").read_text())
    assert len(state["surplus"]) == rows[2]["surplus_groups"]
    assert sum(r["carried_groups"] for r in rows) > 0  # the buffer was used (a step drew on it)

    b_cfg = _sampling_cfg(data, tmp_path / "b", sft_dir[0])
    train(b_cfg, progress=False, max_steps=1)
    train(b_cfg, progress=False, resume=True)
    ra = [json.loads(x) for x in (a / "rollouts.jsonl").read_text().splitlines()]
    rb = [json.loads(x) for x in (tmp_path / "b/rollouts.jsonl").read_text().splitlines()]
    assert ra == rb  # the same carried and new groups at steps 2 and 3
    pa, pb = _params(a / "checkpoints/step-000003"), _params(tmp_path / "b/checkpoints/step-000003")
    for k in pa:
        assert torch.equal(pa[k], pb[k]), k


@pytest.mark.parametrize(("n_groups", "updates"), [(4, 4), (3, 2), (1, 2)])
def test_short_batches_split_into_the_mini_batches_that_fit(tiny_policy, n_groups, updates, monkeypatch):
    """on_max_gen_batches: train can hand update() fewer groups than prompts_per_step (4 here)."""
    import copy

    from trainer.update import update

    model, tok = tiny_policy
    model = copy.deepcopy(model)
    cfg = build_config({"rollout": {"n": 4, "max_new_tokens": 16}, "algo": {"overlong_buffer": 4},
                        "train": {"prompts_per_step": 4, "mini_batch_size": 8, "epochs": 2}})  # fmt: skip
    groups = _random_groups(n_groups, 4, len(tok))
    batch = make_batch(groups, tok.pad_token_id, overlong_filter=False)
    batch = batch.with_(adv=advantages(cfg.algo, groups, batch.loss_mask))
    old, _ = score_tokens(model, batch, temperature=1.0, micro=16)
    import trainer.update as U

    sizes, real = [], U.accumulate_grads

    def spy(cfg_, model_, full, mb, *a, **kw):
        sizes.append(len(mb))
        return real(cfg_, model_, full, mb, *a, **kw)

    monkeypatch.setattr(U, "accumulate_grads", spy)
    opt = torch.optim.SGD(model.parameters(), lr=0.0)
    out = update(cfg, model, opt, batch.with_(old=old))
    # 16 responses: 2 mini-batches of 8 per epoch; 12: one of 12 (not 8, with 4 left out); 4: one of 4
    assert out["updates"] == updates and len(sizes) == updates
    assert sum(sizes) == 2 * len(batch)  # every response in one mini-batch per epoch
    assert out["rc_masked_share"] == 0.0  # no rollout correction configured


@pytest.mark.parametrize("grad_clip, clipped", [(1e-6, 1.0), (1e9, 0.0)])
def test_update_reports_the_share_of_norm_clipped_updates(tiny_policy, grad_clip, clipped):
    """`grad_clipped`: the share of a step's optimiser updates whose gradient optim.grad_clip scaled down."""
    from trainer.update import update

    model, tok = tiny_policy
    cfg = build_config({"preset": "dapo", "rollout": {"n": 4, "max_new_tokens": 16}, "algo": {"overlong_buffer": 4},
                        "train": {"prompts_per_step": 3, "mini_batch_size": 6}, "optim": {"grad_clip": grad_clip}})  # fmt: skip
    groups = _random_groups(3, 4, len(tok))
    batch = make_batch(groups, tok.pad_token_id, overlong_filter=True)
    old, _ = score_tokens(model, batch, temperature=1.0, micro=12)
    batch = batch.with_(adv=advantages(cfg.algo, groups, batch.loss_mask), old=old)
    opt = torch.optim.SGD(model.parameters(), lr=0.0)  # lr 0: the shared fixture's weights stay as they are
    st = update(cfg, model, opt, batch)
    assert st["updates"] == 2 and st["grad_norm"] > 1e-6
    assert st["grad_clipped"] == clipped


def test_on_max_gen_batches_skip_lets_a_step_without_informative_groups_go_by(toy, tmp_path, sft_dir):
    """Gold answers the policy never writes: no group has mixed correctness. `train` stops the run
    (nothing to train on); `skip` logs the steps as skipped, leaves the weights as they were, saves
    its checkpoints and resumes."""
    from trainer.loop import train
    from trainer.sampling import DynamicSamplingError

    problems = [{**p, "answer": "987654"} for p in toy.problems(32, seed=5)]
    path = toy.write_verl(tmp_path / "unsolvable.parquet", problems)

    def cfg(out, mode):
        c = _sampling_cfg(path, out, sft_dir[0], steps=2)
        c.algo.filter_metric, c.algo.keep_surplus, c.algo.on_max_gen_batches = "acc", False, mode
        c.data.difficulty_sampling = "off"
        return c

    with pytest.raises(DynamicSamplingError, match="kept 0 of 2 groups"):
        train(cfg(tmp_path / "train", "train"), progress=False)
    out = train(cfg(tmp_path / "skip", "skip"), progress=False, max_steps=1)
    train(cfg(tmp_path / "skip", "skip"), progress=False, resume=True)
    rows = [json.loads(x) for x in (out / "metrics.jsonl").read_text().splitlines()]
    assert [(r["step"], r["skipped_step"], r["groups_trained"]) for r in rows] == [(1, 1, 0), (2, 1, 0)]
    assert all(r["acc"] == 0.0 and r["gen_batches"] == 2 and r["dynamic_sampling_short"] == 2 for r in rows)
    start, end = _params(sft_dir[0]), _params(out / "checkpoints/step-000002")
    assert all(torch.equal(start[k], end[k]) for k in end)


def test_a_batch_smaller_than_the_mini_batch_still_clips_against_pi_old(toy_verl, tmp_path, sft_dir):
    """8 responses, mini_batch_size 16, 2 epochs: two updates per rollout, so the second one's ratio
    is taken against pi_old. The loop counted 8 // 16 = 0 updates, skipped the pi_old pass, and every
    epoch took its own detached log-probs as pi_old: the ratio stayed 1 and the clip never acted."""
    from trainer.loop import train

    cfg = _toy_cfg(toy_verl, tmp_path / "short", sft_dir[0], steps=1)
    cfg.train.mini_batch_size, cfg.train.micro_batch_size, cfg.optim.lr = 16, 4, 1e-2
    row = json.loads((train(cfg, progress=False) / "metrics.jsonl").read_text().splitlines()[0])
    assert row["updates"] == 2
    assert row["kl_old"] > 0  # the second epoch moved off pi_old (exactly 0 when pi_old was skipped)


def test_in_loop_eval_leaves_the_training_draws_as_they_are(toy_verl, tmp_path, sft_dir):
    """Turning eval on changed training from step 2 (its samples drew from training's RNG)."""
    from trainer.loop import train

    rows = {}
    for every in (0, 1):
        cfg = _toy_cfg(toy_verl, tmp_path / f"e{every}", sft_dir[0], steps=2)
        cfg.data.eval, cfg.train.eval_every, cfg.train.eval_k = toy_verl, every, 2
        out = train(cfg, progress=False)
        rows[every] = [json.loads(x) for x in (out / "metrics.jsonl").read_text().splitlines()]
    assert any(k.startswith("eval/") for k in rows[1][0]) and not any(
        k.startswith("eval/") for k in rows[0][0]
    )
    for a, b in zip(rows[0], rows[1], strict=True):
        assert (a["acc"], a["loss"], a["response_length_mean"]) == (
            b["acc"],
            b["loss"],
            b["response_length_mean"],
        )
    pa, pb = (
        _params(tmp_path / "e0/checkpoints/step-000002"),
        _params(tmp_path / "e1/checkpoints/step-000002"),
    )
    assert all(torch.equal(pa[k], pb[k]) for k in pa)


def test_keep_checkpoints_keeps_the_newest_n_or_every_one(toy_verl, tmp_path, sft_dir):
    """Only the two newest checkpoints stayed, whatever save_every said (keep=2 was hard-coded)."""
    from trainer.loop import train

    for keep, want in ((0, 3), (1, 1)):
        cfg = _toy_cfg(toy_verl, tmp_path / f"k{keep}", sft_dir[0], steps=3)
        cfg.train.keep_checkpoints = keep
        out = train(cfg, progress=False)
        assert len(list((out / "checkpoints").glob("step-*"))) == want
