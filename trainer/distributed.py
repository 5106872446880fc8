"""Multi-process primitives: torchrun's environment, shard ranges, gathers, reductions, FSDP2, full state.

The design in one paragraph: every rank holds the WHOLE step (the same prompts from the same seeded
sampler, every scored group after gathering, the whole `Batch`, old/ref logprobs, advantages), but
does only its share of the WORK (rank r generates and scores its contiguous slice of each generation
batch, scores its slice of rows for pi_old, and runs forward/backward on its slice of each optimiser
mini-batch). So dynamic sampling and group advantages see whole groups and every rank takes the same
decisions without any extra agreement protocol; the loss normalisers are computed on the whole
mini-batch, which equals the all-reduced per-rank counts; and the per-rank gradients are SUMMED,
which is exactly the one-process gradient of the globally normalised loss. The functions that do
this work are the ordinary ones: `sampling.collect`, `update.score_tokens`, `update.accumulate_grads`.

Gradients are summed by hand (one bucketed all-reduce per optimiser step, `sync_grads`) rather than
with DDP: DDP averages (a 1/world factor to undo), needs the same number of backward calls on every
rank (uneven shards break that), and hides `.generate` / `.save_pretrained` behind `.module`. FSDP2
(`shard_model_fsdp2`, meant for GPUs) reduce-scatters in backward itself; its divide factor is set
to 1 so it sums as well.

Without torchrun (WORLD_SIZE unset or 1) every function here is a cheap no-op or the plain
single-process behaviour, so the same code runs either way. This module imports nothing from the
rest of the trainer.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import TypeVar

import torch
import torch.distributed as dist

T = TypeVar("T")


# ---------------------------------------------------------------- process group
@dataclass(frozen=True)
class DistEnv:
    rank: int
    world_size: int
    local_rank: int
    backend: str | None  # None: single process, no process group
    device: torch.device


def init_distributed(backend: str | None = None, *, timeout_s: float = 1800.0) -> DistEnv:
    """Join the process group torchrun describes (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR/PORT).

    gloo on CPU, nccl when CUDA is available (each rank on cuda:LOCAL_RANK). Without torchrun
    (WORLD_SIZE unset or 1) no group is created and the single-process env is returned, so callers
    need no branches. Idempotent: a second call returns the current env.
    """
    world = int(os.environ.get("WORLD_SIZE", "1"))
    local = int(os.environ.get("LOCAL_RANK", "0"))
    cuda = torch.cuda.is_available()
    if _process_local:  # a forked helper process (become_process_local): never joins the group
        return DistEnv(0, 1, 0, None, torch.device("cuda" if cuda else "cpu"))
    if dist.is_available() and dist.is_initialized():
        be = dist.get_backend()
        return DistEnv(dist.get_rank(), dist.get_world_size(), local, be, _device(be, local))
    if world <= 1:
        return DistEnv(0, 1, 0, None, torch.device("cuda" if cuda else "cpu"))
    missing = [k for k in ("RANK", "MASTER_ADDR", "MASTER_PORT") if k not in os.environ]
    if missing:
        raise RuntimeError(
            f"WORLD_SIZE={world} but {', '.join(missing)} unset: launch with "
            "`torchrun --nproc_per_node N -m trainer ...` (it sets RANK, LOCAL_RANK, MASTER_ADDR/PORT)"
        )
    if not dist.is_available():
        raise RuntimeError("this torch build has no torch.distributed; run one process (no torchrun)")
    be = backend or ("nccl" if cuda else "gloo")
    if be == "nccl":
        torch.cuda.set_device(local)  # before init: all_gather_object and nccl use the current device
    dist.init_process_group(
        be,
        init_method="env://",
        timeout=timedelta(seconds=timeout_s),
        device_id=torch.device("cuda", local) if be == "nccl" else None,
    )
    return DistEnv(dist.get_rank(), dist.get_world_size(), local, be, _device(be, local))


def _device(backend: str | None, local_rank: int) -> torch.device:
    return torch.device("cuda", local_rank) if backend == "nccl" else torch.device("cpu")


def backend_for(device_spec: str) -> str | None:
    """The process-group backend `train.device` asks for: gloo for cpu, else the default (nccl with CUDA)."""
    return "gloo" if device_spec == "cpu" else None


def resolve_device(spec: str, env: DistEnv) -> torch.device:
    """`train.device` ("auto", "cpu", "cuda", "cuda:N") as a torch.device for this rank.

    Under torchrun every rank trains on cuda:LOCAL_RANK (an explicit index would put two ranks on
    one GPU); "cpu" there needs the gloo backend, which `backend_for` picks.
    """
    if spec == "auto":
        return _indexed(env.device)
    if spec == "cpu":
        if env.backend == "nccl":
            raise ValueError(
                "train.device cpu with an nccl process group; ranks must join with gloo (backend_for)"
            )
        return torch.device("cpu")
    if not torch.cuda.is_available():
        raise RuntimeError(
            f"train.device {spec!r} but CUDA is not available (torch {torch.__version__}, "
            f"cuda build: {torch.version.cuda}); write train.device: auto or cpu"
        )
    if env.world_size > 1:
        if spec != "cuda":
            raise ValueError(
                f"train.device {spec!r} under torchrun: each rank uses cuda:LOCAL_RANK; write train.device: cuda"
            )
        return torch.device("cuda", env.local_rank)
    dev = torch.device(spec)
    if dev.index is not None and dev.index >= torch.cuda.device_count():
        raise ValueError(
            f"train.device {spec!r}: this machine has {torch.cuda.device_count()} CUDA device(s)"
        )
    return _indexed(dev)


def _indexed(dev: torch.device) -> torch.device:
    """`cuda` as `cuda:N` (the current device): `torch.cuda.set_device` and FSDP2 refuse a CUDA device without an
    index (found on the first GPU run: `train.device: cuda` and `auto` stopped before step 1)."""
    if dev.type == "cuda" and dev.index is None:
        return torch.device("cuda", torch.cuda.current_device())
    return dev


# Set in a process forked from a rank (the async rollout producer): it inherits the parent's initialized
# process group, but is no member of it, so it must see itself as one process and never run a collective.
_process_local = False


def become_process_local() -> None:
    """Make this (forked) process a single-process run: no collectives, rank 0 of 1, `cleanup` a no-op.

    A child forked from a torchrun rank inherits torch.distributed's initialized state; a collective
    issued there would hang or corrupt the rank's own communication. Call first thing in the child;
    the parent is unaffected (the flag is process-local memory).
    """
    global _process_local
    _process_local = True


def _in_group() -> bool:
    return not _process_local and dist.is_available() and dist.is_initialized()


def is_distributed() -> bool:
    """True inside a process group of more than one rank (collectives needed)."""
    return _in_group() and dist.get_world_size() > 1


def rank() -> int:
    return dist.get_rank() if _in_group() else 0


def world_size() -> int:
    return dist.get_world_size() if _in_group() else 1


def local_rank() -> int:
    return int(os.environ.get("LOCAL_RANK", "0"))


def is_main() -> bool:
    """Rank 0: the only rank that logs, shows progress and writes checkpoints."""
    return rank() == 0


def barrier() -> None:
    """Wait for every rank (e.g. after rank 0 wrote a checkpoint the others will read)."""
    if is_distributed():
        dist.barrier()


def cleanup(ok: bool = True) -> None:
    """Leave the process group (call once at the end of a run; harmless without one).

    After a clean run every rank first meets the others, so no rank tears its gloo/nccl connections
    down while a peer still finishes the last step's collectives (a rank that did so could abort the
    other at exit). After an error (`ok=False`) nothing is destroyed: peers may sit in a collective
    that destroying would deadlock; the launcher ends them.
    """
    if not _in_group():
        return
    if ok:
        barrier()
        dist.destroy_process_group()


# ---------------------------------------------------------------- sharding and gathering
def shard_range(n: int, rank_: int | None = None, world: int | None = None) -> range:
    """This rank's contiguous slice of n items; the first n % world ranks get one more.

    Contiguous slices make gathering a concatenation in rank order, so the reassembled list is the
    original order on every rank.
    """
    r = rank() if rank_ is None else rank_
    w = world_size() if world is None else world
    base, extra = divmod(n, w)
    start = r * base + min(r, extra)
    return range(start, start + base + (1 if r < extra else 0))


def shard(items: Sequence[T]) -> list[T]:
    """This rank's slice of a list that every rank holds in the same order."""
    return [items[i] for i in shard_range(len(items))]


