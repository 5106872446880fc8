"""Toy data for trainer tests: small addition problems as a verl Parquet and a records Parquet."""

from __future__ import annotations

import random

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import torch

# The toy models are far too small to gain from intra-op threads, and on a shared 2-core box
# oversubscribed threads make each step several times slower.
torch.set_num_threads(1)

TEMPLATE = (
    "Solve the following math problem step by step. The last line of your response should be of the form "
    "Answer: $Answer (without quotes) where $Answer is the answer to the problem.\n\n{problem}\n\n"
    'Remember to put your answer on its own line after "Answer:".'
)


def toy_problems(n: int, seed: int = 0, hi: int = 20) -> list[dict]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        a, b = rng.randint(1, hi), rng.randint(1, hi)
        out.append(
            {
                "id": f"toy-{seed}-{i}",
                "problem": f"What is {a} + {b}?",
                "solution": f"{a} + {b} = {a + b}.\nAnswer: {a + b}",
                "answer": str(a + b),
            }
        )
    return out


def write_verl(path, problems: list[dict], split: str = "train") -> str:
    rows = [
        {
            "data_source": "toy",
            "prompt": [{"role": "user", "content": TEMPLATE.format(problem=p["problem"])}],
            "ability": "math",
            "reward_model": {"style": "rule", "ground_truth": p["answer"]},
            "extra_info": {
                "index": i,
                "id": p["id"],
                "source": "toy",
                "raw_problem": p["problem"],
                "split": split,
            },
        }
        for i, p in enumerate(problems)
    ]
    pq.write_table(pa.Table.from_pylist(rows), path)
    return str(path)


@pytest.fixture
def toy_verl(tmp_path):
    return write_verl(tmp_path / "train.parquet", toy_problems(48))


@pytest.fixture
def toy_records(tmp_path):
    """A mathdata records store (what `dapo build` writes) with worked solutions."""
    from mathdata.schema import new_record
    from mathdata.store import write_records

    recs = [
        new_record(source="synthetic:toy", original_problem=p["problem"], problem=p["problem"], answer=p["answer"],
                   solution=p["solution"], split="train")
        for p in toy_problems(64, seed=1)
    ]  # fmt: skip
    write_records(tmp_path / "records", recs)
    return str(tmp_path / "records")


TINY = {
    "hidden_size": 64,
    "num_layers": 2,
    "num_heads": 2,
    "num_kv_heads": 1,
    "intermediate_size": 128,
    "vocab_size": 300,
}


@pytest.fixture(scope="session")
def tiny_policy():
    """(model, tokenizer): a 2-layer Qwen2 with a BPE trained on the toy texts."""
    from trainer.config import TinyModelConfig
    from trainer.model import tiny_model, train_tokenizer

    probs = toy_problems(64)
    texts = [TEMPLATE.format(problem=p["problem"]) for p in probs] + [p["solution"] for p in probs]
    tok = train_tokenizer(texts, TINY["vocab_size"])
    return tiny_model(TinyModelConfig(**TINY), tok, seed=0), tok


@pytest.fixture(scope="session")
def sft_dir(tmp_path_factory):
    """A tiny policy after a short SFT on toy worked solutions: it ends responses with EOS."""
    from mathdata.schema import new_record
    from mathdata.store import write_records
    from trainer.config import ModelConfig, TinyModelConfig
    from trainer.sft import sft

    root = tmp_path_factory.mktemp("sft")
    recs = [
        new_record(source="synthetic:toy", original_problem=p["problem"], problem=p["problem"], answer=p["answer"],
                   solution=p["solution"], split="train")
        for p in toy_problems(256, seed=2, hi=30)
    ]  # fmt: skip
    write_records(root / "records", recs)
    summary = sft(root / "records", root / "policy", model_cfg=ModelConfig(tiny=TinyModelConfig(**TINY)), steps=150,
                  batch_size=16, lr=3e-3, warmup=5, progress=False)  # fmt: skip
    return root / "policy", summary


@pytest.fixture
def toy():
    """The helpers above, for tests that build their own Parquet (test modules are not a package)."""
    import types

    return types.SimpleNamespace(problems=toy_problems, write_verl=write_verl)
