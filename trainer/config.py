"""Typed run configuration: presets (grpo, dapo, ...) merged with a user's YAML, then validated.

One nested pydantic model. Unknown keys, keys borrowed from verl/TRL and settings that contradict
each other are errors that say what to write instead, because a silently ignored key in an RL
config wastes a whole run.
"""

from __future__ import annotations

import copy
import functools
import re
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from mathdata.configs import (  # ConfigError: part of this module's API
    ConfigError,
    did_you_mean,
    read_yaml_mapping,
)
from trainer.algorithms import ALGORITHMS, NAMES, Algorithm, Setting, owners, unread_keys
from trainer.algorithms import preset as algorithm_preset
from trainer.objective import AGG_MODES


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class TinyModelConfig(_Strict):
    """A Qwen2-architecture model built locally; head size = hidden / heads must be in 32..256."""

    hidden_size: int = 128
    num_layers: int = 4
    num_heads: int = 4
    num_kv_heads: int = 2
    intermediate_size: int = 384
    vocab_size: int = 512
    max_position_embeddings: int = 512

    @model_validator(mode="after")
    def _heads(self) -> TinyModelConfig:
        if self.hidden_size % self.num_heads:
            raise ValueError(
                f"model.tiny.hidden_size {self.hidden_size} must be a multiple of num_heads {self.num_heads}"
            )
        head = self.hidden_size // self.num_heads
        if not 32 <= head <= 256:
            raise ValueError(f"head size hidden_size/num_heads = {head}; write values that give 32..256")
        if self.num_heads % self.num_kv_heads:
            raise ValueError(
                f"model.tiny.num_heads {self.num_heads} must be a multiple of num_kv_heads {self.num_kv_heads}"
            )
        return self


class ModelConfig(_Strict):
    path: str | None = None  # a transformers causal LM (hub-free local dir); None builds the tiny model
    tiny: TinyModelConfig = Field(default_factory=TinyModelConfig)
    dtype: Literal["float32", "bfloat16"] = "float32"


class DataConfig(_Strict):
    train: str | None = None  # verl Parquet (file or directory)
    train_split: str | None = None  # keep only rows whose extra_info.split matches (None: all rows)
    eval: str | None = None  # held-out verl Parquet; None: eval skipped during training
    eval_split: str | None = None
    max_prompt_len: int = 192  # tokens after the chat template; longer prompts are dropped and counted
    eval_size: int | None = None  # first N eval prompts (None: all)
    # Prompt sampling from the pass-rate estimate in extra_info.difficulty (trainer/data.py):
    # off; skip = leave out prompts with pass_rate <= difficulty_skip_below or >= difficulty_skip_above
    # (expected all wrong / all right); weight = draw each prompt in proportion to the chance that a
    # group of rollout.n responses is informative (Beta posterior of its correct/n). No estimate: kept.
    difficulty_sampling: Literal["off", "skip", "weight"] = "off"
    difficulty_skip_below: float = 0.0
    difficulty_skip_above: float = 1.0


class RolloutConfig(_Strict):
    engine: Literal["hf", "vllm"] = "hf"
    n: int = 8  # G, responses per prompt
    max_new_tokens: int = 64  # Lmax of the soft overlong punishment
    temperature: float = 1.0
    top_p: float = 1.0
    # Extra keyword arguments for vllm.LLM with engine: vllm (e.g. gpu_memory_utilization: 0.3 when
    # the policy trains on the same GPU, dtype: float32 on CPU).
    vllm_kwargs: dict[str, Any] = Field(default_factory=dict)


def _known_algorithm(name: str) -> str:
    if name not in ALGORITHMS:
        raise ValueError(f"unknown preset {name!r}; write one of {', '.join(ALGORITHMS)}")
    return name