def gather_shards(local: list[T]) -> list[T]:
    """Concatenate every rank's list in rank order (all_gather_object: any picklable items)."""
    if not is_distributed():
        return list(local)
    parts: list[list[T] | None] = [None] * world_size()
    dist.all_gather_object(parts, local)
    return [x for p in parts for x in p]  # type: ignore[union-attr]


def broadcast_object(obj: T, src: int = 0) -> T:
    """Rank `src`'s picklable object on every rank (broadcast_object_list); other ranks pass anything."""
    if not is_distributed():
        return obj
    box = [obj if rank() == src else None]
    dist.broadcast_object_list(box, src=src)
    return box[0]  # type: ignore[return-value]


def gather_rows(local: torch.Tensor, n: int) -> torch.Tensor:
    """Reassemble the [n, ...] tensor whose rows `shard_range(n)` each rank holds (padded all_gather)."""
    if not is_distributed():
        return local
    w = world_size()
    sizes = [len(shard_range(n, r, w)) for r in range(w)]
    if local.shape[0] != sizes[rank()]:
        raise ValueError(
            f"gather_rows: rank {rank()} holds {local.shape[0]} rows, its shard of {n} is {sizes[rank()]}"
        )
    pad = max(sizes)
    buf = local.new_zeros((pad, *local.shape[1:]))
    buf[: local.shape[0]] = local
    parts = [torch.empty_like(buf) for _ in range(w)]
    dist.all_gather(parts, buf.contiguous())
    return torch.cat([p[:s] for p, s in zip(parts, sizes, strict=True)])


