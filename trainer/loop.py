"""The RL recipe, top to bottom: sample groups, score, filter, advantages, several clipped updates.

One step (`_train`'s loop body, numbered the same):
  1. rollout    dynamic sampling fills `prompts_per_step` groups of G responses (trainer/sampling.py);
                with train.max_staleness k > 0 a producer process has sampled them with the policy of
                k steps ago while the learner trained (trainer/async_rollout.py)
  2. pi_old     recompute pi_old with the training model in eval mode (default), or take the engine's;
                with a single update per rollout pi_old is the policy itself (ratio 1), so no extra
                pass; the reference policy's log-probs when algo.kl_coef > 0
  3. advantage  the algorithm's row (trainer/algorithms.py): group-relative, leave-one-out, batch-
                whitened, DCPO-smoothed, or GAE from the critic; plus the tokens the loss treats
                apart (clip_cov / kl_cov) and the high-entropy tokens (algo.entropy_top_quantile)
  4. updates    `epochs` passes in mini-batches of `mini_batch_size` responses (trainer/update.py),
                each accumulated over micro-batches with a global normaliser (trainer/objective.py);
                then the critic's update (trainer/critic.py)
  5. log, evaluate, checkpoint (every step by default: a kill loses at most one step)

Under `torchrun --nproc_per_node N` every rank runs this same code (docs/distributed.md).
"""

from __future__ import annotations

import contextlib
import copy
import time
from pathlib import Path
from types import SimpleNamespace

import torch

from trainer import distributed as D
from trainer.algorithms import ALGORITHMS, advantages
from trainer.batch import make_batch
from trainer.checkpoint import latest_checkpoint, load_training_state, save_checkpoint
from trainer.config import Config, dump_config
from trainer.correction import is_weight_stats
from trainer.critic import Critic, build_critic, critic_advantages, critic_update, critic_values
from trainer.critic import writer as critic_writer
from trainer.data import PromptSampler, difficulty_weights, held_out_warning, load_prompts, read_verl
from trainer.metrics import MetricsLog, progress_bar, rollout_metrics
from trainer.model import build_policy, load_model, load_tokenizer, quiet_transformers, save_policy
from trainer.objective import entropy_top_mask, kl_penalty, logprob_gap
from trainer.reward import score_samples
from trainer.sampling import SurplusBuffer, collect
from trainer.update import lr_at, minibatches, score_tokens, update


def train(cfg: Config, *, resume: bool = False, progress: bool = True, max_steps: int | None = None) -> Path:
    """Run (or resume) RL training; returns the output directory. `max_steps` stops early (tests).

    Under `torchrun --nproc_per_node N` every rank runs this function (see docs/distributed.md):
    rollouts and forward/backward are sharded, only rank 0 logs, evaluates and writes checkpoints.
    """
    env = D.init_distributed(D.backend_for(cfg.train.device))
    try:
        out = _train(cfg, env, resume=resume, progress=progress, max_steps=max_steps)
    except BaseException:
        D.cleanup(ok=False)
        raise
    D.cleanup()
    return out


