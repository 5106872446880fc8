"""`dapo build CONFIG.yaml --out DIR`: the typed build config and the whole pipeline run.

The pipeline is the list of steps in `pipelines.steps` (each configured from its own section
of the config): the sources' records go through the map steps (classify -> rewrite ->
validate), each a resumable Parquet store under DIR/stages/, then the corpus steps (dedup,
decontamination). Then DIR/records/ (every record with its status), DIR/verl/ (the verl /
DAPO-Math-17K export of the kept ones: one `<split>.parquet` per split, so `train.parquet` is
verl's `data.train_files` and `test.parquet` its `data.val_files`; no file named train holds a
row of another split) and DIR/README.md (the card). Kill it at any moment
and run the same command again: finished work is skipped.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from mathdata.configs import (  # ConfigError: part of this module's API
    ConfigError,
    did_you_mean,
    read_yaml_mapping,
)
from pipelines.steps import (
    ClassifyConfig,
    DecontamConfig,
    DedupConfig,
    DifficultyConfig,
    RewriteConfig,
    StepContext,
    ValidateConfig,
    make_steps,
)
from verifiers.llm import LLMSettings


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _source_union():
    from pipelines.sources import source_models

    models = source_models()
    return Annotated[typing.Union[models], Field(discriminator="kind")]  # noqa: UP007


Source = _source_union()


class ExportConfig(_Strict):
    verl: bool = True
    repeat: int = Field(1, ge=1)


class BuildConfig(_Strict):
    """A whole build. Relative paths are relative to the config file."""

    name: str = "corpus"
    description: str = ""
    sources: list[Source] = Field(min_length=1)
    classify: ClassifyConfig = Field(default_factory=ClassifyConfig)
    llm: LLMSettings = Field(default_factory=LLMSettings, description="the endpoint every LLM step uses")
    rewrite: RewriteConfig = Field(default_factory=RewriteConfig)
    validate_: ValidateConfig = Field(default_factory=ValidateConfig, alias="validate")
    difficulty: DifficultyConfig = Field(default_factory=DifficultyConfig)
    dedup: DedupConfig = Field(default_factory=DedupConfig)
    decontaminate: DecontamConfig = Field(default_factory=DecontamConfig)
    export: ExportConfig = Field(default_factory=ExportConfig)
    chunk_size: int = Field(256, ge=1, description="records per shard written by each stage")
    base_dir: str = Field(".", description="set from the config file's folder")

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    @model_validator(mode="before")
    @classmethod
    def _old_rewrite_llm(cls, data):
        """The old `rewrite: {llm: {enabled, cross_check, <endpoint>...}}` becomes `rewrite: {llm, cross_check}`
        plus the top-level `llm:` section, with a one-line deprecation message."""
        if not isinstance(data, dict) or not isinstance((data.get("rewrite") or {}).get("llm"), dict):
            return data
        old = dict(data["rewrite"]["llm"])
        if data.get("llm"):
            raise ValueError(
                "both `llm:` and the old `rewrite.llm:` endpoint settings are given; fix: keep `llm:` only"
            )
        rewrite = {**data["rewrite"], "llm": bool(old.pop("enabled", False))}
        if "cross_check" in old:
            rewrite["cross_check"] = old.pop("cross_check")
        print(
            "deprecated: `rewrite.llm: {...}` is now `llm: {...}` (endpoint) plus `rewrite.llm: true` "
            "and `rewrite.cross_check`; read as such",
            file=sys.stderr,
        )
        return {**data, "rewrite": rewrite, "llm": old}


def _model_at(model: type[BaseModel], loc: tuple) -> type[BaseModel] | None:
    """The config model class that the error location `loc` points into."""
    current: typing.Any = model
    for part in loc:
        if isinstance(current, type) and issubclass(current, BaseModel):
            fields = {(f.alias or n): f for n, f in current.model_fields.items()}
            if part not in fields:
                return None
            current = fields[part].annotation
        elif isinstance(part, int):
            args = typing.get_args(current)
            current = args[0] if args else None
        else:  # a discriminator tag such as 'import'
            for member in typing.get_args(current):
                lit = member.model_fields.get("kind") if isinstance(member, type) else None
                if lit is not None and part in typing.get_args(lit.annotation):
                    current = member
                    break
            else:
                return None
        while typing.get_origin(current) in (Annotated, typing.Union, type(int | None)):
            args = [a for a in typing.get_args(current) if a is not type(None)]
            if typing.get_origin(current) is Annotated or len(args) == 1:
                current = args[0]
            else:
                break
    return current if isinstance(current, type) and issubclass(current, BaseModel) else None


def _kinds() -> list[str]:
    from pipelines.sources import source_kinds

    return source_kinds()


def _where(loc: tuple) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part not in _kinds():
            out += f".{part}" if out else str(part)
    return out or "(top level)"


def _explain(err: ValidationError, source: str) -> ConfigError:
    lines = []
    for e in err.errors():
        loc = tuple(e["loc"])
        if e["type"] == "extra_forbidden":
            parent = _model_at(BuildConfig, loc[:-1])
            allowed = sorted((f.alias or n) for n, f in parent.model_fields.items()) if parent else []
            allowed = [a for a in allowed if a != "base_dir"]
            guess = did_you_mean(str(loc[-1]), allowed)
            hint = f"did you mean {guess!r}? " if guess else ""
            lines.append(
                f"unknown key {loc[-1]!r} in {_where(loc[:-1])}: {hint}allowed keys: {', '.join(allowed)}"
            )
        elif e["type"] == "union_tag_invalid":
            lines.append(
                f"{_where(loc)}: kind must be one of {', '.join(_kinds())} (got {e['input'].get('kind')!r})"
            )
        elif e["type"] == "union_tag_not_found":
            lines.append(f"{_where(loc)}: add `kind: {' | '.join(_kinds())}`")
        else:
            lines.append(f"{_where(loc)}: {e['msg']} (got {str(e.get('input'))[:60]!r})")
    return ConfigError(f"{source}: invalid build config:\n  " + "\n  ".join(lines))


def load_config(config: str | os.PathLike | dict | BuildConfig) -> BuildConfig:
    """A BuildConfig from a YAML path, a dict or itself; errors name the key and the fix."""
    if isinstance(config, BuildConfig):
        return config
    source = "<dict>"
    if isinstance(config, dict):
        data = dict(config)
        data.setdefault("base_dir", ".")
    else:
        path = Path(config)
        source = str(path)
        data = read_yaml_mapping(path, expected="sections, with at least `sources:`")
        if "base_dir" in data:
            raise ConfigError(
                f"{path}: unknown key 'base_dir': paths are relative to the config file's folder"
            )
        data["base_dir"] = str(path.resolve().parent)
    try:
        return BuildConfig.model_validate(data)
    except ValidationError as e:
        raise _explain(e, source) from None


# ---------------------------------------------------------------------------------------------
# running


@dataclass
class BuildResult:
    out_dir: Path
    records_dir: Path
    verl_path: Path | None  # the training file (verl/train.parquet); None without one, or when sharded
    card_path: Path | None
    counts: dict = field(default_factory=dict)  # final status -> rows
    stages: list = field(default_factory=list)  # runner.StageStats per stage
    llm_usage: dict | None = None
    reports: dict = field(default_factory=dict)
    verl_files: dict = field(default_factory=dict)  # split -> [its verl file(s)]

    @property
    def kept(self) -> int:
        return self.counts.get("kept", 0)


def _path(cfg: BuildConfig, p: str) -> Path:
    q = Path(os.path.expandvars(os.path.expanduser(p)))
    return q if q.is_absolute() else Path(cfg.base_dir) / q


def acquire(
    cfg: BuildConfig, out_dir: Path, *, offline: bool = False, limit: int | None = None
) -> list[dict]:
    """Every source's records, in config order (deterministic ids, so a rerun gives the same ones)."""
    from pipelines.sources.base import AcquireContext

    ctx = AcquireContext(Path(cfg.base_dir), Path(out_dir), offline=offline, limit=limit)
    records: list[dict] = []
    for src in cfg.sources:
        records += src.acquire(ctx)
    return records


