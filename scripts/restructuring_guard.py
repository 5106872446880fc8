"""The restructuring guard: fingerprint a demo or training run, and compare two fingerprints.

A restructuring must not change what the toolkit computes. Run the demo (or the short training
run below) on the commit before and the commit after, then compare: every weight, rollout,
metric and exported row must be bit-identical; only wall-clock fields and the output directory
may differ.

    python scripts/restructuring_guard.py short OUT --policy demo_out/sft --train demo_out/data/verl/train.parquet
    python scripts/restructuring_guard.py fingerprint demo_out > before.json
    python scripts/restructuring_guard.py compare before.json after.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
from pathlib import Path

# Fields that measure wall-clock time or name the output directory: allowed to differ.
VOLATILE_KEYS = {
    "step_time",
    "gen_time",
    "tokens_per_s",
    "seconds",
    "wall_seconds",
    "run_dir",
    "checkpoint",
    "plots",
    "elapsed",
    "created",
    "created_at",
    "time",
    "retrieved_at",  # when a source was read (acquire stamps every record)
}


def _strip(value, out: str):
    """Drop volatile keys and make paths relative to the run directory, recursively."""
    if isinstance(value, dict):
        return {k: _strip(v, out) for k, v in value.items() if k not in VOLATILE_KEYS}
    if isinstance(value, list):
        return [_strip(v, out) for v in value]
    if isinstance(value, str):
        return value.replace(out, "<out>")
    return value


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def _tensors_digest(path: Path) -> str:
    """Hash tensor names, dtypes, shapes and bytes (not the file's metadata block)."""
    from safetensors.numpy import load_file

    h = hashlib.sha256()
    for name, arr in sorted(load_file(str(path)).items()):
        h.update(f"{name}:{arr.dtype}:{arr.shape}".encode())
        h.update(arr.tobytes())
    return h.hexdigest()[:16]


def _jsonl_digest(path: Path, out: str) -> str:
    lines = [
        json.dumps(_strip(json.loads(line), out), sort_keys=True)
        for line in path.read_text().splitlines()
        if line.strip()
    ]
    return _digest("\n".join(lines).encode())


def _parquet_digest(path: Path, out: str) -> str:
    import pyarrow.parquet as pq

    rows = pq.read_table(path).to_pylist()
    return _digest(json.dumps(_strip(rows, out), sort_keys=True, default=str).encode())


def _parts_digest(folder: Path, out: str) -> str:
    """Rows of every part file in a folder, in a canonical order (part names carry a timestamp)."""
    import pyarrow.parquet as pq

    rows = [
        json.dumps(_strip(r, out), sort_keys=True, default=str)
        for p in folder.glob("part-*.parquet")
        for r in pq.read_table(p).to_pylist()
    ]
    return _digest("\n".join(sorted(rows)).encode())


def fingerprint(run: Path) -> dict[str, str]:
    """One digest per deterministic artefact under `run` (a demo output or a training run)."""
    out = str(run.resolve())
    prints: dict[str, str] = {}
    for path in sorted(run.rglob("*")):
        rel = str(path.relative_to(run))
        if not path.is_file() or "latest" in path.parts:
            continue
        if path.name.startswith("part-") and path.suffix == ".parquet":
            continue  # part files are named by time: folded per directory below
        if path.suffix == ".safetensors":
            prints[rel] = _tensors_digest(path)
        elif path.suffix == ".jsonl":
            prints[rel] = _jsonl_digest(path, out)
        elif path.name in {"report.json", "trainer_state.json", "summary.json"}:
            prints[rel] = _digest(
                json.dumps(_strip(json.loads(path.read_text()), out), sort_keys=True).encode()
            )
        elif path.suffix == ".parquet":
            prints[rel] = _parquet_digest(path, out)
    for folder in sorted({p.parent for p in run.rglob("part-*.parquet")}):
        prints[f"{folder.relative_to(run)}/part-*"] = _parts_digest(folder, out)
    return prints


def compare(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """Every artefact present on either side, with a differing or missing digest."""
    return [
        f"{key}: {before.get(key, 'missing')} -> {after.get(key, 'missing')}"
        for key in sorted(set(before) | set(after))
        if before.get(key) != after.get(key)
    ]


def _read_fingerprint(path: Path) -> dict[str, str]:
    """A fingerprint file; `short` output saved before its run's progress went to stderr starts with
    the progress lines, so the JSON is read from its first line that opens an object."""
    lines = path.read_text().splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith("{")), 0)
    return json.loads("\n".join(lines[start:]))


def short_run(out: Path, policy: Path, train: Path, steps: int, preset: str | None = None) -> None:
    """A short deterministic run from a fixed policy: examples/train.yaml, `steps` steps, any preset."""
    cmd = [
        sys.executable, "-m", "dapo_cli", "train", "examples/train.yaml",
        "--set", f"model.path={policy}", "--set", f"data.train={train}",
        "--set", f"train.steps={steps}", "--out", str(out),
    ] + (["--preset", preset] if preset else [])  # fmt: skip
    subprocess.run(cmd, check=True, stdout=sys.stderr)  # stdout carries the fingerprint alone


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("fingerprint", help="print the digests of a run directory as JSON")
    p.add_argument("run", type=Path)
    p = sub.add_parser("compare", help="compare two fingerprint files; exit 1 on any difference")
    p.add_argument("before", type=Path)
    p.add_argument("after", type=Path)
    p = sub.add_parser("short", help="run the short deterministic training run, then print its fingerprint")
    p.add_argument("out", type=Path)
    p.add_argument("--policy", type=Path, required=True, help="an SFT policy directory (the demo's sft/)")
    p.add_argument(
        "--train", type=Path, required=True, help="a verl train parquet (the demo's data/verl/train.parquet)"
    )
    p.add_argument("--steps", type=int, default=4)
    p.add_argument("--preset", help="another preset than the file's dapo (grpo, gspo, vapo ...)")
    args = parser.parse_args()
    if args.cmd == "fingerprint":
        print(json.dumps(fingerprint(args.run), indent=1, sort_keys=True))
    elif args.cmd == "short":
        short_run(args.out, args.policy, args.train, args.steps, args.preset)
        print(json.dumps(fingerprint(args.out), indent=1, sort_keys=True))
    else:
        diffs = compare(_read_fingerprint(args.before), _read_fingerprint(args.after))
        for line in diffs:
            print(line)
        print(f"guard: {len(diffs)} artefacts differ" if diffs else "guard: bit-identical")
        sys.exit(1 if diffs else 0)


if __name__ == "__main__":
    main()
