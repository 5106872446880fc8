"""Multi-process training on CPU (gloo): two ranks end a step with the parameters of one process.

The two-rank test launches `torchrun --nproc_per_node 2` on this file (its `__main__` is the
worker). Each rank takes its share of the same batch of a tiny Qwen2 and runs the real
`update.update(...)` (whose `accumulate_grads` back-propagates only the rank's rows and sums the
gradients); the parameters are compared with one process running the same `update(...)` on the
whole batch. SGD, no clipping: Adam and gradient
clipping are invariant to the gradient's scale, so they would hide a world-size factor.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from functools import partial
from pathlib import Path

import pytest
import torch

from trainer import distributed as D
from trainer.config import build_config
from trainer.data import Prompt, PromptSampler
from trainer.rollout import Sample
from trainer.sampling import Group, collect
from trainer.update import score_tokens, update
from verifiers import RewardResult

ROOT = Path(__file__).resolve().parents[2]
VOCAB = 64
CASES = {  # name -> config overrides; 12 responses, 2 mini-batches of 6, micro-batches of 2, 2 epochs
    "dapo": {"preset": "dapo"},
    "dapo_group_norm": {"preset": "dapo", "algo": {"token_norm": "group"}},
    "dapo_batch_norm_kl": {"preset": "dapo", "algo": {"token_norm": "batch", "kl_coef": 0.1}},
    "grpo": {"preset": "grpo"},
    "dr_grpo": {"preset": "dr_grpo"},
    "gspo": {"preset": "gspo"},
    "dcpo": {"preset": "dcpo"},
    "reinforce_pp": {"preset": "reinforce_pp"},  # token-level advantages whitened over the whole batch
    "cispo": {"preset": "cispo"},
    "gmpo": {"preset": "gmpo"},
    "kl_cov": {"preset": "kl_cov", "algo": {"cov_ratio": 0.1}},  # tokens selected once for the whole batch
    # a random fifth of the tokens (band wide open) lose their gradient: the draw must match across ranks
    "clip_cov": {"preset": "clip_cov", "algo": {"cov_ratio": 0.2, "cov_low": -1e9, "cov_high": 1e9}},
    # policy gradient on the top 30% entropy tokens of the whole batch, not of a rank's shard
    "dapo_entropy_top": {"preset": "dapo", "algo": {"entropy_top_quantile": 0.3}},
    "grpo_entropy_top": {"preset": "grpo", "algo": {"entropy_top_quantile": 0.5}},
    # 4 mini-batches of 3 responses, micro-batches of 1: the ranks hold 2 and 1 rows (uneven shards)
    "dapo_uneven": {"preset": "dapo", "train": {"mini_batch_size": 3, "micro_batch_size": 1}},
}
FSDP_CASES = ("dapo", "gspo", "dapo_uneven")


# ---------------------------------------------------------------- shared by the test and the worker
def make_cfg(over: dict):
    algo = {**over.get("algo", {}), "overlong_buffer": 4}
    train = {
        "prompts_per_step": 3,
        "mini_batch_size": 6,
        "micro_batch_size": 2,
        "epochs": 2,
        **over.get("train", {}),
    }
    return build_config(
        {
            **over,
            "algo": algo,
            "rollout": {"n": 4, "max_new_tokens": 16},
            "train": train,
            "optim": {"grad_clip": 1e9},
        }
    )


def make_model():
    from transformers import Qwen2Config, Qwen2ForCausalLM

    cfg = Qwen2Config(
        vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=2,
        num_key_value_heads=1, max_position_embeddings=64, tie_word_embeddings=False, pad_token_id=0,
    )  # fmt: skip
    torch.manual_seed(0)
    return Qwen2ForCausalLM(cfg)


def make_groups(n_groups: int = 3, G: int = 4, seed: int = 0) -> list[Group]:
    """Random prompts/responses of uneven lengths, one truncated response, +1/-1 rewards."""
    g = torch.Generator().manual_seed(seed)
    groups = []
    for k in range(n_groups):
        samples, scores = [], []
        for i in range(G):
            plen, rlen = (
                int(torch.randint(3, 8, (1,), generator=g)),
                int(torch.randint(1, 9, (1,), generator=g)),
            )
            samples.append(Sample(torch.randint(3, VOCAB, (plen,), generator=g).tolist(),
                                  torch.randint(3, VOCAB, (rlen,), generator=g).tolist(), [-1.0] * rlen,
                                  i == G - 1 and k == 0, ""))  # fmt: skip
            r = 1.0 if (i + k) % 3 == 0 else -1.0
            scores.append(RewardResult(r, float(r > 0), None, "", 0.0))
        groups.append(Group(Prompt(f"g{k}", [], "1", ""), samples, scores))
    return groups


def batch_and_inputs(cfg, model):
    """The batch with adv, old, ref: old from the model (row-sharded under torchrun), perturbed so ratios != 1
    and clipping acts."""
    from trainer.advantages import DCPOStats
    from trainer.algorithms import ALGORITHMS, advantages
    from trainer.batch import make_batch
    from trainer.objective import entropy_top_mask

    groups = make_groups()
    batch = make_batch(groups, 0, overlong_filter=True)
    old, ent = score_tokens(model, batch, temperature=1.0, micro=5)
    noise = torch.randn(old.shape, generator=torch.Generator().manual_seed(1))
    old = old - 0.05 * noise
    ref = old + 0.03 * noise if cfg.algo.kl_coef > 0 else None
    adv = advantages(cfg.algo, groups, batch.loss_mask, DCPOStats() if cfg.algo.name == "dcpo" else None)
    batch = batch.with_(adv=adv, old=old, ref=ref)
    select = ALGORITHMS[cfg.algo.name].select
    if select:
        adv_tok = adv if adv.dim() == 2 else adv[:, None].expand_as(batch.loss_mask)
        batch = batch.with_(selected=select(old, adv_tok, batch.loss_mask, cfg.algo, torch.Generator()))
    if cfg.algo.entropy_top_quantile:  # as the loop does: from the pi_old pass's entropy, all rows
        batch = batch.with_(pg_mask=entropy_top_mask(ent, batch.loss_mask, cfg.algo.entropy_top_quantile))
    return batch


def run_update(cfg, *, fsdp: bool = False) -> dict:
    """One rollout batch through the loop's real update(); SGD so a gradient-scale error shows."""
    model = make_model()
    before = {k: v.detach().clone() for k, v in model.named_parameters()}
    batch = batch_and_inputs(cfg, model)
    if fsdp:
        return run_update_fsdp(cfg, model, before, batch)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    torch.manual_seed(123)  # update()'s mini-batch permutation
    stats = update(cfg, model, opt, batch)
    return {
        "params": {k: v.detach().clone() for k, v in model.named_parameters()},
        "delta": max(float((v.detach() - before[k]).abs().max()) for k, v in model.named_parameters()),
        "grads": {k: v.grad.clone() for k, v in model.named_parameters() if v.grad is not None},
        "stats": stats,
        "old": batch.old,
        "selected": batch.selected,
        "pg_mask": batch.pg_mask,
        "mask": batch.loss_mask,
    }


