"""`dapo eval`'s body: resolve the options into benchmarks, a sampler and settings, run, print.

dapo_cli.py only declares the options; everything they mean is decided here, so the rules
(greedy mode, the default seed, the default output folder) are testable without the CLI.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import typer

from evals.store import SamplingParams

DEFAULT_K = 32
DEFAULT_TEMPERATURE = 1.0
DEFAULT_TOP_P = 0.7
CHECKPOINT_DEFAULT_SEED = 0


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-")[:60] or "model"


def sampling_params(
    *,
    k: int | None,
    temperature: float | None,
    top_p: float | None,
    max_tokens: int,
    seed: int | None,
    greedy: bool,
    checkpoint: bool,
) -> SamplingParams:
    """The sampling settings the options mean. `greedy`: temperature 0, top-p 1, k 1 (the harnesses'
    greedy mode); it refuses a contradicting k or temperature. A checkpoint is seeded with 0 unless
    told otherwise (torch's draws are then reproducible); an endpoint gets a seed only when one is
    given, since some servers fail on seeded requests (vLLM on CPU)."""
    if greedy:
        given = []
        if k not in (None, 1):
            given.append(f"--k {k}")
        if temperature not in (None, 0):
            given.append(f"--temperature {temperature}")
        if given:
            raise ValueError(
                f"--greedy samples once at temperature 0; drop {' and '.join(given)}, or --greedy"
            )
        k, temperature, top_p = 1, 0.0, 1.0
    if seed is None and checkpoint:
        seed = CHECKPOINT_DEFAULT_SEED
    return SamplingParams(
        k=DEFAULT_K if k is None else k,
        temperature=DEFAULT_TEMPERATURE if temperature is None else temperature,
        top_p=DEFAULT_TOP_P if top_p is None else top_p,
        max_tokens=max_tokens,
        seed=seed,
    )


def fail(msg: str, code: int = 2) -> None:
    typer.secho(f"error: {msg}", fg="red", err=True)
    raise typer.Exit(code)


def eval_command(
    *,
    checkpoint: Path | None,
    data: str | None,
    endpoint: str | None,
    model: str | None,
    api_key: str | None,
    bench: str | None,
    mapping: str | None,
    map_: str | None,
    split: str | None,
    limit: int | None,
    k: int | None,
    temperature: float | None,
    top_p: float | None,
    max_tokens: int,
    greedy: bool,
    pass_k: str,
    prompt: str | None,
    system: str | None,
    mode: str,
    out: Path | None,
    fresh: bool,
    concurrency: int,
    timeout: float,
    max_retries: int,
    seed: int | None,
    grade_workers: int | None,
    grade_timeout: float | None,
    max_prompt_len: int | None,
    batch_prompts: int,
    no_progress: bool,
    json_out: Path | None,
) -> dict:
    """Run `dapo eval` with its options; a bad option or file ends in one `error:` line (exit 2)."""
    from evals.benchmarks import load_benchmark_problems, parse_mapping
    from evals.prompts import PromptSpec
    from evals.runner import EvalConfig, run_eval
    from mathdata.files import StoreError, atomic_write
    from verifiers.metrics import DEFAULT_GRADE_TIMEOUT

    if (checkpoint is None) == (endpoint is None):
        fail(
            "give a checkpoint directory (dapo eval DIR ...) or --endpoint URL --model NAME, not both or neither"
        )
    if endpoint is not None and not model:
        fail("--endpoint needs --model: the name the server serves (GET URL/models lists them)")
    specs = [b.strip() for b in (bench or "").split(",") if b.strip()] + ([data] if data else [])
    if not specs:
        fail("name what to evaluate: --bench aime24,aime25,amc23,math500 (or a Parquet/JSONL file)")
    try:
        ks = tuple(int(x) for x in pass_k.split(",") if x.strip())
    except ValueError:
        fail(f"--pass-k {pass_k!r}: write a comma list of integers, e.g. 1,4,16")
    try:
        params = sampling_params(k=k, temperature=temperature, top_p=top_p, max_tokens=max_tokens, seed=seed,
                                 greedy=greedy, checkpoint=checkpoint is not None)  # fmt: skip
    except ValueError as e:
        fail(str(e))
    name = model if endpoint is not None else str(checkpoint)
    out = out or Path("eval_runs") / f"{_slug(name)}-T{params.temperature:g}-p{params.top_p:g}-L{max_tokens}"
    try:
        if map_ is not None:
            typer.echo("warning: --map is renamed --mapping (same field=column syntax)", err=True)
        mapping_ = parse_mapping(mapping or map_)
        benches = [load_benchmark_problems(s, mapping=mapping_, split=split, limit=limit) for s in specs]
        for b in benches:
            for note in b.notes:
                typer.echo(f"{b.name}: {note}", err=True)
        dup = {b.name for b in benches if [x.name for x in benches].count(b.name) > 1}
        if dup:
            fail(f"two benchmarks are named {sorted(dup)[0]!r}; name one NAME=PATH")
        spec = PromptSpec.make(prompt, system=system, mode=mode)
        if endpoint is not None:
            from evals.endpoint import EndpointSampler

            sampler = EndpointSampler(endpoint, model, api_key=api_key, concurrency=concurrency, timeout_s=timeout,
                                      max_retries=max_retries)  # fmt: skip
        else:
            if not checkpoint.is_dir():
                fail(f"{checkpoint}: no such policy directory (an SFT output or a run's checkpoints/step-N)")
            from evals.checkpoint import CheckpointSampler

            sampler = CheckpointSampler(
                checkpoint, batch_prompts=batch_prompts, max_prompt_len=max_prompt_len
            )
        workers = grade_workers if grade_workers is not None else min(os.cpu_count() or 1, 8)
        cfg = EvalConfig(out=out, params=params, prompt=spec, pass_ks=ks, grade_workers=workers,
                         grade_timeout=DEFAULT_GRADE_TIMEOUT if grade_timeout is None else grade_timeout, fresh=fresh, progress=not no_progress, model=name)  # fmt: skip
        report = run_eval(benches, sampler, cfg)
    except typer.Exit:
        raise
    except KeyboardInterrupt:
        fail(
            f"interrupted; the samples drawn so far are kept in {out}: rerun the same command to resume", 130
        )
    except (StoreError, ValueError, FileNotFoundError, OSError, RuntimeError) as e:
        kept = f" (samples drawn so far are kept in {out}; rerun the same command to resume)" if (
            out / "samples.jsonl").exists() else ""  # fmt: skip
        fail(f"{e}{kept}")
    typer.echo((out / "report.md").read_text(encoding="utf-8"))
    s = report["samples"]
    typer.echo(f"{s['drawn_now']} samples drawn, {s['from_store']} from the store; "
               f"wrote {out}/report.json, samples.parquet, report.md, pass_at_k.png")  # fmt: skip
    if json_out:
        kk = params.k
        flat = {**report["overall"], f"cons@{kk}": report["overall"][f"maj@{kk}"],
                "n_prompts": report["overall"]["n_problems"], "report": str(out / "report.json")}  # fmt: skip
        atomic_write(json_out, json.dumps(flat, indent=1))
    return report