def drop_repeated_ids(records: list[dict]) -> tuple[list[dict], dict[str, int]]:
    """Records with each id once, and per source how many repeats were dropped.

    A repeated id is the same statement from the same source key twice (synthetic levels that
    drew the same numbers, a dataset row listed twice): one copy is kept. Two records sharing
    an id with different answers are an error (the source needs a finer key).
    """
    _check_unique_ids(records)
    seen: set[str] = set()
    out: list[dict] = []
    dropped: dict[str, int] = {}
    for r in records:
        if r["id"] in seen:
            dropped[r["source"]] = dropped.get(r["source"], 0) + 1
            continue
        seen.add(r["id"])
        out.append(r)
    return out, dropped


def _describe(src) -> str:
    """A source as a user wrote it: its kind and its name, path or size."""
    bits = [f"{k}={getattr(src, k)}" for k in ("name", "path", "n") if getattr(src, k, None) is not None]
    return f"{src.kind} " + " ".join(bits)


def _is_loopback(url: str | None) -> bool:
    from urllib.parse import urlsplit

    host = urlsplit(url or "").hostname or ""
    return host in ("127.0.0.1", "localhost", "::1")


def _config_hash(cfg: BuildConfig, offline: bool, limit: int | None) -> str:
    blob = cfg.model_dump_json(exclude={"base_dir"}) + f"|offline={offline}|limit={limit}"
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def _nothing_kept(final, out: Path) -> str:
    """Why a build kept no row: the commonest reasons per source, and where the records are."""
    from collections import Counter

    from pipelines.runner import status_reason

    sources, statuses = final.column("source").to_pylist(), final.column("status").to_pylist()
    reasons = Counter((src, status_reason(st)) for src, st in zip(sources, statuses, strict=True))
    top = "; ".join(f"{src}: {why} ({n})" for (src, why), n in reasons.most_common(5))
    return (
        f"the build kept none of its {len(final)} rows, so there is nothing to export: {top}. The records, with "
        f"each row's reason, are in {out / 'records'} (`dapo data stats {out / 'records'}`); fix: the source's "
        "mapping (an answer column?), the rewrite settings (rules or an LLM endpoint) or the decontamination sets"
    )


