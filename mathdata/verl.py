"""Read a verl/DAPO-Math row (prompt, reward_model.ground_truth, extra_info): the one reader that the
trainer's data loader and `dapo eval`'s benchmark loader share, so both check a row the same way and
name the same row number and field when it is wrong."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from mathdata.files import StoreError


@dataclass(frozen=True)
class VerlRow:
    index: int  # the row's number in the file (what an error names)
    key: str  # extra_info.id, else extra_info.index, else the row number
    messages: list[dict]  # the chat prompt (a plain string prompt becomes one user message)
    gold: str  # reward_model.ground_truth as written
    extra: dict


def verl_rows(rows: list[dict], path: str | Path, *, split: str | None = None) -> Iterator[VerlRow]:
    """Each row checked, `split` keeping rows whose extra_info.split matches; a bad prompt or an empty
    answer raises StoreError (a ValueError) naming the file, the row and the field."""
    for i, row in enumerate(rows):
        if split is not None and (row.get("extra_info") or {}).get("split") != split:
            continue
        msgs = row.get("prompt")
        if isinstance(msgs, str):
            msgs = [{"role": "user", "content": msgs}]
        if not msgs or not all(isinstance(m, dict) and "role" in m and "content" in m for m in msgs):
            raise StoreError(
                f"{path} row {i}: field 'prompt' must be a non-empty list of {{role, content}}, got {msgs!r:.120}"
            )
        rm = row.get("reward_model") or {}
        gold = rm.get("ground_truth") if isinstance(rm, dict) else None
        if gold is None or str(gold).strip() == "":
            raise StoreError(
                f"{path} row {i}: field 'reward_model.ground_truth' is empty; every row needs its answer"
            )
        extra = row.get("extra_info") or {}
        extra = extra if isinstance(extra, dict) else {}
        key = extra.get("id") or extra.get("index")
        key = str(i) if key is None or key == "" else str(key)
        yield VerlRow(i, key, msgs, str(gold), extra)