def run_update_fsdp(cfg, model, before, batch) -> dict:
    """The same step with the model under FSDP2 on CPU (gloo): sharded params, reduce-scatter in backward."""
    plain, _ = score_tokens(model, batch, temperature=1.0, micro=5)
    model = D.shard_model_fsdp2(model, device_type="cpu")
    with D.full_params(model):  # uneven generation lengths per rank: no collectives may run inside
        ids = batch.ids[:2, : batch.ids.shape[1] - batch.resp.shape[1]]
        model.generate(input_ids=ids, max_new_tokens=2 + 3 * D.rank(), do_sample=False, pad_token_id=0)
    old_fsdp, _ = score_tokens(model, batch, temperature=1.0, micro=5)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    torch.manual_seed(123)
    stats = update(cfg, model, opt, batch)
    params = D.full_state_dict(model)  # a collective; rank 0 gets the whole model
    return {
        "params": {k: v.clone() for k, v in params.items()},
        "delta": max(float((v - before[k]).abs().max()) for k, v in params.items()) if params else 0.0,
        "stats": stats,
        "old_diff": float((old_fsdp - plain).abs().max()),
    }


class FakeEngine:
    """Deterministic responses per prompt, but draws from the global RNG unevenly (as sampling does)."""

    pad_id = 0

    def __init__(self) -> None:
        self.seen: list[int] = []

    def sync_weights(self, model) -> None:
        pass

    def generate(self, prompt_ids, *, n, max_new_tokens, temperature, top_p):
        torch.rand(7 * len(prompt_ids) + 1)
        self.seen.extend(p[0] for p in prompt_ids)
        return [
            [
                Sample(list(p), [3 + (sum(p) + i) % 5, 1], [-0.5, -0.1], False, str((sum(p) + i) % 3))
                for i in range(n)
            ]
            for p in prompt_ids
        ]


