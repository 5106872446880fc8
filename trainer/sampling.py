"""DAPO dynamic sampling: over-sample prompts, drop groups that are all right or all wrong, refill.

DAPO's constraint is 0 < |{o_i correct}| < G: a group where every response is right (or every one
wrong) teaches nothing about correctness, so DAPO keeps generating until the batch holds `target`
informative groups. Informative is decided by `algo.filter_metric`: `acc` (the default, the paper's
constraint and verl's `filter_groups.metric=acc`) counts the verifier's correct answers; `reward`
asks only for two distinct training rewards, so an all-right group whose lengths earn different
overlong penalties is kept. After `max_gen_batches` generation batches it either gives up loudly
(`algo.on_max_gen_batches: error`, the paper's behaviour) or trains on the informative groups it
has (`train`; the step logs `dynamic_sampling_short` = the groups missing; with none it stops), or
does the same but lets a step with none go by without an update (`skip`, logged `skipped_step`: a
long run is not ended by one step whose prompts the policy all solves or all fails).

The last generation batch usually overshoots: informative groups beyond `target` are the
`surplus`. With `algo.keep_surplus` the loop keeps them in a `SurplusBuffer` and the next step
starts from them (`carry`) instead of generating them again. They were sampled by the policy
before the last update, so they are one update off-policy (their pi_old is recomputed, their
engine log-probabilities are the old policy's: the rollout correction and TIS see that gap);
a carried group not used by the next step is dropped, so no group is ever more than one step old.
The buffer is part of the checkpoint, so a resumed run starts from the same groups.
"""

from __future__ import annotations

import zlib
from collections import deque
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

import torch

from trainer import distributed as D
from trainer.data import Prompt, PromptSampler
from trainer.reward import RewardResult, reward_from_dict
from trainer.rollout import RolloutEngine, Sample


@dataclass
class Group:
    prompt: Prompt
    samples: list[Sample]
    scores: list[RewardResult]
    version: int = 0  # the policy version (optimiser rounds = RL steps done) that sampled it

    @property
    def rewards(self) -> list[float]:
        return [s.score for s in self.scores]

    @property
    def informative(self) -> bool:
        """At least two distinct rewards (an all-equal group has zero advantage)."""
        r = self.rewards
        return max(r) - min(r) > 1e-9

    @property
    def mixed_correctness(self) -> bool:
        """DAPO's 0 < |{o_i correct}| < G, from the verifier's verdicts (not from reward > 0)."""
        right = sum(s.acc for s in self.scores)
        return 0 < right < len(self.scores)

    def kept_by(self, filter_metric: str) -> bool:
        """Whether dynamic sampling keeps this group under `algo.filter_metric` (acc or reward)."""
        if filter_metric == "acc":
            return self.mixed_correctness
        if filter_metric == "reward":
            return self.informative
        raise ValueError(f"filter_metric {filter_metric!r}: write acc or reward")


@dataclass
class RolloutBatch:
    groups: list[Group]  # the groups trained on
    generated: list[Group] = field(default_factory=list)  # every group sampled this step (metrics)
    gen_batches: int = 0
    filtered: int = 0  # groups dropped by the filter (all right / all wrong, or all-equal rewards)
    carried: int = 0  # groups of `groups` taken from the previous step's surplus
    surplus: list[Group] = field(default_factory=list)  # informative groups beyond the target
    short: int = (
        0  # groups missing from the target when max_gen_batches ran out (on_max_gen_batches: train/skip)
    )


class DynamicSamplingError(RuntimeError):
    pass


ScoreFn = Callable[[list[Sample], str], list[RewardResult]]


