"""One short GPU check of the trainer: env, CPU/CUDA loss parity, end-to-end RL, FSDP2/NCCL, throughput.

    python3 bench/gpu_check.py --out OUT                  # on a CUDA machine (bench/gpu_check.sh)
    python3 bench/gpu_check.py --out /tmp/o --device cpu  # rehearsal on a CPU machine (CUDA parts skipped)

Each section is wrapped: a failure is recorded and the next section still runs. Each prints one
summary line and is written to OUT/gpu_check.json (temp file + rename after every section, so a
timeout keeps the earlier results). Scratch files go to a temp directory outside OUT.

`import trainer` probes (find_spec) the [data] extra's duckdb, datasets and datasketch, which the
training path never imports; when they are absent (the GPU machine) empty stub packages that raise
ImportError on import are put on the path, for this process and its subprocesses.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# bench/ holds trainer.py, verifiers.py ...: the script's own folder must not shadow the packages
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))

TEMPLATE = (
    "Solve the following math problem step by step. The last line of your response should be of the form "
    "Answer: $Answer (without quotes) where $Answer is the answer to the problem.\n\n{problem}\n\n"
    'Remember to put your answer on its own line after "Answer:".'
)
TINY = {"hidden_size": 64, "num_layers": 2, "num_heads": 2, "num_kv_heads": 1, "intermediate_size": 128,
        "vocab_size": 300}  # fmt: skip
QWEN05 = {"hidden_size": 896, "num_hidden_layers": 24, "num_attention_heads": 14, "num_key_value_heads": 2,
          "intermediate_size": 4864, "vocab_size": 151936}  # fmt: skip
STUBBED = ("duckdb", "datasets", "datasketch")
T_START = time.monotonic()


# ---------------------------------------------------------------- plumbing
def stub_unused_extras(work: Path) -> list[str]:
    import importlib.util

    missing = [m for m in STUBBED if importlib.util.find_spec(m) is None]
    if missing:
        d = work / "stubs"
        for m in missing:
            (d / m).mkdir(parents=True, exist_ok=True)
            (d / m / "__init__.py").write_text(
                f"raise ImportError('{m}: a stub (bench/gpu_check.py) for dapo_extras find_spec; not installed')\n"
            )
        sys.path.insert(0, str(d))
        os.environ["PYTHONPATH"] = os.pathsep.join([str(d), os.environ.get("PYTHONPATH", "")]).rstrip(
            os.pathsep
        )
        importlib.invalidate_caches()
    return missing


def sub_env(**extra) -> dict:
    env = dict(os.environ)
    pp = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    if str(ROOT) not in pp:
        pp.append(str(ROOT))
    env["PYTHONPATH"] = os.pathsep.join(pp)
    env["PYTHONUNBUFFERED"] = "1"
    env.update({k: str(v) for k, v in extra.items()})
    return env


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_cmd(cmd: list[str], timeout: float, env: dict | None = None, cwd: Path | None = None) -> dict:
    """Run a subprocess (own session, killed as a group on timeout); rc, seconds and the output's tail."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env or sub_env(),
                         cwd=str(cwd or ROOT), start_new_session=True)  # fmt: skip
    timed_out = False
    try:
        out, _ = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        import signal

        with contextlib.suppress(ProcessLookupError):
            os.killpg(p.pid, signal.SIGKILL)
        out, _ = p.communicate()
    lines = (out or "").splitlines()
    return {"rc": p.returncode, "timed_out": timed_out, "seconds": round(time.perf_counter() - t0, 2),
            "tail": lines[-25:]}  # fmt: skip


class Report:
    def __init__(self, out: Path, budget: float) -> None:
        self.path = out / "gpu_check.json"
        self.data: dict = {"started": time.strftime("%Y-%m-%d %H:%M:%S"), "sections": {}}
        self.deadline = T_START + budget
        self.save()

    def left(self) -> float:
        return self.deadline - time.monotonic()

    def save(self) -> None:
        self.data["elapsed_s"] = round(time.monotonic() - T_START, 1)
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.write_text(json.dumps(self.data, indent=1, default=str))
        os.replace(tmp, self.path)

    def section(self, name: str, fn, *args, need_s: float = 0.0) -> None:
        t0 = time.perf_counter()
        if self.left() < need_s:
            res = {"status": f"skipped: {self.left():.0f} s left of the budget, needs ~{need_s:.0f} s"}
            summary = res["status"]
        else:
            try:
                res = fn(*args)
                summary = res.pop("summary", "ok")
                res.setdefault("status", "ok")
            except Exception as e:  # noqa: BLE001 - record and go on
                res = {"status": "error", "error": f"{type(e).__name__}: {e}",
                       "traceback": traceback.format_exc().splitlines()[-15:]}  # fmt: skip
                summary = f"ERROR {type(e).__name__}: {str(e)[:300]}"
        res["seconds"] = round(time.perf_counter() - t0, 2)
        self.data["sections"][name] = res
        self.save()
        print(f"[{name}] ({res['seconds']:.1f}s) {summary}", flush=True)


