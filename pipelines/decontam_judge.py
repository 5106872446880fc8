"""An LLM judge for decontamination's borderline pairs (DeepMath-style), through the build's
OpenAI-compatible endpoint (`llm:`, model `llm.models.decontam_judge`): `decontaminate: {judge: true}`.

mathdata.decontam finds a borderline pair when a training problem shares 40-60% of its
character 6-grams with a benchmark item, or (`decontaminate: {semantic: true}`) when its sentence
embedding is near an item's (cosine 0.7-0.88, or higher with the item's numbers changed): a
reworded copy or a problem on the same topic. The
judge sees both texts and answers YES (the same problem, reworded, re-formatted, with a sentence
added or numbers changed) or NO; YES marks the row contaminated, anything else leaves it kept
and listed in the report. Replies are cached like every other LLM call of the build.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable

JUDGE_PROMPT = (
    "You check a training set for copies of benchmark problems. Is PROBLEM A a copy of PROBLEM B: "
    "the same problem, possibly reworded, re-formatted, with a sentence added or removed, or with some "
    "numbers changed? Two different problems on the same topic are not copies. Answer with one word, "
    "YES or NO.\n\nPROBLEM A:\n{row}\n\nPROBLEM B:\n{item}"
)
_VERDICT = re.compile(r"\b(YES|NO)\b")


def parse_verdict(text: str) -> bool | None:
    """True for YES, False for NO, None when the reply says neither (or both)."""
    found = set(_VERDICT.findall(text.upper()))
    return None if len(found) != 1 else found == {"YES"}


def llm_judge(client) -> Callable[[list[tuple[str, str]]], list[bool | None]]:
    """A `judge` for mathdata.decontam.decontaminate that asks `client` (pipelines.llm.LLMClient)
    about each pair; an endpoint that keeps failing or a spent budget gives no verdict (None)."""
    from pipelines.llm import BudgetExceeded, LLMError

    async def one(row: str, item: str) -> bool | None:
        try:
            reply = await client.complete(
                [{"role": "user", "content": JUDGE_PROMPT.format(row=row, item=item)}]
            )
        except (LLMError, BudgetExceeded):
            return None
        return parse_verdict(reply.text)

    async def run(pairs: list[tuple[str, str]]) -> list[bool | None]:
        try:
            return list(await asyncio.gather(*(one(r, i) for r, i in pairs)))
        finally:
            await client.aclose()

    def judge(pairs: list[tuple[str, str]]) -> list[bool | None]:
        return asyncio.run(run(pairs)) if pairs else []

    return judge