class AlgoConfig(_Strict):
    """The shared `algo:` keys below, plus the settings of the chosen algorithm's row.

    A row's own settings (clip_cov's covariance band, the critic's GAE, sapo's temperatures ...:
    `Setting`s in trainer/algorithms.py) are declared with their row, not here: the config accepts
    `algo.<key>` only when the preset's row declares it, validates it as the row says, fills the
    row's default, and reads it as `a.<key>` like any field.
    """

    # extra keys are the row's settings only: `_row_settings` refuses every other one
    model_config = ConfigDict(extra="allow", validate_assignment=True)

    name: str = "dapo"  # a row of the algorithm table (trainer/algorithms.py)
    std_normalize: bool = True  # divide group advantages by the group std
    eps_low: float = 0.2
    eps_high: float = 0.28
    loss_agg: Literal[AGG_MODES] = "token_mean"  # trainer/objective.py: aggregate
    # Which token set normalises token_mean: the optimiser mini-batch (verl/TRL), each group (the
    # paper's formula read per prompt), or the whole rollout batch (scaled to a mini-batch's share).
    token_norm: Literal["minibatch", "group", "batch"] = "minibatch"
    dynamic_sampling: bool = True
    # which groups dynamic sampling keeps: "acc" = some but not all answers correct (DAPO's
    # 0 < |{o_i correct}| < G, verl's filter_groups.metric=acc); "reward" = two distinct rewards (an
    # all-right group whose lengths earn different overlong penalties is then kept)
    filter_metric: Literal["acc", "reward"] = "acc"
    max_gen_batches: int = 8  # generation batches per step before dynamic sampling gives up
    # at max_gen_batches: "error" stops the run (the paper); "train" trains on the informative groups
    # collected so far (logged as dynamic_sampling_short = groups missing); needs at least one;
    # "skip" too, and a step with none makes no update (logged skipped_step = 1) instead of stopping.
    on_max_gen_batches: Literal["error", "train", "skip"] = "error"
    # keep the surplus informative groups of a step's last generation batch for the next step
    # (one update off-policy; at most one step old; checkpointed) instead of discarding them
    keep_surplus: bool = False
    overlong_filter: bool = True  # truncated responses get zero loss weight
    overlong_penalty: bool = True  # soft overlong punishment added to the reward
    overlong_buffer: int = 16  # Lcache, in tokens
    kl_coef: float = 0.0
    kl_kind: Literal["k1", "k2", "k3"] = "k3"  # objective.kl_penalty: verl's kl / mse / low_var_kl
    # Dual-clip PPO (verl's actor.clip_ratio_c): for A < 0 the token loss is capped at c |A| (c > 1).
    # None = no cap, the GRPO/PPO papers' objective; the dapo preset sets 10.0 as DAPO's verl recipe
    # does. verl always applies it (default 3.0): write 3.0 to match a verl run with default settings.
    clip_ratio_c: float | None = None
    old_logprobs: Literal["recompute", "engine"] = "recompute"
    # Truncated importance sampling: each token's loss times min(pi_trainer / pi_engine, tis_cap)
    # (corrects the engine's numerics, e.g. vLLM); None = off.
    tis_cap: float | None = None
    # Rollout correction beyond token TIS (trainer/correction.py), from rho = pi_trainer / pi_engine:
    # tis_level "sequence" weights each response by min(prod_t rho_t, tis_cap) instead of each token;
    # rc_seq_band [low, high] zeroes responses whose geometric-mean rho leaves the band;
    # rc_token_band [low, high] zeroes single tokens whose rho leaves it.
    tis_level: Literal["token", "sequence"] = "token"
    rc_seq_band: tuple[float, float] | None = None
    rc_token_band: tuple[float, float] | None = None
    # Any preset: only the top q share of the rollout batch's tokens by entropy (under pi_old) gets
    # policy gradient (the 80/20 finding; q = 0.2 in the paper); None = every token.
    entropy_top_quantile: float | None = None
    # Any preset: OPSM (DeepSeek-V3.2) drops a response with A < 0 whose mean per-token
    # log pi_engine - log pi_theta exceeds this delta; None = off.
    off_policy_mask: float | None = None
    # Any preset: entropy bonus, loss -= entropy_coef * entropy (aggregated like the loss; verl's entropy_coeff)
    entropy_coef: float = 0.0
    # with kl_coef > 0: the KL penalty weighted by pi_theta / pi_old (DeepSeek-V3.2's unbiased estimate)
    kl_unbiased: bool = False

    # The algorithm keys (ALGORITHM_KEYS) this config sets on purpose to values other than its
    # preset's; a config FILE that changes one without naming it here is refused (a `--set
    # algo.KEY=...` is explicit by itself). A run's config.yaml lists every one that differs, so it loads again.
    override: list[str] = Field(default_factory=list)

    @field_validator("name")
    @classmethod
    def _known_name(cls, name: str) -> str:
        return _known_algorithm(name)

    @model_validator(mode="before")
    @classmethod
    def _row_settings(cls, data: Any) -> Any:
        """The keys that are no field must be settings of the chosen row: checked, and defaults filled."""
        if not isinstance(data, dict):
            return data
        row = ALGORITHMS.get(data.get("name", cls.model_fields["name"].default))
        if row is None:
            return data  # the name's validator says what to write
        out = dict(data)
        for key in data:
            if key in cls.model_fields:
                continue
            if row.setting(key) is None:
                raise PydanticCustomError("algo_key", "{text}", {"text": _foreign_key_message(key, row)})
            out[key] = _validated_setting(row, key, data[key])
        for s in row.settings:
            out.setdefault(s.name, s.default)
        return out

    def __setattr__(self, name: str, value: Any) -> None:
        if name not in type(self).model_fields and not name.startswith("_"):
            row = ALGORITHMS[self.name]
            if row.setting(name) is None:
                raise ValueError(_foreign_key_message(name, row))
            value = _validated_setting(row, name, value)
        super().__setattr__(name, value)

    @field_validator("override")
    @classmethod
    def _override_names_algo_keys(cls, keys: list[str]) -> list[str]:
        algo_keys = algorithm_keys()
        unknown = [k for k in keys if k not in algo_keys]
        if unknown:
            close = did_you_mean(unknown[0], algo_keys)
            hint = f"did you mean {close!r}?" if close else f"write one of {', '.join(algo_keys)}"
            raise ValueError(
                f"algo.override names {unknown[0]!r}, which is not an algorithm key (a key some preset sets); "
                f"{hint}. Other algo keys are options any config may set without override"
            )
        return sorted(set(keys))


@functools.cache
def _adapter(tp: Any) -> TypeAdapter:
    return TypeAdapter(tp)


def _validated_setting(row: Algorithm, key: str, value: Any) -> Any:
    """`value` as row's setting `key` declares it (a YAML string "1e-3" becomes 0.001), or an error."""
    s: Setting = row.setting(key)
    try:
        return _adapter(s.type).validate_python(value)
    except ValidationError as e:
        raise PydanticCustomError(
            "algo_key",
            "{text}",
            {"text": f"algo.{key} {value!r}: {e.errors()[0]['msg']} ({row.name}: {s.meaning})"},
        ) from None


def _foreign_key_message(key: str, row: Algorithm) -> str:
    """Why `algo.<key>` is refused under preset `row`: the presets that read it, else the likely key."""
    takers = owners(key)
    if not takers:
        return f"unknown key 'algo.{key}': {_unknown_key_hint('algo.' + key, key)}"
    meaning = ALGORITHMS[takers[0]].setting(key).meaning
    these = " / ".join(takers)
    if not row.critic and all(ALGORITHMS[n].critic for n in takers):
        return (
            f"algo.{key} ({meaning}) only applies to the critic presets {' and '.join(takers)} (preset "
            f"{row.name!r} has no critic); drop it or write preset: {these}"
        )
    return (
        f"{row.name} does not use algo.{key}: it is {these}'s ({meaning}); drop it or write preset: {these}"
    )


def algorithm_keys() -> tuple[str, ...]:
    """THE ALGORITHM KEYS: the algo keys some row of the algorithm table sets (see ALGORITHM_KEYS)."""
    keys = {k: None for n in ALGORITHMS for k in algorithm_preset(n)["algo"] if k != "name"}
    shared = [k for k in AlgoConfig.model_fields if k in keys]  # in the order of the fields above
    return (*shared, *(k for k in keys if k not in AlgoConfig.model_fields))


# THE ALGORITHM KEYS: the algo keys that some row of the algorithm table sets (clip range, advantage
# normalisation, loss aggregation, dynamic sampling and its filter, overlong filter/penalty, KL, and
# the rows' own settings: the critic's, the covariance methods' ...). A preset owns every one of them:
# its row's value, else the default, is what `--preset NAME` means. The other algo keys
# (overlong_buffer, max_gen_batches, tis_cap, entropy_top_quantile, a row's `option` settings such as
# critic_lr ...) are options, free in any config. Derived from the table, so a new row's keys are
# covered (README "Presets own their keys"); `algorithm_keys()` also sees a row added at run time.
ALGORITHM_KEYS: tuple[str, ...] = algorithm_keys()