def broadcast_params(model) -> None:
    """Copy rank 0's weights (and buffers) to every rank: the ranks start the run from one model.

    Building the same seeded model on every rank gives the same weights on one machine, but a
    broadcast makes it a guarantee (different CPUs / kernels, a checkpoint read while another rank
    wrote). Call before `shard_model_fsdp2` and before building the optimiser.
    """
    if not is_distributed():
        return
    with torch.no_grad():
        for t in [*model.parameters(), *model.buffers()]:
            dist.broadcast(t.data, src=0)


def all_reduce_stats(stats: dict[str, float]) -> dict[str, float]:
    """Sum float statistics over ranks (losses and counts of each rank's rows add up to the batch's)."""
    if not is_distributed():
        return dict(stats)
    keys = sorted(stats)
    t = torch.tensor([float(stats[k]) for k in keys], dtype=torch.float64, device=_comm_device())
    dist.all_reduce(t)
    return {k: float(v) for k, v in zip(keys, t.tolist(), strict=True)}


def all_reduce_max(x: float) -> float:
    """The largest of one number over ranks."""
    if not is_distributed():
        return float(x)
    t = torch.tensor([float(x)], dtype=torch.float64, device=_comm_device())
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    return float(t)


def check_same(t: torch.Tensor, what: str) -> None:
    """Raise if `t` differs between ranks: the whole design relies on every rank holding the same step."""
    if not is_distributed():
        return
    x = t.detach().to(device=_comm_device(), dtype=torch.float64).reshape(-1)
    lo, hi = x.clone(), x.clone()
    dist.all_reduce(lo, op=dist.ReduceOp.MIN)
    dist.all_reduce(hi, op=dist.ReduceOp.MAX)
    if not torch.equal(lo, hi):
        raise RuntimeError(
            f"ranks disagree on {what}: every rank must use the same seed, data and config, and the global "
            "torch RNG must see the same draws on every rank (rollouts run under rank_rng's forked RNG)"
        )


def _comm_device() -> torch.device:
    return (
        torch.device("cuda", torch.cuda.current_device())
        if dist.get_backend() == "nccl"
        else torch.device("cpu")
    )


# ---------------------------------------------------------------- rollouts
@contextlib.contextmanager
def rank_rng() -> Iterator[None]:
    """Sample with a per-rank seed, leaving the global RNG as if nothing ran.

    Ranks generate different amounts of text, so letting generation draw from the global RNG would
    desynchronise it, and the loop's mini-batch permutation (torch.randperm in `update`) must be the
    same on every rank. One draw from the global RNG (the same on every rank) seeds this call.
    """
    seed = int(torch.randint(0, 2**62, (1,)))
    devices = [torch.cuda.current_device()] if torch.cuda.is_available() else []
    with torch.random.fork_rng(devices=devices):
        torch.manual_seed(seed + 1_000_003 * rank())
        yield


