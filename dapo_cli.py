"""The `dapo` command line: the only module that knows all four packages.

Each package contributes its commands through a `register(app)` function in its own
`cli.py`; those modules import only typer at import time so `dapo --help` stays fast.

The CLI works with whatever extras are installed: a package whose extra is missing still
lists its commands (its `cli.py` is loaded on its own, without the package's `__init__`),
and running one prints one line naming the extra to install. When the `verifiers` on the
path is not ours (another distribution overwrote it), every command but `doctor` and
`version` says so in one line.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
from pathlib import Path
from typing import Annotated

import typer

import dapo_extras
from dapo_errors import OneLineErrors, error_line  # noqa: F401  (error_line: part of this module's API)

app = typer.Typer(
    cls=OneLineErrors,
    name="dapo",
    help="Math RL toolkit: build integer-answer corpora, verify answers, train with DAPO.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
)


# command name -> the packages it needs (filled by _register_all; `demo` needs two)
_NEEDS: dict[str, tuple[str, ...]] = {"demo": ("pipelines", "trainer"), "eval": ("evals",)}
_ALWAYS = ("doctor", "version")
_FOREIGN = dapo_extras.foreign_verifiers()  # reads one file; nothing is imported


def _unavailable(command: str) -> str | None:
    """One line saying why `dapo COMMAND` cannot run here, or None when it can."""
    if command in _ALWAYS:
        return None
    if _FOREIGN:
        return _FOREIGN
    extras = [dapo_extras.PACKAGE_EXTRA[p] for p in _NEEDS.get(command, ()) if p in dapo_extras.PACKAGE_EXTRA]
    return dapo_extras.missing_message(f"`dapo {command}`", *extras)


@app.callback()
def _root(
    ctx: typer.Context,
    debug: bool = typer.Option(False, "--debug", help="show an error's full traceback (or set DAPO_DEBUG=1)"),
) -> None:
    """Math RL toolkit: build integer-answer corpora, verify answers, train with DAPO."""
    msg = _unavailable(ctx.invoked_subcommand) if ctx.invoked_subcommand else None
    if msg:
        typer.echo(f"error: {msg}", err=True)
        raise typer.Exit(2)


@app.command()
def version() -> None:
    """Print the toolkit version."""
    from importlib.metadata import version as _v

    typer.echo(_v("dapo-toolkit"))


@app.command()
def demo(
    out: str = typer.Option("demo_out", help="output directory (corpus, SFT policy, RL run, report.json)"),
    seed: int = typer.Option(0, help="seed of SFT and RL (the corpus is the same for every seed)"),
    rl_steps: int | None = typer.Option(None, help="override the number of DAPO steps"),
    threads: int | None = typer.Option(None, help="torch threads (default: torch's choice)"),
) -> None:
    """Build a synthetic corpus, SFT-warm a tiny model, train it with DAPO, and compare held-out accuracy."""
    from pathlib import Path

    from pipelines.build import build
    from trainer.demo import DEMO_CORPUS, run

    result = build(DEMO_CORPUS, Path(out) / "data", offline=True)
    run(
        Path(out),
        records=result.records_dir,
        verl=result.verl_path,
        held_out=result.verl_files["test"][0],
        seed=seed,
        rl_steps=rl_steps,
        threads=threads,
    )


def eval_cmd(
    checkpoint: Annotated[
        Path | None,
        typer.Argument(
            help="a policy directory (SFT output or a run's checkpoints/step-N); or use --endpoint"
        ),
    ] = None,
    data: Annotated[
        str | None,
        typer.Argument(
            help="a benchmark file (verl Parquet, Parquet or JSONL); same as adding it to --bench"
        ),
    ] = None,
    endpoint: Annotated[
        str | None,
        typer.Option(help="OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1 (vLLM's server)"),
    ] = None,
    model: Annotated[str | None, typer.Option(help="the served model name (with --endpoint)")] = None,
    api_key: Annotated[str | None, typer.Option(envvar="OPENAI_API_KEY", help="env OPENAI_API_KEY")] = None,
    bench: Annotated[
        str | None,
        typer.Option(
            help="comma list of bundled sets (aime24, aime25, amc23, math500) and files [NAME=]PATH"
        ),
    ] = None,
    mapping: Annotated[
        str | None,
        typer.Option(
            "--mapping", help="columns of a custom file, field=column: problem=COL,answer=COL[,id=COL]"
        ),
    ] = None,
    map_: Annotated[str | None, typer.Option("--map", hidden=True, help="old name of --mapping")] = None,
    split: Annotated[
        str | None, typer.Option(help="only rows of this split (verl: extra_info.split)")
    ] = None,
    limit: Annotated[int | None, typer.Option(help="first N problems of each benchmark")] = None,
    k: Annotated[
        int | None, typer.Option(min=1, help="samples per problem (default 32; 1 with --greedy)")
    ] = None,
    temperature: Annotated[float | None, typer.Option(help="default 1.0; 0 with --greedy")] = None,
    top_p: Annotated[float | None, typer.Option(help="default 0.7; 1.0 with --greedy")] = None,
    max_tokens: Annotated[
        int, typer.Option("--max-tokens", "--max-new-tokens", min=1, help="per response")
    ] = 1024,
    greedy: Annotated[
        bool,
        typer.Option("--greedy", help="one sample at temperature 0 (top-p 1): the harnesses' greedy mode"),
    ] = False,
    pass_k: Annotated[str, typer.Option(help="pass@j reported for these j (k is always added)")] = "1,4,16",
    prompt: Annotated[
        str | None,
        typer.Option(
            help="dapo (default), boxed, raw, a file, or a text with {problem}; a verl file's own prompt "
            "is used unless this is given"
        ),
    ] = None,
    system: Annotated[str | None, typer.Option(help="a system message")] = None,
    mode: Annotated[
        str, typer.Option(help="chat (the model's chat template applies) or completion (raw prompt)")
    ] = "chat",
    out: Annotated[
        Path | None, typer.Option(help="output directory (default eval_runs/<model>-T<t>-p<p>-L<max>)")
    ] = None,
    fresh: Annotated[bool, typer.Option("--fresh", help="discard the samples already in --out")] = False,
    concurrency: Annotated[int, typer.Option(min=1, help="requests in flight (--endpoint)")] = 32,
    timeout: Annotated[
        float, typer.Option(help="seconds per request before it is retried (--endpoint)")
    ] = 600.0,
    max_retries: Annotated[
        int, typer.Option(min=0, help="per request: 429, 5xx, timeouts, garbled replies")
    ] = 6,
    seed: Annotated[
        int | None,
        typer.Option(
            help="checkpoint: torch's seed (default 0); endpoint: per-sample seeds derived from this, sent only "
            "when given (vLLM on CPU crashes on them)"
        ),
    ] = None,
    grade_workers: Annotated[
        int | None, typer.Option(help="processes grading (default: CPU count, at most 8)")
    ] = None,
    grade_timeout: Annotated[
        float | None,
        typer.Option(help="verifier seconds per response, default 1 (training: train.eval_grade_timeout)"),
    ] = None,
    max_prompt_len: Annotated[int | None, typer.Option(help="checkpoint: longest prompt in tokens")] = None,
    batch_prompts: Annotated[int, typer.Option(help="checkpoint: prompts sampled together")] = 32,
    no_progress: Annotated[bool, typer.Option("--no-progress")] = False,
    json_out: Annotated[
        Path | None, typer.Option("--json", help="also write the overall metrics here")
    ] = None,
) -> None:
    """Evaluate a model on math benchmarks: avg@k ± se, pass@k, maj@k, no-answer, truncation, length.

    Any OpenAI-compatible server (`--endpoint URL --model NAME`) or a checkpoint (`dapo eval DIR`).
    Samples are cached in --out as they arrive; rerunning the same command resumes a killed run.
    Writes report.json, samples.parquet, report.md and pass_at_k.png; graded by this project's verifier.
    """
    options = dict(locals())  # every option above, by name
    from evals.command import eval_command

    eval_command(**options)


app.command("eval")(eval_cmd)


@app.command()
def doctor() -> None:
    """Check the install: whose `verifiers` is on the path, which extras are installed, torch/CUDA, vLLM, Ray."""
    for line in dapo_extras.doctor_lines():
        typer.echo(line)
    if dapo_extras.foreign_verifiers():
        raise typer.Exit(1)


def _command_names() -> set[str]:
    names = {(c.name or c.callback.__name__.replace("_", "-")) for c in app.registered_commands}
    return names | {g.name for g in app.registered_groups if g.name}


def _cli_module(package: str):
    """`package.cli`, imported normally when the package can run, else loaded on its own."""
    usable = not _FOREIGN and not (
        package in dapo_extras.PACKAGE_EXTRA and dapo_extras.missing(dapo_extras.PACKAGE_EXTRA[package])
    )
    if usable:
        return importlib.import_module(f"{package}.cli")
    # only typer at module level, so the file loads without the package's dependencies (or __init__)
    spec = importlib.util.find_spec(package)
    path = Path(spec.origin).parent / "cli.py"
    mspec = importlib.util.spec_from_file_location(f"_dapo_cli_{package}", path)
    module = importlib.util.module_from_spec(mspec)
    mspec.loader.exec_module(module)
    return module


def _register_all() -> None:
    for package in ("verifiers", "mathdata", "pipelines", "trainer"):
        before = _command_names()
        try:
            _cli_module(package).register(app)
        except Exception:  # a foreign or broken package: `dapo doctor` explains; list what we can
            continue
        for name in _command_names() - before:
            _NEEDS[name] = (package,)
    # mark in `dapo --help` what cannot run here (plain words: help text is rich markup, so no [..])
    for info in [*app.registered_commands, *app.registered_groups]:
        name = getattr(info, "name", None) or info.callback.__name__.replace("_", "-")
        msg = _unavailable(name)
        if not msg:
            continue
        group = getattr(info, "typer_instance", None)
        doc = info.help or (group.info.help if group else None) or inspect.getdoc(info.callback) or ""
        extras = [
            dapo_extras.PACKAGE_EXTRA[p] for p in _NEEDS.get(name, ()) if p in dapo_extras.PACKAGE_EXTRA
        ]
        missing = [e for e in extras if dapo_extras.missing(e)]
        need = f"(needs the {' and '.join(missing)} extra) " if missing and not _FOREIGN else "(unavailable) "
        info.help = need + (doc if isinstance(doc, str) else "").split("\n")[0]


_register_all()


def _one_line_warning(message, category, filename, lineno, line=None) -> str:
    """Our deprecations as `warning: ...` lines (Python's format prefixes a file path and line)."""
    return f"warning: {message}\n"


def main() -> None:
    import warnings

    warnings.formatwarning = _one_line_warning
    # at start: with a foreign `verifiers` only doctor, version and --help run (its commands may be gone)
    if _FOREIGN and len(sys.argv) > 1 and sys.argv[1] not in (*_ALWAYS, "--help"):
        typer.echo(f"error: {_FOREIGN}", err=True)
        raise SystemExit(2)
    app()


if __name__ == "__main__":
    main()