class OptimConfig(_Strict):
    lr: float = Field(1e-4, gt=0)
    warmup_steps: int = Field(5, ge=0)
    weight_decay: float = 0.0
    betas: tuple[float, float] = (0.9, 0.99)
    grad_clip: float = 1.0


class TrainConfig(_Strict):
    steps: int = Field(50, ge=1)
    prompts_per_step: int = Field(16, ge=1)  # groups kept per step (after dynamic sampling)
    gen_prompts: int | None = Field(None, ge=1)  # prompts per generation batch; None = prompts_per_step
    mini_batch_size: int | None = Field(None, ge=1)  # responses per optimiser update; None = the whole batch
    micro_batch_size: int | None = Field(None, ge=1)  # responses per forward/backward; None = the mini-batch
    epochs: int = Field(1, ge=1)  # passes over each rollout batch
    seed: int = 0
    out: str = "runs/dapo"
    save_every: int = Field(1, ge=1)  # a checkpoint every N steps and at the end
    keep_checkpoints: int = Field(2, ge=0)  # the newest N checkpoints stay on disk; 0: every one
    eval_every: int = Field(0, ge=0)  # 0: no eval during training
    eval_k: int = Field(8, ge=1)
    eval_temperature: float = 1.0
    eval_top_p: float = 0.7
    # the verifier's seconds per response and per vote comparison; `dapo eval --grade-timeout` (same default)
    eval_grade_timeout: float = Field(1.0, gt=0)
    tensorboard: bool = True
    threads: int | None = None  # torch intra-op threads (None: torch default)
    # Where the policy trains: "auto" = cuda:LOCAL_RANK when CUDA is available, else cpu; or "cpu",
    # "cuda", "cuda:N" (one process; under torchrun each rank takes cuda:LOCAL_RANK).
    device: str = "auto"
    # FSDP2 (torchrun, N > 1): parameters, gradients and AdamW state sharded over ranks; results
    # equal the replicated run. fsdp_param_dtype bfloat16 computes in bf16 on fp32 master weights.
    fsdp: bool = False
    fsdp_param_dtype: Literal["float32", "bfloat16"] | None = None
    # Padding-free forward/backward (trainer/packing.py): each batch's sequences packed end to end
    # with per-sequence position ids instead of padded to the longest; the same log-probs and gradients.
    padding_free: bool = False
    # Asynchronous rollouts (trainer/async_rollout.py): a producer process samples the batch of step j
    # with the policy of step j - max_staleness while the learner trains; 0 = the synchronous loop.
    # Off-policy samples need a correction: algo.old_logprobs: engine (PPO ratio against the sampling
    # policy) or algo.tis_cap (decoupled PPO: proximal = the learner's policy, IS weight to the sampler).
    max_staleness: int = 0
    rollout_threads: int = 1  # torch threads of the producer process (max_staleness > 0)


class Config(_Strict):
    preset: str = "dapo"  # a row of the algorithm table (trainer/algorithms.py)
    model: ModelConfig = Field(default_factory=ModelConfig)
    data: DataConfig = Field(default_factory=DataConfig)
    rollout: RolloutConfig = Field(default_factory=RolloutConfig)
    algo: AlgoConfig = Field(default_factory=AlgoConfig)
    optim: OptimConfig = Field(default_factory=OptimConfig)
    train: TrainConfig = Field(default_factory=TrainConfig)

    @field_validator("preset")
    @classmethod
    def _known_preset(cls, name: str) -> str:
        return _known_algorithm(name)

    @model_validator(mode="after")
    def _consistent(self) -> Config:
        t, a, r = self.train, self.algo, self.rollout
        batch = t.prompts_per_step * r.n
        mb = t.mini_batch_size or batch
        micro = t.micro_batch_size or mb
        if batch % mb:
            raise ValueError(
                f"train.mini_batch_size {mb} must divide the batch prompts_per_step*rollout.n = {batch}; "
                f"write a divisor such as {_divisor_hint(batch, mb)}"
            )
        if mb % micro:
            raise ValueError(
                f"train.micro_batch_size {micro} must divide train.mini_batch_size {mb}; write e.g. {_divisor_hint(mb, micro)}"
            )
        if a.overlong_penalty and a.overlong_buffer >= r.max_new_tokens:
            raise ValueError(
                f"algo.overlong_buffer {a.overlong_buffer} must be smaller than rollout.max_new_tokens "
                f"{r.max_new_tokens}; write e.g. overlong_buffer: {r.max_new_tokens // 4}"
            )
        row = ALGORITHMS[a.name]
        # a sequence-level loss never reads loss_agg or token_norm: a value other than the row's would be
        # shown by --dry-run and not used
        given = [f"algo.{k} {v}" for k, v, d in (("loss_agg", a.loss_agg, row.agg), ("token_norm", a.token_norm, "minibatch"))
                 if row.seq_level and v != d]  # fmt: skip
        if given:
            raise ValueError(
                f"{', '.join(given)}: {a.name}'s loss is one ratio per response, averaged over the responses "
                f"(loss_agg {row.agg}; KL and entropy terms: token mean), whatever these say; drop them"
            )
        if a.token_norm == "group" and a.loss_agg != "token_mean":
            raise ValueError(
                "algo.token_norm 'group' only applies to loss_agg 'token_mean'; drop token_norm or set loss_agg: token_mean"
            )
        changed = {k: why for k, why in unread_keys(a.name).items()
                   if getattr(a, k) != AlgoConfig.model_fields[k].default}  # fmt: skip
        if changed:
            raise ValueError(
                "; ".join(
                    f"algo.{k} = {getattr(a, k)}: {why}, it is never read" for k, why in changed.items()
                )
                + f"; drop {'them' if len(changed) > 1 else 'it'} (what each preset reads: dapo train --list-presets)"
            )
        if a.eps_low < 0 or a.eps_high < 0 or a.eps_low > 1:
            raise ValueError(
                f"clip ranges must satisfy 0 <= eps_low <= 1 and eps_high >= 0, got {a.eps_low}, {a.eps_high}"
            )
        if a.clip_ratio_c is not None and a.clip_ratio_c <= 1:
            raise ValueError(
                f"algo.clip_ratio_c caps a negative-advantage token's loss at c |A| and must be > 1, got "
                f"{a.clip_ratio_c}; write e.g. 3.0 (verl's default) or 10.0 (DAPO's recipe), or null for no cap"
            )
        if a.dynamic_sampling and a.max_gen_batches < 1:
            raise ValueError("algo.max_gen_batches must be >= 1 when dynamic_sampling is on")
        _check_algorithm_keys(a, t)
        if a.entropy_top_quantile is not None and not 0 < a.entropy_top_quantile <= 1:
            raise ValueError(
                f"algo.entropy_top_quantile must be in (0, 1], got {a.entropy_top_quantile}; e.g. 0.2 "
                "(the top 20% of tokens by entropy), or drop it to train every token"
            )
        if a.tis_cap is not None:
            if a.tis_cap <= 0:
                raise ValueError(
                    f"algo.tis_cap must be > 0 (e.g. 2.0), got {a.tis_cap}; or drop it to turn TIS off"
                )
            if ALGORITHMS[a.name].seq_level:
                raise ValueError(
                    f"algo.tis_cap weights token losses; {a.name}'s loss is per sequence: drop tis_cap for {a.name}"
                )
            if a.old_logprobs == "engine":
                raise ValueError(
                    "algo.tis_cap with old_logprobs: engine weights every token by 1 (pi_old is the engine's); "
                    "write algo.old_logprobs: recompute or drop tis_cap"
                )
        _check_sampling_keys(self)
        _check_family2026_keys(a)
        if r.engine == "vllm" and a.old_logprobs == "engine":
            raise ValueError(
                "vLLM's logprobs differ from the trainer's numerics; write algo.old_logprobs: recompute"
            )
        if r.top_p < 1.0 and a.old_logprobs == "engine":
            raise ValueError(
                "rollout.top_p < 1 makes the engine's logprobs those of a truncated distribution; "
                "write algo.old_logprobs: recompute"
            )
        if r.n < 2:
            raise ValueError(
                "rollout.n (G) must be >= 2: group advantages need at least two responses per prompt"
            )
        if not re.fullmatch(r"auto|cpu|cuda(:\d+)?", t.device):
            raise ValueError(f"train.device {t.device!r}: write auto, cpu, cuda or cuda:N")
        if t.fsdp_param_dtype is not None and not t.fsdp:
            raise ValueError(
                "train.fsdp_param_dtype applies only with train.fsdp: true; drop it or turn fsdp on"
            )
        _check_async_keys(self)
        return self