# Variables torchrun sets; an engine that starts its own distributed workers (vLLM) must not see them.
_TORCHRUN_VARS = ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "GROUP_RANK", "GROUP_WORLD_SIZE",
                  "ROLE_RANK", "ROLE_WORLD_SIZE", "ROLE_NAME", "MASTER_ADDR", "MASTER_PORT")  # fmt: skip


@contextlib.contextmanager
def without_torchrun_env() -> Iterator[None]:
    """Hide torchrun's variables while an engine starts, so its worker processes form their own group."""
    hidden = {
        k: os.environ.pop(k) for k in list(os.environ) if k in _TORCHRUN_VARS or k.startswith("TORCHELASTIC_")
    }
    try:
        yield
    finally:
        os.environ.update(hidden)


def sync_grads(model, *, bucket_mb: float = 256.0) -> None:
    """Sum gradients over ranks in place (bucketed all_reduce); a no-op alone or under FSDP2.

    A parameter without a gradient on every rank keeps `grad=None`, as it would in one process
    (AdamW skips it; a zero gradient would still decay it and move its moments).
    """
    if not is_distributed() or is_fsdp(model):
        return
    params = [p for p in model.parameters() if p.requires_grad]
    dev = _comm_device()
    has = torch.tensor([p.grad is not None for p in params], dtype=torch.float32, device=dev)
    dist.all_reduce(has)
    live = [p for p, h in zip(params, has.tolist(), strict=True) if h > 0]
    for p in live:
        if p.grad is None:
            p.grad = torch.zeros_like(p)
    limit = int(bucket_mb * 2**20)
    bucket: list[torch.Tensor] = []
    size = 0
    for p in live:
        if bucket and (
            size + p.grad.numel() * p.grad.element_size() > limit or p.grad.dtype != bucket[0].dtype
        ):
            _all_reduce_bucket(bucket)
            bucket, size = [], 0
        bucket.append(p.grad)
        size += p.grad.numel() * p.grad.element_size()
    if bucket:
        _all_reduce_bucket(bucket)


def _all_reduce_bucket(grads: list[torch.Tensor]) -> None:
    flat = torch.cat([g.reshape(-1) for g in grads])
    dist.all_reduce(flat)  # SUM
    off = 0
    for g in grads:
        g.copy_(flat[off : off + g.numel()].view_as(g))
        off += g.numel()


# ---------------------------------------------------------------- FSDP2 (GPU)
def is_fsdp(model) -> bool:
    try:
        from torch.distributed.fsdp import FSDPModule
    except ImportError:  # pragma: no cover - very old torch
        return False
    return isinstance(model, FSDPModule)


def shard_model_fsdp2(
    model,
    *,
    param_dtype: torch.dtype | None = None,
    reduce_dtype: torch.dtype | None = torch.float32,
    reshard_after_forward: bool = True,
    device_type: str = "cuda",
):
    """FSDP2 (`fully_shard`) on each decoder layer, then the root; gradients SUMMED over ranks.

    Call after moving the model to its GPU and BEFORE building the optimiser (parameters become
    DTensor shards). `param_dtype=torch.bfloat16` computes in bf16 while keeping fp32 master weights
    and fp32 gradient reduction. The divide factor is set to 1 on every FSDP module because each
    rank's loss is already its share of the globally normalised loss (FSDP2's default averages).
    The tests run it with `device_type="cpu"` on gloo (same parameters as one process); on NCCL it was run
    once by hand, world size 1 on an H200 (bench/results/gpu_check.md: fp32 identical, bf16 within 6.5e-3).
    """
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.fsdp import FSDPModule, MixedPrecisionPolicy, fully_shard

    if not is_distributed():
        raise RuntimeError("FSDP2 needs a process group: launch with torchrun --nproc_per_node N (N > 1)")
    mesh = init_device_mesh(device_type, (world_size(),))
    mp = MixedPrecisionPolicy(param_dtype=param_dtype, reduce_dtype=reduce_dtype)
    layers = _decoder_layers(model)
    for layer in layers:
        fully_shard(layer, mesh=mesh, mp_policy=mp, reshard_after_forward=reshard_after_forward)
    fully_shard(
        model, mesh=mesh, mp_policy=mp, reshard_after_forward=False
    )  # root: backward needs it at once
    for m in model.modules():
        if isinstance(m, FSDPModule):
            m.set_gradient_divide_factor(1.0)
            m.set_force_sum_reduction_for_comms(True)  # plain SUM (gloo has no PREMUL_SUM; NCCL zero-copy)
    model._dapo_reshard_after_forward = reshard_after_forward
    return model