def _train(cfg: Config, env, *, resume: bool, progress: bool, max_steps: int | None) -> Path:
    t, r, a = cfg.train, cfg.rollout, cfg.algo
    algo = ALGORITHMS[a.name]
    run = _setup(cfg, env, resume)
    model, tok, data, sampler, engine, optimizer = (
        run.model,
        run.tok,
        run.data,
        run.sampler,
        run.engine,
        run.optimizer,
    )
    main, device, critic, ref_model = D.is_main(), run.device, run.critic, run.ref_model

    def score(samples, gold, question=None):
        return score_samples(samples, gold, question, max_len=r.max_new_tokens, cache_len=a.overlong_buffer,
                             overlong_penalty=a.overlong_penalty)  # fmt: skip

    end = t.steps if max_steps is None else min(t.steps, run.start + max_steps)
    prog = progress_bar(progress and main)
    task = prog.add_task(
        "train", total=t.steps, completed=run.start, info=f"dropped prompts: {data.dropped_too_long}"
    )

    def end_step(step: int, m: dict, rb, lr: float, dt: float, t_gen: float, info: str) -> None:
        """Every step's close, updated or skipped: timings, held-out eval when due, the metrics and
        samples logs (rank 0), the checkpoint when due, the progress line."""
        m.update(lr=lr, step_time=dt, gen_time=t_gen, tokens_per_s=m.pop("_gen_tokens") / dt,
                 prompts_dropped=data.dropped_too_long, epoch=sampler.epoch,
                 prompts_left_out=sampler.left_out)  # fmt: skip
        m.setdefault("skipped_step", 0)
        if cfg.data.eval and t.eval_every and ((step + 1) % t.eval_every == 0 or step + 1 == t.steps):
            m.update(_evaluate(cfg, model, tok, run.eval_set, step + 1))
        if main:
            run.log.log(step + 1, m)
            run.samples_log.log(step + 1, {"groups": [
                {"key": g.prompt.key, "rewards": g.rewards, "first": g.samples[0].text, "version": g.version}
                for g in rb.groups]})  # fmt: skip
        if (step + 1) % t.save_every == 0 or step + 1 == end:
            _save(run, step + 1)
        if main:
            prog.update(task, advance=1, info=info)
            if not progress or not prog.console.is_terminal:  # logs and CI get one line per step
                prog.console.print(f"step {step + 1}/{t.steps}: {info}")

    with prog, contextlib.closing(run.producer) if run.producer else contextlib.nullcontext():
        for step in range(run.start, end):
            t0 = time.perf_counter()
            lr = lr_at(cfg, step)
            for g in optimizer.param_groups:
                g["lr"] = lr

            # 1. rollout with dynamic sampling (each rank generates its share of the prompts), or, with
            #    train.max_staleness > 0, the batch the producer process sampled ahead (trainer/async_rollout.py)
            if run.producer is None:
                if r.engine == "hf" or step > run.start:  # vLLM: reload after each update (it starts in sync)
                    engine.sync_weights(model)
                with D.full_params(model):  # no-op unless FSDP2
                    rb = collect(
                        engine, data.prompts, sampler, score,
                        target=t.prompts_per_step, gen_prompts=t.gen_prompts or t.prompts_per_step,
                        dynamic=a.dynamic_sampling, max_gen_batches=a.max_gen_batches,
                        n=r.n, max_new_tokens=r.max_new_tokens, temperature=r.temperature, top_p=r.top_p,
                        carry=run.surplus.take(), on_max_gen_batches=a.on_max_gen_batches,
                        filter_metric=a.filter_metric,
                    )  # fmt: skip
                for g in rb.generated:
                    g.version = step
                if a.keep_surplus:  # informative groups beyond the target wait for the next step
                    run.surplus.put(rb.surplus)
                produced = {}
            else:
                p = run.producer.get(step)
                rb = p.rb
                sampler.load_state_dict(p.sampler_state)  # the producer's (epoch for the metrics)
                produced = {"stale_dropped": p.stale_dropped, "producer_gen_time": p.gen_time}
            staleness = _staleness(rb, step, t.max_staleness)
            t_gen = time.perf_counter() - t0
            if not rb.groups:  # on_max_gen_batches: skip and not one informative group: no update
                if run.producer is not None:  # the producer's next batches wait for this version
                    run.producer.publish(step + 1, model)
                m = {**rollout_metrics(rb, None), **staleness, **produced, "skipped_step": 1}
                end_step(step, m, rb, lr, t_gen, t_gen, f"skipped: no informative group in {rb.gen_batches} "
                         f"gen-batches (acc {m['acc']:.2f}) {t_gen:.1f}s")  # fmt: skip
                continue
            batch = make_batch(rb.groups, run.pad_id, overlong_filter=a.overlong_filter).to(device)

            # 2. pi_old (None: on-policy, one update per rollout) and the reference
            micro = t.micro_batch_size or t.mini_batch_size or len(batch)
            n_updates = t.epochs * minibatches(len(batch), t.mini_batch_size)  # > 1: the ratio needs pi_old
            needs_pass = n_updates > 1 or ref_model is not None or bool(algo.select or a.entropy_top_quantile)
            old = ent = None
            if a.old_logprobs == "engine":
                old = batch.engine_logp
            if needs_pass and (old is None or a.entropy_top_quantile):
                lp, ent = score_tokens(
                    model, batch, temperature=r.temperature, micro=micro, packed=t.padding_free
                )
                old = lp if old is None else old
            ref = (
                score_tokens(ref_model, batch, temperature=r.temperature, micro=micro, packed=t.padding_free)[
                    0
                ]
                if ref_model
                else None
            )

            # 3. advantages, and the tokens the loss treats apart
            pretrain = critic is not None and step < a.value_pretrain_steps
            if critic is not None:
                values = critic_values(critic, batch, micro=micro, packed=t.padding_free)
                adv, returns, lam = critic_advantages(a, algo, rb.groups, batch, values, pretrain=pretrain)
            else:
                adv = advantages(a, rb.groups, batch.loss_mask, run.adv_state).to(device)
            batch = batch.with_(adv=adv, old=old, ref=ref)
            if algo.select:  # seeded from the global RNG: every rank draws the same tokens
                gen = torch.Generator().manual_seed(int(torch.randint(0, 2**62, (1,))))
                adv_tok = adv if adv.dim() == 2 else adv[:, None].expand_as(batch.loss_mask)
                batch = batch.with_(selected=algo.select(old, adv_tok, batch.loss_mask, a, gen))
            if a.entropy_top_quantile:
                batch = batch.with_(pg_mask=entropy_top_mask(ent, batch.loss_mask, a.entropy_top_quantile))

            # 4. several mini-batch updates (none while the critic is pretrained), then the critic's
            first_pass: dict = {}
            upd = (
                {"value_pretrain": 1}
                if pretrain
                else update(cfg, model, optimizer, batch, metrics=first_pass)
            )
            if run.producer is not None:  # the producer's next batches wait for this version
                run.producer.publish(step + 1, model)
            crit = (
                {
                    **critic_update(cfg, critic, run.critic_opt, batch, values, returns),
                    "gae_lambda_policy": lam,
                }
                if critic is not None
                else {}
            )

            # 5. metrics, eval and checkpoint
            dt = time.perf_counter() - t0
            m = rollout_metrics(rb, batch)
            if ent is not None:  # from the pi_old pass
                ntok = batch.mask.sum().clamp(min=1)
                m["entropy"] = float((ent * batch.mask).sum() / ntok)
                m["mean_prob"] = float((old.exp() * batch.mask).sum() / ntok)
            else:  # from the first training pass (the same policy)
                m["entropy"], m["mean_prob"] = first_pass.get("entropy"), first_pass.get("mean_prob")
            # engine vs trainer logprobs on the sampled tokens (pi_old pass, else the first training pass)
            if old is not None and a.old_logprobs != "engine":
                m.update(logprob_gap(old, batch.engine_logp, batch.mask))
                m.update(is_weight_stats(old, batch.engine_logp, batch.mask))
            elif "gap" in first_pass:
                m.update(first_pass["gap"])
            m.update(staleness, **produced)
            m.update(upd)
            m.update(crit)
            ntok = batch.loss_mask.sum().clamp(min=1)
            if batch.selected is not None:
                m["selected_share"] = float((batch.selected.float() * batch.loss_mask).sum() / ntok)
            if batch.pg_mask is not None:
                m["pg_token_share"] = float((batch.pg_mask * batch.loss_mask).sum() / ntok)
            if ref is not None:
                k3 = kl_penalty(old, ref, "k3")  # >= 0 per token, unlike k1
                m["kl_ref"] = float((k3 * batch.mask).sum() / batch.mask.sum().clamp(min=1))
            phase = "value-pretrain " if pretrain else ""
            end_step(step, m, rb, lr, dt, t_gen, f"{phase}acc {m['acc']:.2f} reward {m['reward_mean']:+.2f} "
                     f"len {m['response_length_mean']:.0f} ent {m['entropy'] or 0:.2f} gen-batches {rb.gen_batches} {dt:.1f}s")  # fmt: skip
    if main:
        run.log.close()
        run.samples_log.close()
    return Path(t.out)