def _check_async_keys(c: Config) -> None:
    """train.max_staleness: in range, on an engine that supports it, with an off-policy correction."""
    t, a = c.train, c.algo
    if t.max_staleness < 0:
        raise ValueError(f"train.max_staleness must be >= 0 (0: synchronous), got {t.max_staleness}")
    if t.rollout_threads < 1:
        raise ValueError(f"train.rollout_threads must be >= 1, got {t.rollout_threads}")
    if t.max_staleness == 0:
        return
    if t.fsdp:
        raise ValueError(
            "train.max_staleness > 0 with train.fsdp: true is not supported: each rank's rollout producer "
            "needs the whole weights after every step, and FSDP2 shards them. Write train.fsdp: false "
            "(replicated weights; async works under torchrun) or train.max_staleness: 0"
        )
    if (
        a.old_logprobs == "recompute"
        and a.tis_cap is None
        and a.rc_seq_band is None
        and a.rc_token_band is None
    ):
        raise ValueError(
            "train.max_staleness > 0 trains on samples of an older policy; choose the correction: "
            "algo.old_logprobs: engine (clip the ratio against the sampling policy) or algo.tis_cap: 2.0 "
            "(decoupled PPO: clip against the learner's policy, importance weight to the sampling one)"
        )


def _check_sampling_keys(c: Config) -> None:
    """Dynamic-sampling, difficulty-sampling and rollout-correction keys: consistent and in range."""
    a, d = c.algo, c.data
    if not a.dynamic_sampling:
        stray = [
            k
            for k in ("keep_surplus", "on_max_gen_batches", "filter_metric")
            if k in a.model_fields_set and getattr(a, k) != AlgoConfig.model_fields[k].default
        ]
        if stray:
            raise ValueError(
                f"algo.{stray[0]} applies to dynamic sampling; set algo.dynamic_sampling: true or drop it"
            )
    if d.difficulty_sampling != "skip":
        stray = [
            k
            for k in ("difficulty_skip_below", "difficulty_skip_above")
            if k in d.model_fields_set and getattr(d, k) != DataConfig.model_fields[k].default
        ]  # (a run's saved config.yaml writes every key at its default: that loads again)
        if stray:
            raise ValueError(
                f"data.{stray[0]} applies to data.difficulty_sampling: skip; write that or drop it"
            )
    if not 0 <= d.difficulty_skip_below < d.difficulty_skip_above <= 1:
        raise ValueError(
            "data.difficulty_skip_below / _above must satisfy 0 <= below < above <= 1, got "
            f"{d.difficulty_skip_below}, {d.difficulty_skip_above}"
        )
    for name in ("rc_seq_band", "rc_token_band"):
        band = getattr(a, name)
        if band is not None and not 0 <= band[0] < 1 < band[1]:
            raise ValueError(
                f"algo.{name} {list(band)}: write [low, high] with 0 <= low < 1 < high, e.g. [0.5, 2.0]"
            )
    rc = a.rc_seq_band is not None or a.rc_token_band is not None
    if a.tis_level != "token" and a.tis_cap is None:
        raise ValueError(
            "algo.tis_level sets what algo.tis_cap weights; set tis_cap (e.g. 2.0) or drop tis_level"
        )
    if rc and a.old_logprobs == "engine":
        raise ValueError(
            "algo.rc_seq_band / rc_token_band compare the trainer's pi_old with the engine's; with "
            "old_logprobs: engine they are equal: write algo.old_logprobs: recompute or drop the band"
        )
    if rc and ALGORITHMS[a.name].seq_level:
        raise ValueError(
            f"algo.rc_seq_band / rc_token_band mask token losses; {a.name}'s loss is per sequence: drop them"
        )


