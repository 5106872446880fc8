"""`dapo` subcommands contributed by the trainer package: train, sft, plot.

(`dapo eval` lives in evals/, above the trainer: it samples a checkpoint through
evals.checkpoint.CheckpointSampler or an endpoint through pipelines' client, and the trainer never
imports pipelines or evals.)

(`dapo demo` lives in dapo_cli.py because it also builds a corpus with pipelines, which the
trainer never imports.) Heavy imports happen inside the commands so `dapo --help` stays fast.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer


def _fail(e: Exception) -> None:
    typer.secho(f"error: {e}", fg="red", err=True)
    raise typer.Exit(2)


def train_cmd(
    config: Annotated[
        Path | None, typer.Argument(help="YAML config (sections: model, data, rollout, algo, optim, train)")
    ] = None,
    preset: Annotated[
        str | None,
        typer.Option(help="a preset name (overrides the file's preset); --list-presets shows them all"),
    ] = None,
    set_: Annotated[
        list[str] | None, typer.Option("--set", help="override a key, e.g. --set algo.eps_high=0.28")
    ] = None,
    out: Annotated[Path | None, typer.Option(help="run directory (train.out)")] = None,
    resume: Annotated[
        bool,
        typer.Option(
            "--resume", help="continue the run in --out from its latest checkpoint, with its own saved config"
        ),
    ] = False,
    overwrite: Annotated[
        bool, typer.Option("--overwrite", help="delete a run already in --out and start over")
    ] = False,
    allow_config_change: Annotated[
        bool,
        typer.Option(
            "--allow-config-change",
            help="with --resume: accept changed settings (learning rate, group size ...)",
        ),
    ] = False,
    no_progress: Annotated[bool, typer.Option("--no-progress")] = False,
    list_presets: Annotated[
        bool, typer.Option("--list-presets", help="print every preset with a one-line description, then exit")
    ] = False,
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run",
            help="print the effective config (a run's config.yaml, with where each algo key came from), "
            "then exit without training or writing anything",
        ),
    ] = False,
) -> None:
    """RL-train a policy on a verl Parquet (DAPO by default); metrics, plots and checkpoints go to train.out.

    `--resume` continues a run from its latest checkpoint with the run's own config.yaml (give only
    what changes, e.g. --set train.steps=400). Multi-process: `torchrun --nproc_per_node N -m trainer
    train CONFIG` (rank 0 logs and saves). A config file that changes a key its preset sets is
    refused unless the change is marked (`algo.override: [KEY]` in the file, or `--set algo.KEY=...`).
    """
    if list_presets:
        from trainer.algorithms import list_presets as presets_table

        typer.echo(presets_table())
        return
    from trainer.config import ConfigError, config_yaml, run_config_sources

    try:
        cfg, sources = run_config_sources(
            config, preset=preset, sets=set_, out=out, resume=resume, overwrite=overwrite,
            allow_changes=allow_config_change, claim_out=not dry_run,
        )  # fmt: skip
    except ConfigError as e:
        _fail(e)
    if dry_run:  # the config only: nothing is read beyond it, nothing written
        typer.echo(config_yaml(cfg, sources), nl=False)
        return
    from trainer.loop import train
    from trainer.plots import plot_run
    from trainer.sampling import DynamicSamplingError

    try:
        run_dir = train(cfg, resume=resume, progress=not no_progress)
    except (DynamicSamplingError, FileNotFoundError, ValueError) as e:
        _fail(e)
    import os

    if int(os.environ.get("RANK", "0")) == 0:  # under torchrun only rank 0 has the metrics to plot
        typer.echo(f"run: {run_dir}  plots: {plot_run(run_dir)}")


def sft_cmd(
    records: Annotated[Path, typer.Argument(help="records store written by `dapo build` (DIR/records)")],
    out: Annotated[Path, typer.Option(help="where to save the policy (a transformers model directory)")],
    steps: int = 300,
    batch_size: int = 32,
    lr: float = 2e-3,
    seed: int = 0,
    probe: Annotated[
        Path | None, typer.Option(help="verl Parquet whose first prompts measure accuracy during SFT")
    ] = None,
    stop_at_acc: Annotated[
        float | None, typer.Option(help="stop once sampled probe accuracy reaches this")
    ] = None,
    stop_at_gold_prob: Annotated[
        float | None,
        typer.Option(
            help="stop once the teacher-forced P(gold solution), mean over 64 SFT examples, reaches this "
            "(checked every 25 steps; exact, no sampling noise, so CPUs agree on the stop; `dapo demo` uses 0.2)"
        ),
    ] = None,
    config: Annotated[Path | None, typer.Option(help="YAML whose model.tiny section sizes the model")] = None,
    model: Annotated[
        Path | None,
        typer.Option(
            help="start from this model instead of the tiny one: a Hugging Face model directory "
            "(save_pretrained) or a .gguf file; its own tokenizer and chat template are used"
        ),
    ] = None,
    device: Annotated[
        str, typer.Option(help="auto (a GPU when one is visible), cpu, cuda or cuda:N")
    ] = "auto",
) -> None:
    """Supervised warm-up on worked solutions (the tiny model, or --model), so RL starts from the Answer: format."""
    from trainer.config import ConfigError, load_config
    from trainer.sft import probe_prompts, sft

    if stop_at_acc is not None and probe is None:
        _fail(
            ValueError(
                "--stop-at-acc measures accuracy on --probe prompts: give --probe data/verl/train.parquet"
            )
        )
    try:
        cfg = load_config(config, sets=[f"model.path={model}"] if model is not None else None)
        pr = probe_prompts(probe) if probe is not None else None
        s = sft(records, out, model_cfg=cfg.model, steps=steps, batch_size=batch_size, lr=lr, seed=seed, probe=pr,
                stop_at_acc=stop_at_acc, stop_at_gold_prob=stop_at_gold_prob, device=device)  # fmt: skip
    except (ConfigError, ValueError, FileNotFoundError, RuntimeError) as e:
        _fail(e)
    typer.echo(json.dumps(s))
    if stop_at_acc is not None:
        acc = s.get("probe_acc")
        if acc is not None and acc >= stop_at_acc:
            typer.echo(
                f"sft: target reached: probe accuracy {acc:.2f} >= {stop_at_acc} after {s['steps']} steps"
            )
        else:
            typer.secho(
                f"sft: target NOT reached: probe accuracy {acc if acc is None else round(acc, 2)} < {stop_at_acc} "
                f"after all {s['steps']} steps; the policy in {out} is saved anyway (raise --steps or lower "
                "--stop-at-acc)",
                fg="yellow",
                err=True,
            )


def plot_cmd(run_dir: Annotated[Path, typer.Argument(help="a run directory with metrics.jsonl")]) -> None:
    """Redraw the Figure-7 panels (length, reward, entropy, mean probability) plus accuracy as PNG."""
    from trainer.plots import plot_run

    try:
        typer.echo(str(plot_run(run_dir)))
    except (ValueError, FileNotFoundError) as e:
        _fail(e)


def register(app: typer.Typer) -> None:
    """Add this package's commands to the top-level `dapo` app."""
    app.command("train")(train_cmd)
    app.command("sft")(sft_cmd)
    app.command("plot")(plot_cmd)