def build(
    config: str | os.PathLike | dict | BuildConfig,
    out_dir: str | os.PathLike,
    *,
    offline: bool = False,
    limit: int | None = None,
    progress: bool = True,
    console=None,
    engine="local",
    address: str | None = None,
) -> BuildResult:
    """Run the whole pipeline into `out_dir` and return what it wrote. Safe to re-run after a crash.

    `engine` is `local` (this process) or `ray` (Ray Data on a local cluster, or the cluster at
    `address`); both give the same corpus (pipelines.engine, pipelines.ray_engine).
    """

    from rich.console import Console

    cfg = load_config(config)
    out = Path(out_dir)
    console = console or Console(stderr=True)
    created = not out.exists()
    eng = make_engine(engine, address=address) if isinstance(engine, str) else engine
    try:
        with eng:
            return _build(cfg, out, eng, offline=offline, limit=limit, progress=progress, console=console)
    except BaseException:
        if created and out.is_dir() and not any(out.iterdir()):
            out.rmdir()  # a build that failed on its inputs leaves no empty folder behind
        raise


def _build(cfg: BuildConfig, out: Path, eng, *, offline: bool, limit: int | None, progress: bool, console):
    import asyncio

    from pipelines.runner import make_progress, run_stage_async, summary_table

    out.mkdir(parents=True, exist_ok=True)
    stamp = out / "build.json"
    digest = _config_hash(cfg, offline, limit)
    _check_stamp(out, stamp, digest, console)

    llm_cfg = cfg.llm
    solver = cfg.validate_.solver
    use_llm = cfg.rewrite.llm or solver.enabled or cfg.difficulty.enabled or cfg.decontaminate.judge
    if use_llm and offline and not _is_loopback(llm_cfg.base_url or os.environ.get("OPENAI_BASE_URL")):
        console.print(
            "[yellow]--offline: the LLM endpoint is not on loopback; LLM rewriting, solver check and "
            "difficulty are off"
        )
        use_llm = False
    client = None
    if use_llm:  # one client for the build: its concurrency limit, cache and retries hold across workers
        client = eng.llm(llm_cfg, _path(cfg, llm_cfg.cache_dir) if llm_cfg.cache_dir else out / "llm_cache")
    steps = make_steps(cfg, StepContext(llm=client))
    stats = []
    t0 = time.perf_counter()
    notes: dict = {}

    async def run_all() -> None:
        # sources show their own progress (the AoPS crawl), so acquire before the stage bars start
        acquired = acquire(cfg, out, offline=offline, limit=limit)
        if not acquired:
            raise ConfigError(
                f"no records: every source is empty ({', '.join(_describe(s) for s in cfg.sources)}); "
                "fix: give the sources rows (or a larger n / --limit); nothing was written"
            )
        unique, dropped = drop_repeated_ids(acquired)
        if dropped:
            notes["acquire_dropped"] = dropped
            parts = ", ".join(f"{k} {v}" for k, v in sorted(dropped.items()))
            console.print(
                f"acquire: {sum(dropped.values())} of {len(acquired)} records repeat the statement of an "
                f"earlier record from the same source (same id) and are stored once: {parts}"
            )
        # the stamp is written once the inputs have been read: a build that failed on a bad input
        # leaves nothing that blocks the corrected rerun
        if not stamp.exists():
            _write_json(stamp, _stamp_body(cfg, digest))
        pbar = make_progress() if progress else None
        try:
            if pbar is not None:
                pbar.start()
            kw = {"chunk_size": cfg.chunk_size, "progress": pbar}
            dirs = stage_dirs(out, steps)
            prev = dirs[0]
            stats.append(await run_stage_async("acquire", unique, prev, lambda r: r, **kw))
            for step, here in zip([s for s in steps if s.scope == "record"], dirs[1:], strict=True):
                window = max(cfg.chunk_size, step.window or 0)
                stats.append(
                    await eng.run_stage(
                        step, prev, here, chunk_size=cfg.chunk_size, window=window, progress=pbar
                    )
                )
                prev = here
        finally:
            if pbar is not None:
                pbar.stop()
            if client is not None:
                await client.aclose()

    asyncio.run(run_all())
    last = stage_dirs(out, steps)[-1]
    result = finish(
        cfg,
        out,
        stats,
        llm_usage=client.usage if client else None,
        console=console,
        steps=[s for s in steps if s.scope == "corpus"],
        last_stage=last,
        notes=notes,
        engine=eng,
    )
    _write_json(stamp, {**_stamp_body(cfg, digest), "finished": True})
    console.print(summary_table(stats, title=f"{cfg.name}: stages"))
    console.print(_final_table(result))
    console.print(
        f"built {out} in {time.perf_counter() - t0:.1f}s: {result.kept} kept of {sum(result.counts.values())}"
    )
    return result


