"""Policy models: a tiny Qwen2 built locally (tokenizer trained on the corpus), or any causal LM by path.

The tiny tokenizer is a byte-level BPE with single-digit tokens (arithmetic stays learnable) and a
ChatML-like template, so the tiny model and a real Qwen checkpoint go through the same code.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import torch

from trainer.config import ModelConfig, TinyModelConfig

PAD, EOS, BOS_TURN = "<|pad|>", "<|im_end|>", "<|im_start|>"
CHAT_TEMPLATE = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def train_tokenizer(texts: Iterable[str], vocab_size: int = 512):
    """Byte-level BPE over `texts`, digits kept as single tokens; returns a transformers tokenizer."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    # No word splitting: merges may cross spaces, so the DAPO template that every prompt repeats
    # collapses into a few tokens (a 7-token prompt instead of ~60 makes CPU RL ~10x cheaper).
    # Digits stay single tokens so arithmetic is learnable digit by digit.
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Digits(individual_digits=True),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=[PAD, EOS, BOS_TURN],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(texts, trainer=trainer)
    return PreTrainedTokenizerFast(
        tokenizer_object=tok, pad_token=PAD, eos_token=EOS, chat_template=CHAT_TEMPLATE, padding_side="left"
    )


def tiny_model(cfg: TinyModelConfig, tokenizer, *, seed: int = 0):
    """A freshly initialised Qwen2ForCausalLM with untied embeddings (vLLM's weight reload needs them untied)."""
    from transformers import Qwen2Config, Qwen2ForCausalLM

    config = Qwen2Config(
        vocab_size=len(tokenizer),
        hidden_size=cfg.hidden_size,
        intermediate_size=cfg.intermediate_size,
        num_hidden_layers=cfg.num_layers,
        num_attention_heads=cfg.num_heads,
        num_key_value_heads=cfg.num_kv_heads,
        max_position_embeddings=cfg.max_position_embeddings,
        tie_word_embeddings=False,
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id,
        bos_token_id=None,
        rope_theta=10000.0,
        use_cache=True,
    )
    torch.manual_seed(seed)
    model = Qwen2ForCausalLM(config)
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    return model


def gguf_parts(path: str | Path) -> tuple[str, str] | None:
    """(directory, file name) when `path` is a GGUF file, which transformers loads (dequantised) with
    `from_pretrained(directory, gguf_file=name)`; None for a save_pretrained directory."""
    p = Path(path)
    if p.suffix.lower() != ".gguf":
        return None
    if not p.is_file():
        raise FileNotFoundError(f"model path {path}: no such GGUF file")
    return str(p.parent), p.name


def check_model_path(path: str | Path) -> Path:
    """`path` as a model location, or an error that says what it is instead and what to give."""
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(
            f"model path {path} does not exist; give a local directory with config.json or a .gguf file "
            "(no hub downloads)"
        )
    if p.is_file() and gguf_parts(p) is None:
        raise ValueError(
            f"model path {p} is a file, not a model; give a directory with config.json or a .gguf file"
        )
    if p.is_dir() and gguf_parts(p) is None and not (p / "config.json").exists():
        steps = sorted((p / "checkpoints").glob("step-*")) if (p / "checkpoints").is_dir() else []
        if steps:
            raise ValueError(
                f"{p} is a training run, not a model; give one of its checkpoints, e.g. {steps[-1]}"
            )
        raise ValueError(
            f"{p} holds no config.json: not a saved model; give a save_pretrained directory or a .gguf"
        )
    return p


