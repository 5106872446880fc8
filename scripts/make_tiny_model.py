#!/usr/bin/env python
"""Build a tiny random-initialised Qwen2 chat model locally (no model hub).

    python scripts/make_tiny_model.py OUT_DIR [--seed 0] [--vocab-size 512]

Writes, with ``save_pretrained``: config.json, generation_config.json,
model.safetensors (untied embeddings), tokenizer.json, tokenizer_config.json and
special_tokens_map.json; the tokenizer is a byte-level BPE trained with the
``tokenizers`` library on a small built-in text, with Qwen-style special tokens
(<|endoftext|>, <|im_start|>, <|im_end|>) and a ChatML chat template. Both
transformers and vLLM load the folder (vLLM on CPU needs a head size between 32 and
256: hidden 128 / 2 heads = 64). The weights are random: replies are nonsense, which
is all the integration tests need.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]

CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)

_TEXT = """\
Solve the following math problem step by step. The last line of your response should be
of the form Answer: $Answer (without quotes) where $Answer is the answer to the problem.
Remember to put your answer on its own line after "Answer:".
What is the sum of all positive integers n such that n^2 + 12n - 2007 is a perfect square?
Find the remainder when 2^{2024} is divided by 1000. The answer is an integer.
Let x and y be real numbers with x + y = 10 and xy = 21. Compute x^2 + y^2.
A triangle has sides 13, 14 and 15. Find its area. The area is 84.
The probability is m/n where m and n are relatively prime positive integers. Find m + n.
We have \\frac{1}{2} + \\frac{1}{3} = \\frac{5}{6}, so m + n = 11. Answer: 11
Therefore the answer is \\boxed{42}. Answer: 42
First, note that 3 * 4 = 12 and 12 + 7 = 19. Then 19 - 5 = 14. Answer: 14
The number of ways is \\binom{10}{3} = 120. Hence the answer is 120.
Let f(x) = x^3 - 6x^2 + 11x - 6 = (x - 1)(x - 2)(x - 3). The roots are 1, 2 and 3.
If a + b\\sqrt{c} = 11 - 2\\sqrt{6}, then a + b + c = 11 - 2 + 6 = 15.
0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 100 1000 2024 2025
user assistant system Hello! How can I help you today? Please reason step by step.
"""


def build_tokenizer(vocab_size: int):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.post_processor = processors.ByteLevel(trim_offsets=False)
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    lines = _TEXT.splitlines()
    tok.train_from_iterator(lines * 4, trainer=trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        bos_token=None,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        unk_token=None,
        additional_special_tokens=["<|im_start|>"],
        model_max_length=2048,
    )
    fast.chat_template = CHAT_TEMPLATE
    return fast


def build_model(vocab_size: int, eos_id: int, pad_id: int, seed: int):
    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM

    torch.manual_seed(seed)
    config = Qwen2Config(
        vocab_size=vocab_size,
        hidden_size=128,
        intermediate_size=256,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=2048,
        tie_word_embeddings=False,
        bos_token_id=eos_id,
        eos_token_id=eos_id,
        pad_token_id=pad_id,
        use_sliding_window=False,
    )
    model = Qwen2ForCausalLM(config).to(torch.float32).eval()
    model.generation_config.eos_token_id = eos_id
    model.generation_config.pad_token_id = pad_id
    model.generation_config.bos_token_id = eos_id
    return model


def make_tiny_model(out_dir: str | Path, *, seed: int = 0, vocab_size: int = 512) -> Path:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tokenizer = build_tokenizer(vocab_size)
    eos_id = tokenizer.convert_tokens_to_ids("<|im_end|>")
    pad_id = tokenizer.convert_tokens_to_ids("<|endoftext|>")
    model = build_model(len(tokenizer), eos_id, pad_id, seed)
    model.save_pretrained(out, safe_serialization=True)
    tokenizer.save_pretrained(out)
    # Older transformers/vLLM releases read the template only from tokenizer_config.json;
    # newer transformers may write chat_template.jinja instead: make sure both exist.
    cfg_path = out / "tokenizer_config.json"
    cfg = json.loads(cfg_path.read_text())
    if "chat_template" not in cfg:
        cfg["chat_template"] = CHAT_TEMPLATE
        cfg_path.write_text(json.dumps(cfg, indent=2, ensure_ascii=False) + "\n")
    if not (out / "chat_template.jinja").exists():
        (out / "chat_template.jinja").write_text(CHAT_TEMPLATE)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--vocab-size", type=int, default=512)
    args = parser.parse_args(argv)
    out = make_tiny_model(args.out_dir, seed=args.seed, vocab_size=args.vocab_size)
    print(f"tiny Qwen2 written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