def fake_score(samples, gold, question=None):
    return [
        RewardResult(1.0 if s.text == gold else -1.0, float(s.text == gold), s.text, "", 0.0) for s in samples
    ]


def fake_prompts(n: int = 20) -> list[Prompt]:
    """Gold i % 4: prompts with gold "3" never match (all -1: filtered by dynamic sampling)."""
    return [Prompt(f"p{i}", [i + 5, i + 6], str(i % 4), "") for i in range(n)]


def run_collect(engine) -> tuple[dict, PromptSampler]:
    sampler = PromptSampler(20, seed=7)
    rb = collect(
        engine, fake_prompts(), sampler, fake_score, target=5, gen_prompts=3, dynamic=True, max_gen_batches=10,
        n=4, max_new_tokens=4, temperature=1.0, top_p=1.0,
    )  # fmt: skip
    summary = {
        "groups": [(g.prompt.key, g.rewards, [s.response_ids for s in g.samples]) for g in rb.groups],
        "generated": [g.prompt.key for g in rb.generated],
        "gen_batches": rb.gen_batches,
        "filtered": rb.filtered,
        "sampler": sampler.state_dict(),
    }
    return summary, sampler


# ---------------------------------------------------------------- the worker (one per rank)
def _forked_child(q) -> None:
    """In a process forked from a rank: what it sees of the group before and after become_process_local."""
    before = D.is_distributed()
    D.become_process_local()
    eng = FakeEngine()
    summary, _ = run_collect(eng)
    D.cleanup()  # a no-op here: the parent's group is not this process's to destroy
    q.put({"before": before, "after": (D.is_distributed(), D.rank(), D.world_size(), D.is_main()),
           "collect": summary, "seen": eng.seen})  # fmt: skip


def worker(out: Path) -> None:
    torch.set_num_threads(1)
    env = D.init_distributed()
    assert (env.world_size, env.backend) == (2, "gloo") and D.is_distributed()
    r = env.rank
    res: dict = {"rank": r, "is_main": D.is_main()}

    # gathering: rank-sharded groups come back whole and in order
    groups = make_groups(5, 4, seed=3)
    mine = D.shard(groups)
    res["shard_keys"] = [g.prompt.key for g in mine]
    res["gathered_keys"] = [g.prompt.key for g in D.gather_shards(mine)]
    x = torch.arange(35.0).reshape(7, 5)
    res["rows_ok"] = torch.equal(D.gather_rows(x[list(D.shard_range(7))], 7), x)
    res["stats"] = D.all_reduce_stats({"a": 1.0 + r, "b": 0.5})
    lin = torch.nn.Linear(3, 2)
    with torch.no_grad():
        lin.weight.fill_(float(r))
    D.broadcast_params(lin)
    res["broadcast"] = float(lin.weight.abs().sum())  # rank 0's zeros everywhere

    # dynamic sampling over sharded generation (train() seeds every rank alike, as here)
    torch.manual_seed(0)
    eng = FakeEngine()
    res["collect"], _ = run_collect(eng)
    res["seen"] = eng.seen
    D.check_same(torch.get_rng_state().double(), "the global RNG after collect")  # raises if not

    # a child forked from the rank (the async rollout producer) inherits the group: after
    # become_process_local it is one process, and collect samples the whole batch there without collectives
    ctx = torch.multiprocessing.get_context("fork")
    q = ctx.Queue()
    child = ctx.Process(target=_forked_child, args=(q,))
    child.start()
    res["child"] = q.get(timeout=300)
    child.join(timeout=60)
    res["child_exit"] = child.exitcode
    res["still_distributed"] = D.is_distributed()
    D.barrier()  # the parent's group still works after its child left

    # the update, through update.update (each rank back-propagates its rows of every mini-batch)
    res["updates"] = {name: run_update(make_cfg(over)) for name, over in CASES.items()}
    res["fsdp"] = {name: run_update(make_cfg(CASES[name]), fsdp=True) for name in FSDP_CASES}
    D.barrier()
    torch.save(res, out / f"rank{r}.pt")
    D.cleanup()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# one torchrun's limit; a test's own pytest timeout is the sum of its runs' (the suite's 300 s cap would cut
