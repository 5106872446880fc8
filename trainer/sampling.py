"""DAPO dynamic sampling: over-sample prompts, drop groups whose rewards are all equal, refill.

A group where every response gets the same reward has zero advantage everywhere, so it adds
nothing but noise to the token count; DAPO keeps generating until the batch holds `target`
informative groups, and gives up loudly after `max_gen_batches` generation batches.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from trainer.data import Prompt, PromptSampler
from trainer.reward import Scored
from trainer.rollout import RolloutEngine, Sample


@dataclass
class Group:
    prompt: Prompt
    samples: list[Sample]
    scores: list[Scored]

    @property
    def rewards(self) -> list[float]:
        return [s.score for s in self.scores]

    @property
    def informative(self) -> bool:
        """At least two distinct rewards (an all-equal group has zero advantage)."""
        r = self.rewards
        return max(r) - min(r) > 1e-9


@dataclass
class RolloutBatch:
    groups: list[Group]  # the groups trained on
    generated: list[Group] = field(default_factory=list)  # every group sampled this step (metrics)
    gen_batches: int = 0
    filtered: int = 0  # groups dropped for all-equal rewards


class DynamicSamplingError(RuntimeError):
    pass


ScoreFn = Callable[[list[Sample], str], list[Scored]]


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
) -> RolloutBatch:
    """Sample groups until `target` are kept (all of them when `dynamic` is off)."""
    batch = RolloutBatch(groups=[])
    while len(batch.groups) < target:
        if batch.gen_batches >= max_gen_batches:
            gen = len(batch.generated)
            raise DynamicSamplingError(
                f"dynamic sampling kept {len(batch.groups)} of {target} groups after max_gen_batches={max_gen_batches} "
                f"generation batches ({gen} prompts sampled, {batch.filtered} had all-equal rewards). The policy solves "
                "all or none of the responses for most prompts: raise algo.max_gen_batches or train.gen_prompts, "
                "change the data difficulty, or set algo.dynamic_sampling: false"
            )
        k = gen_prompts if dynamic else target
        chosen = [prompts[i] for i in sampler.take(k)]
        outs = engine.generate(
            [p.ids for p in chosen], n=n, max_new_tokens=max_new_tokens, temperature=temperature, top_p=top_p
        )
        batch.gen_batches += 1
        for p, samples in zip(chosen, outs, strict=True):
            g = Group(p, samples, score(samples, p.gold))
            batch.generated.append(g)
            if not dynamic or g.informative:
                batch.groups.append(g)
            else:
                batch.filtered += 1
    batch.groups = batch.groups[:target]
    return batch
