"""Agreement of `verifiers.check` with labelled equivalence cases written by others, per class.

    python bench/verifier_dev.py [--cases tests/verifiers/data/math_verify_tests.jsonl]
                                 [--out bench/results/verifier_dev.json] [--show-wrong]

Each line of the cases file has `gold`, `pred` and `equivalent` (the label). The class of a
case is its `cls` field when it has one (the blind set), else the test it came from
(`source`'s `::test_name`, the Math-Verify dev set). Prints agreement overall and per class
(with false positives: wrong answers judged right), and writes every disagreement to --out.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Run as `python bench/verifier_dev.py`, this file's folder is sys.path[0] and would shadow the package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
DEV = ROOT / "tests" / "verifiers" / "data" / "math_verify_tests.jsonl"


def case_class(case: dict) -> str:
    if case.get("cls"):
        return str(case["cls"])
    src = str(case.get("source", ""))
    return src.rsplit("::", 1)[-1] if "::" in src else (src or "unclassified")


def load(path: Path) -> list[dict]:
    cases = []
    with path.open(encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            c = json.loads(line)
            for field in ("gold", "pred", "equivalent"):
                if field not in c:
                    raise SystemExit(f"{path}:{lineno}: missing field {field!r}")
            cases.append(c)
    return cases


def evaluate(cases: list[dict], timeout: float = 1.0) -> dict:
    import verifiers

    verifiers.warmup()
    per: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])  # n, agree, false pos, false neg
    wrong = []
    t0 = time.perf_counter()
    for i, c in enumerate(cases):
        v = verifiers.check(c["pred"], c["gold"], timeout=timeout, question=c.get("question"))
        cls = case_class(c)
        s = per[cls]
        s[0] += 1
        if v.equivalent == bool(c["equivalent"]):
            s[1] += 1
        else:
            s[2 if v.equivalent else 3] += 1
            wrong.append(
                {
                    "i": i,
                    "id": c.get("id", i),
                    "cls": cls,
                    "gold": c["gold"][:300],
                    "pred": c["pred"][:300],
                    "label": bool(c["equivalent"]),
                    "reason": v.reason,
                    "extracted": v.pred,
                }
            )
    n = len(cases)
    agree = sum(s[1] for s in per.values())
    return {
        "cases": n,
        "agreement": agree / n if n else None,
        "false_pos": sum(s[2] for s in per.values()),
        "false_neg": sum(s[3] for s in per.values()),
        "seconds": time.perf_counter() - t0,
        "per_class": {
            k: {"n": s[0], "agree": s[1], "false_pos": s[2], "false_neg": s[3]}
            for k, s in sorted(per.items())
        },
        "wrong": wrong,
    }


def write_json(path: Path, obj: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=2, ensure_ascii=False)
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cases", type=Path, default=DEV)
    ap.add_argument("--out", type=Path, default=None, help="write the figures and every disagreement here")
    ap.add_argument("--show-wrong", action="store_true", help="print every disagreement")
    ap.add_argument("--timeout", type=float, default=1.0)
    args = ap.parse_args(argv)
    r = evaluate(load(args.cases), args.timeout)
    r["cases_file"] = str(args.cases.relative_to(ROOT) if args.cases.is_relative_to(ROOT) else args.cases)
    width = max(len(k) for k in r["per_class"])
    print(f"{'class':<{width}}  {'n':>4}  {'agree':>6}  {'FP':>3}  {'FN':>3}")
    for k, s in r["per_class"].items():
        print(
            f"{k:<{width}}  {s['n']:>4}  {s['agree'] / s['n']:>6.3f}  {s['false_pos']:>3}  {s['false_neg']:>3}"
        )
    print(
        f"{'overall':<{width}}  {r['cases']:>4}  {r['agreement']:>6.3f}  {r['false_pos']:>3}  {r['false_neg']:>3}"
        f"   ({r['seconds']:.1f} s)"
    )
    if args.show_wrong:
        for w in r["wrong"]:
            print(json.dumps(w, ensure_ascii=False))
    if args.out:
        write_json(args.out, r)
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
