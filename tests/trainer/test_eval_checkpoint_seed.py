"""`dapo eval CHECKPOINT` seeds each batch of samples by which samples they are: rerunning with a
larger k drew samples k.. with the run's seed again, so samples 4-7 were copies of 0-3 (pass@8 was
pass@4) and a resume after a crash repeated the same stream."""

from types import SimpleNamespace

import torch

from evals.checkpoint import CheckpointSampler
from evals.store import Job, SamplingParams


class _DrawEngine:
    """Each sample's text is a draw from torch's global RNG: what the real engine's sampling uses."""

    def generate(self, ids, *, n, max_new_tokens, temperature, top_p):
        return [[SimpleNamespace(text=f"{float(torch.rand(1)):.12f}", response_ids=[1], truncated=False)
                 for _ in range(n)] for _ in ids]  # fmt: skip


def _draw(model_dir, indices, seed=0):
    got = {}
    sampler = CheckpointSampler(model_dir, engine=_DrawEngine())
    jobs = [Job(f"p{k}", i, "What is 1 + 1?") for k in range(3) for i in indices]
    sampler.run(jobs, SamplingParams(k=8, seed=seed), lambda j, r: got.__setitem__((j.key, j.index), r.text))
    return got


def test_more_samples_are_new_draws_and_the_same_samples_repeat(sft_dir):
    first, more = _draw(sft_dir[0], range(4)), _draw(sft_dir[0], range(4, 8))
    assert not set(first.values()) & set(more.values())  # samples 4-7 are not copies of 0-3
    assert _draw(sft_dir[0], range(4)) == first  # the same samples, the same seed: the same draws
    assert _draw(sft_dir[0], range(4), seed=1) != first