# ---------------------------------------------------------------- what _train uses
def _setup(cfg: Config, env, resume: bool) -> SimpleNamespace:
    """Everything a run holds: model, tokenizer, data, sampler, reference, critic, engine, optimisers, logs.

    From the latest checkpoint when `resume`; the same seeded start on every rank otherwise.
    """
    quiet_transformers()
    main = D.is_main()
    t, a = cfg.train, cfg.algo
    algo = ALGORITHMS[a.name]
    if not cfg.data.train:
        raise ValueError("data.train is not set; point it at a verl Parquet (e.g. from `dapo build`)")
    if t.threads:
        torch.set_num_threads(t.threads)
    out = Path(t.out)
    if main:
        out.mkdir(parents=True, exist_ok=True)
    D.barrier()
    ckpt_root = out / "checkpoints"
    ckpt = latest_checkpoint(ckpt_root) if resume else None
    if resume and ckpt is None:
        raise FileNotFoundError(f"--resume: no checkpoint under {ckpt_root}; run without --resume to start")

    torch.manual_seed(t.seed)  # the same on every rank: update()'s permutations must agree
    device = D.resolve_device(t.device, env)
    if device.type == "cuda":
        torch.cuda.set_device(device)
    if t.fsdp and not D.is_distributed():
        raise ValueError("train.fsdp needs several ranks: launch with torchrun --nproc_per_node N (N > 1)")
    if ckpt is not None:
        model, tok = load_model(ckpt, dtype=cfg.model.dtype), load_tokenizer(ckpt)
    else:
        texts = None
        if not cfg.model.path:
            rows = read_verl(cfg.data.train, split=cfg.data.train_split)
            texts = [m["content"] for row in rows for m in row["messages"]]
        model, tok = build_policy(cfg.model, texts, seed=t.seed)
    model.to(device)
    D.broadcast_params(model)  # same start on every rank
    if main:
        dump_config(cfg, out / "config.yaml")
    data = load_prompts(
        cfg.data.train, tok, max_prompt_len=cfg.data.max_prompt_len, split=cfg.data.train_split
    )
    if main and ckpt is None and not cfg.model.path:  # the tests' and the demo's tiny model: say so
        _warn(
            "model.path is not set: training a randomly initialised tiny model (model.tiny); "
            "set model.path to a policy (e.g. the output of `dapo sft`)"
        )
    if main and cfg.data.train_split is None and (warning := held_out_warning(cfg.data.train)):
        _warn(warning)
    eval_set = None
    if cfg.data.eval and t.eval_every and main:
        eval_set = load_prompts(cfg.data.eval, tok, max_prompt_len=cfg.data.max_prompt_len,
                                limit=cfg.data.eval_size, split=cfg.data.eval_split)  # fmt: skip
    weights = difficulty_weights(data.prompts, cfg.data.difficulty_sampling, G=cfg.rollout.n,
                                 skip_below=cfg.data.difficulty_skip_below, skip_above=cfg.data.difficulty_skip_above)  # fmt: skip
    if weights is not None and all(p.difficulty is None for p in data.prompts):
        raise ValueError(
            f"data.difficulty_sampling: {cfg.data.difficulty_sampling} but no row of {cfg.data.train} has "
            "extra_info.difficulty; export with the pipelines' difficulty stage or write difficulty_sampling: off"
        )
    sampler = PromptSampler(len(data.prompts), t.seed, weights=weights)
    surplus = SurplusBuffer()  # algo.keep_surplus: the informative groups one step carries to the next
    ref_model = None
    if a.kl_coef > 0:  # the initial policy, frozen, kept on disk so a resumed run uses the same one
        ref_dir = out / "reference"
        if ckpt is not None:
            ref_model = load_model(ref_dir, dtype=cfg.model.dtype).to(device)
        else:
            if main:
                save_policy(model, tok, ref_dir)
            ref_model = copy.deepcopy(model)
        ref_model.eval().requires_grad_(False)
    critic = None
    if algo.critic:  # a separate value model (trainer/critic.py says why), replicated on every rank
        if ckpt is not None:
            if not (ckpt / "critic" / "model.safetensors").exists():
                raise FileNotFoundError(
                    f"{ckpt} has no critic/ (written by an older version, or deleted); resume from a "
                    f"checkpoint that has one or start a new run (train.out other than {out})"
                )
            critic = Critic.load(ckpt / "critic").to(device)
        else:
            critic = build_critic(model)
        D.broadcast_params(critic)
    engine = _build_engine(cfg, model, tok, out)  # before sharding: vLLM starts from the plain weights
    if t.fsdp:  # parameters become DTensor shards: build the optimiser after this
        pdt = getattr(torch, t.fsdp_param_dtype) if t.fsdp_param_dtype else None
        model = D.shard_model_fsdp2(model, param_dtype=pdt, device_type=device.type)
        if ref_model is not None:
            ref_model = D.shard_model_fsdp2(ref_model, param_dtype=pdt, device_type=device.type)
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.optim.lr, betas=cfg.optim.betas,
                                  weight_decay=cfg.optim.weight_decay, eps=1e-8)  # fmt: skip
    critic_opt = None
    if critic is not None:
        critic_opt = torch.optim.AdamW(critic.parameters(), lr=a.critic_lr if a.critic_lr is not None else cfg.optim.lr,
                                       betas=cfg.optim.betas, weight_decay=cfg.optim.weight_decay, eps=1e-8)  # fmt: skip
        if ckpt is not None:
            critic_opt.load_state_dict(
                torch.load(ckpt / "critic_optimizer.pt", weights_only=True, map_location="cpu")
            )
    adv_state = algo.state() if algo.state else None  # DCPO's per-prompt reward history
    start = 0
    if ckpt is not None:
        st = load_training_state(ckpt, model, optimizer)
        start = st["step"]
        sampler.load_state_dict(st["sampler"])
        surplus.load_state_dict(st.get("surplus"))
        if adv_state is not None:
            adv_state.load_state_dict(st["dcpo"])
    producer = None
    if t.max_staleness > 0:  # the rollout producer process (trainer/async_rollout.py)
        # under torchrun rank 0 runs the producer and broadcasts each batch (async_rollout's docstring)
        from trainer.async_rollout import AsyncRollouts

        inflight = st.get("inflight") if ckpt is not None else None
        producer = AsyncRollouts(cfg, model, tok, data.prompts, weights, start=start,
                                 sampler_state=sampler.state_dict(), surplus_state=surplus.state_dict(),
                                 inflight=inflight or [])  # fmt: skip
    if main and ckpt is not None and start >= t.steps:
        _warn(
            f"run {out} is already at step {start} of train.steps {t.steps}: nothing to do; to go on, resume "
            f"with --set train.steps=N (N > {start})"
        )
    resume_step = start if ckpt is not None else None
    log = samples_log = None
    if main:
        log = MetricsLog(out, tensorboard=t.tensorboard, resume_step=resume_step)
        samples_log = MetricsLog(out, tensorboard=False, resume_step=resume_step, name="rollouts.jsonl")
    pad_id = getattr(engine, "pad_id", None)
    if pad_id is None:
        pad_id = tok.pad_token_id if tok.pad_token_id is not None else tok.eos_token_id
    return SimpleNamespace(
        model=model, tok=tok, device=device, data=data, eval_set=eval_set, sampler=sampler, surplus=surplus,
        ref_model=ref_model,
        critic=critic, critic_opt=critic_opt, engine=engine, optimizer=optimizer, adv_state=adv_state,
        start=start, log=log, samples_log=samples_log, pad_id=pad_id, ckpt_root=ckpt_root, producer=producer,
        keep_checkpoints=t.keep_checkpoints,
    )  # fmt: skip


