"""Checkpoints: atomic (extras included), name-keyed optimiser state, devices resolved with clear errors."""

from __future__ import annotations

import pytest
import torch

from trainer import distributed as D
from trainer.checkpoint import latest_checkpoint, load_training_state, save_checkpoint


class _Tok:
    def save_pretrained(self, d) -> None:
        (d / "tokenizer.json").write_text("{}")


def _model_and_opt(seed: int = 0):
    from transformers import Qwen2Config, Qwen2ForCausalLM

    torch.manual_seed(seed)
    cfg = Qwen2Config(vocab_size=40, hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2,
                      num_key_value_heads=1, max_position_embeddings=32, tie_word_embeddings=False)  # fmt: skip
    model = Qwen2ForCausalLM(cfg)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    model(input_ids=torch.randint(0, 40, (2, 5))).logits.sum().backward()
    opt.step()
    return model, opt


def test_extra_files_land_inside_the_checkpoint_before_latest_moves(tmp_path):
    model, opt = _model_and_opt()
    osd = D.optimizer_state_dict(model, opt)
    first = save_checkpoint(tmp_path, 1, model, _Tok(), osd, {"sampler": {}},
                            extra=lambda d: (d / "critic").mkdir())  # fmt: skip
    assert (first / "critic").is_dir() and latest_checkpoint(tmp_path) == first

    def crash(d):  # e.g. a kill while the critic is being written
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        save_checkpoint(tmp_path, 2, model, _Tok(), osd, {"sampler": {}}, extra=crash)
    assert (tmp_path / "latest").read_text() == "step-000001"  # still the complete checkpoint
    assert not (tmp_path / "step-000002").exists()


def test_optimizer_state_is_keyed_by_name_and_restores_exactly(tmp_path):
    model, opt = _model_and_opt()
    osd = D.optimizer_state_dict(model, opt)
    names = [n for n, _ in model.named_parameters()]
    assert sorted(osd["state"]) == sorted(names)  # resumable with any world size / FSDP2 layout
    path = save_checkpoint(tmp_path, 3, model, _Tok(), osd, {"sampler": {"pos": 5}})

    fresh, _ = _model_and_opt(seed=1)
    fresh.load_state_dict(model.state_dict())
    opt2 = torch.optim.AdamW(fresh.parameters(), lr=1e-3)
    st = load_training_state(path, fresh, opt2)
    assert st["step"] == 3 and st["sampler"] == {"pos": 5}
    for (n, p), p2 in zip(model.named_parameters(), fresh.parameters(), strict=True):
        for key in ("exp_avg", "exp_avg_sq"):
            assert torch.equal(opt.state[p][key], opt2.state[p2][key]), (n, key)


def test_index_keyed_optimizer_state_from_older_checkpoints_still_loads(tmp_path):
    model, opt = _model_and_opt()
    path = save_checkpoint(tmp_path, 1, model, _Tok(), opt.state_dict(), {})
    opt2 = torch.optim.AdamW(model.parameters(), lr=1e-3)
    load_training_state(path, model, opt2)
    p = next(model.parameters())
    assert torch.equal(opt.state[p]["exp_avg"], opt2.state[p]["exp_avg"])


def test_devices_resolve_with_clear_errors(monkeypatch):
    env = D.init_distributed()  # no torchrun: one process
    assert D.resolve_device("cpu", env) == torch.device("cpu")
    assert D.backend_for("cpu") == "gloo" and D.backend_for("auto") is None
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert D.resolve_device("auto", D.init_distributed()) == torch.device("cpu")
    with pytest.raises(RuntimeError, match="CUDA is not available.*train.device: auto or cpu"):
        D.resolve_device("cuda", env)


def test_a_cuda_device_resolves_with_its_index(monkeypatch):
    """`torch.cuda.set_device` and FSDP2 refuse `cuda` without an index (the first GPU run stopped before step 1 with
    `train.device: cuda` and `auto`): the resolved device names one. No GPU here, so CUDA's answers are patched."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 1)
    one = D.DistEnv(
        0, 1, 0, None, torch.device("cuda")
    )  # what init_distributed returns alone on a GPU machine
    assert D.resolve_device("auto", one) == torch.device("cuda", 1)
    assert D.resolve_device("cuda", one) == torch.device("cuda", 1)
    assert D.resolve_device("cuda:0", one) == torch.device("cuda", 0)
    with pytest.raises(ValueError, match="2 CUDA device"):
        D.resolve_device("cuda:2", one)


def test_fsdp_without_torchrun_is_a_clear_error(toy_verl, tmp_path):
    from trainer.config import build_config
    from trainer.loop import train

    cfg = build_config({"model": {"tiny": {"hidden_size": 64, "num_heads": 2, "num_kv_heads": 1, "num_layers": 1}},
                        "data": {"train": toy_verl}, "rollout": {"n": 2, "max_new_tokens": 8},
                        "algo": {"overlong_buffer": 2},
                        "train": {"fsdp": True, "steps": 1, "out": str(tmp_path / "run")}})  # fmt: skip
    with pytest.raises(ValueError, match="torchrun --nproc_per_node"):
        train(cfg, progress=False)
