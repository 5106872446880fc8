"""Prompts from the verl / DAPO-Math Parquet, and a resumable sampler over them.

A row holds `prompt` (chat messages), `reward_model.ground_truth` and `extra_info.id`. The chat
template is applied here; prompts longer than the limit are dropped and counted (not truncated:
a cut problem statement would train on a different question).

A row may carry a pass-rate estimate `extra_info.difficulty` = {model, n, correct, pass_rate}
(a reference model's `correct` of `n` samples, scored by the verifier; written by the pipelines'
difficulty stage). `difficulty_weights` turns it into sampling weights (data.difficulty_sampling):
`skip` leaves out prompts expected to be all right or all wrong, `weight` draws each prompt with
probability proportional to its chance of giving an informative group (see the function).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import torch


@dataclass
class Prompt:
    key: str  # extra_info.id (or the row index): DCPO's per-prompt statistics and logs use it
    ids: list[int]
    gold: str
    text: str  # the user message, for logs
    difficulty: dict | None = None  # extra_info.difficulty {model, n, correct, pass_rate}, when present


@dataclass
class PromptSet:
    prompts: list[Prompt]
    dropped_too_long: int
    path: str


def _read_rows(path: str | Path) -> list[dict]:
    import pyarrow.parquet as pq

    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(
            f"{path}: no such Parquet file or directory (write it with `dapo build` or `dapo data export verl RECORDS OUT.parquet`)"
        )
    try:
        table = pq.read_table(p)
    except Exception as e:  # pyarrow raises several types for bad files
        raise ValueError(f"{path}: cannot read as Parquet ({e})") from None
    for col in ("prompt", "reward_model"):
        if col not in table.column_names:
            raise ValueError(
                f"{path}: column {col!r} missing; a verl/DAPO Parquet has prompt, reward_model, extra_info "
                f"(found {table.column_names}); write one with `dapo data export verl RECORDS OUT.parquet`"
            )
    return table.to_pylist()


def split_counts(path: str | Path) -> dict[str | None, int]:
    """Rows per extra_info.split (None: no split recorded)."""
    from collections import Counter

    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path, columns=["extra_info"])  # one column, not the whole file again
    except pa.ArrowInvalid:  # no extra_info column: no splits recorded
        return {}
    return dict(Counter((e or {}).get("split") for e in table.column("extra_info").to_pylist()))


def held_out_warning(path: str | Path) -> str | None:
    """A warning when a training file also holds rows of other splits (e.g. a test set) and no
    `data.train_split` selects the training rows; None when there is nothing to warn about."""
    counts = split_counts(path)
    other = {k: v for k, v in counts.items() if k not in (None, "train")}
    if not other or not counts.get("train"):
        return None
    listed = ", ".join(f"{v} rows of split {k!r}" for k, v in sorted(other.items()))
    return (
        f"data.train {path} also holds {listed}; training uses every row. Write data.train_split: train "
        "to keep held-out rows out of training"
    )


def read_verl(path: str | Path, *, split: str | None = None) -> list[dict]:
    """Rows as {key, messages, gold}, each field checked with the row number in the error.

    `split` keeps rows whose extra_info.split matches (a held-out split of the same file).
    """
    from mathdata.verl import verl_rows

    out = []
    for r in verl_rows(_read_rows(path), path, split=split):
        diff = _difficulty(r.extra.get("difficulty"), path, r.index)
        out.append({"key": r.key, "messages": r.messages, "gold": r.gold, "difficulty": diff})
    return out


def _difficulty(d, path, i: int) -> dict | None:
    """extra_info.difficulty checked: n >= 1, 0 <= correct <= n, pass_rate = correct / n."""
    if d is None:
        return None
    fix = "re-run the pipelines' difficulty stage, or drop the field"
    if not isinstance(d, dict) or any(d.get(k) is None for k in ("n", "correct", "pass_rate")):
        raise ValueError(
            f"{path} row {i}: field 'extra_info.difficulty' must hold model, n, correct, pass_rate, got {d!r:.120}; {fix}"
        )
    n, c, p = d["n"], d["correct"], d["pass_rate"]
    if not (isinstance(n, int) and isinstance(c, int) and n >= 1 and 0 <= c <= n):
        raise ValueError(
            f"{path} row {i}: field 'extra_info.difficulty' needs integers n >= 1 and 0 <= correct <= n, "
            f"got n={n!r}, correct={c!r}; {fix}"
        )
    if abs(float(p) - c / n) > 1e-6:
        raise ValueError(
            f"{path} row {i}: field 'extra_info.difficulty.pass_rate' {p} is not correct/n = {c}/{n}; {fix}"
        )
    return {"model": d.get("model"), "n": n, "correct": c, "pass_rate": float(p)}


def load_prompts(
    path: str | Path, tokenizer, *, max_prompt_len: int, limit: int | None = None, split: str | None = None
) -> PromptSet:
    """Apply the chat template and drop (and count) prompts over `max_prompt_len` tokens."""
    rows = read_verl(path, split=split)
    if not rows:
        raise ValueError(f"{path}: no rows{f' with extra_info.split == {split!r}' if split else ''}")
    if limit is not None:
        rows = rows[:limit]
    prompts, dropped = [], 0
    for r in rows:
        ids = tokenizer.apply_chat_template(r["messages"], add_generation_prompt=True, tokenize=True)
        if isinstance(ids, dict) or hasattr(ids, "keys"):  # transformers 5 returns a BatchEncoding
            ids = ids["input_ids"]
        if len(ids) > max_prompt_len:
            dropped += 1
            continue
        prompts.append(
            Prompt(
                key=r["key"],
                ids=list(ids),
                gold=r["gold"],
                text=r["messages"][-1]["content"],
                difficulty=r["difficulty"],
            )  # fmt: skip
        )
    if not prompts:
        raise ValueError(
            f"{path}: no prompt fits data.max_prompt_len={max_prompt_len} tokens ({dropped} dropped); raise max_prompt_len"
        )
    return PromptSet(prompts, dropped, str(path))


def informative_chance(correct: int, n: int, G: int) -> float:
    """P(a group of G responses is informative: neither all right nor all wrong), given `correct` of `n`.

    The pass rate p is uncertain after n samples: with a uniform prior its posterior is
    Beta(a, b), a = correct + 1, b = n - correct + 1, and
    E[1 - p^G - (1-p)^G] = 1 - prod_{i<G} (a+i)/(a+b+i) - prod_{i<G} (b+i)/(a+b+i).
    So 0 of 8 is not "never informative" (p could be 0.1) and gets a small, non-zero weight.
    """
    a, b = correct + 1, n - correct + 1
    ep = eq = 1.0
    for i in range(G):
        ep *= (a + i) / (a + b + i)
        eq *= (b + i) / (a + b + i)
    return max(0.0, 1.0 - ep - eq)


def difficulty_weights(
    prompts: list[Prompt], mode: str, *, G: int, skip_below: float = 0.0, skip_above: float = 1.0
) -> list[float] | None:
    """Per-prompt sampling weights from `Prompt.difficulty` (None for mode "off").

    skip: 0 for a prompt whose pass rate is <= skip_below or >= skip_above (expected all wrong /
    all right), 1 otherwise. weight: `informative_chance(correct, n, G)`. A prompt without an
    estimate gets 1 (never left out). `PromptSampler` uses them relative to the largest.
    """
    if mode == "off":
        return None
    if mode not in ("skip", "weight"):
        raise ValueError(f"data.difficulty_sampling {mode!r}: write off, skip or weight")
    out = []
    for p in prompts:
        d = p.difficulty
        if d is None:
            out.append(1.0)
        elif mode == "skip":
            out.append(0.0 if d["pass_rate"] <= skip_below or d["pass_rate"] >= skip_above else 1.0)
        else:
            out.append(informative_chance(d["correct"], d["n"], G))
    return out


class PromptSampler:
    """Shuffled epochs from a seed; (epoch, pos) is the whole state, so a resume draws the same next prompt.

    With `weights`, epoch e holds each prompt i with probability weights[i] / max(weights) (a seeded
    draw per epoch), in shuffled order: over many epochs prompt i is drawn in proportion to its
    weight, a weight of 0 leaves it out, and the state is still (epoch, pos).
    """

    def __init__(self, n: int, seed: int, weights: list[float] | None = None) -> None:
        self.n, self.seed, self.epoch, self.pos = n, seed, 0, 0
        self._keep = None
        if weights is not None:
            if len(weights) != n or any(w < 0 for w in weights):
                raise ValueError(f"sampler weights: need {n} non-negative numbers, got {len(weights)}")
            top = max(weights, default=0.0)
            if top <= 0:
                raise ValueError(
                    f"every one of the {n} prompts has sampling weight 0 (data.difficulty_sampling left out all "
                    "of them); widen data.difficulty_skip_below / _above or write difficulty_sampling: weight"
                )
            self._keep = torch.tensor([w / top for w in weights], dtype=torch.float64)
        self._perm = self._order(0)

    @property
    def left_out(self) -> int:
        """Prompts that are never drawn (weight 0)."""
        return 0 if self._keep is None else int((self._keep == 0).sum())

    def _order(self, epoch: int) -> list[int]:
        g = torch.Generator().manual_seed(self.seed * 100003 + epoch)
        perm = torch.randperm(self.n, generator=g)
        if self._keep is not None:  # thin the epoch: prompt i stays with probability keep[i]
            u = torch.rand(self.n, generator=g, dtype=torch.float64)
            perm = perm[(u < self._keep)[perm]]
        return perm.tolist()

    def take(self, k: int) -> list[int]:
        out = []
        while len(out) < k:
            while self.pos == len(self._perm):  # (a thinned epoch may be empty)
                self.epoch, self.pos = self.epoch + 1, 0
                self._perm = self._order(self.epoch)
            out.append(self._perm[self.pos])
            self.pos += 1
        return out

    def _weights_crc(self) -> int | None:
        import zlib

        return None if self._keep is None else zlib.crc32(self._keep.numpy().tobytes())

    def state_dict(self) -> dict:
        d = {"epoch": self.epoch, "pos": self.pos, "n": self.n, "seed": self.seed}
        if self._keep is not None:
            d["weights_crc"] = self._weights_crc()
        return d

    def load_state_dict(self, d: dict) -> None:
        if d["n"] != self.n:
            raise ValueError(
                f"resume: the checkpoint saw {d['n']} prompts but the data now has {self.n}; use the same data"
            )
        if d.get("weights_crc") != self._weights_crc():
            raise ValueError(
                "resume: the prompt sampling weights differ from the checkpoint's (data.difficulty_sampling, its "
                "thresholds, rollout.n or the difficulty column changed); resume with the same settings and data"
            )
        self.seed, self.epoch, self.pos = d["seed"], d["epoch"], d["pos"]
        self._perm = self._order(self.epoch)