def _check_family2026_keys(a: AlgoConfig) -> None:
    """The 2026 family's keys and options (sapo, dppo, maxrl, OPSM, entropy bonus, unbiased KL): in range."""
    row = ALGORITHMS[a.name]
    if "sapo_tau_pos" in row.keys and (a.sapo_tau_pos <= 0 or a.sapo_tau_neg <= 0):
        raise ValueError(
            f"algo.sapo_tau_pos / sapo_tau_neg must be > 0, got {a.sapo_tau_pos}, {a.sapo_tau_neg}; "
            "the paper uses 1.0 and 1.05"
        )
    if "dppo_ratio_cap" in row.keys and a.dppo_ratio_cap <= 0:
        raise ValueError(f"algo.dppo_ratio_cap must be > 0, got {a.dppo_ratio_cap}; verl and TRL use 20")
    if a.name == "maxrl" and a.overlong_penalty:
        raise ValueError(
            "maxrl divides by the group's success rate, which needs +1/-1 rewards; the overlong penalty "
            "makes them fractional: drop algo.overlong_penalty (the filter, algo.overlong_filter, is fine)"
        )
    if a.off_policy_mask is not None:
        if a.off_policy_mask < 0:
            raise ValueError(
                f"algo.off_policy_mask is a KL threshold >= 0, got {a.off_policy_mask}; e.g. 1e-3, or drop it"
            )
        if row.critic:
            raise ValueError(
                f"algo.off_policy_mask reads a response's advantage sign; {a.name}'s GAE advantages "
                "differ per token: drop off_policy_mask or use a critic-free preset"
            )
    if a.entropy_coef < 0:
        raise ValueError(
            f"algo.entropy_coef must be >= 0 (a bonus: loss -= coef * entropy), got {a.entropy_coef}; e.g. 0.001"
        )
    if a.kl_unbiased and a.kl_coef <= 0:
        raise ValueError("algo.kl_unbiased weights the KL penalty; set algo.kl_coef > 0 or drop kl_unbiased")


def _check_algorithm_keys(a: AlgoConfig, t: TrainConfig) -> None:
    """The ranges of the settings some rows declare (AlgoConfig takes them only under those rows)."""
    row = ALGORITHMS[a.name]
    if "cov_ratio" in row.keys:
        if not 0 < a.cov_ratio <= 1:
            raise ValueError(
                f"algo.cov_ratio must be in (0, 1], got {a.cov_ratio}; the paper uses 2e-4 / 2e-3"
            )
        if "cov_low" in row.keys and a.cov_low >= a.cov_high:
            raise ValueError(
                f"algo.cov_low {a.cov_low} must be below algo.cov_high {a.cov_high}; e.g. 1 and 5"
            )
        if "cov_kl_coef" in row.keys and a.cov_kl_coef < 0:
            raise ValueError(f"algo.cov_kl_coef must be >= 0, got {a.cov_kl_coef}; the paper uses 1")
    if not row.critic:
        return
    if not 0 < a.gamma <= 1:
        raise ValueError(f"algo.gamma must be in (0, 1], got {a.gamma}; write 1.0 for an outcome reward")
    if a.value_clip <= 0:
        raise ValueError(f"algo.value_clip must be > 0, got {a.value_clip}; e.g. 0.5")
    if a.critic_lr is not None and a.critic_lr <= 0:
        raise ValueError(f"algo.critic_lr must be > 0, got {a.critic_lr}; or drop it to use optim.lr")
    if "lam" in row.keys and not 0 <= a.lam <= 1:
        raise ValueError(f"algo.lam must be in [0, 1], got {a.lam}; e.g. 0.95")
    if "alpha" in row.keys and a.alpha <= 0:
        raise ValueError(f"algo.alpha must be > 0, got {a.alpha}; VAPO uses 0.05")
    if a.ntp_coef < 0:
        raise ValueError(f"algo.ntp_coef must be >= 0, got {a.ntp_coef}; VAPO uses 0.1")
    if a.value_pretrain_steps < 0:
        raise ValueError(f"algo.value_pretrain_steps must be >= 0, got {a.value_pretrain_steps}")
    if a.value_pretrain_steps >= t.steps:
        raise ValueError(
            f"algo.value_pretrain_steps {a.value_pretrain_steps} >= train.steps {t.steps} leaves no policy update; "
            f"write fewer pretraining steps (e.g. {max(0, t.steps // 5)}) or more train.steps"
        )


def _divisor_hint(n: int, near: int) -> int:
    divs = [d for d in range(1, n + 1) if n % d == 0]
    return min(divs, key=lambda d: abs(d - near))


# Each preset is a partial config (its row of the algorithm table); the user's YAML is merged on top.
# (The built-in table's; this module reads `algorithm_preset(name)`, which also sees a row added later.)
PRESETS: dict[str, dict[str, Any]] = {name: algorithm_preset(name) for name in NAMES}

# Keys people bring from verl / TRL, and what to write here instead.
ALIASES = {
    "clip_ratio_low": "algo.eps_low",
    "clip_ratio_high": "algo.eps_high",
    "epsilon": "algo.eps_low",
    "epsilon_high": "algo.eps_high",
    "num_generations": "rollout.n",
    "max_completion_length": "rollout.max_new_tokens",
    "max_response_length": "rollout.max_new_tokens",
    "max_prompt_length": "data.max_prompt_len",
    "learning_rate": "optim.lr",
    "lr": "optim.lr",
    "beta": "algo.kl_coef",
    "kl_loss_coef": "algo.kl_coef",
    "loss_type": "preset",
    "loss_agg_mode": "algo.loss_agg",
    "mask_truncated_completions": "algo.overlong_filter",
    "train_batch_size": "train.prompts_per_step",
    "ppo_mini_batch_size": "train.mini_batch_size",
    "max_grad_norm": "optim.grad_clip",
    "temperature": "rollout.temperature",
    "top_p": "rollout.top_p",
    "seed": "train.seed",
    "steps": "train.steps",
    "scale_rewards": "algo.std_normalize",
    "norm_adv_by_std_in_grpo": "algo.std_normalize",
    "ppo_epochs": "train.epochs",
    "num_iterations": "train.epochs",
    "entropy_coeff": "algo.entropy_coef",
}
# verl's full paths whose last part alone says too little (`n`, `enable`)
FULL_ALIASES = {
    "actor_rollout_ref.rollout.n": "rollout.n",
    "algorithm.filter_groups.enable": "algo.dynamic_sampling",
    "algorithm.filter_groups.metric": "algo.filter_metric",
    "algorithm.filter_groups.max_num_gen_batches": "algo.max_gen_batches",
    "algorithm.adv_estimator": "preset",
    "actor_rollout_ref.actor.optim.lr": "optim.lr",
}


def _deep_merge(base: dict, over: dict) -> dict:
    out = copy.deepcopy(base)
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = _deep_merge(out[k], v)
        else:
            out[k] = copy.deepcopy(v)
    return out


