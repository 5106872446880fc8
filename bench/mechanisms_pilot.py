"""Precondition pilot for clip-higher: does the upper clip bound bind at all in a setting?

Runs only the arm WITH every technique (the `dapo` recipe of bench/mechanisms.py), one seed, a few steps,
and prints per step the training accuracy and what the precondition reads: `clip_frac_high` (share of tokens whose ratio passed
1 + eps_high with a positive advantage), `kl_old`, entropy, informative groups and, on chain prompts, the
share of trained groups whose first response writes every step (all chains, and long chains only). No arm without, no held-out accuracy: a
pilot must not peek at the comparison it decides whether to run.

    python bench/mechanisms_pilot.py --init runs/mechanisms/sft-stage0 --mini-batch 4 --lr 2e-4
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.append(str(ROOT / "bench"))


def main(argv: list[str] | None = None) -> dict:
    import mechanisms as M
    from ablation import run_seed

    from trainer.metrics import read_metrics

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--init", type=Path, required=True, help="the starting policy (an SFT stage)")
    ap.add_argument("--work", type=Path, help="default: runs/clip_pilot/<init name>_mb<M>_lr<LR>")
    ap.add_argument("--mini-batch", dest="mini_batch", type=int, default=4)
    ap.add_argument("--lr", type=float, default=2e-4)
    ap.add_argument("--steps", type=int, default=12)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--task", choices=sorted(M.TASKS), default="chain")
    ap.add_argument("--L", type=int, default=96, help="max new tokens")
    args = ap.parse_args(argv)
    work = (
        args.work
        or ROOT / "runs" / "clip_pilot" / f"{args.task}_{args.init.name}_mb{args.mini_batch}_lr{args.lr:g}"
    )
    work.mkdir(parents=True, exist_ok=True)
    train, held, _ = M.build(work, n_train=4000, n_eval=400, task=args.task)
    study = SimpleNamespace(work=work, prompts=8, G=8, mini_batch=args.mini_batch, L=args.L, lr=args.lr, threads=1,
                            epochs=1, max_prompt_len=256, on_max_gen_batches="train", base=())  # fmt: skip
    ns = M.arm_settings("with", "clip_higher", "with", study, args.steps)
    r = run_seed("with", args.seed, ns, train, held, args.init)
    run = work / "runs" / "with" / f"seed{args.seed}"
    rows = read_metrics(run / "metrics.jsonl") if (run / "metrics.jsonl").exists() else []
    eff = M.effective_prompts(run) if rows else []
    complete = first_complete(run, train) if rows else []
    long = first_complete(run, train, min_ops=M.LONG_CHAIN) if rows else []
    for x, e, c, lc in zip(rows, eff, complete, long, strict=False):
        print(f"step {x['step']:3d}  acc {x.get('acc', float('nan')):.3f}  clip_frac_high {x['clip_frac_high']:.4f}  "
              f"kl_old {x['kl_old']:.4f}  "
              f"entropy {x['entropy']:.3f}  informative groups {e}  complete {c}  complete_long {lc}")  # fmt: skip
    cfh = [x["clip_frac_high"] for x in rows]
    out = {"status": r["status"], "steps": len(rows), "clip_frac_high": sum(cfh) / len(cfh) if cfh else None,
           "complete": complete, "complete_long": long}  # fmt: skip
    print(f"{r['status']}: mean clip_frac_high {out['clip_frac_high']} over {len(rows)} steps")
    return out


def first_complete(run: Path, train: Path, min_ops: int = 1) -> list[float | None]:
    """Per step: the share of trained groups whose first response writes every step of its chain prompt
    (`mechanisms.writes_every_step`), over the prompts naming at least `min_ops` operations (None where no
    trained group has one)."""
    import json

    import mechanisms as M
    import pyarrow.parquet as pq

    text = {}
    for row in pq.read_table(train, columns=["prompt", "extra_info"]).to_pylist():
        text[str(row["extra_info"]["id"])] = row["prompt"][-1]["content"]
    out = []
    for line in (run / "rollouts.jsonl").read_text().splitlines():
        got = [
            M.writes_every_step(prompt, g["first"])
            for g in json.loads(line)["groups"]
            if M.operations(prompt := text.get(str(g["key"]), "")) >= min_ops
        ]
        got = [c for c in got if c is not None]
        out.append(sum(got) / len(got) if got else None)
    return out


if __name__ == "__main__":
    main()