# ---------------------------------------------------------------- toy data and models
def toy_problems(n: int, seed: int = 0, hi: int = 20) -> list[dict]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        a, b = rng.randint(1, hi), rng.randint(1, hi)
        out.append({"id": f"toy-{seed}-{i}", "problem": f"What is {a} + {b}?",
                    "solution": f"{a} + {b} = {a + b}.\nAnswer: {a + b}", "answer": str(a + b)})  # fmt: skip
    return out


def write_verl(path: Path, problems: list[dict]) -> str:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = [
        {"data_source": "toy", "prompt": [{"role": "user", "content": TEMPLATE.format(problem=p["problem"])}],
         "ability": "math", "reward_model": {"style": "rule", "ground_truth": p["answer"]},
         "extra_info": {"index": i, "id": p["id"], "source": "toy", "raw_problem": p["problem"], "split": "train"}}
        for i, p in enumerate(problems)
    ]  # fmt: skip
    pq.write_table(pa.Table.from_pylist(rows), path)
    return str(path)


def tiny_policy():
    from trainer.config import TinyModelConfig
    from trainer.model import tiny_model, train_tokenizer

    probs = toy_problems(64)
    texts = [TEMPLATE.format(problem=p["problem"]) for p in probs] + [p["solution"] for p in probs]
    tok = train_tokenizer(texts, TINY["vocab_size"])
    return tiny_model(TinyModelConfig(**TINY), tok, seed=0), tok


def random_groups(n_groups: int, G: int, vocab: int, seed: int = 0):
    """As tests/trainer/test_loop.py: random prompts/responses, one truncated response, rewards +-1."""
    import torch

    from trainer.data import Prompt
    from trainer.rollout import Sample
    from trainer.sampling import Group
    from verifiers import RewardResult

    g = torch.Generator().manual_seed(seed)
    groups = []
    for k in range(n_groups):
        samples, scores = [], []
        for i in range(G):
            plen, rlen = (
                int(torch.randint(3, 8, (1,), generator=g)),
                int(torch.randint(1, 9, (1,), generator=g)),
            )
            samples.append(Sample(torch.randint(3, vocab, (plen,), generator=g).tolist(),
                                  torch.randint(3, vocab, (rlen,), generator=g).tolist(), [-1.0] * rlen,
                                  i == G - 1 and k == 0, ""))  # fmt: skip
            r = float(i % 2) * 2 - 1
            scores.append(RewardResult(r, float(r > 0), None, "", 0.0))
        groups.append(Group(Prompt(str(k), [], "1", ""), samples, scores))
    return groups


def preset_batch(preset: str, model, tok, groups, n: int, max_new: int):
    """(cfg, Batch with adv/old/ref/selected) for one preset, built on CPU as test_loop does."""
    import torch

    from trainer.algorithms import ALGORITHMS, advantages
    from trainer.batch import make_batch
    from trainer.config import build_config
    from trainer.update import score_tokens

    algo_over = {"overlong_buffer": 4}
    if preset == "clip_cov":
        algo_over.update(cov_ratio=0.2, cov_low=-5.0)
    if preset == "kl_cov":
        algo_over.update(cov_ratio=0.2)
    cfg = build_config({"preset": preset, "rollout": {"n": n, "max_new_tokens": max_new}, "algo": algo_over,
                        "train": {"prompts_per_step": len(groups)}})  # fmt: skip
    batch = make_batch(groups, tok.pad_token_id, overlong_filter=True)
    old, _ = score_tokens(model, batch, temperature=1.0, micro=len(batch))
    old = old - 0.05 * torch.randn(old.shape, generator=torch.Generator().manual_seed(1))
    algo = ALGORITHMS[cfg.algo.name]
    adv = advantages(cfg.algo, groups, batch.loss_mask, algo.state() if algo.state else None)
    ref = old + 0.1 if cfg.algo.kl_coef else None
    batch = batch.with_(adv=adv, old=old, ref=ref)
    if algo.select:
        adv_tok = adv if adv.dim() == 2 else adv[:, None].expand_as(batch.loss_mask)
        batch = batch.with_(selected=algo.select(old, adv_tok, batch.loss_mask, cfg.algo, torch.Generator()))
    return cfg, batch


def loss_and_grads(cfg, model, batch, micro: int, autocast=None):
    import contextlib

    import torch

    from trainer.update import accumulate_grads

    model.zero_grad(set_to_none=True)
    ctx = torch.autocast(autocast[0], dtype=autocast[1]) if autocast else contextlib.nullcontext()
    with ctx:
        st = accumulate_grads(cfg, model, batch, batch, 1, micro)
    grads = {
        n: (p.grad.detach().float().cpu().clone() if p.grad is not None else None)
        for n, p in model.named_parameters()
    }
    return st["loss"], grads


def grad_diff(ga: dict, gb: dict) -> dict:
    import torch

    num = den = 0.0
    na = nb = 0.0
    mx = 0.0
    worst = None
    for k, a in ga.items():
        b = gb.get(k)
        if a is None or b is None:
            if (a is None) != (b is None):
                return {"error": f"grad None on one side only: {k}"}
            continue
        d = (a - b).abs()
        m = float(d.max()) if d.numel() else 0.0
        if m > mx:
            mx, worst = m, k
        num += float((d**2).sum())
        den += float((a**2).sum())
        na += float((a**2).sum())
        nb += float((b**2).sum())
    gn_a, gn_b = na**0.5, nb**0.5
    return {"grad_norm_ref": gn_a, "grad_norm_other": gn_b,
            "rel_grad_norm_diff": abs(gn_a - gn_b) / max(gn_a, 1e-30),
            "rel_grad_l2_err": (num**0.5) / max(den**0.5, 1e-30), "max_abs_grad_diff": mx, "worst_param": worst,
            "finite": bool(all(torch.isfinite(v).all() for v in gb.values() if v is not None))}  # fmt: skip