def _all_keys(model: type[BaseModel], prefix: str = "") -> list[str]:
    keys = []
    for name, field in model.model_fields.items():
        keys.append(prefix + name)
        ann = field.annotation
        if isinstance(ann, type) and issubclass(ann, BaseModel):
            keys.extend(_all_keys(ann, prefix + name + "."))
    return keys


def _leaves(value: Any, prefix: str) -> list[str]:
    """The dotted keys under an unknown key given a nested value (`actor_rollout_ref: {actor: {...}}`)."""
    if not isinstance(value, dict) or not value:
        return [prefix]
    return [leaf for k, v in value.items() for leaf in _leaves(v, f"{prefix}.{k}")]


def _unknown_key_hint(loc: str, leaf: str) -> str:
    """What to write instead of the unknown key `loc` (dotted; `leaf` its last part)."""
    if loc in FULL_ALIASES:
        return f"write {FULL_ALIASES[loc]} instead"
    if leaf == "epsilon":  # TRL's epsilon is both bounds unless epsilon_high is given
        return (
            "write algo.eps_low (and algo.eps_high: TRL's epsilon is both bounds unless epsilon_high is set)"
        )
    if leaf in ALIASES:
        return f"write {ALIASES[leaf]} instead"
    settings = {f"algo.{s.name}" for row in ALGORITHMS.values() for s in row.settings}
    known = [*_all_keys(Config), *sorted(settings)]
    close = did_you_mean(loc, known) or did_you_mean(leaf, [k.split(".")[-1] for k in known])
    return f"did you mean {close!r}?" if close else "remove it (see trainer/config.py for the keys)"


def _explain(err: ValidationError, source: str) -> str:
    lines = [f"invalid config ({source}):"]
    for e in err.errors():
        loc = ".".join(str(p) for p in e["loc"])
        if e["type"] == "extra_forbidden":  # a verl/TRL path: each key under it gets its own hint
            for key in _leaves(e.get("input"), loc):
                lines.append(f"  unknown key {key!r}: {_unknown_key_hint(key, key.split('.')[-1])}")
        elif e["type"] == "algo_key":  # AlgoConfig's own message names the key, the preset and the fix
            lines.append(f"  {e['msg']}")
        else:
            lines.append(f"  {loc or 'config'}: {e['msg']}")
    return "\n".join(lines)


def build_config(
    overrides: dict[str, Any] | None = None, *, preset: str | None = None, source: str = "<dict>"
) -> Config:
    """Preset defaults, then `overrides` (nested dict), validated."""
    overrides = copy.deepcopy(overrides or {})
    name = preset or overrides.get("preset", "dapo")
    if name not in ALGORITHMS:
        close = did_you_mean(str(name), sorted(ALGORITHMS))
        hint = f"did you mean {close!r}? " if close else ""
        raise ConfigError(f"unknown preset {name!r} ({source}); {hint}write one of {sorted(ALGORITHMS)}")
    overrides["preset"] = name
    algo_name = (overrides.get("algo") or {}).get("name") if isinstance(overrides.get("algo"), dict) else None
    if algo_name and algo_name != name:
        raise ConfigError(
            f"algo.name {algo_name!r} contradicts preset {name!r} ({source}); drop algo.name or write preset: {algo_name}"
        )
    merged = _deep_merge(algorithm_preset(name), overrides)
    try:
        return Config.model_validate(merged)
    except ValidationError as err:
        raise ConfigError(_explain(err, source)) from None


def _read_yaml_file(path: str | Path) -> dict[str, Any]:
    """A config file's top-level mapping, or a ConfigError naming the file and the fix."""
    return read_yaml_mapping(path, expected="sections (model, data, rollout, algo, optim, train)")


def _algo_section(data: dict) -> dict[str, Any]:
    algo = data.get("algo")
    return algo if isinstance(algo, dict) else {}


def preset_algo(name: str) -> AlgoConfig:
    """Every algorithm key at the value preset `name` gives it: its row's setting, else the default."""
    return AlgoConfig.model_validate(algorithm_preset(name)["algo"])


def preset_deviations(cfg: Config) -> dict[str, tuple[Any, Any]]:
    """The algorithm keys whose values differ from the preset's: {key: (preset's value, this config's)}.

    (Settings of other rows, e.g. the critic's for dapo, are left out: this config has none.)
    """
    base = preset_algo(cfg.algo.name)
    used = [
        k for k in algorithm_keys() if k in AlgoConfig.model_fields or k in ALGORITHMS[cfg.algo.name].keys
    ]
    return {
        k: (getattr(base, k), getattr(cfg.algo, k)) for k in used if getattr(base, k) != getattr(cfg.algo, k)
    }


def _yaml_value(v: Any) -> str:
    if isinstance(v, tuple):
        v = list(v)
    return yaml.safe_dump(v, default_flow_style=True).strip().removesuffix("...").strip()


def check_preset_keys(cfg: Config, file_data: dict, set_data: dict, *, source: str) -> None:
    """Refuse a config FILE that changes its preset's algorithm keys without saying so.

    An algorithm key (ALGORITHM_KEYS) under the file's `algo:` whose value differs from the preset's
    is allowed only when the file lists it in `algo.override` or the command line sets it (`--set
    algo.KEY=VALUE`); options and keys outside `algo:` (lr, rollout, train ...) are the user's. One
    line names every such key, its two values and both fixes.
    """
    file_algo, set_algo = _algo_section(file_data), _algo_section(set_data)
    marked = set(file_algo.get("override") or []) | set(set_algo.get("override") or [])
    for k in sorted(marked):
        if k not in file_algo and k not in set_algo:
            raise ConfigError(
                f"{source}: algo.override names {k}, which this config does not set; set algo.{k} or drop "
                f"{k} from algo.override"
            )
    base = preset_algo(cfg.algo.name)
    bad = [
        k
        for k in algorithm_keys()
        if k in file_algo
        and k not in set_algo
        and k not in marked
        and getattr(cfg.algo, k) != getattr(base, k)
    ]
    if not bad:
        return
    name = cfg.algo.name
    what = ", ".join(
        f"algo.{k} {_yaml_value(getattr(cfg.algo, k))} ({name}: {_yaml_value(getattr(base, k))})" for k in bad
    )
    sets = " ".join(f"--set algo.{k}={_yaml_value(getattr(cfg.algo, k))}" for k in bad)
    raise ConfigError(
        f"{source} disagrees with preset {name} on {what}; drop {'it' if len(bad) == 1 else 'them'} from the "
        f"file to run {name} as it is, or mark the change as intended: `override: [{', '.join(bad)}]` under "
        f"algo: in the file, or {sets}"
    )


