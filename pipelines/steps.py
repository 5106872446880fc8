"""The pipeline as a list of small steps, each configured from its own config section.

This module is the contract between the steps and whatever runs them (the local resumable
runner in `pipelines.build`, `dapo rules-report`, or a Ray Data engine):

- A **record** is a dict with mathdata's columns (`mathdata.schema.COLUMNS`). `status` is
  `"kept"` or the reason it is not; `checks` is a JSON string in which each step writes its
  outcome under its own key (`classify`, `integer`, `consistent`, `solver`, ...).
- A **batch** is a list of record dicts. Every step is callable on a batch:
  `step(batch) -> list[dict]`. That is the one format for steps; corpus-wide steps convert
  to a pyarrow Table inside because mathdata's dedup and decontamination are vectorised.
- **Map steps** (`scope = "record"`): `classify`, `rewrite`, `validate`, and `difficulty` when
  enabled with an endpoint. Each record's output depends on that record and the step's config only, so an
  engine may cut batches anywhere, run them in any order and skip ids already done (the local
  runner does: atomic shards, finished ids skipped). `step.process(record)` handles one
  record and returns a coroutine when the step may talk to an LLM endpoint (`is_async`).
  A record whose status is not `"kept"` passes through unchanged.
- **Global steps** (`scope = "corpus"`): `dedup` and `decontaminate` need every record at
  once. `step.run_table(table) -> (table, report)` on a Table in `RECORD_SCHEMA`;
  `step(batch)` does the same on a list. They change `status` only.
- Acquisition is not a step over records: sources (`pipelines.sources`, one file each with
  its own config model) produce the first batch.

Each step class names its config section (`section`) and model (`Config`); `make_steps`
builds the list from a `BuildConfig`, handing each step its whole section object, so a
setting can never be validated and then dropped on the way to the code that uses it.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from pydantic import Field, model_validator

from pipelines.sources.base import Strict

# ---------------------------------------------------------------------------------------------
# config sections


class ClassifyConfig(Strict):
    reject_diagrams: bool = Field(False, description="also reject problems whose diagram is [asy] code")
    mc_to_open: bool = Field(
        True,
        description="multiple choice whose stem stands alone becomes an open question with the keyed value",
    )


class RewriteConfig(Strict):
    rules: bool = True
    llm: bool = Field(False, description="rewrite what the rules miss with the `llm:` endpoint")
    cross_check: bool = Field(
        False, description="also ask the LLM where a rule succeeded; reject disagreements"
    )
    format_retries: int = Field(
        1, ge=0, description="ask again, naming the error, when an LLM reply cannot be read"
    )


class SolverConfig(Strict):
    enabled: bool = False
    k: int = Field(4, ge=1)
    temperature: float = 1.0


class ValidateConfig(Strict):
    consistency: bool = True
    solver: SolverConfig = Field(default_factory=SolverConfig)


class DifficultyConfig(Strict):
    """Pass rate of a reference model (the `llm:` endpoint, model `llm.models.difficulty`) over n samples."""

    enabled: bool = False
    n: int = Field(8, ge=1, description="samples per kept problem")
    temperature: float = 1.0
    model: str | None = Field(
        None, description="label stored with the pass rate (default: the endpoint's model)"
    )
    min_pass: float | None = Field(None, ge=0, le=1, description="mark problems below as too_hard")
    max_pass: float | None = Field(None, ge=0, le=1, description="mark problems above as too_easy")


class DedupConfig(Strict):
    enabled: bool = True
    near: bool = True
    threshold: float = Field(0.6, gt=0, le=1)


class DecontamConfig(Strict):
    enabled: bool = True
    n: int | None = Field(None, ge=1, description="n-gram length (default: mathdata's)")
    benchmarks: list[str] | None = Field(None, description="default: every bundled benchmark")
    fuzzy: bool = Field(True, description="character 6-gram and metadata layers (paraphrased copies)")
    semantic: bool = Field(
        False,
        description="sentence-embedding layer for reworded copies (the [semantic] extra; ~50 CPU s per 1,000 rows)",
    )
    judge: bool = Field(
        False,
        description="ask the `llm:` endpoint (model llm.models.decontam_judge) about borderline fuzzy pairs",
    )
    judge_from: float | None = Field(
        None,
        gt=0,
        lt=1,
        description="semantic layer: the embedding cosine from which a row's nearest item goes to the judge "
        "(default 0.7; lower: more judge calls, fewer reworded copies missed; needs semantic: true)",
    )

    @model_validator(mode="after")
    def _judge_from_needs_semantic(self):
        if self.judge_from is not None and not self.semantic:
            raise ValueError(
                "decontaminate.judge_from is the semantic layer's cosine: set semantic: true too"
            )
        return self


# ---------------------------------------------------------------------------------------------
# steps


@dataclass
class StepContext:
    """Shared resources: the LLM client (None offline or when no stage needs it)."""

    llm: Any = None


class Step:
    """Base class: a named step over batches of records (see the module docstring)."""

    name: ClassVar[str]
    section: ClassVar[str]
    report_key: ClassVar[str | None] = None  # key of its report in build.json (default: name)
    scope: ClassVar[Literal["record", "corpus"]] = "record"
    is_async: bool = False
    window: int | None = None  # records in flight for the local runner (None: chunk size)

    def __init__(self, config, ctx: StepContext | None = None):
        self.config = config
        self.ctx = ctx or StepContext()

    @property
    def enabled(self) -> bool:
        return getattr(self.config, "enabled", True)

    def process(self, record: dict):  # record scope
        raise NotImplementedError

    def run_table(self, table, ex=None):  # corpus scope: `ex` executes its plan (pipelines.plan)
        raise NotImplementedError

    def __call__(self, batch: list[dict]) -> list[dict]:
        if self.scope == "corpus":
            from mathdata.schema import to_table

            table, _ = self.run_table(to_table(batch))
            return table.to_pylist()
        if not self.is_async:
            return [self.process(r) for r in batch]

        async def _all() -> list[dict]:
            return list(await asyncio.gather(*(self.process(r) for r in batch)))

        return asyncio.run(_all())

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.config!r})"


class ClassifyStep(Step):
    """Verifiability: proofs, yes/no, multiple choice, multi-part, figures, approximations, units."""

    name, section, Config = "classify", "classify", ClassifyConfig

    def process(self, record: dict) -> dict:
        from pipelines.classify import classify

        return classify(
            record, reject_diagrams=self.config.reject_diagrams, mc_to_open=self.config.mc_to_open
        )


class RewriteStep(Step):
    """Exact rules first (each states what it proved), then the LLM when one is configured."""

    name, section, Config = "rewrite", "rewrite", RewriteConfig

    def __init__(self, config: RewriteConfig, ctx: StepContext | None = None):
        super().__init__(config, ctx)
        self.llm = self.ctx.llm.for_use("rewrite") if config.llm and self.ctx.llm is not None else None
        self.is_async = self.llm is not None
        self.window = self.llm.settings.in_flight if self.llm is not None else None

    def process(self, record: dict):
        from pipelines.rewrite import rewrite_record, rewrite_record_sync

        if self.llm is None:
            return rewrite_record_sync(record, use_rules=self.config.rules)
        return rewrite_record(
            record,
            self.llm,
            cross_check=self.config.cross_check,
            use_rules=self.config.rules,
            format_retries=self.config.format_retries,
        )


class ValidateStep(Step):
    """Integer answer, consistency with the original answer, solver majority (or `solver: null`)."""

    name, section, Config = "validate", "validate_", ValidateConfig

    def __init__(self, config: ValidateConfig, ctx: StepContext | None = None):
        super().__init__(config, ctx)
        self.llm = (
            self.ctx.llm.for_use("solver") if config.solver.enabled and self.ctx.llm is not None else None
        )
        self.is_async = self.llm is not None
        self.window = self.llm.settings.in_flight if self.llm is not None else None

    def process(self, record: dict):
        from pipelines.validate import check_record, validate_record

        if self.llm is None:
            return check_record(record, check_consistency=self.config.consistency)
        return validate_record(
            record,
            check_consistency=self.config.consistency,
            llm=self.llm,
            solver_k=self.config.solver.k,
            solver_temperature=self.config.solver.temperature,
        )


class DifficultyStep(Step):
    """n samples per kept problem from the endpoint, scored by the verifier: `checks.difficulty`."""

    name, section, Config = "difficulty", "difficulty", DifficultyConfig

    def __init__(self, config: DifficultyConfig, ctx: StepContext | None = None):
        super().__init__(config, ctx)
        self.llm = self.ctx.llm.for_use("difficulty") if config.enabled and self.ctx.llm is not None else None
        self.is_async = True
        self.window = 16

    def process(self, record: dict):
        from pipelines.difficulty import difficulty_record

        c = self.config
        return difficulty_record(
            record,
            self.llm,
            n=c.n,
            temperature=c.temperature,
            model=c.model,
            min_pass=c.min_pass,
            max_pass=c.max_pass,
        )


class DedupStep(Step):
    """Exact and MinHash near duplicates: the later copy becomes `duplicate_of:<id>`."""

    name, section, Config, scope = "dedup", "dedup", DedupConfig, "corpus"

    def run_table(self, table, ex=None):
        """mathdata's dedup; on a distributed executor, the plan of pipelines.corpus_plans (exact
        groups and marking on the driver, near pairs by sketch map, band group-reduce, driver check)."""
        kw = {"threshold": self.config.threshold, "near": self.config.near}
        if ex is not None and ex.distributed:
            from pipelines.corpus_plans import dedup as plan

            res = plan(ex, table, **kw)
        else:
            from mathdata.dedup import dedup

            res = dedup(table, **kw)
        return res.table, res.report


class DecontamStep(Step):
    """N-gram overlap with evaluation sets (AIME, AMC, MATH-500): `contaminated:<bench>:<item>`."""

    name, section, Config, scope = "decontaminate", "decontaminate", DecontamConfig, "corpus"
    report_key = "decontam"

    def run_table(self, table, ex=None):
        """mathdata's decontamination; on a distributed executor, the plan of pipelines.corpus_plans
        (index on the driver, matching by map_batches; no LLM judge there: borderline pairs are reported)."""
        if ex is not None and ex.distributed:
            from pipelines.corpus_plans import decontaminate as plan

            return plan(ex, table, self.config)
        from mathdata.decontam import decontaminate

        kw = {"n": self.config.n} if self.config.n else {}
        judge = None
        if self.config.judge and self.ctx.llm is not None:
            from pipelines.decontam_judge import llm_judge

            judge = llm_judge(self.ctx.llm.for_use("decontam_judge"))
        return decontaminate(
            table,
            references=self.config.benchmarks,
            fuzzy=self.config.fuzzy,
            semantic=self.config.semantic,
            judge=judge,
            judge_from=self.config.judge_from,
            **kw,
        )


# The default pipeline, in order. A step is listed once; its config is `BuildConfig.<section>`.
STEPS: list[type[Step]] = [ClassifyStep, RewriteStep, ValidateStep, DifficultyStep, DedupStep, DecontamStep]


def make_steps(cfg, ctx: StepContext | None = None, *, only: tuple[str, ...] | None = None) -> list[Step]:
    """The configured steps of a BuildConfig, in order (disabled corpus steps left out)."""
    ctx = ctx or StepContext()
    steps = []
    for cls in STEPS:
        if only is not None and cls.name not in only:
            continue
        step = cls(getattr(cfg, cls.section), ctx)
        if not step.enabled and (step.scope == "corpus" or cls is DifficultyStep):
            continue  # switched off: not run at all (the validate-style steps always run)
        if cls is DifficultyStep and step.llm is None:
            continue  # no endpoint (offline): nothing to sample
        steps.append(step)
    return steps


def checks_of(record: dict) -> dict:
    """A record's `checks` as a dict (it is stored as a JSON string)."""
    value = record.get("checks")
    if not value:
        return {}
    if isinstance(value, dict):
        return value
    try:
        out = json.loads(value)
    except (TypeError, json.JSONDecodeError):
        return {}
    return out if isinstance(out, dict) else {}
