"""SFT warm-up: teach a policy (the tiny model, or a real one by model.path) the `Answer:` format from the generators' worked solutions.

Reads the records store (`problem`, `solution`, status kept) that `dapo build` writes, wraps each
problem in the DAPO prompt and the chat template, and trains on the response tokens only. It can
stop early, so RL starts from a policy that knows the format but still has room to improve: once
sampled accuracy on a probe set reaches a target (`stop_at_acc`), or once the policy's probability
of writing the gold worked solution, teacher-forced and averaged over SFT examples, reaches a
target (`stop_at_gold_prob`, what the demo uses). The second is what sampled accuracy estimates
(the chance that a sample at temperature 1 is the gold solution, a lower bound on the chance it is
right), computed exactly instead of drawn: no sampling noise, and a smooth function of the
weights, so a last-bit rounding difference between two CPUs moves it by a last-bit amount. A
sampled accuracy over a few hundred samples moves by several points when such a difference flips
one sampled token, and a threshold on it moves the stopping step, and everything after it, by a
whole probe interval. (The training loss is smooth too but no use: it sits on a plateau while
accuracy jumps, the answer digits being a small share of the response tokens.)
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from pathlib import Path

import torch

from trainer.config import ModelConfig
from trainer.data import Prompt, read_verl
from trainer.distributed import DistEnv, resolve_device


@dataclass
class SFTExample:
    prompt: str  # the user message (DAPO template around the problem)
    solution: str


def load_sft_examples(records: str | Path, *, split: str | None = "train") -> list[SFTExample]:
    """Kept records with a worked solution (optionally one split), via the mathdata store."""
    from mathdata.export import dapo_prompt
    from mathdata.store import read_table

    table = read_table(records, columns=["id", "problem", "solution", "split"], filter_status="kept")
    out = []
    for i, row in enumerate(table.to_pylist()):
        if split is not None and row.get("split") not in (split, None):
            continue
        if not row.get("problem") or not row.get("solution"):
            continue
        if "Answer:" not in row["solution"]:
            raise ValueError(
                f"{records} row {i} (id {row['id']}): solution has no 'Answer:' line; SFT would teach the wrong format"
            )
        out.append(SFTExample(dapo_prompt(row["problem"]), row["solution"].strip()))
    if not out:
        raise ValueError(
            f"{records}: no kept records with problem and solution{f' in split {split!r}' if split else ''}"
        )
    return out


def probe_prompts(path: str | Path, n: int = 48) -> list[Prompt]:
    """The first `n` prompts of a verl Parquet, whose sampled accuracy SFT reports (and may stop at)."""
    return [Prompt(r["key"], [], r["gold"], r["messages"][-1]["content"]) for r in read_verl(path)[:n]]


def encode(tok, ex: SFTExample) -> tuple[list[int], int]:
    """(ids, prompt_len): chat-templated prompt, then the solution and EOS."""
    p = tok.apply_chat_template(
        [{"role": "user", "content": ex.prompt}], add_generation_prompt=True, tokenize=True
    )
    if hasattr(p, "keys"):
        p = p["input_ids"]
    r = tok(ex.solution, add_special_tokens=False)["input_ids"] + [tok.eos_token_id]
    return list(p) + r, len(p)


def collate(batch: list[tuple[list[int], int]], pad_id: int, device: torch.device | None = None) -> dict:
    width = max(len(ids) for ids, _ in batch)
    ids = torch.full((len(batch), width), pad_id, dtype=torch.long)
    labels = torch.full_like(ids, -100)
    attn = torch.zeros_like(ids)
    for i, (seq, plen) in enumerate(batch):
        ids[i, : len(seq)] = torch.tensor(seq)
        labels[i, plen : len(seq)] = torch.tensor(seq[plen:])
        attn[i, : len(seq)] = 1
    out = {"input_ids": ids, "attention_mask": attn, "labels": labels}
    return {k: v.to(device) for k, v in out.items()} if device is not None else out


def sft(
    records: str | Path,
    out: str | Path,
    *,
    model_cfg: ModelConfig | None = None,
    steps: int = 300,
    batch_size: int = 32,
    lr: float = 2e-3,
    warmup: int = 20,
    seed: int = 0,
    probe: list[Prompt] | None = None,
    probe_tokenizer_texts: list[str] | None = None,
    stop_at_acc: float | None = None,
    stop_at_gold_prob: float | None = None,
    gold_probe: int = 64,
    eval_every: int = 25,
    probe_k: int = 4,
    max_new_tokens: int = 64,
    temperature: float = 1.0,
    top_p: float = 1.0,
    progress: bool = True,
    device: str = "cpu",
) -> dict:
    """Train and save a policy directory at `out`; returns a summary (steps, loss, probe accuracy, seconds).

    `probe` prompts are tokenised with the policy's tokenizer (pass raw `Prompt`s whose `text` is the
    user message); SFT stops once their sampled avg accuracy reaches `stop_at_acc`, or once the mean
    teacher-forced probability of the gold solution over the first `gold_probe` SFT examples reaches
    `stop_at_gold_prob` (checked every `eval_every` steps; then the probe, if given, is sampled once,
    for the report). `device`: `cpu` (the demo's default: its figures are CPU figures), `auto`, `cuda` or `cuda:N`.
    """
    if stop_at_gold_prob is not None and not 0 < stop_at_gold_prob < 1:
        raise ValueError(f"stop_at_gold_prob must be in (0, 1) (a probability), got {stop_at_gold_prob}")
    from trainer.eval import evaluate
    from trainer.metrics import progress_bar
    from trainer.model import build_policy, quiet_transformers, save_policy

    quiet_transformers()
    model_cfg = model_cfg or ModelConfig()
    examples = load_sft_examples(records)
    texts = [e.prompt for e in examples] + [e.solution for e in examples] + list(probe_tokenizer_texts or [])
    # model_cfg.path: a real model (save_pretrained directory or .gguf) with its own tokenizer and chat
    # template, fine-tuned as it is; otherwise the tiny model, whose tokenizer learns `texts`
    model, tok = build_policy(model_cfg, None if model_cfg.path else texts, seed=seed)
    dev = resolve_device(
        device, DistEnv(0, 1, 0, None, torch.device("cuda" if torch.cuda.is_available() else "cpu"))
    )
    model.to(dev)
    data = [encode(tok, e) for e in examples]
    probe_ids = [
        Prompt(p.key, _chat_ids(tok, p.text), p.gold, p.text) for p in (probe or [])
    ]  # tokenised now that the tokenizer exists
    opt = torch.optim.AdamW(model.parameters(), lr=lr, betas=(0.9, 0.98), weight_decay=0.01)
    rng = random.Random(seed)
    order: list[int] = []
    t0, loss_ema, acc, done, stopped, gold = time.perf_counter(), None, None, 0, None, None
    gold_batch = collate(data[:gold_probe], tok.pad_token_id, dev) if stop_at_gold_prob is not None else None
    model.train()
    prog = progress_bar(progress)
    task = prog.add_task("sft", total=steps, info="")
    with prog:
        for step in range(steps):
            if len(order) < batch_size:
                more = list(range(len(data)))
                rng.shuffle(more)
                order += more
            idx, order = order[:batch_size], order[batch_size:]
            for g in opt.param_groups:
                g["lr"] = lr * min(1.0, (step + 1) / max(warmup, 1))
            loss = model(**collate([data[i] for i in idx], tok.pad_token_id, dev), use_cache=False).loss
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            done = step + 1
            loss_ema = loss.item() if loss_ema is None else 0.9 * loss_ema + 0.1 * loss.item()
            if gold_batch is not None and done % eval_every == 0:
                gold = gold_solution_prob(model, gold_batch)
                model.train()
                if gold >= stop_at_gold_prob:
                    stopped = "gold_prob"
                    if probe_ids:
                        acc = evaluate(model, tok, probe_ids, k=probe_k, temperature=temperature, top_p=top_p,
                                       max_new_tokens=max_new_tokens)[f"avg@{probe_k}"]  # fmt: skip
                    prog.console.print(f"sft step {done}: P(gold solution) {gold:.3f} >= {stop_at_gold_prob} (target "
                                       "reached)" + (f", probe avg@{probe_k} {acc:.2f}" if acc is not None else ""))  # fmt: skip
                    break
            if probe_ids and stop_at_acc is not None and done % eval_every == 0:
                ev = evaluate(
                    model,
                    tok,
                    probe_ids,
                    k=probe_k,
                    temperature=temperature,
                    top_p=top_p,
                    max_new_tokens=max_new_tokens,
                )
                acc = ev[f"avg@{probe_k}"]
                gold_txt = f", P(gold solution) {gold:.3f}" if gold is not None else ""
                prog.console.print(
                    f"sft step {done}: loss {loss_ema:.3f}, probe avg@{probe_k} {acc:.2f}{gold_txt}"
                )
                model.train()
                if acc >= stop_at_acc:
                    stopped = "acc"
                    prog.update(
                        task,
                        completed=steps,
                        info=f"loss {loss_ema:.3f} probe acc {acc:.2f} (target reached)",
                    )
                    break
            prog.update(
                task,
                advance=1,
                info=f"loss {loss_ema:.3f}" + (f" probe acc {acc:.2f}" if acc is not None else ""),
            )
    save_policy(model, tok, out)
    return {
        "steps": done,
        "loss": loss_ema,
        "probe_acc": acc,
        "gold_prob": gold,  # the last P(gold solution) measured (stop_at_gold_prob), else None
        "stopped_by": stopped,  # "acc", "gold_prob", or None (ran all `steps`)
        "seconds": time.perf_counter() - t0,
        "examples": len(data),
    }


@torch.no_grad()
def gold_solution_prob(model, batch: dict) -> float:
    """Mean over examples of P(the whole gold response | prompt) at temperature 1, teacher-forced.

    The expected sampled accuracy if the gold worked solution were the only right response: what a
    sampled probe estimates, without the sampling noise. Leaves the model in eval mode.
    """
    model.eval()
    logits = model(
        input_ids=batch["input_ids"], attention_mask=batch["attention_mask"], use_cache=False
    ).logits
    labels = batch["labels"][:, 1:]
    mask = labels != -100
    logp = torch.log_softmax(logits[:, :-1].double(), dim=-1)
    tok_lp = logp.gather(-1, labels.clamp(min=0).unsqueeze(-1)).squeeze(-1)
    return float((tok_lp * mask).sum(dim=1).exp().mean())


def _chat_ids(tok, text: str) -> list[int]:
    ids = tok.apply_chat_template(
        [{"role": "user", "content": text}], add_generation_prompt=True, tokenize=True
    )
    return list(ids["input_ids"] if hasattr(ids, "keys") else ids)
