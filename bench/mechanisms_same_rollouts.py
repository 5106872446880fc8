"""Clip-higher on one update at a time: the same rollouts, the same state, two clip bounds.

The end-to-end comparison in bench/mechanisms.py trains two policies on different rollouts, so the
run-to-run spread of entropy (about 0.005 nats per token between seeds after 100 steps) swamps what
the upper clip bound changes. Here every step of the arm *with* clip-higher (the study's dapo recipe,
eps_high 0.28) is also taken a second time from the same policy, optimiser state, rollout batch and
mini-batch order with the symmetric bound (eps_high 0.2); the second policy is measured and thrown
away, and the run goes on from the first. Per step t:

    d_t = H(theta_t^0.28; B_t) - H(theta_t^0.20; B_t)

H(theta; B) is the mean per-token entropy of the policy over the response tokens of batch B (the
rollout temperature), B_t the step's own rollouts. Tokens the symmetric bound does not hold back
(ratio <= 1.2 or advantage <= 0) get the same gradient in both updates, so d_t is exactly 0 when no
token crosses 1.2, and its sign says what the higher bound does to entropy on the tokens it frees.

    python bench/mechanisms_same_rollouts.py --seeds 50,51,52,53,54 &
    python bench/mechanisms_same_rollouts.py --seeds 55,56,57,58,59
    python bench/mechanisms_same_rollouts.py --seeds 50,...,59 --report   # the table (runs finished)

Runs live in runs/mechanisms/runs/same_rollouts/seed<k> (metrics.jsonl as any run, plus
same_rollouts.jsonl, one row per step); an unfinished run is started again from scratch.
"""

from __future__ import annotations

import argparse
import copy
import json
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.append(str(ROOT / "bench"))
from mathdata.files import atomic_write  # noqa: E402

EPS_WITHOUT = 0.2  # the arm without clip-higher (bench/mechanisms.py TECHNIQUES["clip_higher"])
LOW_P = 0.2  # "low-probability" tokens: pi_old < 0.2 (the paper's section 3.1 argument)
RESULT = "mechanisms_same_rollouts"
# technique -> (what the second update sets, the headline per-step measure): the arm without each technique as in
# bench/mechanisms.py's TECHNIQUES
TECHNIQUES = {
    "clip_higher": ({"eps_high": EPS_WITHOUT}, "d_entropy"),
    "token_loss": ({"loss_agg": "seq_mean_token_mean"}, "d_long_neg"),
}


def masked_mean(x, mask) -> float:
    return float((x * mask).sum() / mask.sum().clamp(min=1))


class SameRollouts:
    """Stands in for trainer.update.update: before each real update, the same update with
    `algo.eps_high = eps` from the same state (parameters, optimiser, RNG), measured, then undone.

    One JSON row per call goes to `path`: entropies after either update on the step's batch and on a
    fixed batch (the first step's), the log-probability rise of low-probability positive tokens, and
    each update's clip shares."""

    def __init__(self, real_update, path: Path, eps: float = EPS_WITHOUT, alt: dict | None = None):
        self.real, self.path, self.eps = real_update, path, eps
        self.alt = alt if alt is not None else {"eps_high": eps}
        self.fixed = None
        self.step = 0

    def _measure(self, cfg, model, batch) -> tuple[float, float, object]:
        from trainer.update import score_tokens

        micro = cfg.train.micro_batch_size or cfg.train.mini_batch_size or len(batch)
        kw = {"temperature": cfg.rollout.temperature, "micro": micro, "packed": cfg.train.padding_free}
        lp, ent = score_tokens(model, batch, **kw)
        _, ent_fixed = score_tokens(model, self.fixed, **kw)
        return masked_mean(ent, batch.mask), masked_mean(ent_fixed, self.fixed.mask), lp

    def __call__(self, cfg, model, optimizer, batch, *, metrics=None) -> dict:
        import torch

        self.step += 1
        if self.fixed is None:
            self.fixed = batch
        h_old, h_old_fixed, lp_old = self._measure(cfg, model, batch)
        alt = cfg.model_copy(update={"algo": cfg.algo.model_copy(update=self.alt)})
        params, opt, rng = (
            copy.deepcopy(model.state_dict()),
            copy.deepcopy(optimizer.state_dict()),
            torch.get_rng_state(),
        )
        st_alt = self.real(alt, model, optimizer, batch)
        h_alt, h_alt_fixed, lp_alt = self._measure(alt, model, batch)
        model.load_state_dict(params)
        optimizer.load_state_dict(opt)
        torch.set_rng_state(rng)
        out = self.real(cfg, model, optimizer, batch, metrics=metrics)
        h, h_fixed, lp = self._measure(cfg, model, batch)
        # positive-advantage tokens the old policy gave < LOW_P: the ones the paper says the bound holds back
        adv = batch.adv if batch.adv.dim() == 2 else batch.adv[:, None].expand_as(batch.mask)
        low = batch.loss_mask * (adv > 0) * (lp_old.exp() < LOW_P)
        # negative-advantage responses, longer and shorter than the batch's median: per response the mean over its
        # tokens of logp(this update) - logp(the other); the token-level loss weighs a long one's tokens more
        n_tok = batch.loss_mask.sum(1)
        per_resp = ((lp - lp_alt) * batch.loss_mask).sum(1) / n_tok.clamp(min=1)
        neg = (adv[:, 0] if adv.dim() == 2 else adv) < 0
        long_ = neg & (n_tok > n_tok.median()) & (n_tok > 0)
        short = neg & (n_tok <= n_tok.median()) & (n_tok > 0)
        d_long_neg = (
            float(per_resp[long_].mean() - per_resp[short].mean()) if long_.any() and short.any() else None
        )
        row = {
            "step": self.step,
            "alt": self.alt,
            "d_long_neg": d_long_neg,
            "eps_high": cfg.algo.eps_high,
            "eps_high_alt": alt.algo.eps_high,
            "entropy_old": h_old,
            "entropy": h,
            "entropy_alt": h_alt,
            "d_entropy": h - h_alt,
            "entropy_fixed_old": h_old_fixed,
            "d_entropy_fixed": h_fixed - h_alt_fixed,
            "low_tokens": int(low.sum()),
            "d_low_logp": masked_mean(lp - lp_alt, low) if low.sum() else None,
            "clip_frac_high": out["clip_frac_high"],
            "clip_frac_high_alt": st_alt["clip_frac_high"],
            "kl_old": out["kl_old"],
        }
        with open(self.path, "a") as f:
            f.write(json.dumps(row) + "\n")
        return out


