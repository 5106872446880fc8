"""`bench/real_model.py dequantize`: a GGUF unpacked into a plain save_pretrained directory (what
vLLM's CPU engine serves) computes what the GGUF computes, with the GGUF's tokenizer and template."""

from __future__ import annotations

import pytest
import torch

from bench import real_model as rm

pytestmark = [pytest.mark.real_model, pytest.mark.timeout(900)]


def test_dequantized_directory_matches_the_gguf(smol_gguf, tmp_path):
    from trainer.model import gguf_parts, load_model, load_tokenizer

    out = rm.dequantize(smol_gguf, tmp_path / "smol_hf")
    assert gguf_parts(out) is None and (out / "model.safetensors").is_file()
    assert not (tmp_path / "smol_hf.tmp").exists()  # written to a temp dir, then renamed
    tok_gguf, tok_dir = load_tokenizer(smol_gguf), load_tokenizer(out)
    chat = [{"role": "user", "content": "What is 2 + 3?"}]
    ids = tok_gguf.apply_chat_template(chat, add_generation_prompt=True, tokenize=False)
    assert ids == tok_dir.apply_chat_template(chat, add_generation_prompt=True, tokenize=False)
    assert tok_gguf.eos_token_id == tok_dir.eos_token_id
    x = torch.tensor([tok_gguf(ids, add_special_tokens=False)["input_ids"]])
    with torch.no_grad():
        a, b = load_model(smol_gguf)(x).logits, load_model(out)(x).logits
    assert torch.equal(a, b)  # the same float32 weights: not one bit apart
