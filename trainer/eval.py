"""Held-out evaluation: avg@k, pass@k (unbiased estimator) and cons@k (majority vote) from k samples.

pass@k uses Chen et al.'s estimator 1 - C(n-c, k) / C(n, k) over n >= k samples with c correct,
so asking for pass@1 from 8 samples is not the noisy "first sample" number. The metrics and the
vote are mathdata.evaluation's (shared with `dapo eval`); `evaluate` is the loop's quick in-memory
eval, `CheckpointSampler` puts a checkpoint behind `dapo eval`'s sample store and reports.
"""

from __future__ import annotations

import torch

from mathdata.evaluation import pass_at_k
from trainer.data import Prompt

__all__ = ["CheckpointSampler", "evaluate", "majority_correct", "pass_at_k"]


def majority_correct(preds: list[str | None], accs: list[bool]) -> bool:
    """cons@k for one prompt: the largest class of equivalent extracted answers (`1/2` and `0.5` are
    one vote; the class seen first wins a tie) is correct. The same vote as `dapo eval`."""
    from mathdata.evaluation import _same_answer, majority_vote

    return majority_vote(preds, accs, _same_answer(1.0))


class CheckpointSampler:
    """`dapo eval CHECKPOINT`: a mathdata.evaluation.Sampler on this trainer's generation (HFEngine).

    Chat prompts go through the tokenizer's chat template, completion prompts are tokenised as
    they are; each prompt's missing samples are drawn together (one prefill, n continuations),
    `batch_prompts` prompts at a time, and handed to the store as each batch finishes.
    """

    def __init__(self, model_dir, *, batch_prompts: int = 32, max_prompt_len: int | None = None, engine=None):
        from trainer.model import load_model, load_tokenizer, quiet_transformers

        quiet_transformers()
        self.model_dir = str(model_dir)
        self.tokenizer = load_tokenizer(model_dir)
        self.model = load_model(model_dir) if engine is None else None
        self.engine = engine
        self.batch_prompts, self.max_prompt_len = batch_prompts, max_prompt_len

    def describe(self) -> dict:
        return {"kind": "checkpoint", "path": self.model_dir}

    def _ids(self, prompt) -> list[int]:
        if isinstance(prompt, str):
            return list(self.tokenizer(prompt, add_special_tokens=True)["input_ids"])
        ids = self.tokenizer.apply_chat_template(prompt, add_generation_prompt=True, tokenize=True)
        if isinstance(ids, dict) or hasattr(ids, "keys"):  # transformers 5 returns a BatchEncoding
            ids = ids["input_ids"]
        return list(ids)

    def run(self, jobs, params, emit) -> None:
        from mathdata.evaluation import Response
        from trainer.rollout import HFEngine

        if params.seed is not None:
            torch.manual_seed(params.seed)
        engine = self.engine or HFEngine(self.model, self.tokenizer)
        by_key: dict[str, list] = {}
        for j in jobs:
            by_key.setdefault(j.key, []).append(j)
        # prompts missing the same number of samples are sampled together with that n
        by_n: dict[int, list[list]] = {}
        for js in by_key.values():
            by_n.setdefault(len(js), []).append(js)
        for n, groups in by_n.items():
            for s in range(0, len(groups), self.batch_prompts):
                chunk = groups[s : s + self.batch_prompts]
                ids = [self._ids(js[0].prompt) for js in chunk]
                if self.max_prompt_len is not None:
                    too_long = [len(x) for x in ids if len(x) > self.max_prompt_len]
                    if too_long:
                        raise ValueError(
                            f"a prompt has {too_long[0]} tokens, over --max-prompt-len {self.max_prompt_len}; "
                            "raise it or drop the problem"
                        )
                outs = engine.generate(ids, n=n, max_new_tokens=params.max_tokens,
                                       temperature=params.temperature, top_p=params.top_p)  # fmt: skip
                for js, samples in zip(chunk, outs, strict=True):
                    for j, smp in zip(js, samples, strict=True):
                        emit(
                            j,
                            Response(smp.text, len(smp.response_ids), "length" if smp.truncated else "stop"),
                        )


@torch.no_grad()
def evaluate(
    model,
    tokenizer,
    prompts: list[Prompt],
    *,
    k: int = 8,
    temperature: float = 1.0,
    top_p: float = 0.7,
    max_new_tokens: int = 64,
    engine=None,
    batch_prompts: int = 32,
) -> dict:
    """Sample k responses per prompt and score them; keys name k (avg@8, pass@8, cons@8)."""
    from trainer.batch import make_batch
    from trainer.reward import score_samples
    from trainer.rollout import HFEngine
    from trainer.sampling import Group
    from trainer.update import score_tokens

    engine = engine or HFEngine(model, tokenizer)
    accs, passes, cons, ent_sum, tok_sum, lens, trunc = [], [], [], 0.0, 0.0, [], []
    for i in range(0, len(prompts), batch_prompts):
        chunk = prompts[i : i + batch_prompts]
        outs = engine.generate(
            [p.ids for p in chunk], n=k, max_new_tokens=max_new_tokens, temperature=temperature, top_p=top_p
        )
        groups = []
        for p, samples in zip(chunk, outs, strict=True):
            sc = score_samples(samples, p.gold, max_len=max_new_tokens, cache_len=0, overlong_penalty=False)
            a = [s.acc for s in sc]
            accs.append(sum(a) / k)
            passes.append(pass_at_k(k, sum(a), k))
            cons.append(majority_correct([s.extracted for s in sc], a))
            lens += [len(s.response_ids) for s in samples]
            trunc += [s.truncated for s in samples]
            groups.append(Group(p, samples, sc))
        b = make_batch(groups, engine.pad_id, overlong_filter=False)
        _, ent = score_tokens(model, b, temperature=1.0, micro=256)
        ent_sum += float((ent * b.mask).sum())
        tok_sum += float(b.mask.sum())
    n = len(prompts)
    return {
        f"avg@{k}": sum(accs) / n,
        f"pass@{k}": sum(passes) / n,
        f"cons@{k}": sum(cons) / n,
        "entropy": ent_sum / max(tok_sum, 1.0),
        "mean_length": sum(lens) / len(lens),
        "truncation_ratio": sum(trunc) / len(trunc),
        "n_prompts": n,
    }
