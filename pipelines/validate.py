"""Check a rewritten record before it may enter a corpus.

Three checks, recorded in `checks` (JSON): the answer is a canonical integer; the integer is
consistent with the original answer where that can be computed (a rule's parameters rebuild
the original value exactly; an identity answer equals the original); and, optionally, k solver
samples from the endpoint, scored by `verifiers`, agree with the answer by majority.
"""

from __future__ import annotations

import asyncio
import json

import sympy

from mathdata.export import dapo_prompt
from pipelines.rules import Miss, parse_answer, recompute
from verifiers import check

RULES = {
    "identity",
    "degrees",
    "percent",
    "decimal",
    "fraction",
    "pi_multiple",
    "radical",
    "root_multiple",
    "radical_fraction",
}


# proofs a decimal rewrite may carry (pipelines.rules.decimal_proof); an older checkout's
# "exactly, from the statement's own numbers" was a search over the numbers and proves nothing
_DECIMAL_PROOFS = (
    "asks to round",
    "asks for the exact value as a decimal",
    "computed exactly",
    "closure",
    "whole-cent",
    "dyadic key",
    "decimal numeral",
    "evaluated exactly",
    "the unit conversion asked",
)


def decimal_proof_holds(record: dict) -> tuple[bool, str]:
    """(ok, why): a `decimal` rewrite must state a proof read from the wording, not a number search."""
    if record.get("transform") != "decimal":
        return True, "not a decimal rewrite"
    try:
        proof = str(json.loads(record.get("transform_detail") or "{}").get("proof") or "")
    except (TypeError, json.JSONDecodeError):
        proof = ""
    if not proof:
        return False, "decimal rewrite states no proof of exactness"
    if "statement's own numbers" in proof or not any(p in proof for p in _DECIMAL_PROOFS):
        return False, f"decimal rewrite's proof is not one the rules accept: {proof[:120]}"
    return True, proof[:120]


def consistency(record: dict) -> tuple[bool | None, str]:
    """(True/False, why) when the original answer pins the integer down; (None, why) otherwise."""
    transform, answer, original = record.get("transform"), record.get("answer"), record.get("original_answer")
    if transform not in RULES:
        return None, f"not computable for transform {transform!r}"
    if original is None or not str(original).strip():
        return None, "no original answer"
    parsed = parse_answer(str(original))
    if isinstance(parsed, Miss):
        return None, f"original answer unreadable: {parsed.reason}"
    try:
        detail = json.loads(record.get("transform_detail") or "{}")
        rebuilt = recompute(transform, detail, answer)
    except (ValueError, KeyError, TypeError) as e:
        return False, f"transform_detail does not hold up: {e}"
    if sympy.simplify(rebuilt - parsed.value) != 0:
        return False, f"parameters give {rebuilt}, the original answer is {parsed.value}"
    return True, "rebuilt from transform_detail"


def check_record(record: dict, *, check_consistency: bool = True) -> dict:
    """Integer and consistency checks for a kept record; a failed check becomes its status."""
    if record.get("status") != "kept":
        return record
    from mathdata.schema import is_canonical_integer

    checks = json.loads(record.get("checks") or "{}")
    # no solver has cross-checked this answer (yet): said explicitly, counted by the data card
    checks.setdefault("solver", None)
    checks["integer"] = is_canonical_integer(record.get("answer"))
    if not checks["integer"]:
        return {
            **record,
            "checks": json.dumps(checks),
            "status": f"not_integer: {record.get('answer')!r}"[:200],
        }
    proven, why = decimal_proof_holds(record)
    if not proven:
        checks["decimal_proof"] = False
        return {**record, "checks": json.dumps(checks), "status": f"unproven: {why}"[:300]}
    if check_consistency:
        ok, why = consistency(record)
        checks["consistent"] = ok
        if ok is False:
            return {**record, "checks": json.dumps(checks), "status": f"inconsistent: {why}"[:300]}
    return {**record, "checks": json.dumps(checks, sort_keys=True)}


async def solver_agreement(record: dict, llm, k: int, temperature: float = 1.0) -> tuple[int, int]:
    """(samples agreeing with the answer, samples scored) from k DAPO-prompted draws."""
    messages = [{"role": "user", "content": dapo_prompt(record["problem"])}]
    draws = await asyncio.gather(
        *(llm.complete(messages, temperature=temperature, sample=i) for i in range(k)), return_exceptions=True
    )
    agree = n = 0
    for d in draws:
        if isinstance(d, BaseException):
            if not isinstance(d, Exception):
                raise d
            continue
        n += 1
        # the reward's own verdict (verifiers.extract's policy); a draw cut at the token limit gives
        # only an answer line or a box
        if check(d.text, record["answer"], cut_off=getattr(d, "finish_reason", None) == "length").equivalent:
            agree += 1
    return agree, n


async def validate_record(
    record: dict,
    *,
    check_consistency: bool = True,
    llm=None,
    solver_k: int = 0,
    solver_temperature: float = 1.0,
) -> dict:
    """All checks; with `solver_k` > 0 a record is kept only when most of the k samples agree."""
    record = check_record(record, check_consistency=check_consistency)
    if record.get("status") != "kept" or not solver_k or llm is None:
        return record
    agree, n = await solver_agreement(record, llm, solver_k, solver_temperature)
    checks = json.loads(record.get("checks") or "{}")
    checks["solver"] = {"agree": agree, "n": n, "k": solver_k}
    checks["solver_k_n"] = f"{agree}/{solver_k}"
    out = {**record, "checks": json.dumps(checks, sort_keys=True)}
    if n == 0:
        out["status"] = "solver_unavailable: no sample came back"
    elif 2 * agree <= solver_k:
        out["status"] = f"solver_disagrees: {agree}/{solver_k} samples agree"
    return out