# ---------------------------------------------------------------- a. env
def sec_env(args) -> dict:
    import torch
    import transformers

    res = {"python": sys.version.split()[0], "torch": torch.__version__, "torch_cuda": torch.version.cuda,
           "transformers": transformers.__version__, "cuda_available": torch.cuda.is_available(),
           "stubbed_modules": args.stubbed, "cpu_count": os.cpu_count(), "torch_threads": torch.get_num_threads()}  # fmt: skip
    if torch.cuda.is_available():
        p = torch.cuda.get_device_properties(0)
        res.update(gpu=torch.cuda.get_device_name(0), gpu_count=torch.cuda.device_count(),
                   gpu_mem_gib=round(p.total_memory / 2**30, 1), capability=f"{p.major}.{p.minor}",
                   cudnn=torch.backends.cudnn.version(), bf16_supported=torch.cuda.is_bf16_supported())  # fmt: skip
        try:
            res["nccl"] = ".".join(map(str, torch.cuda.nccl.version()))
        except Exception as e:  # noqa: BLE001
            res["nccl"] = f"error: {e}"
    for mod in ("pydantic", "math_verify", "numpy", "pyarrow", "accelerate"):
        try:
            res[mod] = __import__(mod).__version__
        except Exception as e:  # noqa: BLE001
            res[mod] = f"error: {e}"
    res["summary"] = (f"torch {res['torch']} cuda {res['torch_cuda']} gpu {res.get('gpu', '-')} "
                      f"nccl {res.get('nccl', '-')} transformers {res['transformers']} stubs {args.stubbed}")  # fmt: skip
    return res


# ---------------------------------------------------------------- b. parity
def set_fp32_exact() -> dict:
    import torch

    info = {}
    try:
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        torch.set_float32_matmul_precision("highest")
        info["allow_tf32"] = [torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32]
    except Exception as e:  # noqa: BLE001
        info["tf32_flags_error"] = repr(e)
    return info


def sec_parity(args) -> dict:
    import torch

    from trainer.algorithms import ALGORITHMS

    cuda = args.cuda
    res: dict = {"tf32": set_fp32_exact() if cuda else None}
    dev = "cuda" if cuda else "cpu"
    model_cpu, tok = tiny_policy()
    model_cpu.train()
    model_dev = copy.deepcopy(model_cpu).to(dev)
    groups = random_groups(3, 4, len(tok))
    presets = [n for n, a in ALGORITHMS.items() if not a.critic]
    rows, worst = {}, (0.0, None)
    for p in presets:
        try:
            cfg, b = preset_batch(p, model_cpu, tok, groups, 4, 16)
            l_cpu, g_cpu = loss_and_grads(cfg, model_cpu, b, 12)
            l_dev, g_dev = loss_and_grads(cfg, model_dev, b.to(dev), 12)
            r = {
                "loss_cpu": l_cpu,
                "loss_dev": l_dev,
                "abs_dloss": abs(l_cpu - l_dev),
                **grad_diff(g_cpu, g_dev),
            }
            if cuda and args.bf16:
                # the trainer's bf16 mode is model.dtype=bfloat16 (weights in bf16, no autocast); also autocast
                mb = copy.deepcopy(model_cpu).to(dev, torch.bfloat16)
                l_b, g_b = loss_and_grads(cfg, mb, b.to(dev), 12)
                gd = grad_diff(g_cpu, g_b)
                r["bf16_weights"] = {"abs_dloss": abs(l_cpu - l_b), "rel_grad_l2_err": gd.get("rel_grad_l2_err"),
                                     "max_abs_grad_diff": gd.get("max_abs_grad_diff")}  # fmt: skip
                l_a, g_a = loss_and_grads(cfg, model_dev, b.to(dev), 12, autocast=("cuda", torch.bfloat16))
                gd = grad_diff(g_cpu, g_a)
                r["bf16_autocast"] = {"abs_dloss": abs(l_cpu - l_a), "rel_grad_l2_err": gd.get("rel_grad_l2_err"),
                                      "max_abs_grad_diff": gd.get("max_abs_grad_diff")}  # fmt: skip
            rows[p] = r
            if r.get("rel_grad_l2_err", 0) >= worst[0]:
                worst = (r.get("rel_grad_l2_err", 0), p)
        except Exception as e:  # noqa: BLE001
            rows[p] = {
                "error": f"{type(e).__name__}: {e}",
                "traceback": traceback.format_exc().splitlines()[-6:],
            }
    res["presets"] = rows
    errs = [p for p, r in rows.items() if "error" in r]
    max_dl = max((r["abs_dloss"] for r in rows.values() if "abs_dloss" in r), default=None)
    max_dg = max((r["max_abs_grad_diff"] for r in rows.values() if "max_abs_grad_diff" in r), default=None)
    line = (f"{len(rows) - len(errs)}/{len(rows)} presets; max |dloss| {max_dl:.2e}, max |dgrad| {max_dg:.2e}, "
            f"worst rel grad L2 err {worst[0]:.2e} ({worst[1]})" if max_dl is not None else "no preset ran")  # fmt: skip
    if errs:
        line += f"; errors: {errs}"
    if cuda and args.bf16:
        bw = max(
            (r["bf16_weights"]["rel_grad_l2_err"] for r in rows.values() if "bf16_weights" in r), default=None
        )
        ba = max(
            (r["bf16_autocast"]["rel_grad_l2_err"] for r in rows.values() if "bf16_autocast" in r),
            default=None,
        )
        line += f"; bf16 rel grad err: weights {bw}, autocast {ba}"
    if not cuda:
        res["status"] = "skipped: no CUDA (harness rehearsed cpu vs cpu)"
        line = "skipped: no CUDA (harness rehearsed cpu vs cpu: " + line + ")"
    res["summary"] = line
    return res