# a loaded machine's runs short of the limit they were given)
TORCHRUN_TIMEOUT_S = 600


def _torchrun(*args: str) -> None:
    """Run this file under torchrun --nproc_per_node 2 on loopback (gloo) with `args`; assert it succeeds."""
    env = {k: v for k, v in os.environ.items() if k not in ("RANK", "WORLD_SIZE", "LOCAL_RANK")}
    env.update(PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1", TOKENIZERS_PARALLELISM="false")
    if sys.platform.startswith("linux"):
        env.setdefault("GLOO_SOCKET_IFNAME", "lo")
    cmd = [sys.executable, "-m", "torch.distributed.run", "--nnodes", "1", "--nproc_per_node", "2",
           "--master_addr", "127.0.0.1", "--master_port", str(_free_port()), __file__, *args]  # fmt: skip
    proc = subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, text=True, timeout=TORCHRUN_TIMEOUT_S)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-6000:]


# ---------------------------------------------------------------- tests
def test_shard_range_covers_in_order():
    for n in range(0, 12):
        for w in (1, 2, 3, 5):
            parts = [list(D.shard_range(n, r, w)) for r in range(w)]
            assert [i for p in parts for i in p] == list(range(n))
            assert max(map(len, parts)) - min(map(len, parts)) <= 1