def _stamp_body(cfg: BuildConfig, digest: str) -> dict:
    return {"config_hash": digest, "name": cfg.name, "config": cfg.model_dump(mode="json", by_alias=True)}


def _check_stamp(out: Path, stamp: Path, digest: str, console) -> None:
    """Refuse to mix two configs' work in one folder, unless the other build never finished."""
    if not stamp.exists():
        return
    try:
        old = json.loads(stamp.read_text())
    except (OSError, json.JSONDecodeError):
        old = {}
    if old.get("config_hash") == digest:
        return
    if old.get("finished"):
        raise ConfigError(
            f"{out} holds a finished build of a different config (or --offline/--limit); "
            f"fix: use a new --out directory, or delete {out}"
        )
    import shutil

    console.print(
        f"[yellow]{out} holds an unfinished build of a different config: its stage outputs are "
        "discarded and this build starts over (LLM and HTTP caches are kept)"
    )
    for sub in ("stages", "records", "verl"):
        shutil.rmtree(out / sub, ignore_errors=True)
    stamp.unlink()


def _check_unique_ids(records: list[dict]) -> None:
    seen: dict[str, dict] = {}
    for r in records:
        if r["id"] in seen and seen[r["id"]].get("original_answer") != r.get("original_answer"):
            raise ValueError(
                f"two acquired records share id {r['id']} with different answers "
                f"({seen[r['id']].get('source_ref')} and {r.get('source_ref')}); fix: give the source a finer source_key"
            )
        seen[r["id"]] = r