# ---------------------------------------------------------------- c. end to end
def make_sft_policy(work: Path, steps: int, device: str = "cpu") -> tuple[Path, dict]:
    from mathdata.schema import new_record
    from mathdata.store import write_records
    from trainer.config import ModelConfig, TinyModelConfig
    from trainer.sft import sft

    root = work / "sft"
    if (root / "policy" / "config.json").exists():
        return root / "policy", json.loads((root / "summary.json").read_text())
    recs = [new_record(source="synthetic:toy", original_problem=p["problem"], problem=p["problem"],
                       answer=p["answer"], solution=p["solution"], split="train")
            for p in toy_problems(256, seed=2, hi=30)]  # fmt: skip
    write_records(root / "records", recs)
    s = sft(root / "records", root / "policy", model_cfg=ModelConfig(tiny=TinyModelConfig(**TINY)), steps=steps,
            batch_size=16, lr=3e-3, warmup=5, progress=False, device=device)  # fmt: skip
    s["device"] = device
    (root / "summary.json").write_text(json.dumps(s))
    return root / "policy", s


def train_cmd(
    policy: Path, data: str, out: Path, device: str, steps: int, extra: list[str] | None = None
) -> list[str]:
    sets = {"model.path": policy, "data.train": data, "data.max_prompt_len": 256, "rollout.n": 8,
            "rollout.max_new_tokens": 32, "algo.overlong_buffer": 8, "algo.dynamic_sampling": "false",
            "optim.lr": 1e-3, "optim.warmup_steps": 1, "train.steps": steps, "train.prompts_per_step": 8,
            "train.mini_batch_size": 32, "train.micro_batch_size": 16, "train.epochs": 1,
            "train.tensorboard": "false", "train.device": device}  # fmt: skip
    cmd = [
        sys.executable,
        "-m",
        "trainer",
        "--debug",
        "train",
        "--preset",
        "dapo",
        "--out",
        str(out),
        "--no-progress",
    ]
    for k, v in sets.items():
        cmd += ["--set", f"{k}={v}"]
    return cmd + (extra or [])


def run_summary(out: Path) -> dict:
    mf = out / "metrics.jsonl"
    rows = [json.loads(x) for x in mf.read_text().splitlines()] if mf.exists() else []
    st = [r.get("step_time") for r in rows]
    later = [x for x in st[1:] if x is not None]
    return {"steps": len(rows), "step_time": st, "gen_time": [r.get("gen_time") for r in rows],
            "s_per_step_after_first": sum(later) / len(later) if later else None,
            "reward_mean": [r.get("reward_mean") for r in rows], "acc": [r.get("acc") for r in rows],
            "response_length_mean": [r.get("response_length_mean") for r in rows],
            "grad_norm": [r.get("grad_norm") for r in rows],
            "logprob_gap_mean": [r.get("logprob_gap_mean") for r in rows]}  # fmt: skip


def check_ckpt(out: Path, device: str) -> dict:
    import torch

    from trainer.model import load_model, load_tokenizer

    latest = out / "checkpoints" / "latest"
    if not latest.exists():
        return {"written": False}
    ck = out / "checkpoints" / latest.read_text().strip()
    m, tok = load_model(ck), load_tokenizer(ck)
    ids = torch.tensor([tok.apply_chat_template([{"role": "user", "content": "What is 2 + 3?"}],
                                                add_generation_prompt=True, tokenize=True, return_dict=False)])  # fmt: skip
    with torch.no_grad():
        logits = m(input_ids=ids).logits
    opt = torch.load(
        ck / "optimizer.pt", map_location=None if torch.cuda.is_available() else "cpu", weights_only=True
    )
    devs = sorted(
        {str(v.device) for st in opt.get("state", {}).values() for v in st.values() if torch.is_tensor(v)}
    )
    return {"written": True, "path": ck.name, "files": sorted(p.name for p in ck.iterdir()),
            "loads": bool(torch.isfinite(logits).all()), "optimizer_state_devices_as_saved": devs,
            "trainer_device": device}  # fmt: skip


