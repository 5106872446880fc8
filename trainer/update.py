"""Forward passes and the policy update: scoring a batch, and `epochs` passes of clipped mini-batch steps.

Multi-process (torchrun) and one process run the same functions: each rank scores / back-propagates
its rows `distributed.shard_range(...)` of the batch, and the collectives (gathering rows, summing
gradients and statistics) do nothing when there is one process. The loss normalisers always come
from the whole mini-batch, so the per-rank gradients SUM to the one-process gradient of the globally
normalised loss (docs/distributed.md).
"""

from __future__ import annotations

import math

import torch

from trainer import distributed as D
from trainer import objective as obj
from trainer.algorithms import ALGORITHMS
from trainer.batch import Batch
from trainer.packing import packed_response_logits

# First-pass metric sums that update() collects (summed over micro-batches and ranks), and maxima.
FIRST_PASS_SUMS = ("ent_sum", "prob_sum", "resp_tokens", "gap_sum", "pgap_sum", "gap_kl_sum", "gap_chi2_sum",
                   "isw_sum")  # fmt: skip
FIRST_PASS_MAX = ("gap_max", "isw_max")


def response_logits(model, b: Batch, temperature: float = 1.0, *, packed: bool = False) -> torch.Tensor:
    """[N, R, V] logits that predict each response token (the sampler's temperature applied).

    `packed` (train.padding_free): one forward over the sequences packed without padding
    (trainer/packing.py); the logits on response padding are then 0 instead of unused values.
    """
    if packed:
        logits = packed_response_logits(model, b.ids, b.attn, b.mask)
        return logits / temperature if temperature not in (0, 1) else logits
    R = b.resp.shape[1]
    out = model(
        input_ids=b.ids, attention_mask=b.attn, position_ids=b.pos, use_cache=False, logits_to_keep=R + 1
    )
    logits = out.logits[:, :-1]
    return logits / temperature if temperature not in (0, 1) else logits


@torch.no_grad()
def _score_rows(
    model, b: Batch, temperature: float, micro: int, packed: bool = False
) -> tuple[torch.Tensor, torch.Tensor]:
    was = model.training
    model.eval()
    lp, ent = [], []
    for i in range(0, len(b), micro):
        mb = b.select(torch.arange(i, min(i + micro, len(b))))
        logits = response_logits(model, mb, temperature, packed=packed)
        lp.append(obj.token_logprobs(logits, mb.resp))
        ent.append(obj.entropy_from_logits(logits))
    model.train(was)
    return torch.cat(lp), torch.cat(ent)


def score_tokens(
    model, b: Batch, *, temperature: float, micro: int, packed: bool = False
) -> tuple[torch.Tensor, torch.Tensor]:
    """(logp [N, R], entropy [N, R]) under `model` in eval mode: pi_old, the reference, and the metrics.

    Each rank scores its rows and every rank gets all rows back (one process: all rows, no gather).
    `packed`: padding-free forwards (train.padding_free).
    """
    if not D.is_distributed():
        return _score_rows(model, b, temperature, micro, packed)
    rows = D.shard_range(len(b))
    with D.full_params(model):  # FSDP2: uneven forward counts per rank must not issue collectives
        if len(rows):
            lp, ent = _score_rows(
                model, b.select(torch.tensor(list(rows), dtype=torch.long)), temperature, micro, packed
            )
        else:
            lp = ent = torch.zeros((0, b.resp.shape[1]), device=b.resp.device)
    return D.gather_rows(lp, len(b)), D.gather_rows(ent, len(b))