def load_tokenizer(path: str | Path):
    """The tokenizer of a save_pretrained directory or a GGUF file, left-padded, with a pad token and a
    chat template (the model's own when it has one: a GGUF carries its template and EOS)."""
    import json

    from transformers import AutoTokenizer, PreTrainedTokenizerFast

    gguf = gguf_parts(check_model_path(path))
    cfg_file = Path(path) / "tokenizer_config.json"
    cls = json.loads(cfg_file.read_text()).get("tokenizer_class") if cfg_file.exists() else None
    if gguf is not None:
        tok = AutoTokenizer.from_pretrained(gguf[0], gguf_file=gguf[1])
    elif cls in ("TokenizersBackend", "PreTrainedTokenizerFast"):
        # Our tiny tokenizer: AutoTokenizer would pick the model type's class (Qwen2Tokenizer) and
        # rebuild its word-splitting pre-tokenizer, silently changing every tokenisation.
        tok = PreTrainedTokenizerFast.from_pretrained(str(path))
    else:
        tok = AutoTokenizer.from_pretrained(str(path))
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    tok.padding_side = "left"
    if tok.chat_template is None:
        tok.chat_template = CHAT_TEMPLATE
    return tok


def load_model(path: str | Path, *, dtype: str = "float32"):
    """Any local transformers causal LM: a directory written by save_pretrained (or by this trainer), or
    a .gguf file (dequantised to `dtype` by transformers; needs the `gguf` package)."""
    from transformers import AutoModelForCausalLM

    p = check_model_path(path)
    gguf = gguf_parts(p)
    if gguf is not None:
        model = _dense_from_gguf(gguf, dtype)
    else:
        model = AutoModelForCausalLM.from_pretrained(str(p), dtype=getattr(torch, dtype))
    if model.config.tie_word_embeddings:
        # vLLM's weight sync and our checkpoints assume untied heads; warn rather than silently untie.
        import warnings

        warnings.warn(
            f"{path} ties input and output embeddings; vLLM weight reload expects them untied", stacklevel=2
        )
    return model


def _dense_from_gguf(gguf: tuple[str, str], dtype: str):
    """A GGUF unpacked into a plain dense model: trainable and save_pretrained-able like any other.

    transformers marks a GGUF-loaded model as quantized (and may keep its weights packed when the
    `kernels` package is there); such a model refuses save_pretrained and is not trainable. We ask for
    dequantisation and then drop the quantizer, which has nothing left to do."""
    from transformers import AutoModelForCausalLM, GgufConfig

    model = AutoModelForCausalLM.from_pretrained(
        gguf[0],
        gguf_file=gguf[1],
        dtype=getattr(torch, dtype),
        quantization_config=GgufConfig(gguf_file=gguf[1], dequantize=True),
    )
    quantizer = getattr(model, "hf_quantizer", None)
    if quantizer is not None:
        if getattr(quantizer, "packed_modules", None):
            raise ValueError(f"{gguf[1]}: transformers kept weights packed; cannot train or save them")
        quantizer.remove_quantization_config(model)
    return model


def build_policy(cfg: ModelConfig, corpus_texts: Iterable[str] | None = None, *, seed: int = 0):
    """(model, tokenizer): loaded from cfg.path, or a tiny model whose tokenizer learns `corpus_texts`."""
    if cfg.path:
        return load_model(cfg.path, dtype=cfg.dtype), load_tokenizer(cfg.path)
    if corpus_texts is None:
        raise ValueError("the tiny model needs corpus texts to train its tokenizer; give model.path or data")
    tok = train_tokenizer(corpus_texts, cfg.tiny.vocab_size)
    return tiny_model(cfg.tiny, tok, seed=seed), tok


def save_policy(model, tokenizer, out: str | Path) -> None:
    """save_pretrained into a temp dir, then rename: a reader never sees half a model."""
    import os
    import shutil

    out = Path(out)
    tmp = out.with_name(out.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    model.save_pretrained(tmp, safe_serialization=True)
    tokenizer.save_pretrained(tmp)
    from mathdata.files import make_readable

    make_readable(tmp)  # safetensors writes 0600
    old = out.with_name(out.name + ".old")
    if out.exists():
        shutil.rmtree(old, ignore_errors=True)
        os.replace(out, old)
    os.replace(tmp, out)
    shutil.rmtree(old, ignore_errors=True)


def quiet_transformers() -> None:
    """No per-save tqdm bars or info logs: the trainer's own rich display is the progress."""
    from transformers.utils import logging

    logging.set_verbosity_error()
    logging.disable_progress_bar()
