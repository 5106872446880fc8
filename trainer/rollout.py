"""Rollout engines: the interface the loop talks to, and its transformers implementation.

The vLLM engine (trainer/vllm_engine.py) implements the same two methods, so the loop never knows
which one sampled. Logprobs are those of the sampling distribution (after temperature and top-p);
the loop recomputes pi_old with the training model by default (see algo.old_logprobs).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import torch


@dataclass
class Sample:
    prompt_ids: list[int]
    response_ids: list[int]  # includes the EOS token when the model emitted one
    logprobs: list[float]  # per response token, under the sampling policy
    truncated: bool  # max_new_tokens reached without EOS
    text: str  # decoded response, special tokens removed


class RolloutEngine(Protocol):
    def generate(
        self, prompt_ids: list[list[int]], *, n: int, max_new_tokens: int, temperature: float, top_p: float
    ) -> list[list[Sample]]: ...

    def sync_weights(self, model) -> None: ...


class HFEngine:
    """Batched `model.generate` with the KV cache; shares the training model's weights (sync is free).

    `batch_size` caps the sequences per generate call (prompt x n), bounding memory on long outputs.
    """

    def __init__(self, model, tokenizer, *, batch_size: int = 256) -> None:
        self.model, self.tokenizer, self.batch_size = model, tokenizer, batch_size
        self.eos_ids = _eos_ids(model, tokenizer)
        self.pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else self.eos_ids[0]

    def sync_weights(self, model) -> None:
        self.model = model

    @torch.no_grad()
    def generate(
        self, prompt_ids: list[list[int]], *, n: int, max_new_tokens: int, temperature: float, top_p: float
    ) -> list[list[Sample]]:
        flat = [p for p in prompt_ids for _ in range(n)]  # [prompt0 x n, prompt1 x n, ...]
        out: list[Sample] = []
        for i in range(0, len(flat), self.batch_size):
            out.extend(self._generate(flat[i : i + self.batch_size], max_new_tokens, temperature, top_p))
        return [out[j * n : (j + 1) * n] for j in range(len(prompt_ids))]

    def _generate(
        self, prompts: list[list[int]], max_new_tokens: int, temperature: float, top_p: float
    ) -> list[Sample]:
        width = max(len(p) for p in prompts)
        ids = torch.full((len(prompts), width), self.pad_id, dtype=torch.long)
        mask = torch.zeros_like(ids)
        for r, p in enumerate(prompts):  # left padding: every prompt ends where generation starts
            ids[r, width - len(p) :] = torch.tensor(p)
            mask[r, width - len(p) :] = 1
        was_training = self.model.training
        self.model.eval()
        greedy = temperature == 0
        gen = self.model.generate(
            input_ids=ids,
            attention_mask=mask,
            max_new_tokens=max_new_tokens,
            do_sample=not greedy,
            temperature=None if greedy else temperature,
            top_p=None if greedy else top_p,
            top_k=0,
            eos_token_id=self.eos_ids,
            pad_token_id=self.pad_id,
            return_dict_in_generate=True,
            output_scores=True,
        )
        self.model.train(was_training)
        seq = gen.sequences[:, width:]  # [B, T]
        scores = torch.stack(gen.scores, dim=1).float()  # [B, T, V] processed (temperature, top-p) logits
        logp = torch.log_softmax(scores, dim=-1).gather(-1, seq.unsqueeze(-1)).squeeze(-1)  # [B, T]
        eos = torch.isin(seq, torch.tensor(self.eos_ids))
        samples = []
        for r, p in enumerate(prompts):
            hits = eos[r].nonzero()
            end = int(hits[0]) + 1 if len(hits) else seq.shape[1]
            resp = seq[r, :end].tolist()
            samples.append(
                Sample(
                    prompt_ids=list(p),
                    response_ids=resp,
                    logprobs=logp[r, :end].tolist(),
                    truncated=not len(hits),
                    text=self.tokenizer.decode(resp, skip_special_tokens=True),
                )
            )
        return samples


def _eos_ids(model, tokenizer) -> list[int]:
    ids = model.generation_config.eos_token_id
    ids = [ids] if isinstance(ids, int) else list(ids or [])
    if tokenizer.eos_token_id is not None and tokenizer.eos_token_id not in ids:
        ids.append(tokenizer.eos_token_id)
    if not ids:
        raise ValueError("the model and tokenizer define no EOS token; set generation_config.eos_token_id")
    return ids