def _write_json(path: Path, obj) -> None:
    from mathdata.files import atomic_write

    atomic_write(path, json.dumps(obj, indent=2, sort_keys=True, default=str))


def stage_dirs(out: Path, steps: list) -> list[Path]:
    """The folders of the map stages, in order: `stages/1_acquire`, then `<i>_<step>` per record step."""
    mapped = [s for s in steps if s.scope == "record"]
    return [out / "stages" / "1_acquire"] + [
        out / "stages" / f"{i}_{s.name}" for i, s in enumerate(mapped, 2)
    ]


def finish(
    cfg: BuildConfig,
    out: Path,
    stats: list,
    *,
    llm_usage: dict | None = None,
    console=None,
    steps: list | None = None,
    last_stage: Path | None = None,
    notes: dict | None = None,
    engine=None,
) -> BuildResult:
    """Run the corpus steps (dedup, decontamination) on the last stage's records, then write
    records/, verl/ and the card."""
    import pyarrow.compute as pc

    from mathdata.store import read_table
    from pipelines.engine import LocalEngine

    engine = engine or LocalEngine()
    if last_stage is None:
        last_stage = stage_dirs(out, make_steps(cfg))[-1]
    if steps is None:
        steps = [s for s in make_steps(cfg) if s.scope == "corpus"]
    # by id: the stage shards come in the order they finished, which differs from run to run and
    # between engines; dedup's pairs and the export's extra_info.index must not depend on it
    table = read_table(last_stage).sort_by("id")
    reports: dict = dict(notes or {})
    for step in steps:
        table, report = engine.run_corpus_step(step, table)
        reports[step.report_key or step.name] = report
    records_dir = out / "records"
    engine.write_records(records_dir, table)  # atomic shards; ids already there are skipped
    final = read_table(records_dir).sort_by("id")
    from pipelines.runner import status_key, status_reason

    counts: dict = {}
    for s in final.column("status").to_pylist():
        counts[status_key(s)] = counts.get(status_key(s), 0) + 1
    kept = final.filter(pc.equal(final.column("status"), "kept"))
    if not len(kept):
        raise ValueError(_nothing_kept(final, out))
    verl_path, verl_files = None, {}
    if cfg.export.verl:
        verl_files = engine.export_verl(kept, out / "verl", repeat=cfg.export.repeat)
        if len(verl_files.get("train", [])) == 1:
            verl_path = verl_files["train"][0]
    steps = [
        {"name": s.name, "in": s.total, **{k: v for k, v in sorted(s.status.items())}} for s in stats
    ] + [{"name": "final", "in": len(final), **counts}]
    from mathdata.card import write_card

    # what the card is made of, kept in summary.json: `dapo data card out/records` makes the same card
    card_inputs = {
        "steps": steps,
        "sources": [s.model_dump(mode="json", exclude_none=True) for s in cfg.sources],
        "data_files": {
            split: f"verl/{paths[0].name}"
            if len(paths) == 1
            else f"verl/{paths[0].name.split('-', 1)[0]}-*.parquet"
            for split, paths in verl_files.items()
        }
        or "verl/*.parquet",
        "description": cfg.description or None,
        "repeat": cfg.export.repeat,
    }
    card_path = write_card(
        out,
        name=cfg.name,
        table=final,
        dedup_report=reports.get("dedup"),
        decontam_report=reports.get("decontam"),
        **card_inputs,
    )
    by_source: dict = {}
    for src, status, transform in zip(
        final.column("source").to_pylist(),
        final.column("status").to_pylist(),
        final.column("transform").to_pylist(),
        strict=True,
    ):
        key = src.split(":", 1)[0] if src.startswith("synthetic:") else src
        row = by_source.setdefault(key, {"records": 0, "status": {}, "transform": {}, "reasons": {}})
        row["records"] += 1
        if status != "kept":
            reason = status_reason(status)
            row["reasons"][reason] = row["reasons"].get(reason, 0) + 1
        row["status"][status_key(status)] = row["status"].get(status_key(status), 0) + 1
        if status == "kept":
            row["transform"][transform or "none"] = row["transform"].get(transform or "none", 0) + 1
    reports["by_source"] = by_source
    summary = {
        "name": cfg.name,
        "counts": counts,
        "stages": [
            {
                "name": s.name,
                "total": s.total,
                "resumed": s.resumed,
                "processed": s.processed,
                "errors": s.errors,
                "status": dict(s.status),
                "seconds": round(s.seconds, 2),
            }
            for s in stats
        ],
        "llm_usage": llm_usage,
        "reports": reports,
        "verl_files": {k: [str(p.relative_to(out)) for p in v] for k, v in verl_files.items()},
        "card": card_inputs,
    }
    _write_json(out / "summary.json", summary)
    return BuildResult(
        out,
        records_dir,
        verl_path,
        Path(card_path) if card_path else None,
        counts,
        stats,
        llm_usage,
        reports,
        verl_files,
    )


