"""bench/synthetic_corpus.py: the benches train on train rows and score a held-out test split."""

import importlib.util
import sys
from pathlib import Path

import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[2]


def test_build_pair_reads_the_eval_corpus_from_its_test_file_and_drops_training_prompts(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(sys, "path", [str(ROOT / "bench"), *sys.path])
    spec = importlib.util.spec_from_file_location("synthetic_corpus", ROOT / "bench" / "synthetic_corpus.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    task = {"kinds": ["add"], "difficulty": [1]}
    train, held, records = mod.build_pair(
        tmp_path, name="t", task=task, n_train=40, n_eval=40, seed=1, rules=True
    )
    train_rows = pq.read_table(train).to_pylist()
    held_rows = pq.read_table(held).to_pylist()
    assert {r["extra_info"]["split"] for r in train_rows} == {"train"}
    assert held_rows and {r["extra_info"]["split"] for r in held_rows} == {"test"}
    train_prompts = {str(r["prompt"]) for r in train_rows}
    assert not any(str(r["prompt"]) in train_prompts for r in held_rows)
    assert records.is_dir()
