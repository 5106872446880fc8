"""RL on real weights: `dapo train` (dapo preset) on SmolLM2-135M-Instruct loaded from its GGUF.

One two-step run from the GGUF (the model's own tokenizer, chat template and EOS); its step-1
checkpoint is resumed in a new process and must reach the same step-2 weights and rollouts; the
checkpoint reloads and `dapo eval` scores it; `dapo sft --model` fine-tunes the GGUF.
"""

from __future__ import annotations

import json
import shutil

import pytest
import torch

from bench import real_model as rm

pytestmark = [pytest.mark.real_model, pytest.mark.timeout(3600)]


def _params(ckpt):
    from safetensors.torch import load_file

    return load_file(str(ckpt / "model.safetensors"))


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    root = tmp_path_factory.mktemp("corpus")
    return root, rm.write_corpus(root, n=16)


@pytest.fixture(scope="module")
def run(smol_gguf, corpus, tmp_path_factory, run_dapo):
    out = tmp_path_factory.mktemp("rl") / "run"
    sets = [
        f"--set={s}"
        for s in [*rm.RL_SETS, f"model.path={smol_gguf}", f"data.train={corpus[1]}", "train.steps=2"]
    ]
    run_dapo("train", "--preset", "dapo", *sets, "--out", str(out), "--no-progress")
    return out


def test_the_gguf_loads_with_its_own_template_eos_and_padding(smol_gguf):
    from trainer.model import load_tokenizer

    tok = load_tokenizer(smol_gguf)
    assert tok.eos_token == "<|im_end|>" and tok.padding_side == "left" and tok.pad_token_id is not None
    text = tok.apply_chat_template(
        [{"role": "user", "content": "1+1?"}], add_generation_prompt=True, tokenize=False
    )
    assert text.endswith("<|im_start|>assistant\n") and "<|im_start|>user\n1+1?<|im_end|>" in text


def test_two_dapo_steps_change_the_weights_and_log_rewards(run):
    rows = [json.loads(x) for x in (run / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in rows] == [1, 2]
    for r in rows:
        assert -2 <= r["reward_mean"] <= 1 and r["step_time"] > 0 and r["response_length_mean"] > 0
    # both checkpoints are kept (checkpoint keep=2); step 2's update moved the weights (comparing with
    # the GGUF itself would cost another 2-minute conversion)
    step1, step2 = _params(run / "checkpoints/step-000001"), _params(run / "checkpoints/step-000002")
    assert any(not torch.equal(step1[k], step2[k]) for k in step2), "step 2 left every weight unchanged"


def test_resume_from_step_1_reaches_the_same_step_2(run, tmp_path, run_dapo):
    b = tmp_path / "b"
    shutil.copytree(run, b)
    shutil.rmtree(b / "checkpoints/step-000002")
    (b / "checkpoints/latest").write_text("step-000001")
    run_dapo("train", "--out", str(b), "--resume", "--no-progress")
    ra = [json.loads(x) for x in (run / "rollouts.jsonl").read_text().splitlines()]
    rb = [json.loads(x) for x in (b / "rollouts.jsonl").read_text().splitlines()]
    assert ra == rb
    pa, pb = _params(run / "checkpoints/step-000002"), _params(b / "checkpoints/step-000002")
    assert pa.keys() == pb.keys() and all(torch.equal(pa[k], pb[k]) for k in pa)


def test_the_checkpoint_reloads_and_dapo_eval_scores_it(run, corpus, tmp_path, run_dapo):
    ckpt = run / "checkpoints/step-000002"
    out = tmp_path / "ev"
    run_dapo("eval", str(ckpt), str(corpus[1]), "--k", "1", "--max-new-tokens", "64", "--limit", "4",
             "--out", str(out), "--no-progress", "--json", str(tmp_path / "ev.json"))  # fmt: skip
    res = json.loads((tmp_path / "ev.json").read_text())
    assert res["n_prompts"] == 4 and 0 <= res["avg@1"] <= 1
    rep = json.loads((out / "report.json").read_text())
    assert rep["sampler"]["path"] == str(ckpt)


def test_dapo_sft_fine_tunes_the_gguf(smol_gguf, corpus, tmp_path, run_dapo):
    out = tmp_path / "sft"
    run_dapo("sft", str(corpus[0] / "records"), "--out", str(out), "--model", str(smol_gguf),
             "--steps", "2", "--batch-size", "2", "--lr", "1e-5")  # fmt: skip
    assert (out / "model.safetensors").exists() and (out / "chat_template.jinja").exists()