def _algo_sources(name: str, layers: list[tuple[str, dict]]) -> dict[str, str]:
    """Where each algorithm key's value came from: the last layer (lowest to highest priority) setting it."""
    out = {}
    row = algorithm_preset(name)["algo"]
    for k in [*AlgoConfig.model_fields, *ALGORITHMS[name].keys]:
        out[k] = f"preset {name}" if k in row else "default"
        for label, data in layers:
            if k in _algo_section(data):
                out[k] = label
    out["override"] = f"the algorithm keys that differ from preset {name}"
    return out


def load_config(
    path: str | Path | None = None, *, preset: str | None = None, sets: list[str] | None = None
) -> Config:
    """Read a YAML file (optional), apply `key.sub=value` overrides, merge onto the preset.

    A file that changes an algorithm key of its preset without marking it is refused
    (`check_preset_keys`).
    """
    return load_config_sources(path, preset=preset, sets=sets)[0]


def load_config_sources(
    path: str | Path | None = None, *, preset: str | None = None, sets: list[str] | None = None
) -> tuple[Config, dict[str, str]]:
    """`load_config`, plus where each algorithm key came from (`dapo train --dry-run` prints it)."""
    data = _read_yaml_file(path) if path is not None else {}
    # where the values came from, for the error: the file alone is not to blame for a --set or --preset
    parts = [
        str(path) if path is not None else "",
        f"--preset {preset}" if preset else "",
        "--set" if sets else "",
    ]
    source = " + ".join(p for p in parts if p) or "<defaults>"
    set_data = apply_sets({}, sets)
    if preset is not None and set_data.get("preset") not in (None, preset):
        raise ConfigError(
            f"--preset {preset} and --set preset={set_data['preset']} disagree; fix: give the preset once"
        )
    cfg = build_config(apply_sets(copy.deepcopy(data), sets), preset=preset, source=source)
    check_preset_keys(cfg, data, set_data, source=str(path) if path is not None else "<defaults>")
    cfg.algo.override = sorted(preset_deviations(cfg))
    return cfg, _algo_sources(
        cfg.algo.name, [(f"file {path if path is not None else '<defaults>'}", data), ("--set", set_data)]
    )


def apply_sets(data: dict, sets: list[str] | None) -> dict:
    """Write `section.key=value` items (values read as YAML) into the nested dict `data`; returns it.

    Types are settled by the config's validation (`optim.lr=3e-4` is a YAML string, then a float).
    """
    for item in sets or []:
        key, eq, val = item.partition("=")
        parts = key.strip().split(".")
        if not eq or not all(parts):  # a bare key is fine: `preset=grpo`, or a verl/TRL alias
            raise ConfigError(f"--set {item!r}: write key.sub=value, e.g. --set algo.eps_high=0.28")
        node = data
        for p in parts[:-1]:
            node = node.setdefault(p, {})
            if not isinstance(node, dict):
                raise ConfigError(f"--set {item!r}: {p} is not a section")
        node[parts[-1]] = yaml.safe_load(val)
    return data


def _apply_sets(data: dict, sets: list[str] | None, *, preset: str | None = None, source: str) -> Config:
    return build_config(apply_sets(data, sets), preset=preset, source=source)


def config_dict(cfg: Config) -> dict[str, Any]:
    """The layout of a run's config.yaml: every key resolved, `algo.override` = the keys off the preset."""
    data = cfg.model_dump(mode="json")
    # the shared keys, then the row's own settings (the model's extras), then the bookkeeping
    data["algo"] = {k: v for k, v in data["algo"].items() if k != "override"}
    data["algo"]["override"] = sorted(preset_deviations(cfg))
    return data


def config_yaml(cfg: Config, sources: dict[str, str] | None = None) -> str:
    """`config_dict` as YAML; with `sources`, each algo key's line ends in `# <where it came from>`, or in
    `# not read: <why>` for a shared key the preset's loss never reads (eps_* of sapo, clip_ratio_c of gspo)."""
    lines = yaml.safe_dump(config_dict(cfg), sort_keys=False).splitlines()
    unread = unread_keys(cfg.algo.name)
    if sources:
        section = None
        for i, line in enumerate(lines):
            if line and not line.startswith(" "):
                section = line.split(":")[0]
            m = re.match(r"  (\w+):", line)
            if section == "algo" and m and m.group(1) in unread:
                lines[i] = f"{line}  # not read: {unread[m.group(1)]}"
            elif section == "algo" and m and m.group(1) in sources:
                lines[i] = f"{line}  # {sources[m.group(1)]}"
    return "\n".join(lines) + "\n"


def dump_config(cfg: Config, path: str | Path) -> None:
    """Write the resolved config next to a run, atomically."""
    from mathdata.files import atomic_write

    atomic_write(Path(path), config_yaml(cfg))


# Keys a resumed run may change without a flag: how long it runs, where and how it logs, saves and
# evaluates, and the hardware it runs on (checkpoints resume with any number of ranks). Every other
# key changes the experiment (learning rate, group size, clip range, data, model ...).
RESUME_MAY_CHANGE = (
    "train.steps",
    "train.out",
    "train.save_every",
    "train.keep_checkpoints",
    "train.eval_every",
    "train.eval_k",
    "train.eval_temperature",
    "train.eval_top_p",
    "train.eval_grade_timeout",
    "train.tensorboard",
    "train.threads",
    "train.device",
    "train.fsdp",
    "train.micro_batch_size",
    "train.padding_free",
    "train.rollout_threads",
    "rollout.engine",
    "rollout.vllm_kwargs",
    "data.eval",
    "data.eval_split",
    "data.eval_size",
)