def _final_table(result: BuildResult):
    """Per source: records, kept, the transforms of the kept ones, and the reject reasons."""
    from rich.table import Table

    t = Table(title="final records by source")
    for col in ("source", "records", "kept", "kept by transform", "not kept"):
        t.add_column(col, justify="right" if col in ("records", "kept") else "left")
    by_source = result.reports.get("by_source", {})
    for src, row in sorted(by_source.items()):
        transforms = ", ".join(f"{k} {v}" for k, v in sorted(row["transform"].items(), key=lambda kv: -kv[1]))
        rejects = ", ".join(
            f"{k} {v}" for k, v in sorted(row["status"].items(), key=lambda kv: -kv[1]) if k != "kept"
        )
        t.add_row(src, str(row["records"]), str(row["status"].get("kept", 0)), transforms, rejects)
    t.add_row("all", str(sum(result.counts.values())), str(result.kept), "", "")
    return t


def make_engine(name: str = "local", *, address: str | None = None, num_cpus: int | None = None):
    """An engine by name; `ray` needs the [ray] extra (one line naming it otherwise)."""
    from pipelines.engine import LocalEngine

    if name == "local":
        if address is not None:
            raise ValueError("--address is for --engine ray; the local engine runs in this process")
        return LocalEngine()
    if name == "ray":
        from dapo_extras import require_extra

        require_extra("ray", "`dapo build --engine ray`")
        from pipelines.ray_engine import RayEngine

        return RayEngine(address=address, num_cpus=num_cpus)
    raise ValueError(f"unknown engine {name!r}; use local or ray")