def sec_e2e(args) -> dict:
    work = args.work
    res: dict = {}
    t0 = time.perf_counter()
    policy, s = make_sft_policy(work, args.sft_steps, "cuda" if args.cuda else "cpu")
    res["sft"] = {**s, "wall_s": round(time.perf_counter() - t0, 1)}
    data = write_verl(work / "train.parquet", toy_problems(48))
    runs = {}
    for device in ("cuda", "cpu"):
        if device == "cuda" and not args.cuda:
            runs[device] = {"status": "skipped: no CUDA"}
            continue
        out = work / f"rl_{device}"
        r = run_cmd(train_cmd(policy, data, out, device, args.rl_steps), timeout=args.rl_timeout)
        r.update(run_summary(out))
        try:
            r["checkpoint"] = check_ckpt(out, device)
        except Exception as e:  # noqa: BLE001
            r["checkpoint"] = {"error": f"{type(e).__name__}: {e}"}
        runs[device] = r
    if args.cuda and runs["cuda"].get("rc") == 0:
        # a CUDA run's checkpoint resumed on a machine without CUDA (one more step, train.device=cpu)
        out = work / "rl_cuda"
        cmd = [sys.executable, "-m", "trainer", "--debug", "train", "--out", str(out), "--resume", "--no-progress",
               "--set", f"train.steps={args.rl_steps + 1}", "--set", "train.device=cpu"]  # fmt: skip
        r = run_cmd(cmd, timeout=60, env=sub_env(CUDA_VISIBLE_DEVICES=""))
        r["steps_after"] = run_summary(out)["steps"]
        runs["cuda_ckpt_resumed_on_cpu"] = r
    res["runs"] = runs
    c, p = runs.get("cuda", {}), runs.get("cpu", {})
    ratio = None
    if c.get("s_per_step_after_first") and p.get("s_per_step_after_first"):
        ratio = p["s_per_step_after_first"] / c["s_per_step_after_first"]
    res["cpu_over_cuda_step_time"] = ratio

    def short(r):
        if "rc" not in r:
            return r.get("status", "?")
        ck = r.get("checkpoint", {})
        sp = r.get("s_per_step_after_first")
        rw = [None if x is None else round(x, 2) for x in r.get("reward_mean", [])]
        return (f"rc {r['rc']} steps {r.get('steps')} {sp if sp is None else round(sp, 3)} s/step "
                f"rewards {rw} ckpt {'ok' if ck.get('loads') else ck}")  # fmt: skip

    res["summary"] = (f"sft {s.get('steps')} steps loss {s.get('loss', 0):.3f}; cuda: {short(c)}; cpu: {short(p)}; "
                      f"cpu/cuda {ratio if ratio is None else round(ratio, 2)}")  # fmt: skip
    if "cuda_ckpt_resumed_on_cpu" in runs:
        rr = runs["cuda_ckpt_resumed_on_cpu"]
        res["summary"] += f"; cuda ckpt resumed on cpu: rc {rr['rc']}"
        if rr["rc"]:
            res["summary"] += f" ({(rr['tail'] or [''])[-1][:160]})"
    if any(r.get("rc") not in (0, None) for r in runs.values()):
        res["status"] = "error: a run failed"
    return res


# ---------------------------------------------------------------- d. FSDP2
def sec_fsdp(args) -> dict:
    work = args.work
    res: dict = {}
    policy, _ = make_sft_policy(work, args.sft_steps, "cuda" if args.cuda else "cpu")
    data = work / "train.parquet"
    if not data.exists():
        write_verl(data, toy_problems(48))
    device = "cuda" if args.cuda else "cpu"
    launch = [sys.executable, "-m", "torch.distributed.run", "--master_addr", "127.0.0.1"]
    cmd = launch + ["--master_port", str(free_port()), "--nproc_per_node", "2"]
    cmd += train_cmd(policy, str(data), work / "rl_fsdp2", device, 2, ["--set", "train.fsdp=true"])[1:]
    r = run_cmd(cmd, timeout=args.fsdp2_timeout)
    r["device"] = device
    res["two_ranks_one_device"] = r
    wj = work / "fsdp_worker.json"
    wj.unlink(missing_ok=True)
    cmd = launch + ["--master_port", str(free_port()), "--nproc_per_node", "1", str(Path(__file__).resolve()),
                    "--fsdp-worker", str(wj), "--device", device]  # fmt: skip
    w = run_cmd(cmd, timeout=args.worker_timeout)
    res["world1_fully_shard"] = {
        "launcher": w,
        **(json.loads(wj.read_text()) if wj.exists() else {"result": None}),
    }
    tail2 = [x for x in r["tail"] if x.strip()][-3:]
    wr = res["world1_fully_shard"]
    parts = []
    for key in ("fp32", "bf16"):
        x = wr.get(key) or {}
        if "error" in x:
            parts.append(f"{key}: ERROR {x['error'][:150]}")
        elif x:
            parts.append(f"{key}: |dloss| {x.get('abs_dloss', float('nan')):.1e} rel grad err "
                         f"{x.get('rel_grad_l2_err', float('nan')):.1e} max|dgrad| {x.get('max_abs_grad_diff', float('nan')):.1e}"
                         + (f" after step max|dparam| {x['max_abs_param_diff_after_step']:.1e}"
                            if "max_abs_param_diff_after_step" in x else ""))  # fmt: skip
    res["summary"] = (f"2 ranks on one {device}: rc {r['rc']}{' TIMEOUT' if r['timed_out'] else ''} "
                      f"({' | '.join(t[:140] for t in tail2)}); world-1 fully_shard rc {w['rc']}: "
                      + ("; ".join(parts) or f"no result ({(w['tail'] or [''])[-1][:200]})"))  # fmt: skip
    if not args.cuda:
        res["status"] = "skipped: no CUDA (harness rehearsed with gloo on cpu)"
        res["summary"] = "skipped: no CUDA (rehearsed on cpu/gloo: " + res["summary"] + ")"
    return res


