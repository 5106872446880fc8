"""Rollout engines: the interface the loop talks to, and its transformers implementation.

The vLLM engine (trainer/vllm_engine.py) implements the same two methods, so the loop never knows
which one sampled. Logprobs are those of the sampling distribution (after temperature and top-p);
the loop recomputes pi_old with the training model by default (see algo.old_logprobs).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Protocol

import torch
import torch.nn.functional as F


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
    """Batched sampling with a KV cache on a transformers causal LM; shares the training model's weights
    (sync is free).

    A hand-written loop, not `model.generate`: prompts are left-padded, each step runs the model on the
    last token only, and temperature / top-p / sampling are plain torch on the last logits, so the
    logprobs returned are those of the distribution actually sampled (the logits processors of
    `generate` are not involved: a checkpoint's generation_config, e.g. a repetition penalty, is
    ignored). Llama-style decoders (Qwen2, Qwen3, Llama) run through a lean decode step over the
    model's own modules with a preallocated KV cache; any other model runs its `forward` with a
    transformers DynamicCache. temperature 0 is greedy (argmax; logprobs of the unscaled softmax).

    `batch_size` caps the sequences per batch (prompt x n), bounding memory on long outputs.
    """

    def __init__(self, model, tokenizer, *, batch_size: int = 256) -> None:
        self.model, self.tokenizer, self.batch_size = model, tokenizer, batch_size
        self.eos_ids = _eos_ids(model, tokenizer)
        self.pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else self.eos_ids[0]
        self.fast = True  # False forces the generic forward + DynamicCache path (tests compare the two)

    def sync_weights(self, model) -> None:
        self.model = model

    def generate(
        self, prompt_ids: list[list[int]], *, n: int, max_new_tokens: int, temperature: float, top_p: float
    ) -> list[list[Sample]]:
        flat = [p for p in prompt_ids for _ in range(n)]  # [prompt0 x n, prompt1 x n, ...]
        out: list[Sample] = []
        for i in range(0, len(flat), self.batch_size):
            out.extend(self._generate(flat[i : i + self.batch_size], max_new_tokens, temperature, top_p))
        return [out[j * n : (j + 1) * n] for j in range(len(prompt_ids))]

    @torch.inference_mode()
    def _generate(
        self, prompts: list[list[int]], max_new_tokens: int, temperature: float, top_p: float
    ) -> list[Sample]:
        model = self.model
        dev = model.get_input_embeddings().weight.device
        B, P, L = len(prompts), max(len(p) for p in prompts), max_new_tokens
        # the n samples of a prompt share one prefill: run it on the distinct prompts, then copy the cache
        distinct: dict[tuple[int, ...], int] = {}
        rows = torch.tensor([distinct.setdefault(tuple(p), len(distinct)) for p in prompts], device=dev)
        ids = torch.full((len(distinct), P), self.pad_id, dtype=torch.long)
        mask = torch.zeros((len(distinct), P), dtype=torch.bool)
        for r, p in enumerate(distinct):  # left padding: every prompt ends where generation starts
            ids[r, P - len(p) :] = torch.tensor(p, dtype=torch.long)
            mask[r, P - len(p) :] = True
        ids, mask = ids.to(dev), mask.to(dev)
        was_training = model.training
        model.eval()
        try:
            fast = self.fast and _LlamaDecoder.supports(model)
            dec = _LlamaDecoder(model, B, P + L) if fast else _HFDecoder(model)
            seq, logp, n_tok = _sample(
                dec, ids, mask, rows, L, temperature, top_p, self.eos_ids, self.pad_id
            )  # fmt: skip
        finally:
            model.train(was_training)
        seq, logp, n_tok = seq.tolist(), logp.tolist(), n_tok.tolist()
        ends = [n if n > 0 else L for n in n_tok]
        resps = [row[:e] for row, e in zip(seq, ends, strict=True)]
        texts = self.tokenizer.batch_decode(resps, skip_special_tokens=True)
        return [
            Sample(prompt_ids=list(p), response_ids=resp, logprobs=lp[:e], truncated=n == 0, text=text)
            for p, resp, lp, e, n, text in zip(prompts, resps, logp, ends, n_tok, texts, strict=True)
        ]


def _sample(dec, ids, mask, rows, L, temperature, top_p, eos_ids, pad_id):
    """The decode loop over prompts `ids`/`mask` [U, P] (left-padded), sampling row r from prompt rows[r].

    Returns tokens [B, L], their logprobs [B, L] and, per row, the response length up to and including
    the first EOS (0: no EOS within L tokens, i.e. truncated). Finished rows are dropped from the batch
    (their cache rows too) once they are an eighth of it; the loop stops when every row has finished.
    """
    B, dev = rows.shape[0], ids.device
    seq = torch.full((B, L), pad_id, dtype=torch.long, device=dev)
    logp = torch.zeros((B, L), dtype=torch.float32, device=dev)
    n_tok = torch.zeros(B, dtype=torch.long, device=dev)
    eos = torch.tensor(eos_ids, dtype=torch.long, device=dev)
    plen = mask.sum(1)[rows]  # position of each row's first generated token
    act = torch.arange(B, device=dev)  # the rows still computed
    done = torch.zeros(B, dtype=torch.bool, device=dev)  # per computed row
    logits = dec.prefill(ids, mask, (mask.cumsum(1) - 1).clamp(min=0), rows)
    for t in range(L):
        tok, lp = _pick(logits, temperature, top_p)
        tok = tok.masked_fill(done, pad_id)
        seq[act, t], logp[act, t] = tok, lp
        hit = torch.isin(tok, eos) & ~done
        n_tok[act[hit]] = t + 1
        done |= hit
        n_done = int(done.sum())
        if t + 1 == L or n_done == len(act):
            break
        if n_done * 8 >= len(act):
            keep = (~done).nonzero().squeeze(1)
            dec.select(keep)
            act, done, tok = act[keep], done[keep], tok[keep]
        logits = dec.step(tok, plen[act] + t, t)
    return seq, logp, n_tok


def _pick(logits: torch.Tensor, temperature: float, top_p: float) -> tuple[torch.Tensor, torch.Tensor]:
    """Sample one token per row from the last logits [B, V]; (tokens, their logprobs under the sampled
    distribution). Temperature then top-p exactly as transformers' warpers (the smallest set of tokens
    whose probability reaches top_p, at least one token kept), then one uniform draw per row through the
    cumulative distribution (the same distribution as torch.multinomial, a fraction of its cost)."""
    logits = logits.float()
    if temperature == 0:
        tok = logits.argmax(-1)
        return tok, logits.log_softmax(-1).gather(1, tok[:, None]).squeeze(1)
    if temperature != 1.0:
        logits = logits / temperature
    if top_p < 1.0:
        srt, idx = torch.sort(logits, descending=False)
        drop = srt.softmax(-1).cumsum(-1) <= 1 - top_p
        drop[:, -1] = False
        logits = logits.masked_fill(drop.scatter(1, idx, drop), float("-inf"))
    logp = logits.log_softmax(-1)
    probs = logp.exp()
    cdf = probs.cumsum(-1)
    tok = torch.searchsorted(cdf, torch.rand((cdf.shape[0], 1), device=cdf.device) * cdf[:, -1:], right=True)
    tok = tok.squeeze(1)
    over = tok >= cdf.shape[1]  # u rounded up to the total: the last token with nonzero probability
    if bool(over.any()):
        tok[over] = (probs[over] > 0).int().cumsum(-1).argmax(-1)
    return tok, logp.gather(1, tok[:, None]).squeeze(1)


class _HFDecoder:
    """Any causal LM: its forward on the last token with a transformers DynamicCache."""

    def __init__(self, model) -> None:
        self.model = model
        self.cache = self.attn = None

    def prefill(self, ids, mask, pos, rows) -> torch.Tensor:
        out = self.model(
            input_ids=ids, attention_mask=mask.long(), position_ids=pos, use_cache=True, logits_to_keep=1
        )
        self.cache = out.past_key_values
        self.cache.reorder_cache(rows)  # index_select on the batch dimension: distinct prompts -> rows
        self.attn = mask.long()[rows]
        return out.logits[:, -1][rows]

    def select(self, keep) -> None:
        self.cache.batch_select_indices(keep)
        self.attn = self.attn[keep]

    def step(self, tok, pos, t) -> torch.Tensor:
        self.attn = F.pad(self.attn, (0, 1), value=1)
        out = self.model(
            input_ids=tok[:, None], attention_mask=self.attn, position_ids=pos[:, None],
            past_key_values=self.cache, use_cache=True,
        )  # fmt: skip
        self.cache = out.past_key_values
        return out.logits[:, -1]


class _LlamaDecoder:
    """Llama-style decoders (pre-norm, RoPE, GQA, SwiGLU: Qwen2, Qwen3, Llama) stepped through the
    model's own modules, with a preallocated KV cache and one SDPA call per layer: the same math as
    the model's forward without its per-call mask and cache bookkeeping."""

    TYPES = ("qwen2", "qwen3", "llama")

    @classmethod
    def supports(cls, model) -> bool:
        cfg = model.config
        if getattr(cfg, "model_type", None) not in cls.TYPES or not hasattr(model, "lm_head"):
            return False
        if getattr(cfg, "use_sliding_window", False) or any(
            t != "full_attention" for t in getattr(cfg, "layer_types", None) or []
        ):
            return False
        if getattr(cfg, "pretraining_tp", 1) != 1 or getattr(cfg, "mlp_bias", False) is not False:
            return False
        attn = model.model.layers[0].self_attn
        if getattr(model.model.rotary_emb, "rope_type", "default") in ("dynamic", "longrope"):
            return False  # RoPE that depends on the sequence length seen so far: use the model's forward
        return all(hasattr(attn, a) for a in ("q_proj", "k_proj", "v_proj", "o_proj", "head_dim", "scaling"))

    def __init__(self, model, B: int, S: int) -> None:
        self.model, self.m = model, model.model
        cfg = model.config
        self.H, self.KV = cfg.num_attention_heads, cfg.num_key_value_heads
        self.D = self.m.layers[0].self_attn.head_dim
        w = model.get_input_embeddings().weight
        self.k = [torch.empty((B, self.KV, S, self.D), dtype=w.dtype, device=w.device) for _ in self.m.layers]
        self.v = [torch.empty_like(k) for k in self.k]
        cos, sin = self.m.rotary_emb(self.k[0], torch.arange(S, device=w.device)[None])
        self.cos, self.sin = cos[0], sin[0]  # [S, D]
        self.pad = torch.zeros((B, 1, 1, S), dtype=torch.bool, device=w.device)  # True: a padding key
        self.P = 0
        # decode-step weights: q|k|v and gate|up concatenated (one matmul each), the model's own tensors
        # otherwise; copies only for small models (the concatenation doubles those weights' memory)
        fuse = sum(p.numel() for p in model.parameters()) <= 200_000_000
        self.layers = []
        for layer in self.m.layers:
            a, mlp = layer.self_attn, layer.mlp
            qkv = (a.q_proj, a.k_proj, a.v_proj)
            self.layers.append(
                (
                    _rms(layer.input_layernorm),
                    _cat_linear(qkv) if fuse else None,
                    qkv,
                    getattr(a, "q_norm", None),
                    getattr(a, "k_norm", None),
                    a.scaling,
                    a.o_proj,
                    _rms(layer.post_attention_layernorm),
                    _cat_linear((mlp.gate_proj, mlp.up_proj)) if fuse else None,
                    mlp,
                )
            )
        self.norm = _rms(self.m.norm)

    def _rope(self, x, cos, sin):  # x [b, h, q, D]; cos/sin [b, 1, q, D]
        h = x.shape[-1] // 2
        return x * cos + torch.cat((-x[..., h:], x[..., :h]), dim=-1) * sin

    def prefill(self, ids, mask, pos, rows) -> torch.Tensor:
        """The prompts [U, P] through the model's modules; cache row r holds prompt rows[r]."""
        U, P = ids.shape
        self.P = P
        self.pad[:, 0, 0, :P] = ~mask[rows]
        causal = torch.ones((P, P), dtype=torch.bool, device=ids.device).tril()
        # a padding query attends to itself only (no all-masked row); its output is never used
        amask = (causal & mask[:, None, None, :]) | torch.eye(P, dtype=torch.bool, device=ids.device)
        cos, sin = self.cos[pos][:, None], self.sin[pos][:, None]  # [U, 1, P, D]
        x = self.m.embed_tokens(ids)
        for i, layer in enumerate(self.m.layers):
            a = layer.self_attn
            h = layer.input_layernorm(x)
            qs = a.q_proj(h).view(U, P, self.H, self.D).transpose(1, 2)
            ks = a.k_proj(h).view(U, P, self.KV, self.D).transpose(1, 2)
            vs = a.v_proj(h).view(U, P, self.KV, self.D).transpose(1, 2)
            if hasattr(a, "q_norm"):  # Qwen3
                qs, ks = a.q_norm(qs), a.k_norm(ks)
            qs, ks = self._rope(qs, cos, sin), self._rope(ks, cos, sin)
            self.k[i][:, :, :P], self.v[i][:, :, :P] = ks[rows], vs[rows]
            o = F.scaled_dot_product_attention(
                qs, ks, vs, attn_mask=amask, scale=a.scaling, enable_gqa=self.H != self.KV
            )  # [U, H, P, D]
            x = x + a.o_proj(o.transpose(1, 2).reshape(U, P, self.H * self.D))
            x = x + layer.mlp(layer.post_attention_layernorm(x))
        return self.model.lm_head(self.m.norm(x[:, -1]))[rows]

    def select(self, keep) -> None:
        self.k = [k[keep] for k in self.k]
        self.v = [v[keep] for v in self.v]
        self.pad = self.pad[keep]

    def step(self, tok, pos, t) -> torch.Tensor:
        """One token per row [b] at positions pos [b]: the same math as prefill, fewer and fused ops."""
        b, H, KV, D = tok.shape[0], self.H, self.KV, self.D
        s = self.P + t
        half = D // 2
        cos, sin = self.cos[pos][:, None], self.sin[pos][:, None]  # [b, 1, D]
        pad = self.pad[:, :, :, : s + 1]
        x = self.m.embed_tokens(tok)  # [b, hidden]
        for i, (n1, qkv_w, qkv, q_norm, k_norm, scale, o_proj, n2, gu_w, mlp) in enumerate(self.layers):
            h = n1(x)
            if qkv_w is not None:
                qkv_out = F.linear(h, *qkv_w)
                qk, v = (
                    qkv_out[:, : (H + KV) * D].view(b, H + KV, D),
                    qkv_out[:, (H + KV) * D :].view(b, KV, D),
                )
            else:
                qk = torch.cat((qkv[0](h), qkv[1](h)), dim=1).view(b, H + KV, D)
                v = qkv[2](h).view(b, KV, D)
            if q_norm is not None:  # Qwen3: per-head norms before RoPE
                qk = torch.cat((q_norm(qk[:, :H]), k_norm(qk[:, H:])), dim=1)
            qk = qk * cos + torch.cat((-qk[..., half:], qk[..., :half]), dim=-1) * sin
            self.k[i][:, :, s], self.v[i][:, :, s] = qk[:, H:], v
            q = qk[:, :H].reshape(b, KV, H // KV, D)  # query heads grouped by their KV head
            w = (q @ self.k[i][:, :, : s + 1].transpose(2, 3)) * scale
            w = w.masked_fill(pad, float("-inf")).softmax(-1, dtype=torch.float32).to(qk.dtype)
            o = w @ self.v[i][:, :, : s + 1]  # [b, KV, H/KV, D]
            x = x + o_proj(o.reshape(b, H * D))
            h = n2(x)
            if gu_w is not None:
                g, u = F.linear(h, *gu_w).chunk(2, dim=-1)
                x = x + mlp.down_proj(mlp.act_fn(g) * u)
            else:
                x = x + mlp(h)
        return self.model.lm_head(self.norm(x))


def _rms(norm):
    """A float32 RMSNorm module (weight * x / rms(x)) as one fused op; other norms as they are."""
    eps = getattr(norm, "variance_epsilon", None)
    if type(norm).__name__ not in ("Qwen2RMSNorm", "Qwen3RMSNorm", "LlamaRMSNorm") or eps is None:
        return norm
    if norm.weight.dtype != torch.float32:
        return norm
    return partial(F.rms_norm, normalized_shape=(norm.weight.shape[0],), weight=norm.weight, eps=eps)


def _cat_linear(mods) -> tuple[torch.Tensor, torch.Tensor | None]:
    """(weight, bias) of nn.Linear modules stacked along their outputs."""
    w = torch.cat([m.weight for m in mods])
    bs = [m.bias for m in mods]
    if all(b_ is None for b_ in bs):
        return w, None
    return w, torch.cat(
        [
            b_ if b_ is not None else torch.zeros(m.out_features, dtype=w.dtype, device=w.device)
            for b_, m in zip(bs, mods, strict=True)
        ]
    )


def _eos_ids(model, tokenizer) -> list[int]:
    ids = model.generation_config.eos_token_id
    ids = [ids] if isinstance(ids, int) else list(ids or [])
    if tokenizer.eos_token_id is not None and tokenizer.eos_token_id not in ids:
        ids.append(tokenizer.eos_token_id)
    if not ids:
        raise ValueError("the model and tokenizer define no EOS token; set generation_config.eos_token_id")
    return ids