def run_name(technique: str) -> str:
    """Run directory (and result file suffix) of a technique: clip-higher's keeps the name it was run under."""
    return "same_rollouts" if technique == "clip_higher" else f"same_rollouts_{technique}"


def run(seed: int, args) -> Path:
    """One run of the with-arm recipe (bench/mechanisms.py's, via ablation.run_seed) with the
    counterfactual update beside every real one; read back when finished."""
    import mechanisms as M
    from ablation import run_seed

    import trainer.loop

    name = run_name(args.technique)
    run_dir = args.work / "runs" / name / f"seed{seed}"
    rows = run_dir / "same_rollouts.jsonl"
    if rows.exists() and len(rows.read_text().splitlines()) >= args.steps:
        return rows
    shutil.rmtree(run_dir, ignore_errors=True)  # the counterfactual rows cannot resume mid-run: start over
    run_dir.mkdir(parents=True)
    real = trainer.loop.update
    trainer.loop.update = SameRollouts(real, rows, alt=TECHNIQUES[args.technique][0])
    try:
        r = run_seed(name, seed, M.arm_settings(name, "clip_higher", "with", args, args.steps), args.train,
                     args.held, args.init)  # fmt: skip
    finally:
        trainer.loop.update = real
    if r["status"] != "ok":
        raise SystemExit(f"seed {seed}: {r['status']}: {r.get('reason')}")
    return rows


def summarise(paths: dict[int, Path], headline: str = "d_entropy") -> dict:
    """Per seed the mean of each per-step measure over its steps, then mean and standard error over seeds; `shown`
    when the headline's mean is >= 3 standard errors from 0."""
    from mechanisms import mean_se

    keys = ["d_entropy", "d_entropy_fixed", "d_low_logp", "d_long_neg", "clip_frac_high", "clip_frac_high_alt",
            "entropy_old", "kl_old"]  # fmt: skip
    per_seed = {}
    for seed, p in paths.items():
        rows = [json.loads(x) for x in p.read_text().splitlines()]
        per_seed[seed] = {k: sum(r[k] for r in rows if r.get(k) is not None) / max(1, sum(r.get(k) is not None
                          for r in rows)) for k in keys}  # fmt: skip
        per_seed[seed]["headline_sum"] = sum(r[headline] for r in rows if r.get(headline) is not None)
        per_seed[seed]["steps"] = len(rows)
        per_seed[seed]["positive_steps"] = sum((r.get(headline) or 0) > 0 for r in rows)
        per_seed[seed]["zero_steps"] = sum(r.get(headline) == 0 for r in rows)
    out = {"seeds": sorted(per_seed), "per_seed": per_seed, "headline": headline}
    for k in [*keys, "headline_sum"]:
        m, se = mean_se([per_seed[s][k] for s in sorted(per_seed)])
        out[k] = {"mean": m, "se": se, "t": m / se if se else None}
    h = out[headline]
    out["shown"] = bool(h["se"] and abs(h["mean"]) >= 3 * h["se"])
    return out