def fsdp_worker(path: Path, device: str) -> None:
    """Under torchrun --nproc_per_node 1: FSDP2 through trainer.distributed vs the plain model."""
    import torch
    import torch.distributed as dist

    from trainer import distributed as D
    from trainer.config import build_config
    from trainer.update import score_tokens

    out: dict = {}

    def save():
        path.write_text(json.dumps(out, indent=1, default=str))

    cuda = device == "cuda"
    if cuda:
        torch.cuda.set_device(0)
        set_fp32_exact()
        dist.init_process_group("nccl", device_id=torch.device("cuda", 0))
    else:
        dist.init_process_group("gloo")
    out["backend"] = dist.get_backend()
    out["world_size"] = dist.get_world_size()
    save()
    model0, tok = tiny_policy()
    groups = random_groups(3, 4, len(tok))
    cfg, b = preset_batch("dapo", model0, tok, groups, 4, 16)
    cfg = build_config({"preset": "dapo", "rollout": {"n": 4, "max_new_tokens": 16}, "algo": {"overlong_buffer": 4},
                        "train": {"prompts_per_step": 3}})  # fmt: skip
    bd = b.to(device)
    ref = copy.deepcopy(model0).to(device).train()
    l_ref, g_ref = loss_and_grads(cfg, ref, bd, 12)
    old_ref, _ = score_tokens(ref, bd, temperature=1.0, micro=5)
    opt_ref = torch.optim.AdamW(ref.parameters(), lr=1e-3, betas=(0.9, 0.99), eps=1e-8)
    torch.nn.utils.clip_grad_norm_(ref.parameters(), 1.0)
    opt_ref.step()
    sd_ref = {k: v.detach().float().cpu() for k, v in ref.state_dict().items()}
    real = D.is_distributed
    D.is_distributed = lambda: True  # this subprocess only: shard_model_fsdp2 refuses world size 1
    try:
        for key, pdt in (("fp32", None), ("bf16", torch.bfloat16)):
            try:
                m = D.shard_model_fsdp2(copy.deepcopy(model0).to(device).train(), param_dtype=pdt,
                                        device_type=device)  # fmt: skip
                r: dict = {"is_fsdp": D.is_fsdp(m)}
                old_s, _ = score_tokens(m, bd, temperature=1.0, micro=5)
                r["score_tokens_max_diff"] = float((old_s.float() - old_ref.float()).abs().max())
                loss, st_grads = loss_and_grads(cfg, m, bd, 12)
                grads = {}
                for n, p in m.named_parameters():
                    g = p.grad
                    if g is not None and hasattr(g, "full_tensor"):
                        g = g.full_tensor()
                    grads[n] = None if g is None else g.detach().float().cpu().clone()
                r.update(
                    {
                        "loss": loss,
                        "loss_ref": l_ref,
                        "abs_dloss": abs(loss - l_ref),
                        **grad_diff(g_ref, grads),
                    }
                )
                r["grad_types"] = sorted({type(p.grad).__name__ for p in m.parameters()})
                opt = torch.optim.AdamW(m.parameters(), lr=1e-3, betas=(0.9, 0.99), eps=1e-8)
                gn = torch.nn.utils.clip_grad_norm_(m.parameters(), 1.0)
                r["clip_grad_norm"] = float(gn.full_tensor() if hasattr(gn, "full_tensor") else gn)
                opt.step()
                sd = D.full_state_dict(m)
                r["full_state_dict_keys_match"] = sorted(sd) == sorted(sd_ref)
                r["max_abs_param_diff_after_step"] = max(
                    float((sd[k].float().cpu() - sd_ref[k]).abs().max()) for k in sd_ref if k in sd
                )
                osd = D.optimizer_state_dict(m, opt)
                r["optimizer_state_dict_entries"] = len(osd.get("state", {}))
                out[key] = r
            except Exception as e:  # noqa: BLE001
                out[key] = {
                    "error": f"{type(e).__name__}: {e}",
                    "traceback": traceback.format_exc().splitlines()[-8:],
                }
            save()
    finally:
        D.is_distributed = real
    dist.destroy_process_group()
    save()