def micro_step(cfg, model, sub: Batch, norm: dict, *, metrics: dict | None = None, scale: float = 1.0):
    """Forward/backward one micro-batch (`sub.old is None`: on-policy, pi_old = this pass detached).

    `metrics`, when given, receives the sums in FIRST_PASS_SUMS / FIRST_PASS_MAX: entropy and token
    probability of the response tokens and the gap between this pass and the engine's logprobs.
    `scale=0` backpropagates a zero-weight pass (FSDP2 padding).
    """
    logits = response_logits(model, sub, cfg.rollout.temperature, packed=cfg.train.padding_free)
    logp = obj.token_logprobs(logits, sub.resp)
    if sub.old is None:
        sub = sub.with_(old=logp.detach())
    ent = obj.entropy_from_logits(logits) if cfg.algo.entropy_coef else None  # with its graph: the bonus
    loss, st = obj.policy_loss(cfg.algo, ALGORITHMS[cfg.algo.name], logp, sub, norm, entropy=ent)
    (loss * scale if scale != 1.0 else loss).backward()
    if metrics is not None:
        with torch.no_grad():
            m = sub.mask
            lp = logp.detach()
            d = (lp - sub.engine_logp).clamp(-20, 20)
            for k in FIRST_PASS_SUMS:
                metrics.setdefault(k, 0.0)
            metrics["ent_sum"] += float((obj.entropy_from_logits(logits.detach()) * m).sum())
            metrics["prob_sum"] += float((lp.exp() * m).sum())
            metrics["resp_tokens"] += float(m.sum())
            metrics["gap_sum"] += float((d.abs() * m).sum())
            metrics["pgap_sum"] += float(((lp.exp() - sub.engine_logp.exp()).abs() * m).sum())
            metrics["gap_kl_sum"] += float(((d.exp() - d - 1) * m).sum())
            metrics["gap_chi2_sum"] += float(((d.exp() - 1) ** 2 * m).sum())
            gmax = float((d.abs() * m).max()) if m.numel() else 0.0
            metrics["gap_max"] = max(metrics.get("gap_max", 0.0), gmax)
            metrics["isw_sum"] += float((d.exp() * m).sum())  # importance weight pi_trainer / pi_engine
            wmax = float((d.exp() * m).max()) if m.numel() else 0.0
            metrics["isw_max"] = max(metrics.get("isw_max", 0.0), wmax)
    return loss, st


def _fingerprint(b: Batch) -> torch.Tensor:
    """A few numbers that change when the rows or their order change (cheap cross-rank check)."""
    dev = b.ids.device
    w = torch.arange(1, b.ids.shape[1] + 1, dtype=torch.float64, device=dev)
    rows = (b.ids.double() * w).sum(1) + 0.5 * b.group.double()
    order = torch.arange(1, len(b) + 1, dtype=torch.float64, device=dev)
    return torch.stack([torch.tensor(float(len(b)), dtype=torch.float64, device=dev), (rows * order).sum()])


def accumulate_grads(
    cfg, model, full: Batch, mb: Batch, n_minibatches: int, micro: int, metrics: dict | None = None
) -> dict:
    """Forward/backward one mini-batch in micro-batches; after it every rank holds the mini-batch's gradient.

    The normalisers come from the whole mini-batch (every rank holds it), i.e. the global token /
    sequence / group counts; each rank forward/backwards only its rows `shard_range(len(mb))`, so
    its gradient is its rows' share of the globally normalised loss, and the sum over ranks
    (all-reduced here, or reduce-scattered by FSDP2) is the one-process gradient. The returned
    statistics are summed over ranks. `metrics`, when given, receives the first-pass sums
    (`micro_step`) of the whole mini-batch (the gap's max is a max over ranks).
    """
    many = D.is_distributed()
    if many:
        D.check_same(
            _fingerprint(mb), "the mini-batch (torch.randperm in update() must draw the same on every rank)"
        )
    norm = obj.normalisers(
        cfg.algo, full, mb, n_minibatches, G=cfg.rollout.n, max_len=cfg.rollout.max_new_tokens
    )
    rows = list(D.shard_range(len(mb)))
    steps = math.ceil(len(rows) / micro)
    if D.is_fsdp(model):  # every rank must run the same number of forward/backward (FSDP2 collectives)
        steps = math.ceil(len(D.shard_range(len(mb), 0)) / micro)
    tot = {"clip_low": 0.0, "clip_high": 0.0, "clip_dual": 0.0, "kl_old": 0.0, "tokens": 0.0, "loss": 0.0,
           "rc_masked": 0.0, "opsm_masked": 0.0}  # fmt: skip
    local = {} if many and metrics is not None else metrics
    for k in range(steps):
        idx = torch.tensor(rows[k * micro : (k + 1) * micro], dtype=torch.long)
        dummy = len(idx) == 0
        if dummy:
            idx = torch.zeros(1, dtype=torch.long)  # a zero-weight row keeps FSDP2's collectives in step
        loss, st = micro_step(cfg, model, mb.select(idx), norm, metrics=None if dummy else local,
                              scale=0.0 if dummy else 1.0)  # fmt: skip
        if not dummy:
            tot["loss"] += loss.item()
            for key, v in st.items():
                tot[key] += v
    D.sync_grads(model)
    if many and metrics is not None:
        for key, v in D.all_reduce_stats({key: local.get(key, 0.0) for key in FIRST_PASS_SUMS}).items():
            metrics[key] = metrics.get(key, 0.0) + v
        for key in FIRST_PASS_MAX:
            metrics[key] = max(metrics.get(key, 0.0), D.all_reduce_max(local.get(key, 0.0)))
    return D.all_reduce_stats(tot)


