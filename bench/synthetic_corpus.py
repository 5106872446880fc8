"""The benches' corpus: a synthetic train corpus and a held-out eval corpus, both built by `dapo build`.

bench/ablation.py and bench/mechanisms.py train on one task and score another seed's draw of it;
the eval rows whose prompt also occurs in training are dropped (two seeds can draw one problem).
A build writes each split to its own file (verl/train.parquet holds train rows only), so the
eval corpus, drawn as split `test`, is read from verl/test.parquet.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

EVAL_SEED_OFFSET = 10_007


def build_pair(
    work: Path, *, name: str, task: dict, n_train: int, n_eval: int, seed: int, rules: bool
) -> tuple[Path, Path, Path]:
    """(train parquet, held-out eval parquet, train records dir); built once, reused when present."""
    train_dir = _build(work, f"{name}-train", task, n=n_train, seed=seed, split="train", rules=rules)
    eval_dir = _build(
        work, f"{name}-eval", task, n=n_eval, seed=seed + EVAL_SEED_OFFSET, split="test", rules=rules
    )
    train = train_dir / "verl" / "train.parquet"
    return (
        train,
        held_out(eval_dir / "verl" / "test.parquet", train, work / "eval.parquet"),
        train_dir / "records",
    )


def _build(work: Path, name: str, task: dict, *, n: int, seed: int, split: str, rules: bool) -> Path:
    """`dapo build --offline` of one synthetic source into work/corpus-<split name>."""
    import yaml

    out = work / f"corpus-{'train' if split == 'train' else 'eval'}"
    if (out / "verl" / f"{split}.parquet").exists():
        return out
    work.mkdir(parents=True, exist_ok=True)
    cfg = work / f"build-{name}.yaml"
    source = {"kind": "synthetic", "n": n, "seed": seed, "split": split, **task}
    rewrite = {"rules": rules, "llm": False}
    cfg.write_text(yaml.safe_dump({"name": name, "sources": [source], "rewrite": rewrite}))
    dapo = Path(sys.executable).with_name("dapo")
    cmd = [str(dapo) if dapo.exists() else "dapo", "build", str(cfg), "--out", str(out), "--offline", "-q"]
    subprocess.run(cmd, check=True)
    return out


def held_out(eval_parquet: Path, train_parquet: Path, dest: Path) -> Path:
    """The eval rows whose prompt text is not also a training prompt (two seeds can draw the same problem)."""
    import pyarrow.parquet as pq

    if dest.exists():
        return dest
    prompts = pq.read_table(train_parquet, columns=["prompt"]).column("prompt").to_pylist()
    seen = {json.dumps(p, sort_keys=True) for p in prompts}
    table = pq.read_table(eval_parquet)
    keep = [
        i
        for i, p in enumerate(table.column("prompt").to_pylist())
        if json.dumps(p, sort_keys=True) not in seen
    ]
    print(f"held-out eval: {len(keep)} of {table.num_rows} prompts do not occur in the training set")
    tmp = dest.with_name(dest.name + ".tmp")
    pq.write_table(table.take(keep), tmp)
    os.replace(tmp, dest)
    return dest
