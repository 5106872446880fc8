"""Validation: integer answers, consistency with the original answer, solver majority (scripted server)."""

import asyncio
import json

import pytest

from mathdata.schema import new_record
from pipelines.llm import LLMClient, LLMSettings
from pipelines.rewrite import rewrite_with_rules
from pipelines.validate import check_record, consistency, validate_record


def _ruled(original: str, problem: str = "Compute the value.") -> dict:
    rec = new_record(source="import:t", original_problem=problem, original_answer=original)
    out, miss = rewrite_with_rules(rec)
    assert miss is None
    return out


@pytest.mark.parametrize(
    ("original", "problem"),
    [
        ("034", "Compute the value."),
        ("\\frac{3}{8}", "Compute the value."),
        ("11-2\\sqrt{6}", "Compute the value."),
        ("\\frac{3\\pi}{4}", "Compute the value."),
        # a decimal or a unit needs the statement to make it exact / to ask for it
        ("0.75", "Write $\\frac{3}{4}$ as a decimal."),
        ("45^\\circ", "What is the angle, in degrees?"),
    ],
)
def test_rule_rewrites_are_consistent(original, problem):
    rec = check_record(_ruled(original, problem))
    assert rec["status"] == "kept"
    checks = json.loads(rec["checks"])
    assert checks["integer"] is True and checks["consistent"] is True


def test_tampered_parameters_are_caught():
    rec = _ruled("\\frac{3}{8}")
    detail = json.loads(rec["transform_detail"])
    forged = {**rec, "transform_detail": json.dumps({**detail, "m": 5, "n": 6}), "answer": "11"}
    assert check_record(forged)["status"] == "inconsistent: parameters give 5/6, the original answer is 3/8"
    broken = {**rec, "transform_detail": json.dumps({**detail, "m": 4, "n": 6}), "answer": "10"}
    assert check_record(broken)["status"].startswith("inconsistent: transform_detail does not hold up")
    wrong_value = {**rec, "original_answer": "\\frac{3}{7}"}
    assert check_record(wrong_value)["status"].startswith("inconsistent: parameters give 3/8")
    ident = _ruled("034")
    assert check_record({**ident, "answer": "35"})["status"].startswith("inconsistent:")


def test_non_integer_answer_and_not_computable():
    rec = _ruled("12")
    assert check_record({**rec, "answer": "12.5"})["status"].startswith("not_integer")
    llm = {**rec, "transform": "llm", "original_answer": "(1,2)"}
    ok, why = consistency(llm)
    assert ok is None and "llm" in why
    assert json.loads(check_record(llm)["checks"])["consistent"] is None


def _solver(server, tmp_path, rec, k=4):
    client = LLMClient(
        LLMSettings(base_url=server.base_url, model="solver", backoff_s=0.01),
        cache_dir=tmp_path,
    )

    async def go():
        try:
            return await validate_record(rec, llm=client, solver_k=k)
        finally:
            await client.aclose()

    return asyncio.run(go()), client


def test_solver_majority_keeps(server, tmp_path):
    rec = _ruled("\\frac{3}{8}")  # answer 11
    server.script(
        "Some reasoning.\nAnswer: 7",
        rules=[{"match": "Solve the following", "times": 3, "content": "So m+n = 11.\nAnswer: 11"}],
    )
    out, client = _solver(server, tmp_path, rec)
    assert out["status"] == "kept"
    checks = json.loads(out["checks"])
    assert checks["solver"] == {"agree": 3, "n": 4, "k": 4} and checks["solver_k_n"] == "3/4"
    assert client.usage["requests"] == 4
    prompt_seen = server.stats()["requests"]
    assert prompt_seen == 4


def test_solver_minority_rejects(server, tmp_path):
    rec = _ruled("\\frac{3}{8}")
    server.script("Answer: 7", rules=[{"match": "Solve the following", "times": 2, "content": "Answer: 11"}])
    out, _ = _solver(server, tmp_path, rec)
    assert out["status"] == "solver_disagrees: 2/4 samples agree"
    assert json.loads(out["checks"])["solver_k_n"] == "2/4"


def test_a_decimal_rewrite_needs_a_wording_proof():
    rec = _ruled("0.75", "Write $\\frac{3}{4}$ as a decimal.")
    assert check_record(rec)["status"] == "kept"
    detail = json.loads(rec["transform_detail"])
    # an older checkout's coincidence "proof" (a search over the statement's numbers) is refused
    searched = {
        **detail,
        "proof": "terminating decimal 3/4: 3/4 = 3 / 4, exactly, from the statement's own numbers",
    }
    out = check_record({**rec, "transform_detail": json.dumps(searched)})
    assert out["status"].startswith("unproven: decimal rewrite's proof is not one the rules accept")
    bare = {k: v for k, v in detail.items() if k != "proof"}
    assert check_record({**rec, "transform_detail": json.dumps(bare)})["status"] == (
        "unproven: decimal rewrite states no proof of exactness"
    )