def plot(paths: dict[int, Path], out: Path, technique: str = "clip_higher") -> Path:
    """Left: d_t per step (mean over seeds, band +-1 s.e.) and its running sum; right: each seed's mean d_t
    with the mean over seeds and its s.e."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from mechanisms import mean_se

    headline = TECHNIQUES[technique][1]
    runs = {
        s: [json.loads(x).get(headline) or 0.0 for x in p.read_text().splitlines()] for s, p in paths.items()
    }
    n = min(len(v) for v in runs.values())
    steps = list(range(1, n + 1))
    per_step = [mean_se([v[i] for v in runs.values()]) for i in range(n)]
    m = [a for a, _ in per_step]
    se = [b or 0.0 for _, b in per_step]
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(10, 3.6))
    label = {"d_entropy": "d_t = H(eps_high 0.28) - H(0.2)",
             "d_long_neg": "d_t (long - short negatives)"}[headline]  # fmt: skip
    ax.plot(steps, m, color="C0", label=f"{label}, mean over seeds")
    ax.fill_between(steps, [a - b for a, b in zip(m, se, strict=True)], [a + b for a, b in zip(m, se, strict=True)],
                    color="C0", alpha=0.25)  # fmt: skip
    ax.axhline(0, color="k", lw=0.5)
    ax.set_xlabel("step")
    ax.set_ylabel("difference after one update (nats/token)")
    cx = ax.twinx()
    cum = [sum(m[: i + 1]) for i in range(n)]
    cx.plot(steps, cum, color="C2", ls="--", label="running sum")
    cx.set_ylabel("running sum of d_t")
    ax.legend(loc="upper left", fontsize=8)
    cx.legend(loc="lower right", fontsize=8)
    seeds = sorted(runs)
    means = [sum(runs[s]) / len(runs[s]) for s in seeds]
    bx.scatter([str(s) for s in seeds], means, color="C0")
    mm, ms = mean_se(means)
    bx.axhline(mm, color="k", lw=1)
    bx.axhspan(mm - (ms or 0), mm + (ms or 0), color="k", alpha=0.1)
    bx.axhline(0, color="k", lw=0.5, ls=":")
    bx.set_xlabel("seed")
    bx.set_ylabel("mean d_t over the run")
    fig.suptitle(f"{technique}, one update at a time on the same rollouts ({len(seeds)} seeds)")
    fig.tight_layout()
    path = out / f"{RESULT}{run_name(technique)[len('same_rollouts') :]}.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def main(argv: list[str] | None = None) -> dict | None:
    import mechanisms as M

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", default="50,51,52,53,54,55,56,57,58,59")
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--work", type=Path, default=ROOT / "runs" / "mechanisms")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    ap.add_argument("--init", type=Path, default=M.SHIPPED_SFT, help="the starting policy (the study's SFT)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--report", action="store_true", help="summarise finished runs only; train nothing")
    ap.add_argument("--technique", default="clip_higher", choices=list(TECHNIQUES))
    args = ap.parse_args(argv)
    # the study's settings (bench/mechanisms.py defaults): 8 prompts x G=8, mini-batch 16, 96 tokens, lr 2e-4
    args.prompts, args.G, args.mini_batch, args.L, args.lr = 8, 8, 16, 96, 2e-4
    args.epochs, args.max_prompt_len, args.eval_n = 1, 256, 4
    args.on_max_gen_batches, args.base, args.tag = "train", (), ""
    seeds = [int(s) for s in args.seeds.split(",")]
    if not args.report:
        args.train, args.held, _ = M.build(args.work, n_train=4000, n_eval=400, task="chain")
    paths = {}
    for seed in seeds:
        p = args.work / "runs" / run_name(args.technique) / f"seed{seed}" / "same_rollouts.jsonl"
        if args.report:
            if p.exists() and len(p.read_text().splitlines()) >= args.steps:
                paths[seed] = p
            continue
        paths[seed] = run(seed, args)
    if not paths:
        print("no finished run")
        return None
    headline = TECHNIQUES[args.technique][1]
    s = summarise(paths, headline)
    h = s[headline]
    print(f"{args.technique} (same rollouts) {headline} per update {h['mean']:+.2e} +- {h['se'] or 0:.1e} "
          f"(t {h['t'] or 0:+.1f}, {len(paths)} seeds): {'shown' if s['shown'] else 'not shown'}")  # fmt: skip
    if args.report:
        s["figure"] = plot(paths, args.out, args.technique).name
        suffix = run_name(args.technique)[len("same_rollouts") :]
        atomic_write(args.out / f"{RESULT}{suffix}.json", json.dumps(s, indent=1))
    return s


if __name__ == "__main__":
    main()