def test_single_process_fallback(monkeypatch):
    """Without torchrun everything is the plain single-process behaviour."""
    for k in ("WORLD_SIZE", "RANK", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT"):
        monkeypatch.delenv(k, raising=False)
    env = D.init_distributed()
    assert (env.rank, env.world_size, env.backend) == (0, 1, None)
    assert not D.is_distributed() and D.is_main() and D.rank() == 0 and D.world_size() == 1
    D.barrier()
    assert D.shard([1, 2, 3]) == [1, 2, 3] and D.gather_shards([1, 2]) == [1, 2]
    x = torch.ones(3, 2)
    assert D.gather_rows(x, 3) is x and D.all_reduce_stats({"a": 2.0}) == {"a": 2.0}
    D.broadcast_params(torch.nn.Linear(2, 2))
    D.sync_grads(torch.nn.Linear(2, 2))
    with D.full_params(torch.nn.Linear(2, 2)):
        pass
    assert not D.is_fsdp(torch.nn.Linear(2, 2))

    # one process: collect draws exactly what the sampler hands out, generation batch by generation batch
    got, _ = run_collect(FakeEngine())
    assert got["gen_batches"] > 1 and got["filtered"] > 0 and len(got["generated"]) == 3 * got["gen_batches"]
    D.cleanup()


def test_cleanup_leaves_the_group_only_after_a_clean_run():
    """cleanup() destroys the group; cleanup(ok=False) (after an error: peers may sit in a collective that
    destroying would deadlock) leaves it for the launcher."""
    import torch.distributed as dist

    dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    try:
        D.cleanup(ok=False)
        assert dist.is_initialized()
        D.cleanup()
        assert not dist.is_initialized()
    finally:
        if dist.is_initialized():
            dist.destroy_process_group()


def test_init_without_torchrun_vars_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("WORLD_SIZE", "2")
    monkeypatch.delenv("MASTER_ADDR", raising=False)
    monkeypatch.delenv("RANK", raising=False)
    with pytest.raises(RuntimeError, match="torchrun"):
        D.init_distributed()


@pytest.mark.slow
@pytest.mark.timeout(TORCHRUN_TIMEOUT_S + 60)
def test_two_cpu_processes_equal_one_process(tmp_path):
    """torchrun --nproc_per_node 2 (gloo, loopback): same parameters, grads and stats as one process."""
    _torchrun(str(tmp_path))
    ranks = [torch.load(tmp_path / f"rank{r}.pt", weights_only=False) for r in (0, 1)]
    assert [r["is_main"] for r in ranks] == [True, False]

    # group gathering: each rank its contiguous slice, reassembled in order on both
    assert [r["shard_keys"] for r in ranks] == [["g0", "g1", "g2"], ["g3", "g4"]]
    assert all(r["gathered_keys"] == [f"g{i}" for i in range(5)] and r["rows_ok"] for r in ranks)
    assert all(r["stats"] == {"a": 3.0, "b": 1.0} and r["broadcast"] == 0.0 for r in ranks)

    # dynamic sampling: both ranks keep exactly the groups one process keeps, each generated only its share
    single, _ = run_collect(FakeEngine())
    for r in ranks:
        assert r["collect"] == single
    seen0, seen1 = (set(r["seen"]) for r in ranks)
    assert not seen0 & seen1 and len(seen0) + len(seen1) == len(single["generated"])
    for r in ranks:  # a forked child of each rank samples the whole batch alone, as one process does
        c = r["child"]
        assert c["before"] and c["after"] == (False, 0, 1, True) and c["collect"] == single
        assert len(c["seen"]) == len(single["generated"])
        assert r["child_exit"] == 0 and r["still_distributed"]

    # the update: both ranks equal one process on the whole batch
    torch.set_num_threads(1)
    for name, over in CASES.items():
        ref = run_update(make_cfg(over))
        assert ref["delta"] > 1e-3, name  # the step moved the weights: equality below means something
        for key in ("selected", "pg_mask"):  # a selection that is all or nothing would test nothing
            if ref[key] is not None:
                share = float((ref[key].float() * ref["mask"]).sum() / ref["mask"].sum())
                assert 0.05 < share < 0.95, (name, key, share)
        for r in ranks:
            got = r["updates"][name]
            assert torch.allclose(got["old"], ref["old"], atol=1e-6), name
            for key in ("selected", "pg_mask"):  # the same tokens treated apart on every rank
                assert (got[key] is None) == (ref[key] is None) and (
                    got[key] is None or torch.equal(got[key], ref[key])
                ), (name, key)
            for k, v in ref["params"].items():
                assert torch.allclose(got["params"][k], v, atol=1e-6, rtol=1e-5), (name, k)
            for k, v in ref["grads"].items():
                assert torch.allclose(got["grads"][k], v, atol=1e-6, rtol=1e-5), (name, k)
            assert got["stats"] == pytest.approx(ref["stats"], rel=1e-5, abs=1e-6), name
        for k, v in ranks[0]["updates"][name]["params"].items():  # the ranks never drift apart
            assert torch.equal(v, ranks[1]["updates"][name]["params"][k]), (name, k)

        # FSDP2 on CPU (gloo): same step; rank 0 holds the gathered full state dict
        if name in FSDP_CASES:
            got = ranks[0]["fsdp"][name]
            assert all(r["fsdp"][name]["old_diff"] < 1e-6 for r in ranks), name
            assert got["params"].keys() == ref["params"].keys()
            for k, v in ref["params"].items():
                assert torch.allclose(got["params"][k], v, atol=1e-6, rtol=1e-5), ("fsdp", name, k)
            assert got["stats"] == pytest.approx(ref["stats"], rel=1e-5, abs=1e-6), name


# ---------------------------------------------------------------- a whole train() step under torchrun
def train_worker(out: Path, config: Path, *extra: str) -> None:
    """One rank of `dapo train` (the trainer's CLI app); records its parameters after each update."""
    from trainer import loop
    from trainer.__main__ import app

    torch.set_num_threads(1)
    orig = loop.update

    def recording_update(cfg, model, *a, **k):
        st = orig(cfg, model, *a, **k)
        rank = int(os.environ["RANK"])
        if not D.is_fsdp(model):  # FSDP2 parameters are shards; those runs compare checkpoints instead
            torch.save({n: p.detach().clone() for n, p in model.named_parameters()}, out / f"params{rank}.pt")
        return st

    loop.update = recording_update
    if extra[:1] == ("--max-steps",):  # stop early as a killed run would (train(max_steps=...); no CLI flag)
        loop.train = partial(loop.train, max_steps=int(extra[1]))
        extra = extra[2:]
    code = app(["train", str(config), "--no-progress", *extra], standalone_mode=False)
    if code:  # standalone_mode=False returns a typer.Exit's code instead of exiting with it
        raise SystemExit(code)


def _torchrun_train(tmp_path: Path, name: str, cfg: dict, *extra: str) -> Path:
    """`dapo train` (the trainer's CLI app) under torchrun --nproc_per_node 2 on loopback; returns the run dir."""
    import yaml

    work = tmp_path / name
    work.mkdir(exist_ok=True)
    (work / "run.yaml").write_text(yaml.safe_dump(cfg))
    _torchrun("train", str(work), str(work / "run.yaml"), *extra)
    return Path(cfg["train"]["out"])


def _train_cfg(sft: Path, data: str, out: Path, **train) -> dict:
    return {
        "preset": "dapo",
        "model": {"path": str(sft)},
        "data": {"train": data, "max_prompt_len": 256},
        "rollout": {"n": 4, "max_new_tokens": 16},
        # the toy policy is rarely right: its groups differ by overlong penalty, so filter on reward
        # (a file changing a preset's key marks it: algo.override)
        "algo": {"overlong_buffer": 4, "dynamic_sampling": True, "max_gen_batches": 8, "filter_metric": "reward",
                 "override": ["filter_metric"]},
        "optim": {"lr": 1e-3, "warmup_steps": 1},
        "train": {"steps": 1, "prompts_per_step": 3, "gen_prompts": 5, "mini_batch_size": 6, "micro_batch_size": 2,
                  "epochs": 2, "out": str(out), "tensorboard": False, **train},
    }  # fmt: skip


@pytest.mark.slow
@pytest.mark.timeout(TORCHRUN_TIMEOUT_S + 60)
def test_train_under_torchrun_two_ranks(tmp_path, sft_dir, toy_verl):
    """torchrun --nproc_per_node 2 runs one real train() step (dynamic sampling included) through the CLI;
    both ranks end with the weights rank 0 wrote to the checkpoint."""
    import json

    from safetensors.torch import load_file

    from trainer.model import load_model

    model = load_model(sft_dir[0])
    run = _torchrun_train(tmp_path, "plain", _train_cfg(sft_dir[0], toy_verl, tmp_path / "run"))
    assert (run / "checkpoints/latest").read_text() == "step-000001"
    rows = [json.loads(x) for x in (run / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in rows] == [1]  # rank 0 alone logs
    assert rows[0]["updates"] == 4 and rows[0]["entropy"] is not None and rows[0]["grad_norm"] > 0
    saved = load_file(str(run / "checkpoints/step-000001/model.safetensors"))
    p0, p1 = (torch.load(tmp_path / "plain" / f"params{r}.pt") for r in (0, 1))
    start = dict(model.named_parameters())
    assert any(not torch.equal(p0[k], start[k].detach()) for k in p0)  # the step moved the weights
    for k in p0:
        assert torch.equal(p0[k], p1[k]), k  # the ranks never drift apart
        if k in saved:  # tied embeddings are saved once
            assert torch.equal(saved[k], p0[k]), k


@pytest.mark.slow
@pytest.mark.timeout(3 * TORCHRUN_TIMEOUT_S + 60)
def test_train_fsdp2_equals_replicated_and_resumes_across_layouts(tmp_path, sft_dir, toy_verl):
    """train.fsdp: true (FSDP2 on CPU/gloo, 2 ranks) ends two steps with the replicated run's weights, optimiser
    state and metrics; and the replicated run's step-1 checkpoint resumes under FSDP2 to the same step 2."""
    import json
    import shutil

    from safetensors.torch import load_file

    def final(run: Path, step: int = 2) -> tuple[dict, dict, list]:
        ck = run / f"checkpoints/step-{step:06d}"
        rows = [json.loads(x) for x in (run / "metrics.jsonl").read_text().splitlines()]
        return load_file(str(ck / "model.safetensors")), torch.load(ck / "optimizer.pt"), rows

    def same(a: dict, b: dict, what: str) -> None:
        assert a.keys() == b.keys(), what
        for k in a:
            assert torch.allclose(a[k], b[k], atol=1e-6, rtol=1e-5), (what, k)

    plain = _torchrun_train(
        tmp_path, "plain", _train_cfg(sft_dir[0], toy_verl, tmp_path / "plain_run", steps=2)
    )
    fsdp = _torchrun_train(
        tmp_path, "fsdp", _train_cfg(sft_dir[0], toy_verl, tmp_path / "fsdp_run", steps=2, fsdp=True)
    )
    w_p, o_p, rows_p = final(plain)
    w_f, o_f, rows_f = final(fsdp)
    same(w_p, w_f, "weights")
    assert o_p["state"].keys() == o_f["state"].keys() and all(isinstance(k, str) for k in o_p["state"])
    for k in o_p["state"]:  # AdamW moments, keyed by parameter name in both layouts
        same({n: v for n, v in o_p["state"][k].items() if n != "step"},
             {n: v for n, v in o_f["state"][k].items() if n != "step"}, f"optimizer {k}")  # fmt: skip
    for a, b in zip(rows_p, rows_f, strict=True):
        assert a["acc"] == b["acc"] and a["gen_batches"] == b["gen_batches"]  # the same rollouts
        assert a["loss"] == pytest.approx(b["loss"], rel=1e-4, abs=1e-6)

    # the replicated run's step-1 checkpoint, resumed under FSDP2 (weights + name-keyed AdamW state + RNG)
    resumed_out = tmp_path / "resumed_run"
    shutil.copytree(plain / "checkpoints" / "step-000001", resumed_out / "checkpoints" / "step-000001")
    (resumed_out / "checkpoints" / "latest").write_text("step-000001")
    shutil.copy(plain / "config.yaml", resumed_out / "config.yaml")  # a run directory remembers its config
    cfg = _train_cfg(sft_dir[0], toy_verl, resumed_out, steps=2, fsdp=True)
    _torchrun_train(tmp_path, "resumed", cfg, "--resume")
    w_r, _, rows_r = final(resumed_out)
    same(w_p, w_r, "resumed weights")
    assert [r["step"] for r in rows_r] == [2]


# ---------------------------------------------------------------- async rollouts under torchrun
ASYNC_TIMING = ("step_time", "gen_time", "tokens_per_s", "producer_gen_time")  # wall clock: differs by run


def _async_cfg(sft: Path, data: str, out: Path, **train) -> dict:
    """Two-rank-sized dapo with a producer one version behind (max_staleness 1), keep-surplus and TIS."""
    cfg = _train_cfg(sft, data, out, steps=4, max_staleness=1, rollout_threads=1, threads=1, **train)
    cfg["algo"].update(tis_cap=2.0, keep_surplus=True, on_max_gen_batches="train")
    return cfg


@pytest.mark.slow
@pytest.mark.timeout(3 * TORCHRUN_TIMEOUT_S + 60)
def test_async_under_torchrun_equals_one_process_and_resumes_exactly(tmp_path, sft_dir, toy_verl):
    """train.max_staleness 1 under torchrun (2 gloo ranks; rank 0's producer samples, every rank gets its batch):
    (1) four steps end with the one-process async run's weights, rollouts and metrics; (2) a 2-rank run
    stopped after step 2 (its step-3 batch in flight, in the checkpoint) and resumed to step 4 ends bit for
    bit where the uninterrupted 2-rank run does."""
    import json

    from safetensors.torch import load_file

    from trainer.config import build_config
    from trainer.loop import train
    from trainer.model import load_model

    def result(run: Path) -> tuple[dict, list, list]:
        rows = [json.loads(x) for x in (run / "metrics.jsonl").read_text().splitlines()]
        rolls = [json.loads(x) for x in (run / "rollouts.jsonl").read_text().splitlines()]
        return load_file(str(run / "checkpoints/step-000004/model.safetensors")), rows, rolls

    two = _torchrun_train(tmp_path, "two", _async_cfg(sft_dir[0], toy_verl, tmp_path / "two_run"))
    one = train(build_config(_async_cfg(sft_dir[0], toy_verl, tmp_path / "one_run")), progress=False)
    w2, rows2, rolls2 = result(two)
    w1, rows1, rolls1 = result(one)

    # (1) the same samples, token for token (the producer ran on weights equal up to float rounding), and
    # the same learning up to the rounding of a different summation order, compounded over four AdamW
    # steps (measured: weights 7e-7 apart after step 3, 1.8e-6 after step 4; metrics within rel 1.1e-4, the
    # largest where a token's ratio crosses a clip or TIS bound). Training on other samples, or sampling
    # with other weights, moves the weights by ~lr = 1e-3 and changes the rollouts.
    assert [r["step"] for r in rows2] == [1, 2, 3, 4]
    assert rolls2 == rolls1
    assert [r["staleness_max"] for r in rows2] == [0, 1, 1, 1]  # step 1 trains on version 0's batch
    start = dict(load_model(sft_dir[0]).named_parameters())
    assert max(float((w2[k] - start[k].detach()).abs().max()) for k in w2) > 1e-3  # the run moved the weights
    assert w2.keys() == w1.keys()
    for k in w1:
        assert torch.allclose(w2[k], w1[k], atol=1e-5, rtol=1e-5), k
    for a, b in zip(rows2, rows1, strict=True):
        assert a.keys() == b.keys()
        for key in a.keys() - set(ASYNC_TIMING):
            assert a[key] == pytest.approx(b[key], rel=1e-3, abs=1e-6, nan_ok=True), (a["step"], key)

    # (2) stopped after step 2 with the step-3 batch in flight, resumed under torchrun: bitwise the same
    cfg = _async_cfg(sft_dir[0], toy_verl, tmp_path / "resumed_run")
    resumed = _torchrun_train(tmp_path, "first_half", cfg, "--max-steps", "2")
    state = json.loads((resumed / "checkpoints/step-000002/trainer_state.json").read_text())
    assert [(d["step"], d["version"]) for d in state["inflight"]] == [(2, 1)]
    _torchrun_train(tmp_path, "second_half", cfg, "--resume")
    wr, rows_r, rolls_r = result(resumed)
    assert rolls_r == rolls2 and [r["step"] for r in rows_r] == [1, 2, 3, 4]
    for a, b in zip(rows_r, rows2, strict=True):
        assert {k: v for k, v in a.items() if k not in ASYNC_TIMING} == {
            k: v for k, v in b.items() if k not in ASYNC_TIMING
        }, a["step"]
    for k in w2:
        assert torch.equal(wr[k], w2[k]), k


if __name__ == "__main__":  # torchrun entry point of the two-process tests
    if sys.argv[1] == "train":
        train_worker(Path(sys.argv[2]), Path(sys.argv[3]), *sys.argv[4:])
    else:
        worker(Path(sys.argv[1]))