def _decoder_layers(model) -> list[torch.nn.Module]:
    """The transformer blocks of a transformers causal LM (model.model.layers for Qwen2/Llama)."""
    inner = getattr(model, "model", None)
    layers = getattr(inner, "layers", None)
    if layers is None:
        raise ValueError(
            f"{type(model).__name__}: no .model.layers; shard its blocks with fully_shard yourself"
        )
    return list(layers)


@contextlib.contextmanager
def full_params(model) -> Iterator[None]:
    """Under FSDP2, hold the whole model unsharded (generation, scoring); otherwise nothing.

    Each rank then runs forwards without collectives, so ranks may generate different lengths or
    score different numbers of micro-batches without deadlocking. Costs a full copy of the weights
    per GPU for the duration.
    """
    if not is_fsdp(model):
        yield
        return
    from torch.distributed.fsdp import FSDPModule

    mods = [m for m in model.modules() if isinstance(m, FSDPModule)]
    for m in mods:
        m.set_reshard_after_forward(False, recurse=False)
    for m in mods:
        m.unshard()
    try:
        yield
    finally:
        keep = getattr(model, "_dapo_reshard_after_forward", True)
        for m in mods:
            m.reshard()
            m.set_reshard_after_forward(keep if m is not model else False, recurse=False)


def optimizer_state_dict(model, optimizer) -> dict:
    """The optimiser state keyed by parameter name, whole (unsharded): call on EVERY rank under FSDP2.

    Name-keyed full state loads into a run with any world size, with or without FSDP2, so a
    checkpoint written by 8 FSDP ranks resumes in one process and the other way round.
    """
    from torch.distributed.checkpoint.state_dict import StateDictOptions, get_optimizer_state_dict

    opts = StateDictOptions(full_state_dict=True, cpu_offload=is_distributed())
    return get_optimizer_state_dict(model, optimizer, options=opts)


def load_optimizer_state_dict(model, optimizer, state: dict) -> None:
    """Load `optimizer_state_dict`'s output (every rank reads the same file); also plain index-keyed state."""
    if is_fsdp(model):
        from torch.distributed.checkpoint.state_dict import StateDictOptions, set_optimizer_state_dict

        opts = StateDictOptions(full_state_dict=True)
        set_optimizer_state_dict(model, optimizer, optim_state_dict=state, options=opts)
        return
    keys = list(state.get("state", {}))
    if keys and all(isinstance(k, int) for k in keys):  # optimizer.state_dict() of older checkpoints
        optimizer.load_state_dict(state)
        return
    # name-keyed -> the index-keyed form optimizer.load_state_dict expects (params numbered in group order)
    name_of = {id(p): n for n, p in model.named_parameters()}
    index: dict[str, int] = {}
    groups = []
    for saved, group in zip(state["param_groups"], optimizer.param_groups, strict=True):
        start = len(index)
        index.update((name_of[id(p)], start + j) for j, p in enumerate(group["params"]))
        groups.append({**saved, "params": list(range(start, len(index)))})
    unknown = sorted(set(keys) - set(index))
    if unknown:
        raise ValueError(
            f"checkpoint optimizer state names parameters this model lacks ({unknown[:3]}...): "
            "resume with the model the checkpoint was written by"
        )
    optimizer.load_state_dict(
        {"state": {index[n]: v for n, v in state["state"].items()}, "param_groups": groups}
    )


def full_state_dict(model) -> dict[str, torch.Tensor]:
    """The whole model's weights on CPU (rank 0 gets them; call on EVERY rank, it is a collective).

    Plain models return their own state dict. Rank 0 then saves with
    `model.save_pretrained(dir, state_dict=sd)` (weights only: FSDP2 optimiser state is not checkpointed).
    """
    if not is_fsdp(model):
        return model.state_dict()
    from torch.distributed.checkpoint.state_dict import StateDictOptions, get_model_state_dict

    return get_model_state_dict(model, options=StateDictOptions(full_state_dict=True, cpu_offload=True))
