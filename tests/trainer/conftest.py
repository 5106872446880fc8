"""Toy data for trainer tests: small addition problems as a verl Parquet and a records Parquet."""

from __future__ import annotations

import random

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

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
    rows = [{**p, "status": "kept"} for p in toy_problems(64, seed=1)]
    path = tmp_path / "records.parquet"
    pq.write_table(pa.Table.from_pylist(rows), path)
    return str(path)