def collect(
    engine: RolloutEngine,
    prompts: list[Prompt],
    sampler: PromptSampler,
    score: ScoreFn,
    *,
    target: int,
    gen_prompts: int,
    dynamic: bool,
    max_gen_batches: int,
    n: int,
    max_new_tokens: int,
    temperature: float,
    top_p: float,
    carry: list[Group] | None = None,
    on_max_gen_batches: str = "error",
    filter_metric: str = "acc",
) -> RolloutBatch:
    """Sample groups until `target` are kept (all of them when `dynamic` is off).

    `carry`: informative groups kept from the previous step (used first, in order; those beyond
    `target` are dropped, never carried again: no carried group is more than one step old). `on_max_gen_batches`: "error" raises
    `DynamicSamplingError` when `max_gen_batches` generation batches did not fill the target;
    "train" returns the groups kept so far (`short` says how many are missing), unless there is none;
    "skip" returns them even when there is none (the loop then makes no update this step).
    `filter_metric`: "acc" keeps groups with some but not all answers correct; "reward" keeps groups
    with two distinct rewards.

    Under torchrun every rank calls this with the same sampler (and the same carry): each generates
    and scores its slice of every generation batch (`ShardedGeneration`), and all ranks keep the
    same whole groups.
    """
    if on_max_gen_batches not in ("error", "train", "skip"):
        raise ValueError(f"on_max_gen_batches {on_max_gen_batches!r}: write error, train or skip")
    if filter_metric not in ("acc", "reward"):
        raise ValueError(f"filter_metric {filter_metric!r}: write acc or reward")
    dropped_as = "were all right or all wrong" if filter_metric == "acc" else "had all-equal rewards"
    if D.is_distributed():
        engine = sharded = ShardedGeneration(engine, prompts, sampler, score)
        sampler, score = sharded.sampler, sharded.score
    batch = RolloutBatch(groups=list(carry or []))
    batch.carried = min(len(batch.groups), target)
    while len(batch.groups) < target:
        if batch.gen_batches >= max_gen_batches:
            if (on_max_gen_batches == "train" and batch.groups) or on_max_gen_batches == "skip":
                batch.short = target - len(batch.groups)
                break
            gen = len(batch.generated)
            same = sum(len({smp.text for smp in g.samples}) == 1 for g in batch.generated)
            why = (
                f"In {same} of {gen} groups all {n} responses are the same text (rollout.temperature "
                f"{temperature}, top_p {top_p}; an untrained or collapsed policy?): raise the temperature or start "
                "from a trained policy (model.path). "
                if same * 2 > gen
                else ""
            ) + (
                "The policy solves all or none of the responses for most prompts: raise algo.max_gen_batches "
                "or train.gen_prompts, change the data difficulty, "
            )
            raise DynamicSamplingError(
                f"dynamic sampling kept {len(batch.groups)} of {target} groups after max_gen_batches={max_gen_batches} "
                f"generation batches ({gen} prompts sampled, {batch.filtered} {dropped_as}). {why}set "
                "algo.on_max_gen_batches: train (train on the groups kept; needs at least one) or skip (a step with "
                "none makes no update), or --set algo.dynamic_sampling=false (in a file: list it under algo.override)"
            )
        k = gen_prompts if dynamic else target
        chosen = [prompts[i] for i in sampler.take(k)]
        outs = engine.generate(
            [p.ids for p in chosen], n=n, max_new_tokens=max_new_tokens, temperature=temperature, top_p=top_p
        )
        batch.gen_batches += 1
        for p, samples in zip(chosen, outs, strict=True):
            g = Group(p, samples, score(samples, p.gold, p.text))
            batch.generated.append(g)
            if not dynamic or g.kept_by(filter_metric):
                batch.groups.append(g)
            else:
                batch.filtered += 1
    # surplus = new groups beyond the target; carried groups beyond it are dropped (one step old at most)
    batch.groups, batch.surplus = batch.groups[:target], batch.groups[max(target, len(carry or [])) :]
    check_same_rollouts(batch, sampler.pos, "the kept groups")
    return batch


def check_same_rollouts(batch: RolloutBatch, sampler_pos: int, what: str) -> None:
    """Raise unless every rank holds this same rollout batch (a no-op in one process).

    The fingerprint is fixed-size (one collective whatever the group count): the group counts,
    checksums of the kept and surplus groups' prompt keys and of their responses, rewards and
    versions, dynamic sampling's counts and the sampler position.
    """
    if not D.is_distributed():
        return
    groups = batch.groups + batch.surplus
    keys = zlib.crc32(repr([g.prompt.key for g in groups]).encode())
    content = zlib.crc32(
        repr([([s.response_ids for s in g.samples], g.rewards, g.version) for g in groups]).encode()
    )
    fp = [len(batch.groups), len(batch.surplus), keys, content, batch.gen_batches, batch.filtered, batch.carried,
          batch.short, sampler_pos]  # fmt: skip
    D.check_same(torch.tensor(fp, dtype=torch.float64), what)