def _build_engine(cfg: Config, model, tok, out: Path):
    """The rollout engine; call before FSDP2 sharding (vLLM starts from the plain model's weights).

    vLLM under torchrun: one engine on rank 0 samples for every rank (`vllm_engine.Rank0Engine`),
    started with torchrun's variables hidden so its workers form their own process group.
    """
    if cfg.rollout.engine == "hf":
        from trainer.rollout import HFEngine

        return HFEngine(model, tok)
    if cfg.train.max_staleness > 0:  # the producer process runs the vLLM engine (trainer/async_rollout.py)
        return None
    from trainer.vllm_engine import Rank0Engine, VLLMEngine, engine_kwargs

    kw = engine_kwargs(cfg)
    if not D.is_distributed():
        return VLLMEngine.from_model(model, tok, out / "vllm", **kw)
    engine = None
    if D.is_main():
        with D.without_torchrun_env():
            engine = VLLMEngine.from_model(model, tok, out / "vllm", **kw)
    D.barrier()
    return Rank0Engine(engine)


def _staleness(rb, step: int, bound: int) -> dict:
    """Versions between the policy being trained (`step`) and the ones that sampled its groups.

    With train.max_staleness > 0 the producer drops carried groups beyond the bound, and a group
    older than it is a bug; the synchronous loop's keep-surplus groups are logged as they are.
    """
    ages = [step - g.version for g in rb.groups]
    if bound > 0 and ages and (max(ages) > bound or min(ages) < 0):
        raise RuntimeError(f"step {step} got groups {min(ages)}..{max(ages)} versions old (bound {bound})")
    return {"staleness_mean": sum(ages) / max(len(ages), 1), "staleness_max": max(ages, default=0)}


