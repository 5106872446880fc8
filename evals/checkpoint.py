"""`dapo eval CHECKPOINT`: sample a policy directory with this trainer's generation (torch, the
[train] extra, imported when a checkpoint is evaluated, so an endpoint-only install never needs it)."""

from __future__ import annotations


class CheckpointSampler:
    """`dapo eval CHECKPOINT`: an evals.store.Sampler on this trainer's generation (HFEngine).

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
        import torch

        from evals.store import Response
        from trainer.rollout import HFEngine

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
                if params.seed is not None:  # seeded by which samples these are, not by the run: a rerun
                    # with a larger k draws samples k.. afresh (one seed per run drew copies of 0..k-1)
                    torch.manual_seed(
                        _chunk_seed(params.seed, [(j.key, j.index) for js in chunk for j in js])
                    )
                outs = engine.generate(ids, n=n, max_new_tokens=params.max_tokens,
                                       temperature=params.temperature, top_p=params.top_p)  # fmt: skip
                for js, samples in zip(chunk, outs, strict=True):
                    for j, smp in zip(js, samples, strict=True):
                        emit(
                            j,
                            Response(smp.text, len(smp.response_ids), "length" if smp.truncated else "stop"),
                        )


def _chunk_seed(seed: int, samples: list[tuple[str, int]]) -> int:
    """A torch seed from the run's seed and the (problem key, sample index) pairs drawn together."""
    import hashlib

    text = f"{seed}|" + "|".join(f"{k}#{i}" for k, i in samples)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") % (2**63)