def _flat(d: dict, prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in d.items():
        if isinstance(v, dict) and v and not k.endswith("kwargs"):
            out.update(_flat(v, f"{prefix}{k}."))
        else:
            out[prefix + k] = v
    return out


def _differing(d: dict, base: dict) -> dict:
    out = {}
    for k, v in d.items():
        if isinstance(v, dict) and isinstance(base.get(k), dict) and not k.endswith("kwargs"):
            sub = _differing(v, base[k])
            if sub:
                out[k] = sub
        elif k not in base or base[k] != v or k == "preset":
            out[k] = v
    return out


def config_changes(old: Config, new: Config) -> dict[str, tuple[Any, Any]]:
    """Dotted keys whose values differ between two configs: {key: (old, new)}."""
    a, b = _flat(old.model_dump(mode="json")), _flat(new.model_dump(mode="json"))
    keys = sorted((a.keys() | b.keys()) - {"algo.override"})  # bookkeeping: the changed keys say it
    return {k: (a.get(k), b.get(k)) for k in keys if a.get(k) != b.get(k)}


def _without_other_rows_settings(raw: dict) -> dict:
    """A saved config.yaml without settings its own row does not declare.

    Run directories written before the rows declared their settings (AlgoConfig then had every
    algorithm's knobs as fields) may list, e.g., `cov_ratio` for dapo at its old default; no run
    read them, so they are dropped to resume such a run.
    """
    algo = raw.get("algo")
    if not isinstance(algo, dict):
        return raw
    row = ALGORITHMS.get(algo.get("name", raw.get("preset", "dapo")))
    if row is None:
        return raw  # build_config names the unknown preset
    keep = {k: v for k, v in algo.items() if k in AlgoConfig.model_fields or k in row.keys or not owners(k)}
    return {**raw, "algo": keep}


def resume_config(
    run_dir: str | Path,
    path: str | Path | None = None,
    *,
    preset: str | None = None,
    sets: list[str] | None = None,
    allow_changes: bool = False,
) -> Config:
    """The config of a run being resumed: its own saved `config.yaml`, plus what this command adds.

    The keys a config file (if given again) or `--set` write explicitly go over the saved ones.
    Changing a key outside RESUME_MAY_CHANGE is refused, naming the keys, unless `allow_changes`.
    """
    return resume_config_sources(run_dir, path, preset=preset, sets=sets, allow_changes=allow_changes)[0]


def resume_config_sources(
    run_dir: str | Path,
    path: str | Path | None = None,
    *,
    preset: str | None = None,
    sets: list[str] | None = None,
    allow_changes: bool = False,
) -> tuple[Config, dict[str, str]]:
    """`resume_config`, plus where each algorithm key came from (`dapo train --resume --dry-run`)."""
    run_dir = Path(run_dir)
    saved_path = run_dir / "config.yaml"
    if not saved_path.exists():
        raise ConfigError(
            f"--resume: {saved_path} not found, so {run_dir} is not a run directory (train.out of an "
            f"earlier `dapo train`); check --out, or start a run there without --resume"
        )
    try:
        raw = _without_other_rows_settings(yaml.safe_load(saved_path.read_text()) or {})
        defaults = build_config(preset=raw.get("preset")).model_dump(mode="json")
    except (yaml.YAMLError, ConfigError) as e:
        raise ConfigError(f"--resume: {saved_path} is not a readable run config ({e})") from None
    # the saved file is fully resolved; keep what differs from its preset (the preset's validators
    # reject keys that do not apply to it, e.g. the critic's for dapo, even at their defaults)
    data = _differing(raw, defaults)
    saved = build_config(copy.deepcopy(data), source=str(saved_path))
    layers: list[tuple[str, dict]] = [(f"file {saved_path}", data)]
    given: dict[str, Any] = {}
    if path is not None:
        given = _read_yaml_file(path)
        layers.append((f"file {path}", given))
        if isinstance(given.get("train"), dict):
            given["train"].pop("out", None)  # the run directory is the one being resumed
        data = _deep_merge(data, given)
    if preset is not None:
        data["preset"] = preset
        data.setdefault("algo", {})["name"] = preset
    sets = [s for s in sets or [] if not s.strip().startswith("train.out=")]
    set_data = apply_sets({}, sets)
    layers.append(("--set", set_data))
    new = _apply_sets(data, sets, source=f"{saved_path} (resumed)")
    if path is not None:
        check_preset_keys(new, given, set_data, source=str(path))
    new.algo.override = sorted(preset_deviations(new))
    new.train.out = str(run_dir)
    changed = {k: v for k, v in config_changes(saved, new).items() if k not in RESUME_MAY_CHANGE}
    if changed and not allow_changes:
        what = ", ".join(f"{k} {a!r} -> {b!r}" for k, (a, b) in changed.items())
        raise ConfigError(
            f"--resume would change the run's settings ({what}; saved in {saved_path}); resume without "
            f"them, start a new run with another --out, or pass --allow-config-change to resume anyway"
        )
    return new, _algo_sources(new.algo.name, layers)


def fresh_run_dir(out: Path, *, overwrite: bool) -> None:
    """Refuse to start a new run over an earlier one (unless `overwrite`, which deletes it first)."""
    from trainer.metrics import read_metrics

    metrics = out / "metrics.jsonl"
    done = (out / "checkpoints" / "latest").exists() or (metrics.exists() and metrics.stat().st_size > 0)
    if not done:
        return
    if not overwrite:
        try:
            step = (
                max((r.get("step", 0) for r in read_metrics(metrics)), default=0) if metrics.exists() else 0
            )
        except ValueError:
            step = "?"
        raise ConfigError(
            f"{out} already holds a run (logged up to step {step}); continue it with "
            f"`dapo train --out {out} --resume`, choose another --out, or pass --overwrite to delete it"
        )
    import os
    import shutil

    if int(os.environ.get("RANK", "0")) == 0:
        shutil.rmtree(out)


def run_config_sources(
    path: str | Path | None = None,
    *,
    preset: str | None = None,
    sets: list[str] | None = None,
    out: str | Path | None = None,
    resume: bool = False,
    overwrite: bool = False,
    allow_changes: bool = False,
    claim_out: bool = True,
) -> tuple[Config, dict[str, str]]:
    """The config `dapo train` runs with, and where each algorithm key came from.

    `out` overrides train.out. A new run's train.out is claimed (`claim_out`, off for a dry run):
    an earlier run there is refused, or deleted with `overwrite`. With `resume` the run in `out`
    (else train.out of the given config) continues with its own saved config (`resume_config`).
    """
    sets = list(sets or [])
    if out is not None:
        sets.append(f"train.out={out}")
    if resume:
        run_dir = out if out is not None else Path(load_config(path, preset=preset, sets=sets).train.out)
        return resume_config_sources(run_dir, path, preset=preset, sets=sets, allow_changes=allow_changes)
    cfg, sources = load_config_sources(path, preset=preset, sets=sets)
    if claim_out:
        fresh_run_dir(Path(cfg.train.out), overwrite=overwrite)
    return cfg, sources