# ---------------------------------------------------------------- several ranks
class _RecordingSampler:
    """Passes through a PromptSampler and remembers the last indices it handed out."""

    def __init__(self, sampler: PromptSampler) -> None:
        self.sampler, self.last = sampler, []

    def take(self, k: int) -> list[int]:
        self.last = self.sampler.take(k)
        return self.last

    def __getattr__(self, name: str) -> Any:
        return getattr(self.sampler, name)


class ShardedGeneration:
    """Generates AND scores this rank's slice of each generation batch, then gathers the scored groups.

    `collect` asks for whole generation batches and scores group by group; this engine hands it the
    gathered samples of every rank and queues their scores, which `score` then returns in order, so
    `collect`'s dynamic sampling runs unchanged on every rank on the same whole groups. Scores are
    computed once (on the generating rank), never recomputed: the verifier has timeouts, and two ranks
    must not disagree on a reward.
    """

    def __init__(
        self, engine: RolloutEngine, prompts: list[Prompt], sampler: PromptSampler, score: ScoreFn
    ) -> None:
        self.engine, self.prompts, self._score = engine, prompts, score
        self.sampler = _RecordingSampler(sampler)  # collect() draws through it: generate() knows the prompts
        self.pending: deque = deque()

    def sync_weights(self, model) -> None:
        self.engine.sync_weights(model)

    def generate(
        self, prompt_ids: list[list[int]], *, n: int, max_new_tokens: int, temperature: float, top_p: float
    ) -> list[list]:
        chosen = [self.prompts[i] for i in self.sampler.last]
        if [p.ids for p in chosen] != [list(p) for p in prompt_ids]:
            raise RuntimeError(
                "collect() generated prompts other than the sampler's last take; "
                "trainer.sampling.collect changed how it draws prompts, update ShardedGeneration"
            )
        mine = D.shard_range(len(chosen))
        # a Rank0Engine samples every prompt on rank 0 (a collective); any other engine only this rank's slice
        todo = range(len(chosen)) if getattr(self.engine, "serves_all_ranks", False) else mine
        local = []
        if len(todo):
            with D.rank_rng():
                outs = self.engine.generate(
                    [chosen[i].ids for i in todo], n=n, max_new_tokens=max_new_tokens, temperature=temperature,
                    top_p=top_p,
                )  # fmt: skip
            sample = dict(zip(todo, outs, strict=True))
            local = [(sample[i], self._score(sample[i], chosen[i].gold, chosen[i].text)) for i in mine]
        else:
            _ = int(torch.randint(0, 2**62, (1,)))  # the draw rank_rng makes on the other ranks
        full = D.gather_shards(local)
        self.pending = deque(full)
        return [s for s, _ in full]

    def score(self, samples: list, gold: str, question: str | None = None) -> list:
        if not self.pending or self.pending[0][0] is not samples:
            raise RuntimeError("collect() scored groups out of generation order; update ShardedGeneration")
        return self.pending.popleft()[1]


class SurplusBuffer:
    """The surplus informative groups of one step, handed to the next (algo.keep_surplus).

    `take()` empties it (a carried group that the next step does not use is not put back: no
    group is more than one step old); `put()` replaces the contents. The state is plain JSON
    (prompt, samples, scores), written into the checkpoint's trainer_state.json.
    """

    def __init__(self) -> None:
        self.groups: list[Group] = []

    def take(self) -> list[Group]:
        out, self.groups = self.groups, []
        return out

    def put(self, groups: list[Group]) -> None:
        self.groups = list(groups)

    def __len__(self) -> int:
        return len(self.groups)

    def state_dict(self) -> list[dict]:
        return [asdict(g) for g in self.groups]

    def load_state_dict(self, state: list[dict] | None) -> None:
        self.groups = [group_from_dict(d) for d in state or []]


def group_from_dict(d: dict) -> Group:
    """A Group from its `dataclasses.asdict` form (checkpoints; older ones have no version: 0)."""
    return Group(
        Prompt(**d["prompt"]), [Sample(**s) for s in d["samples"]], [reward_from_dict(c) for c in d["scores"]],
        version=d.get("version", 0),
    )  # fmt: skip