def _warn(text: str) -> None:
    """A `warning:` line on stderr (rank 0 calls it)."""
    from rich.console import Console

    Console(stderr=True).print(f"[yellow]warning:[/] {text}")


def _evaluate(cfg: Config, model, tok, eval_set, step: int) -> dict:
    """Held-out avg@k etc. on rank 0 (every rank joins the unsharding under FSDP2). Its samples draw
    from a stream of their own (seed, step): turning eval on or off leaves training's draws as they are."""
    from trainer.eval import evaluate

    t = cfg.train
    with D.full_params(model):  # every rank: unsharding is a collective under FSDP2
        if eval_set is None:  # not rank 0
            return {}
        device = next(model.parameters()).device
        with torch.random.fork_rng(devices=[device] if device.type == "cuda" else []):
            torch.manual_seed(t.seed * 1_000_003 + step)
            ev = evaluate(model, tok, eval_set.prompts, k=t.eval_k, temperature=t.eval_temperature, top_p=t.eval_top_p,
                          max_new_tokens=cfg.rollout.max_new_tokens, grade_timeout=t.eval_grade_timeout)  # fmt: skip
    return {f"eval/{k}": v for k, v in ev.items()}


def _save(run: SimpleNamespace, step: int) -> None:
    """Checkpoint `step` (every rank calls it: gathering FSDP2 shards is a collective; rank 0 writes)."""
    weights = D.full_state_dict(run.model) if D.is_fsdp(run.model) else None
    optim_state = D.optimizer_state_dict(run.model, run.optimizer)
    inflight = []
    if run.producer is not None and D.is_main():  # rank 0 runs the producer and writes the checkpoint:
        # the batches already sampled for the next steps go into it, with the sampler and surplus after them
        inflight = run.producer.inflight(step)
        last = inflight[-1] if inflight else run.producer.last
        run.sampler.load_state_dict(last.sampler_state)
        run.surplus.load_state_dict(last.surplus_state)
    if D.is_main():
        # "dcpo": the advantage state's key since DCPO introduced it (older checkpoints read the same)
        state = {
            "sampler": run.sampler.state_dict(),
            "dcpo": run.adv_state.state_dict() if run.adv_state else None,
            "surplus": run.surplus.state_dict(),
        }
        if run.producer is not None:
            state["inflight"] = [p.to_dict() for p in inflight]
        extra = None if run.critic is None else critic_writer(run.critic, run.critic_opt)
        save_checkpoint(run.ckpt_root, step, run.model, run.tok, optim_state, state,
                        model_state=weights, extra=extra, keep=run.keep_checkpoints)  # fmt: skip
    D.barrier()