# ---------------------------------------------------------------- e. throughput
def sec_throughput(args) -> dict:
    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM

    from trainer.batch import Batch
    from trainer.config import build_config
    from trainer.update import update

    cuda = args.cuda
    dev = torch.device("cuda" if cuda else "cpu")
    if cuda:
        shape, N, P, R, micro, gen_n, gen_p, gen_new = (
            QWEN05,
            args.tp_batch,
            256,
            args.tp_resp,
            args.tp_micro,
            64,
            256,
            args.gen_new,
        )
    else:  # rehearsal: the same code at toy size
        shape = {"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 2, "num_key_value_heads": 1,
                 "intermediate_size": 128, "vocab_size": 1000}  # fmt: skip
        N, P, R, micro, gen_n, gen_p, gen_new = 8, 16, 32, 4, 8, 16, 16
    dtype = torch.bfloat16 if cuda else torch.float32
    res: dict = {
        "shape": shape,
        "dtype": str(dtype),
        "batch": {"responses": N, "prompt": P, "response": R, "micro": micro},
    }
    config = Qwen2Config(**shape, max_position_embeddings=4096, tie_word_embeddings=True, rope_theta=1e6,
                         eos_token_id=1, pad_token_id=0, bos_token_id=None, use_cache=True)  # fmt: skip
    torch.manual_seed(0)
    t0 = time.perf_counter()
    with torch.device(dev):
        model = Qwen2ForCausalLM(config).to(dtype)
    res["params_M"] = round(sum(p.numel() for p in model.parameters()) / 1e6, 1)
    res["init_s"] = round(time.perf_counter() - t0, 1)
    res["attn_implementation"] = getattr(model.config, "_attn_implementation", None)
    cfg = build_config({"preset": "dapo", "rollout": {"n": 8, "max_new_tokens": R},
                        "train": {"mini_batch_size": N, "micro_batch_size": micro, "prompts_per_step": max(1, N // 8)}})  # fmt: skip
    g = torch.Generator().manual_seed(0)
    V = shape["vocab_size"]
    lens = torch.randint(R // 4, R + 1, (N,), generator=g)
    lens[0] = R
    ids = torch.randint(2, V, (N, P + R), generator=g)
    attn = torch.ones((N, P + R), dtype=torch.long)
    for i, n in enumerate(lens.tolist()):
        attn[i, P + n :] = 0
        ids[i, P + n :] = 0
    mask = attn[:, P:].float()
    batch = Batch(ids=ids, attn=attn, pos=(attn.cumsum(1) - 1).clamp(min=0), resp=ids[:, P:], mask=mask,
                  loss_mask=mask.clone(), engine_logp=torch.full((N, R), -2.0) * mask,
                  group=torch.arange(N) // 8, truncated=torch.zeros(N, dtype=torch.bool),
                  acc=torch.arange(N) % 2 == 0, adv=torch.where(torch.arange(N) % 2 == 0, 1.0, -1.0)).to(dev)  # fmt: skip
    opt = torch.optim.AdamW(model.parameters(), lr=1e-6, betas=(0.9, 0.99), eps=1e-8)
    tot_tokens, resp_tokens = int(attn.sum()), int(mask.sum())

    def sync():
        if cuda:
            torch.cuda.synchronize()

    if cuda:
        torch.cuda.reset_peak_memory_stats()
    times = []
    stats = None
    for i in range(1 + args.tp_steps):
        sync()
        t0 = time.perf_counter()
        stats = update(cfg, model, opt, batch)
        sync()
        times.append(time.perf_counter() - t0)
        if time.monotonic() > args.tp_deadline:
            res["cut_short"] = f"after {i + 1} update steps (section budget)"
            break
    timed = times[1:] or times
    mean = sum(timed) / len(timed)
    res["update"] = {"step_s": [round(t, 3) for t in times], "mean_timed_s": round(mean, 3),
                     "tokens_per_s": round(tot_tokens / mean), "response_tokens_per_s": round(resp_tokens / mean),
                     "tokens_per_step": tot_tokens, "response_tokens_per_step": resp_tokens,
                     "loss": stats and stats["loss"], "grad_norm": stats and stats["grad_norm"]}  # fmt: skip
    if cuda:
        res["update"]["peak_mem_gib"] = round(torch.cuda.max_memory_allocated() / 2**30, 2)
    del opt
    model.zero_grad(set_to_none=True)
    if cuda:
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()
    model.eval()
    prompts = torch.randint(2, V, (gen_n, gen_p), generator=g).to(dev)
    am = torch.ones_like(prompts)
    gen = {}
    if time.monotonic() < args.tp_deadline:
        with torch.inference_mode():
            model.generate(input_ids=prompts[:, :8], attention_mask=am[:, :8], do_sample=True, max_new_tokens=4,
                           min_new_tokens=4, pad_token_id=0)  # fmt: skip
            sync()
            t0 = time.perf_counter()
            o = model.generate(input_ids=prompts, attention_mask=am, do_sample=True, max_new_tokens=gen_new,
                               min_new_tokens=gen_new, pad_token_id=0, top_k=0, top_p=1.0, temperature=1.0)  # fmt: skip
            sync()
            dt = time.perf_counter() - t0
        new = (o.shape[1] - gen_p) * gen_n
        gen["hf_generate"] = {"seqs": gen_n, "prompt": gen_p, "new_tokens": gen_new, "s": round(dt, 2),
                              "tokens_per_s": round(new / dt)}  # fmt: skip
        if cuda:
            gen["hf_generate"]["peak_mem_gib"] = round(torch.cuda.max_memory_allocated() / 2**30, 2)
    if time.monotonic() < args.tp_deadline:
        # the trainer's own sampler (trainer/rollout.py HFEngine, the lean Qwen2 decode path); stops at EOS
        from types import SimpleNamespace

        from trainer.rollout import HFEngine

        fake_tok = SimpleNamespace(pad_token_id=0, eos_token_id=1,
                                   batch_decode=lambda rows, skip_special_tokens=True: [""] * len(rows))  # fmt: skip
        eng = HFEngine(model, fake_tok)
        plist = prompts[: gen_n // 8].tolist()
        eng.generate([p[:8] for p in plist], n=8, max_new_tokens=4, temperature=1.0, top_p=1.0)
        sync()
        t0 = time.perf_counter()
        out = eng.generate(plist, n=8, max_new_tokens=gen_new, temperature=1.0, top_p=1.0)
        sync()
        dt = time.perf_counter() - t0
        new = sum(len(s.response_ids) for grp in out for s in grp)
        gen["hfengine"] = {"seqs": len(plist) * 8, "new_tokens_generated": new, "s": round(dt, 2),
                           "tokens_per_s": round(new / dt)}  # fmt: skip
    res["generate"] = gen
    u = res["update"]
    line = (f"{res['params_M']}M params {dtype}: update {u['mean_timed_s']} s/step, {u['tokens_per_s']} tok/s "
            f"({u['response_tokens_per_s']} resp tok/s), peak {u.get('peak_mem_gib', '-')} GiB")  # fmt: skip
    for k, v in gen.items():
        line += f"; {k} {v['tokens_per_s']} tok/s"
    if not cuda:
        res["status"] = "skipped: no CUDA (harness rehearsed at toy size on cpu)"
        line = "skipped: no CUDA (rehearsed toy size on cpu: " + line + ")"
    res["summary"] = line
    return res


# ---------------------------------------------------------------- main
def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=None, help="results folder (gpu_check.json)")
    ap.add_argument(
        "--device", choices=["auto", "cpu", "cuda"], default="auto", help="cpu: rehearse without CUDA"
    )
    ap.add_argument("--quick", action="store_true", help="smallest sizes (CPU rehearsal)")
    ap.add_argument("--budget", type=float, default=440.0, help="seconds for the whole script")
    ap.add_argument("--only", default="env,parity,e2e,fsdp,throughput", help="comma-separated sections")
    ap.add_argument("--no-bf16", dest="bf16", action="store_false")
    ap.add_argument("--sft-steps", type=int, default=80)
    ap.add_argument("--rl-steps", type=int, default=4)
    ap.add_argument("--rl-timeout", type=float, default=120.0)
    ap.add_argument("--fsdp2-timeout", type=float, default=60.0)
    ap.add_argument("--worker-timeout", type=float, default=90.0)
    ap.add_argument("--tp-batch", type=int, default=64)
    ap.add_argument("--tp-resp", type=int, default=1024)
    ap.add_argument("--tp-micro", type=int, default=8)
    ap.add_argument("--tp-steps", type=int, default=3)
    ap.add_argument("--gen-new", type=int, default=512)
    ap.add_argument("--tp-budget", type=float, default=170.0, help="seconds for the throughput section")
    ap.add_argument("--fsdp-worker", type=Path, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()

    work = Path(tempfile.mkdtemp(prefix="gpu_check_"))
    args.work = work
    args.stubbed = stub_unused_extras(Path(os.environ.get("GPU_CHECK_STUBS", work)))
    if args.fsdp_worker is not None:
        fsdp_worker(args.fsdp_worker, args.device)
        return
    import torch

    args.cuda = args.device == "auto" and torch.cuda.is_available()
    if args.quick or not args.cuda:
        args.sft_steps, args.rl_steps = min(args.sft_steps, 20), min(args.rl_steps, 2)
        args.fsdp2_timeout = min(args.fsdp2_timeout, 60.0)
    if args.out is None:
        args.out = Path(os.environ.get("OUT", work / "out"))
    args.out.mkdir(parents=True, exist_ok=True)
    os.environ["GPU_CHECK_STUBS"] = str(work)  # subprocesses reuse the same stub folder
    rep = Report(args.out, args.budget)
    rep.data["args"] = {k: str(v) for k, v in vars(args).items()}
    print(f"gpu_check: out {args.out}, work {work}, cuda {args.cuda}, stubs {args.stubbed}", flush=True)
    only = set(args.only.split(","))
    if "env" in only:
        rep.section("env", sec_env, args)
    if "parity" in only:
        rep.section("parity", sec_parity, args, need_s=10)
    if "e2e" in only:
        rep.section("e2e", sec_e2e, args, need_s=30)
    if "fsdp" in only:
        rep.section("fsdp", sec_fsdp, args, need_s=30)
    if "throughput" in only:
        args.tp_deadline = time.monotonic() + min(args.tp_budget, max(rep.left() - 10, 0))
        rep.section("throughput", sec_throughput, args, need_s=40)
    rep.data["finished"] = True
    rep.save()
    print(f"gpu_check: done in {time.monotonic() - T_START:.0f}s -> {rep.path}", flush=True)


if __name__ == "__main__":
    main()