def lr_at(cfg, step: int) -> float:
    """Linear warm-up over `warmup_steps` rollout steps, then constant (the DAPO recipe)."""
    w = cfg.optim.warmup_steps
    return cfg.optim.lr * min(1.0, (step + 1) / w) if w > 0 else cfg.optim.lr


def minibatches(n_rows: int, mini_batch_size: int | None) -> int:
    """Mini-batches per epoch: a short batch (dynamic sampling with on_max_gen_batches: train) is split
    into as many nearly equal mini-batches as fit, at least one; a full batch into mini-batches of exactly
    `mini_batch_size`. The loop asks it too: more than one update per rollout needs pi_old."""
    return max(1, n_rows // (mini_batch_size or n_rows))


def update(cfg, model, optimizer, batch: Batch, *, metrics: dict | None = None) -> dict:
    """`epochs` passes of shuffled mini-batch updates over one rollout batch (carrying adv, old, ref).

    `metrics`, when given, receives the entropy and mean token probability of the first pass
    (the rollout policy's), so an on-policy step needs no separate scoring pass for them.
    """
    N = len(batch)
    mbs = cfg.train.mini_batch_size or N
    micro = cfg.train.micro_batch_size or mbs
    n_mb = minibatches(N, mbs)
    agg = {"clip_low": 0.0, "clip_high": 0.0, "clip_dual": 0.0, "kl_old": 0.0, "tokens": 0.0, "loss": 0.0, "grad_norm": 0.0,
           "grad_clipped": 0.0, "rc_masked": 0.0, "opsm_masked": 0.0}  # fmt: skip
    first: dict = {}
    updates = 0
    model.train()
    for epoch in range(cfg.train.epochs):
        perm = torch.randperm(N)
        for idx in perm.tensor_split(n_mb):
            optimizer.zero_grad(set_to_none=True)
            st = accumulate_grads(cfg, model, batch, batch.select(idx), n_mb, micro,
                                  first if metrics is not None and epoch == 0 else None)  # fmt: skip
            gn = torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.optim.grad_clip)
            optimizer.step()
            updates += 1
            for k, v in st.items():
                agg[k] += v
            agg["grad_norm"] += float(gn)
            agg["grad_clipped"] += float(float(gn) > cfg.optim.grad_clip)
    toks = max(agg["tokens"], 1.0)
    if metrics is not None and first.get("resp_tokens"):
        n = first["resp_tokens"]
        metrics["entropy"] = first["ent_sum"] / n
        metrics["mean_prob"] = first["prob_sum"] / n
        # engine vs the first training pass (= pi_old on-policy): what logprob_gap reports
        metrics["gap"] = {
            "logprob_gap_mean": first["gap_sum"] / n,
            "logprob_gap_max": first["gap_max"],
            "prob_gap_mean": first["pgap_sum"] / n,
            "engine_trainer_kl": first["gap_kl_sum"] / n,
            "engine_trainer_chi2": first["gap_chi2_sum"] / n,
            "is_weight_mean": first["isw_sum"] / n,
            "is_weight_max": first["isw_max"],
        }
    return {
        "loss": agg["loss"] / max(updates, 1),  # micro-batch losses already sum to each mini-batch's loss
        "clip_frac_low": agg["clip_low"] / toks,
        "clip_frac_high": agg["clip_high"] / toks,
        "clip_frac_dual": agg["clip_dual"] / toks,  # A < 0 tokens whose loss algo.clip_ratio_c capped
        "kl_old": agg["kl_old"] / toks,
        "grad_norm": agg["grad_norm"] / max(updates, 1),
        # share of this step's updates whose gradient optim.grad_clip scaled down: near 1 means every
        # update is norm-clipped (a loss on another scale, e.g. dcpo's, needs a larger clip)
        "grad_clipped": agg["grad_clipped"] / max(updates, 1),
        "updates": updates,
        "rc_masked_share": agg["rc_masked"] / toks,  # trained tokens the rollout-correction masks removed
        "opsm_masked_share": agg["opsm_masked"] / toks,  # trained tokens OPSM (algo.off_policy_mask) dropped
    }
