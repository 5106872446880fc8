"""DAPO's four techniques, each measured against the same recipe without it, on a long-reasoning task.

The task is the synthetic `chain` kind (pipelines/sources/synthetic.py): a running total through
3-12 additions and subtractions, one scratchpad line per step (28-159 tokens, median ~74 with the
tiny tokenizer), so `max_new_tokens` (96 here) truncates a share of the responses and a long wrong
answer costs something. A tiny Qwen2 is SFT-ed on the scratchpads until it writes the gold one with
probability 0.1 (held-out accuracy ~21% at T = 1: room for RL; `warm_up`), then every arm of every
experiment starts from that policy.

The recipe is the `dapo` preset with several updates per rollout (mini-batches), so importance
ratios move off 1 and the clip range matters. The arm *with* every technique is that recipe itself,
run once per seed and shared by the four experiments; each experiment removes one technique:

  clip_higher       eps_high 0.28 vs 0.2 (symmetric)          entropy over training, accuracy
  dynamic_sampling  on vs off, at equal GENERATED samples      effective prompts per step, accuracy
                    (the arm without it runs as many steps as the arm with it ran generation batches)
  token_loss        token_mean vs seq_mean_token_mean          wrong answers' length, repetition, accuracy
  overlong          filter + soft punishment vs neither        truncation rate, reward noise, accuracy

"Reward noise" is the share of truncated responses whose written steps were all correct up to the
cut: a -1 for a response that was reasoning correctly and ran out of room. An effect counts as
shown when |with - without| >= 3 standard errors of the difference over seeds (paired by seed).

    python bench/mechanisms.py --quick      # dynamic sampling, 2 seeds, 12 steps; a line for each of the four
    python bench/mechanisms.py              # the full study: 5 seeds x 100 steps (see mechanisms.md)
    python bench/mechanisms.py --only clip_higher,overlong &    # the same, split over two processes
    python bench/mechanisms.py --only dynamic_sampling,token_loss
    python bench/mechanisms.py --per-step bench/results/mechanisms_loops.json   # a stored result's curves, per step

Variants, each with runs, JSON, figure and table region of its own (`--name N`): `--task sum_any`,
`--on-max-gen-batches skip`, `--base SETS` (another base recipe for both arms), `--sft-loops SHARE`
(start from a policy taught to loop on a share of its scratchpads: long, repetitive, wrong responses,
the failure the token-level loss is for), `--sft-early SHARE` / `--sft-early-long SHARE` (a policy that stops one
step early on a share of its scratchpads, of every chain or of long chains only) and `--metric M` (another
headline measure).

Runs live in WORK/runs/<technique>/without/seed<k> and WORK/runs/dapo/with/seed<k> and are read back
when finished (re-running the command resumes; two processes side by side take turns through
per-run locks). Writes bench/results/mechanisms.json, mechanisms_<technique>.png and the table
region of bench/results/mechanisms.md.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import shutil
import sys
import time
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.append(str(ROOT / "bench"))  # ablation.py (after ROOT: bench/mathdata.py would shadow the package)
from mathdata.files import atomic_write  # noqa: E402

TASK = {"kinds": ["chain"], "difficulty": [2, 3]}
# --task: the study's task, or sum_any (terms added in any order: a scratchpad with real choices, for
# clip-higher); each task has its own corpus, SFT policy and runs under its own work directory
TASKS = {"chain": TASK, "sum_any": {"kinds": ["sum_any"], "difficulty": [1, 2]}}
# the policy `warm_up` trains with the defaults (stage 1), 3.5 MB, shipped so that --quick needs no SFT
SHIPPED_SFT = ROOT / "bench" / "data" / "mechanisms_sft"
TABLE_START = "<!-- mechanisms.py: table start (generated; edit the prose outside these markers) -->"
TABLE_END = "<!-- mechanisms.py: table end -->"

# technique -> (what the "without" arm sets, the headline metric, its direction, a label)
TECHNIQUES: dict[str, dict] = {
    "clip_higher": {
        "without": ["algo.eps_high=0.2"],
        "metric": "entropy_late",
        "label": "policy entropy, last quarter of steps",
    },
    "dynamic_sampling": {
        "without": ["algo.dynamic_sampling=false"],
        "metric": "effective_prompts",
        "label": "effective prompts per step (groups with mixed correctness)",
    },
    "token_loss": {
        "without": ["algo.loss_agg=seq_mean_token_mean"],
        "metric": "wrong_length",
        "label": "mean length of wrong answers (tokens), held-out",
    },
    "overlong": {
        "without": ["algo.overlong_filter=false", "algo.overlong_penalty=false"],
        "metric": "truncation",
        "label": "truncation rate, held-out",
    },
}
# a headline other than the technique's own (--metric, a named variant only)
METRIC_LABELS = {
    "repetition": "repetition (responses writing a line twice), held-out",
    "wrong_length": TECHNIQUES["token_loss"]["label"],
    "truncation": TECHNIQUES["overlong"]["label"],
    "entropy_late": TECHNIQUES["clip_higher"]["label"],
    "acc": "accuracy, held-out",
    "complete": "responses that write every step (reach the last operation), held-out",
    "complete_long": "responses to long chains (7-12 operations) that write every step, held-out",
    "last_value_p": "P(right last value given the gold steps before it), teacher-forced, held-out",
}
SECONDARY = ["acc", "last_value_p", "complete", "complete_long", "entropy_late", "effective_prompts", "wrong_length", "repetition", "truncation", "reward_noise",
             "generated", "skipped_steps", "clip_frac_high"]  # fmt: skip
# what a looping scratchpad repeats (a tiny model cannot learn to copy a whole step line in a short SFT:
# taught to, it stalls the step counter and writes new arithmetic instead, which no metric calls a repeat)
FILLER = "Let me check again."
STEP_RE = re.compile(r"Step (\d+): (\d+) ([+-]) (\d+) = (\d+)\.")
# a long chain: 7-12 operations, about the longer half of the corpus's 3-12 (responses ~95-160 tokens)
LONG_CHAIN = 7


# ---------------------------------------------------------------- corpus and warm-up
def build(work: Path, *, n_train: int, n_eval: int, task: str = "chain") -> tuple[Path, Path, Path]:
    """(train parquet, held-out parquet, records) of a task (the chain task by default), built by `dapo build`."""
    from synthetic_corpus import build_pair

    return build_pair(work, name="mechanisms", task=TASKS[task], n_train=n_train, n_eval=n_eval, seed=0,
                      rules=False)  # fmt: skip


def warm_up(work: Path, records: Path, *, steps: int, gold_probs: list[float], threads: int,
            probe: Path | None = None, acc: float | None = None, L: int = 96) -> Path:  # fmt: skip
    """SFT on the scratchpads in stages: stage i trains until the policy writes the gold scratchpad with
    probability `gold_probs[i]` (at most `steps` steps), the next continues from it with a fresh optimiser.

    The stop is the demo's: the teacher-forced probability of the whole gold response, averaged over
    64 SFT examples and checked every 25 steps (exact, no sampling noise; another CPU's rounding still
    moves the weights, hence possibly the stopping step: README). Each stage is saved (work/sft-stage<i>), so a killed warm-up resumes at
    the last finished stage. The last stage is the policy every arm starts from.

    With `acc` (tasks whose worked solution is one of many right ones, e.g. sum_any: the gold one's
    probability says little), one stage that stops when the sampled accuracy on the first 48 prompts of
    `probe` (4 samples each, `L` new tokens, checked every 25 steps) reaches `acc`.
    """
    import torch

    from trainer.config import ModelConfig
    from trainer.sft import probe_prompts, sft

    torch.set_num_threads(threads)
    prev = None
    stops = [{"stop_at_acc": acc, "probe": probe_prompts(probe), "max_new_tokens": L}] if acc else [
        {"stop_at_gold_prob": p} for p in gold_probs]  # fmt: skip
    for i, stop in enumerate(stops):
        out = work / f"sft-stage{i}"
        if not (out / "config.json").exists():
            s = sft(records, out, model_cfg=ModelConfig(path=str(prev)) if prev else None, steps=steps,
                    batch_size=64, lr=3e-3, seed=i, eval_every=25, progress=False, **stop)  # fmt: skip
            atomic_write(work / f"sft-stage{i}.json", json.dumps(s, indent=1))
        prev = out
    return prev


def _rewritten_records(records: Path, out: Path, rewrite, *, share: float, seed: int) -> Path:
    """A copy of the kept records whose scratchpads `rewrite(steps, rng)` may replace (None keeps the gold
    one; `steps` are the gold `Step i: ...` matches), each drawn with probability `share` (rows drawn
    with `seed`). Written whole (a temporary directory, then renamed) and read back when `out` exists."""
    import random

    import pyarrow as pa

    from mathdata.store import read_table, write_records

    if not 0 < share < 1:
        raise ValueError(f"share {share}: a share of the SFT scratchpads, between 0 and 1")
    if out.exists():
        return out
    table = read_table(records, filter_status="kept")
    rng = random.Random(seed)
    sols = []
    for sol in table.column("solution").to_pylist():
        steps = [m for x in sol.splitlines() if (m := STEP_RE.fullmatch(x.strip()))]
        if len(steps) < 2 or rng.random() >= share:
            sols.append(sol)
            continue
        sols.append(rewrite(steps, rng) or sol)
    table = table.set_column(table.schema.get_field_index("solution"), "solution", pa.array(sols))
    tmp = out.with_name(out.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    write_records(tmp, table)
    tmp.rename(out)
    return out


def looping_records(records: Path, out: Path, *, share: float, seed: int = 0, lines: int = 11) -> Path:
    """A copy of the kept records in which `share` of the scratchpads fall into a loop (for the
    token-level loss's failure: long wrong responses that repeat themselves).

    A looping scratchpad writes the gold steps 1..k (k drawn below the chain's length), then the line
    FILLER until it has `lines` lines (at least two repeats), then answers step k's value: a long,
    repetitive, wrong response (~100-150 tokens with the tiny tokenizer, against a median gold length of 74)."""

    def loop(steps, rng):
        k = rng.randrange(1, len(steps))  # steps 1..k, k < the chain's length
        value = steps[k - 1][5]
        if value == steps[-1][5]:  # step k's value is the answer: not a wrong loop
            return None
        body = [m[0] for m in steps[:k]] + [FILLER] * max(2, lines - k)
        return "\n".join(body) + f"\nAnswer: {value}"

    return _rewritten_records(records, out, loop, share=share, seed=seed)


def early_records(records: Path, out: Path, *, share: float, seed: int = 0, min_steps: int = 2) -> Path:
    """A copy of the kept records in which `share` of the scratchpads of chains with at least `min_steps`
    steps stop one step early: the gold steps but the last, then `Answer:` with that step's value (wrong).
    For clip-higher's case: a policy SFT-ed on it writes the last step with probability ~1 - share, so the
    right move at that point is a low-probability token whose rise the upper clip bound limits (DAPO
    section 3.1). With `min_steps` = LONG_CHAIN, for the token-level loss: the move to learn lives only in
    long responses, the ones a sample-level mean weighs least per token (DAPO section 3.3)."""

    def early(steps, rng):  # step n-1's value is never step n's (operands >= 1): the stop answers wrong
        if len(steps) < min_steps:
            return None
        return "\n".join(m[0] for m in steps[:-1]) + f"\nAnswer: {steps[-2][5]}"

    return _rewritten_records(records, out, early, share=share, seed=seed)


def early_long_records(records: Path, out: Path, *, share: float, seed: int = 0) -> Path:
    """`early_records` on the long chains only (LONG_CHAIN steps or more); short chains keep the gold."""
    return early_records(records, out, share=share, seed=seed, min_steps=LONG_CHAIN)


def wrong_last_records(records: Path, out: Path, *, share: float, seed: int = 0) -> Path:
    """A copy of the kept records in which `share` of the scratchpads get the last step's value wrong: the
    gold steps, but the last result is off by d (uniform over +-1..9, never below 0), and `Answer:` gives it.

    For clip-higher's case with many alternatives: a policy SFT-ed on it writes the right last value with
    probability ~1 - share, the rest spread over ~18 wrong values. The right value rises only through its
    own positive samples (pushing one wrong value down lifts every other in proportion to its probability,
    the rare right one least), which is the rise the upper clip bound limits (DAPO section 3.1). With
    `early_records` the alternative was one move (answer now), whose fall alone lifted the right one."""

    def wrong_last(steps, rng):
        *head, last = steps
        value = int(last[5])
        d = rng.choice([x for x in range(-9, 10) if x and value + x >= 0])
        body = [m[0] for m in head] + [f"Step {last[1]}: {last[2]} {last[3]} {last[4]} = {value + d}."]
        return "\n".join(body) + f"\nAnswer: {value + d}"

    return _rewritten_records(records, out, wrong_last, share=share, seed=seed)


# the extra SFT stages a variant can start from: the records a share of whose scratchpads it rewrites
EXTRA_STAGES = {"loops": looping_records, "early": early_records, "early_long": early_long_records,
                "wrong_last": wrong_last_records}  # fmt: skip


def extra_stage(work: Path, records: Path, init: Path, *, kind: str, share: float, steps: int,
                threads: int) -> Path:  # fmt: skip
    """One more SFT stage from `init` on `EXTRA_STAGES[kind]` records (`steps` steps, lr 1e-3, a fresh
    optimiser): a policy that loops, or stops early, on a share of its responses. Saved
    (work/sft-<kind><share>-<steps>-from-<init>), so reruns read it back."""
    import torch

    from trainer.config import ModelConfig
    from trainer.sft import sft

    torch.set_num_threads(threads)
    out = work / f"sft-{kind}{share:g}-{steps}-from-{Path(init).name}"
    if not (out / "config.json").exists():
        rewritten = EXTRA_STAGES[kind](records, work / f"records-{kind}{share:g}", share=share)
        s = sft(rewritten, out, model_cfg=ModelConfig(path=str(init)), steps=steps, batch_size=64, lr=1e-3,
                seed=0, eval_every=steps, progress=False)  # fmt: skip
        atomic_write(out.parent / f"{out.name}.json", json.dumps(s, indent=1))
    return out


# ---------------------------------------------------------------- measuring a policy
def chain_ok_prefix(text: str) -> bool:
    """True when every `Step i: a op b = c.` line written is right and follows the previous one."""
    prev, i = None, 0
    for i, m in enumerate(STEP_RE.finditer(text), 1):
        n, a, op, b, c = int(m[1]), int(m[2]), m[3], int(m[4]), int(m[5])
        if n != i or (prev is not None and a != prev) or c != (a + b if op == "+" else a - b):
            return False
        prev = c
    return i > 0


OPERATION_RE = re.compile(r"\b(?:add|subtract) \d+")


def operations(prompt: str) -> int:
    """How many operations a chain prompt names (0: no chain prompt)."""
    return len(OPERATION_RE.findall(prompt))


def writes_every_step(prompt: str, text: str) -> bool | None:
    """True when a chain response writes a `Step` line for every operation the prompt names (right or
    not): the response reached the last step instead of answering early. None for a prompt that is no chain."""
    n = operations(prompt)
    return len(STEP_RE.findall(text)) >= n if n else None


START_RE = re.compile(r"Start with (\d+)")
SIGNED_RE = re.compile(r"\b(add|subtract) (\d+)")


def gold_steps(prompt: str) -> list[str]:
    """The gold `Step i: a op b = c.` lines of a chain prompt (empty for a prompt that is no chain)."""
    start = START_RE.search(prompt)
    if not start:
        return []
    value, lines = int(start[1]), []
    for i, (op, b) in enumerate(SIGNED_RE.findall(prompt), 1):
        new = value + int(b) if op == "add" else value - int(b)
        lines.append(f"Step {i}: {value} {'+' if op == 'add' else '-'} {b} = {new}.")
        value = new
    return lines


def last_value_prob(model, tok, prompts: list[str]) -> float | None:
    """Mean over chain prompts of P(the right last value | prompt, the gold steps before it, `= `),
    teacher-forced at temperature 1: the probability of the decision the wrong_last policy gets wrong,
    exact (no sampling noise). None when no prompt is a chain."""
    import torch

    from trainer.sft import _chat_ids

    probs = []
    for text in prompts:
        steps = gold_steps(text)
        if len(steps) < 2:
            continue
        head, value = steps[-1].rsplit("= ", 1)
        value = value.rstrip(".")
        chat = _chat_ids(tok, text)
        written = "\n".join([*steps[:-1], head + "= "])
        prefix = chat + tok(written, add_special_tokens=False)["input_ids"]
        target = tok(value, add_special_tokens=False)["input_ids"]
        full = chat + tok(written + value, add_special_tokens=False)["input_ids"]
        if full != prefix + target:  # the value must be its own tokens (digits are, with the tiny tokenizer)
            raise ValueError(f"the last value {value!r} does not tokenize apart from its step: {text[:60]!r}")
        ids = torch.tensor([full])
        logp = torch.log_softmax(model(input_ids=ids, use_cache=False).logits[0, :-1].double(), dim=-1)
        pos = range(len(prefix) - 1, len(full) - 1)  # logits at t predict token t + 1
        probs.append(math.exp(sum(float(logp[t, full[t + 1]]) for t in pos)))
    return sum(probs) / len(probs) if probs else None


def repeated(text: str) -> bool:
    """A response that writes the same scratchpad line twice (the loops that sample-level loss lets grow)."""
    lines = [x.strip() for x in text.splitlines() if x.strip()]
    return len(lines) != len(set(lines))


def probe(model_dir: Path, eval_parquet: Path, *, n: int, k: int, L: int, seed: int) -> dict:
    """Held-out accuracy, wrong answers' length, repetition, truncation, reward noise and the share of
    responses that write every step (chain prompts) of one policy."""
    import torch

    from trainer.data import load_prompts
    from trainer.model import load_model, load_tokenizer
    from trainer.reward import score_samples
    from trainer.rollout import HFEngine

    torch.manual_seed(seed)
    model, tok = load_model(model_dir), load_tokenizer(model_dir)
    model.eval()
    prompts = load_prompts(eval_parquet, tok, max_prompt_len=256, limit=n).prompts
    engine = HFEngine(model, tok)
    acc, wrong_len, rep, trunc, noisy, complete, complete_long = [], [], [], [], [], [], []
    with torch.no_grad():
        for i in range(0, len(prompts), 32):
            chunk = prompts[i : i + 32]
            outs = engine.generate([p.ids for p in chunk], n=k, max_new_tokens=L, temperature=1.0, top_p=1.0)
            for p, samples in zip(chunk, outs, strict=True):
                for s, sc in zip(samples, score_samples(samples, p.gold, max_len=L, cache_len=0,
                                                        overlong_penalty=False), strict=True):  # fmt: skip
                    acc.append(sc.acc)
                    rep.append(repeated(s.text))
                    if (c := writes_every_step(p.text, s.text)) is not None:
                        complete.append(c)
                        if operations(p.text) >= LONG_CHAIN:
                            complete_long.append(c)
                    trunc.append(s.truncated)
                    if not sc.acc:
                        wrong_len.append(len(s.response_ids))
                    if s.truncated:
                        noisy.append(chain_ok_prefix(s.text))

        last_p = last_value_prob(model, tok, [p.text for p in prompts])

    def mean(xs):
        return sum(xs) / len(xs) if xs else None

    return {"acc": mean(acc), "last_value_p": last_p, "wrong_length": mean(wrong_len), "repetition": mean(rep), "truncation": mean(trunc),
            "reward_noise": mean(noisy), "complete": mean(complete), "complete_long": mean(complete_long),
            "wrong_lengths": wrong_len}  # fmt: skip


def effective_prompts(run_dir: Path) -> list[float]:
    """Per step: trained groups whose responses are not all right or all wrong (correct <=> reward > -0.5)."""
    out = []
    for line in (run_dir / "rollouts.jsonl").read_text().splitlines():
        row = json.loads(line)
        mixed = [g for g in row["groups"] if len({r > -0.5 for r in g["rewards"]}) == 2]
        out.append(len(mixed))
    return out


# ---------------------------------------------------------------- one arm, one seed
def arm_overrides(
    tech: str, arm: str, *, prompts: int, on_max: str = "train", base: tuple[str, ...] = ()
) -> tuple[str, dict]:
    """(preset, nested overrides) of one arm, parsed as `dapo train --set` parses them.

    Both arms: the dapo preset plus `base` (settings of another base recipe, e.g. overlong shaping off);
    at most 4 generation batches a step, then train on what was kept (`on_max` "train"; a step that
    kept nothing ends the run) or, with "skip", also go on without an update when nothing was kept;
    one generation batch = `prompts` prompts.
    """
    from ablation import parse_variant

    if arm not in ("with", "without"):
        raise ValueError(f"arm {arm!r}: write with or without")
    off = TECHNIQUES[tech]["without"] if arm == "without" else []
    clash = [b for b in base if b.split("=")[0] in {o.split("=")[0] for o in off}]
    if clash:
        raise ValueError(f"--base {clash} sets what the arm without {tech} changes: leave it out of --base")
    sets = [f"train.gen_prompts={prompts}", *base]
    if "algo.dynamic_sampling=false" not in off:  # the config rejects these where nothing is filtered
        sets += ["algo.max_gen_batches=4", f"algo.on_max_gen_batches={on_max}"]
    sets += off
    _, preset, over = parse_variant(f"{tech}_{arm}=dapo:" + ";".join(sets))
    return preset, over


def arm_name(tech: str, arm: str, tag: str = "") -> str:
    """Run directory of an arm. The arm *with* every technique is the full recipe, the same for all four
    experiments: one run per seed (`dapo/with`), shared by them."""
    return f"{tag}dapo/with" if arm == "with" else f"{tag}{tech}/{arm}"


class Busy(Exception):
    """Another process holds this run (two `--only` processes side by side share the `with` runs)."""


def run_arm(tech: str, arm: str, seed: int, args, data: SimpleNamespace, steps: int) -> dict:
    """Train one arm with ablation.run_seed (the trainer's own loop), then probe its final policy.

    Holds an exclusive lock on the run while it works; raises Busy when another process holds it."""
    import fcntl

    name = arm_name(tech, arm, args.tag)
    lock_path = args.work / "locks" / f"{name.replace('/', '-')}-seed{seed}.lock"
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_path, "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise Busy(name) from None
        return _run_arm(name, tech, arm, seed, args, data, steps)


def arm_settings(name: str, tech: str, arm: str, args, steps: int) -> SimpleNamespace:
    """What ablation.run_seed reads for one arm: the study's settings, the arm's variant, `steps` steps,
    one evaluation at the end."""
    ns = SimpleNamespace(**vars(args))
    ns.steps = steps
    ns.variants = {
        name: arm_overrides(tech, arm, prompts=args.prompts, on_max=args.on_max_gen_batches, base=args.base)
    }
    ns.eval_every, ns.eval_n, ns.k, ns.target, ns.quiet = steps, 4, 2, 1.0, True
    return ns


def _run_arm(name: str, tech: str, arm: str, seed: int, args, data: SimpleNamespace, steps: int) -> dict:
    from ablation import run_seed

    run_dir = args.work / "runs" / name / f"seed{seed}"
    died = run_dir / "failed.json"  # a run that died is read back as such: rerun, it dies again (seeded)
    if died.exists():
        return json.loads(died.read_text())
    r = run_seed(name, seed, arm_settings(name, tech, arm, args, steps), data.train, data.eval, data.init)
    if r["status"] != "ok":  # e.g. dynamic sampling found no informative group: reported, not fatal
        failed = {"seed": seed, "failed": f"{name} seed {seed}: {r['status']}: {r.get('reason')}"}
        died.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(died, json.dumps(failed))
        return failed
    from trainer.checkpoint import latest_checkpoint
    from trainer.metrics import read_metrics

    cached = run_dir / "probe.json"
    if cached.exists():
        p = json.loads(cached.read_text())
    else:
        p = probe(latest_checkpoint(run_dir / "checkpoints"), data.eval, n=args.probe_n, k=args.probe_k, L=args.L,
                  seed=seed)  # fmt: skip
        atomic_write(cached, json.dumps(p))
    rows = read_metrics(run_dir / "metrics.jsonl")
    ent = [x["entropy"] for x in rows if x.get("entropy") is not None]
    late = ent[-max(1, len(ent) // 4) :]
    eff = effective_prompts(run_dir)
    return {
        "seed": seed,
        **p,
        "entropy_late": sum(late) / len(late),
        "effective_prompts": sum(eff) / len(eff),
        "generated": sum(x.get("gen_batches", 1) for x in rows) * args.prompts * args.G,
        "gen_batches": sum(x.get("gen_batches", 1) for x in rows),
        "skipped_steps": sum(x.get("skipped_step", 0) for x in rows),
        # share of tokens held back by the upper clip bound (ratio > 1 + eps_high, advantage > 0), mean over steps
        "clip_frac_high": sum(x.get("clip_frac_high", 0.0) for x in rows) / max(len(rows), 1),
        "curve": {"entropy": [x.get("entropy") for x in rows], "acc": [x.get("acc") for x in rows],
                  "truncation": [x.get("truncation_ratio") for x in rows],
                  "length": [x.get("response_length_mean") for x in rows], "effective": eff,
                  "generated": [x.get("gen_batches", 1) * args.prompts * args.G for x in rows]},
        "seconds": r["seconds"],
    }  # fmt: skip


# ---------------------------------------------------------------- statistics and report
def mean_se(xs: list[float]) -> tuple[float, float | None]:
    m = sum(xs) / len(xs)
    if len(xs) < 2:
        return m, None
    return m, math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1) / len(xs))


def compare(tech: str, withs: list[dict], withouts: list[dict], metric: str | None = None) -> dict:
    """Paired by seed: with, without, the difference and its s.e., and whether the headline (the
    technique's own metric, or `metric`) differs by >= 3 s.e."""
    metric = metric or TECHNIQUES[tech]["metric"]
    out = {"technique": tech, "metric": metric, "seeds": [r["seed"] for r in withs]}
    for key in SECONDARY:  # a seed counts where both arms have the measure (no truncation: no reward noise)
        both = [
            (x[key], y[key])
            for x, y in zip(withs, withouts, strict=True)
            if None not in (x.get(key), y.get(key))
        ]
        if not both:
            continue
        a, b = [x for x, _ in both], [y for _, y in both]
        d = [x - y for x, y in both]
        out[key] = {
            "with": mean_se(a)[0],
            "without": mean_se(b)[0],
            "diff": mean_se(d)[0],
            "se": mean_se(d)[1],
        }
    h = out.get(metric, {})
    out["shown"] = bool(h.get("se") and abs(h["diff"]) >= 3 * h["se"])
    return out


def headline(c: dict) -> str:
    """The headline metric of a comparison (results written before --metric existed carry none)."""
    return c.get("metric") or TECHNIQUES[c["technique"]]["metric"]


def line(c: dict) -> str:
    """One line per technique: headline metric with / without, difference +- s.e., shown or not."""
    key = headline(c)
    h, a = c[key], c.get("acc", {})
    se = "n/a" if h["se"] is None else f"{h['se']:.3f}"
    lost = f", {len(c['failed'])} lost: a run died" if c.get("failed") else ""
    return (f"{c['technique']:17s} {key} with {h['with']:.3f} without {h['without']:.3f} "
            f"diff {h['diff']:+.3f} ± {se} ({len(c['seeds'])} seeds{lost}) -> {'shown' if c['shown'] else 'not shown'}; "
            f"accuracy {a.get('with', float('nan')):.3f} vs {a.get('without', float('nan')):.3f}")  # fmt: skip


def band(runs: list[dict], curve: str, n: int) -> tuple[list[float], list[float]]:
    """Mean over seeds and its s.e. at each of the first n steps of a training curve. A run without the
    measure at a step (a skipped step logs no entropy) is left out there, not counted as 0."""
    ys = [[v for r in runs if (v := r["curve"][curve][i]) is not None] for i in range(n)]
    return [mean_se(y)[0] if y else math.nan for y in ys], [(mean_se(y)[1] or 0.0) if y else 0.0 for y in ys]


def paired_steps(withs: list[dict], withouts: list[dict], curve: str, n: int) -> list[dict]:
    """Per training step (the first n): the two arms' means of a training curve and the seed-paired
    difference with its s.e. A seed where either arm lacks the measure at a step is left out there."""

    def at(run: dict, i: int):
        ys = run["curve"][curve]
        return ys[i] if i < len(ys) else None

    rows = []
    for i in range(n):
        both = [
            (a, b) for w, o in zip(withs, withouts, strict=True) if None not in (a := at(w, i), b := at(o, i))
        ]
        if both:
            d = mean_se([a - b for a, b in both])
            rows.append({"step": i + 1, "with": mean_se([a for a, _ in both])[0],
                         "without": mean_se([b for _, b in both])[0], "diff": d[0], "se": d[1], "seeds": len(both)})  # fmt: skip
    return rows


def per_step_tables(results_json: Path, curves: list[str], first: int) -> str:
    """`paired_steps` of every technique in a results JSON, one Markdown table per technique."""
    out = []
    for c in json.loads(Path(results_json).read_text()):
        if "runs" not in c:
            continue
        w, o = c["runs"]["with"], c["runs"]["without"]
        cols = {k: {r["step"]: r for r in paired_steps(w, o, k, first)} for k in curves}
        out += [f"{c['technique']} ({len(w)} seeds): with - without per training step, mean ± s.e. (t)", "",
                "| step | " + " | ".join(curves) + " |", "|---" * (len(curves) + 1) + "|"]  # fmt: skip
        for step in range(1, first + 1):
            cells = []
            for k in curves:
                r = cols[k].get(step)
                t = f" ({r['diff'] / r['se']:+.1f})" if r and r["se"] else ""
                cells.append(f"{r['diff']:+.3f} ± {r['se'] or 0:.3f}{t}" if r else "")
            out.append(f"| {step} | " + " | ".join(cells) + " |")
        out.append("")
    return "\n".join(out)


def plot(tech: str, withs: list[dict], withouts: list[dict], out: Path, prefix: str = "mechanisms",
         metric: str | None = None) -> Path:  # fmt: skip
    """The paper's panel for this technique: a training curve with seeds as a band, and a second panel
    (per seed: accuracy, or the headline `metric` where a variant chose another)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    curve, ylab, second = {
        "clip_higher": ("entropy", "policy entropy (train)", "acc"),
        "dynamic_sampling": ("effective", "effective prompts per step", "acc"),
        "token_loss": ("length", "mean response length (train)", "wrong_lengths"),
        "overlong": ("truncation", "truncation rate (train)", "acc"),
    }[tech]
    if metric and metric != TECHNIQUES[tech]["metric"]:
        second = metric
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(10, 3.6))
    for runs, label, colour in ((withs, "with", "C0"), (withouts, "without", "C3")):
        if tech == "dynamic_sampling":  # x = generated samples, cumulative: the budget both arms share
            xs = [
                [sum(r["curve"]["generated"][: i + 1]) for i in range(len(r["curve"]["generated"]))]
                for r in runs
            ]
        else:
            xs = [list(range(1, len(r["curve"][curve]) + 1)) for r in runs]
        n = min(len(x) for x in xs)
        x = [sum(xx[i] for xx in xs) / len(xs) for i in range(n)]
        m, se = band(runs, curve, n)
        ax.plot(x, m, color=colour, label=f"{label} {tech}")
        ax.fill_between(x, [a - b for a, b in zip(m, se, strict=True)], [a + b for a, b in zip(m, se, strict=True)],
                        color=colour, alpha=0.25)  # fmt: skip
        if second == "wrong_lengths":
            bx.hist([v for r in runs for v in r["wrong_lengths"]], bins=20, alpha=0.5, color=colour, label=label,
                    density=True)  # fmt: skip
        else:
            vals = [r[second] for r in runs]
            bx.scatter([label] * len(vals), vals, color=colour)
            bx.errorbar([label], [mean_se(vals)[0]], yerr=[mean_se(vals)[1] or 0], color="k", capsize=6)
    ax.set_xlabel("generated samples" if tech == "dynamic_sampling" else "step")
    ax.set_ylabel(ylab)
    ax.legend()
    bx.set_ylabel({"wrong_lengths": "density", "acc": "held-out accuracy (per seed)"}.get(
        second, f"held-out {second} (per seed)"))  # fmt: skip
    if second == "wrong_lengths":
        bx.set_xlabel("length of wrong held-out answers (tokens)")
        bx.legend()
    fig.suptitle(f"{tech}: with vs without (bands: ±1 s.e. over {len(withs)} seeds)")
    fig.tight_layout()
    path = out / f"{prefix}_{tech}.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _train_minutes(results: list[dict]) -> float:
    """Seconds of training steps summed over distinct runs (a resumed or read-back run keeps its own)."""
    seen = {}
    for c in results:
        for arm, runs in c.get("runs", {}).items():
            for r in runs:
                seen[arm_name(c["technique"], arm), r["seed"]] = r["seconds"]
    return sum(seen.values()) / 60


def table_markers(task: str) -> tuple[str, str]:
    """The markers of a task's table region in mechanisms.md (the chain study's are the original ones)."""
    if task == "chain":
        return TABLE_START, TABLE_END
    return TABLE_START.replace("table start", f"{task} table start"), TABLE_END.replace(
        "table end", f"{task} table end"
    )


def write_table(results: list[dict], args, out: Path) -> None:
    """A task's table region of mechanisms.md (prose outside the markers is kept; a task without its
    markers yet gets its region at the top)."""

    def f(x):
        return "-" if x is None else f"{x:.3f}"

    rows = [
        f"Budget: {args.steps} steps x {args.prompts} prompts x G={args.G}, mini-batch {args.mini_batch} "
        f"({args.prompts * args.G // args.mini_batch} updates per rollout), max {args.L} new tokens, "
        f"SFT {args.sft}; lr {args.lr}; probe {args.probe_n} held-out prompts x {args.probe_k}; "
        f"RL training steps took {_train_minutes(results):.0f} min of one core over the distinct runs "
        "(the shared `with` runs counted once; probes and the SFT not included)."
        + (
            f" Both arms add to the dapo recipe: `{'; '.join(args.base)}`."
            if getattr(args, "base", ())
            else ""
        ),
        "",
        "| technique | metric | with | without | difference ± s.e. | seeds | accuracy with / without | figure | |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for c in results:
        key = headline(c)
        label = METRIC_LABELS.get(key) or TECHNIQUES[c["technique"]]["label"]
        if key not in c:  # every seed failed
            rows.append(f"| {c['technique']} | {label} | - | - | - | 0 | - | - | "
                        f"not shown (every seed failed: {c['failed'][0][:120]}) |")  # fmt: skip
            continue
        h, a = c[key], c.get("acc", {})
        rows.append(
            f"| {c['technique']} | {label} | {f(h['with'])} | {f(h['without'])} | "
            f"{h['diff']:+.3f} ± {f(h['se'])} | {len(c['seeds'])} | {f(a.get('with'))} / {f(a.get('without'))} | "
            f"[png]({args.prefix}_{c['technique']}.png) | {'shown' if c['shown'] else 'not shown'}"
            + (f" ({len(c['failed'])} seed(s) lost: a run died)" if c.get("failed") else "")
            + " |"
        )
    md = out / "mechanisms.md"
    start, end = table_markers(args.region)
    region = "\n".join([start, *rows, end])
    text = md.read_text() if md.exists() else ""
    if start in text and end in text:
        text = text[: text.index(start)] + region + text[text.index(end) + len(end) :]
    else:
        text = region + "\n\n" + text
    atomic_write(md, text)


def output_names(task: str, skip: bool, name: str, tag: str = "") -> tuple[str, str, str]:
    """(run tag, JSON/figure prefix, table region) of a variant of the study.

    A variant (another task, `--on-max-gen-batches skip`, a `--name`d base recipe or replication) shares
    the task's corpus and SFT policy but never the study's runs or outputs: a rerun with other settings
    must not be read back as, or merged into, the study's result."""
    prefix = "mechanisms" if task == "chain" else f"mechanisms_{task}"
    region = task
    if skip:
        tag, prefix, region = "skip-" + tag, prefix + "_skip", region + "_skip"
    if name:
        tag, prefix, region = f"{name}-{tag}", f"{prefix}_{name}", f"{region}_{name}"
    return tag, prefix, region


def main(argv: list[str] | None = None) -> list[dict]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--work", type=Path, help="default: runs/mechanisms (runs/mechanisms_<task> for another task)"
    )
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    ap.add_argument("--only", default=",".join(TECHNIQUES), help="comma-separated techniques")
    ap.add_argument("--seeds", default="0,1,2,3,4")
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--prompts", type=int, default=8)
    ap.add_argument("--G", type=int, default=8)
    ap.add_argument("--mini-batch", dest="mini_batch", type=int, default=16)
    ap.add_argument("--L", type=int, default=96)
    ap.add_argument("--lr", type=float, default=2e-4)
    ap.add_argument("--sft-steps", dest="sft_steps", type=int, default=3000, help="SFT ceiling, per stage")
    ap.add_argument(
        "--sft-gold-prob",
        dest="sft_gold_prob",
        default="0.02,0.1",
        help="SFT stages: each stops when the gold scratchpad's teacher-forced probability reaches its value",
    )
    ap.add_argument(
        "--task",
        choices=sorted(TASKS),
        default="chain",
        help="chain (the study) or sum_any (a scratchpad with choices; its own work directory)",
    )
    ap.add_argument(
        "--sft-acc",
        dest="sft_acc",
        type=float,
        help="one SFT stage that stops at this sampled accuracy (instead of --sft-gold-prob)",
    )
    ap.add_argument(
        "--on-max-gen-batches",
        dest="on_max_gen_batches",
        choices=["train", "skip"],
        default="train",
        help="a step whose 4 generation batches kept no group: train ends the run (the study), skip goes on "
        "without an update (runs, figures and table region of their own)",
    )
    ap.add_argument(
        "--base",
        default="",
        help="settings both arms add to the dapo recipe, ';'-separated (e.g. 'algo.overlong_filter=false;"
        "algo.overlong_penalty=false'): another base recipe, with runs, figures and table region of its own "
        "named by --name",
    )
    ap.add_argument(
        "--name",
        default="",
        help="the name of the runs, JSON, figures and table region of another base recipe (with --base) or "
        "of a replication with new seeds (alone), so that neither overwrites the study's",
    )
    ap.add_argument(
        "--sft-loops",
        dest="sft_loops",
        type=float,
        help="one more SFT stage (from --init or the warm-up) on scratchpads of which this share loops "
        "(`looping_records`): a policy with long repetitive wrong responses; needs --name",
    )
    ap.add_argument(
        "--sft-early",
        dest="sft_early",
        type=float,
        help="one more SFT stage (from --init or the warm-up) on scratchpads of which this share stops one step "
        "early (`early_records`): a policy for which the right last step is a rare token; needs --name",
    )
    ap.add_argument(
        "--sft-early-long",
        dest="sft_early_long",
        type=float,
        help="as --sft-early, but only scratchpads of long chains (LONG_CHAIN operations or more) stop early "
        "(`early_long_records`): the move to learn lives in long responses; needs --name",
    )
    ap.add_argument(
        "--sft-wrong-last",
        dest="sft_wrong_last",
        type=float,
        help="one more SFT stage on scratchpads of which this share gets the last step's value wrong "
        "(`wrong_last_records`): a right last value that is rare among many wrong ones; needs --name",
    )
    ap.add_argument("--sft-loop-steps", "--sft-stage-steps", dest="sft_loop_steps", type=int, default=100,
                    help="steps of the --sft-loops / --sft-early(-long) / --sft-wrong-last stage")  # fmt: skip
    ap.add_argument(
        "--metric",
        choices=sorted(METRIC_LABELS),
        help="the headline measure of every technique run, instead of its own; needs --name",
    )
    ap.add_argument(
        "--per-step",
        dest="per_step",
        type=Path,
        help="print, from a results JSON this script wrote, the seed-paired difference of each training curve "
        "(--curves) over the first --first steps, as Markdown tables; runs nothing",
    )
    ap.add_argument("--curves", default="length,truncation,entropy,acc")
    ap.add_argument("--first", type=int, default=12)
    ap.add_argument("--probe-n", dest="probe_n", type=int, default=64)
    ap.add_argument("--probe-k", dest="probe_k", type=int, default=4)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--init", type=Path, help="start every arm from this policy instead of the SFT warm-up")
    ap.add_argument("--quick", action="store_true",
                    help="dynamic sampling only, 2 seeds, 12 steps, from the study's SFT policy (the shipped copy "
                         "when this checkout has not trained it); prints the stored line of the other techniques")  # fmt: skip
    args = ap.parse_args(argv)
    if args.per_step:
        print(per_step_tables(args.per_step, args.curves.split(","), args.first))
        return []
    args.tag = ""
    args.base = tuple(x.strip() for x in args.base.split(";") if x.strip())
    if (args.base and not args.name) or not re.fullmatch(r"[a-z0-9_]*", args.name):
        ap.error("--base needs --name; --name is lower-case letters, digits and _")
    extra = [x for x in (args.sft_loops, args.sft_early, args.sft_early_long, args.sft_wrong_last) if x]
    if (extra or args.metric) and not args.name:
        ap.error(
            "--sft-loops, --sft-early(-long), --sft-wrong-last and --metric change the study: name the variant "
            "with --name"
        )
    if len(extra) > 1:
        ap.error(
            "--sft-loops, --sft-early, --sft-early-long, --sft-wrong-last: one extra SFT stage at a time"
        )
    if args.quick:  # same corpus and SFT policy as the study, its own run directories
        args.only, args.seeds, args.steps, args.probe_n, args.tag = (
            "dynamic_sampling",
            "0,1",
            12,
            32,
            "quick-",
        )
    args.epochs, args.max_prompt_len, args.eval_n = 1, 256, 4
    techs = [t.strip() for t in args.only.split(",") if t.strip()]
    bad = [t for t in techs if t not in TECHNIQUES]
    if bad:
        ap.error(f"--only {bad}: choose from {list(TECHNIQUES)}")
    seeds = [int(s) for s in args.seeds.split(",")]
    t0 = time.perf_counter()
    if args.quick and args.task != "chain":
        ap.error("--quick reproduces the chain study (its shipped SFT policy): leave --task out")
    if args.quick and args.name:
        ap.error("--quick reproduces the study's stored result: leave --base and --name out")
    args.work = args.work or ROOT / "runs" / output_names(args.task, False, "")[1]  # corpus, SFT, runs
    args.tag, args.prefix, args.region = output_names(
        args.task, args.on_max_gen_batches == "skip", args.name, args.tag
    )
    train, held, records = build(args.work, n_train=4000, n_eval=400, task=args.task)
    stages = [float(x) for x in args.sft_gold_prob.split(",")]
    if (
        args.quick
        and args.init is None
        and not (args.work / f"sft-stage{len(stages) - 1}" / "config.json").exists()
    ):
        args.init = SHIPPED_SFT  # the 16-minute warm-up would not fit --quick's 10 minutes
        print(
            f"--quick: starting from the shipped copy of the study's SFT policy ({SHIPPED_SFT.relative_to(ROOT)})"
        )
    if args.init is not None:
        init = args.init
        args.sft = f"policy given ({args.init})" + ("" if extra else ", not trained here")
    else:
        init = warm_up(args.work, records, steps=args.sft_steps, gold_probs=stages, threads=args.threads,
                       probe=train, acc=args.sft_acc, L=args.L)  # fmt: skip
        n_stages = 1 if args.sft_acc else len(stages)
        done = [json.loads((args.work / f"sft-stage{i}.json").read_text()) for i in range(n_stages)]
        args.sft = " + ".join(
            f"{d['steps']} (probe accuracy {d['probe_acc']:.2f})" if args.sft_acc else
            f"{d['steps']} (gold p {d['gold_prob']:.3f})" for d in done) + " steps"  # fmt: skip
    for kind, share, what in (
        ("loops", args.sft_loops, "loop"),
        ("early", args.sft_early, "stop a step early"),
        ("early_long", args.sft_early_long, f"stop a step early (chains of {LONG_CHAIN}+ operations only)"),
        ("wrong_last", args.sft_wrong_last, "get the last value wrong"),
    ):
        if share:
            init = extra_stage(args.work, records, init, kind=kind, share=share, steps=args.sft_loop_steps,
                               threads=args.threads)  # fmt: skip
            args.sft += f" + {args.sft_loop_steps} SFT steps here on scratchpads {share:.0%} of which {what}"
    data = SimpleNamespace(train=train, eval=held, init=init)
    # (technique, seed) pairs; a pair whose run another process is training is put back and retried,
    # so two processes side by side split the work instead of waiting on each other
    pairs: dict[str, dict[int, tuple[dict, dict] | str]] = {t: {} for t in techs}
    todo = [(t, s) for t in techs for s in seeds]
    while todo:
        busy = []
        for tech, seed in todo:
            try:
                w = run_arm(tech, "with", seed, args, data, args.steps)
                if "failed" in w:
                    pairs[tech][seed] = w["failed"]
                    continue
                # equal generated samples: without dynamic sampling, one generation batch per step
                steps = w["gen_batches"] if tech == "dynamic_sampling" else args.steps
                wo = run_arm(tech, "without", seed, args, data, steps)
            except Busy:
                busy.append((tech, seed))
                continue
            pairs[tech][seed] = wo.get("failed", (w, wo))
        if busy == todo:
            time.sleep(5)
        todo = busy
    results = []
    for tech in techs:
        got = [pairs[tech][s] for s in seeds]
        withs = [p[0] for p in got if isinstance(p, tuple)]
        withouts = [p[1] for p in got if isinstance(p, tuple)]
        failed = [p for p in got if isinstance(p, str)]
        if not withs:
            print(f"{tech:17s} not shown: every seed failed ({failed[0][:160]})", flush=True)
            results.append({"technique": tech, "seeds": [], "shown": False, "failed": failed})
            continue
        c = compare(tech, withs, withouts, args.metric)
        c["failed"] = failed
        c["figure"] = str(
            plot(
                tech,
                withs,
                withouts,
                args.work if args.quick else args.out,
                prefix=args.prefix,
                metric=args.metric,
            )
        )
        c["runs"] = {"with": withs, "without": withouts}
        results.append(c)
        print(line(c), flush=True)
    args.wall = time.perf_counter() - t0
    import resource

    usage = [resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
    args.cpu = sum(u.ru_utime + u.ru_stime for u in usage)
    if not args.quick:  # merged by technique: two `--only` processes side by side keep each other's rows
        path = args.out / f"{args.prefix}.json"
        kept = {c["technique"]: c for c in json.loads(path.read_text())} if path.exists() else {}
        kept.update({c["technique"]: c for c in results})
        merged = [kept[t] for t in TECHNIQUES if t in kept]
        atomic_write(path, json.dumps(merged, indent=1))
        write_table(merged, args, args.out)
    else:
        stored = args.out / "mechanisms.json"
        done = {c["technique"]: c for c in json.loads(stored.read_text())} if stored.exists() else {}
        for tech in TECHNIQUES:
            if tech not in techs:
                print(
                    f"stored ({stored.name}): {line(done[tech])}"
                    if tech in done
                    else f"{tech:17s} not run here"
                )
    print(f"wall {args.wall / 60:.1f} min, CPU {args.cpu / 60:.1f} min (the budget on an idle machine)")
    return results


if __name__ == "__main__":
    main()
