"""Rules-then-LLM rewriting of records, with the LLM behind a real scripted server process."""

import asyncio
import json

import pytest

from mathdata.schema import new_record
from pipelines.llm import LLMClient, LLMSettings
from pipelines.report import rules_report_file
from pipelines.rewrite import ReplyError, build_messages, format_retry_messages, parse_reply, rewrite_record

GOOD = (
    "<format>A set of ordered pairs.</format>\n<problem>Find the sum of x+y over all pairs (x, y) "
    "of positive integers with x^2 - y^2 = 15.</problem>\n<solution>(8,7) and (4,1): 15+5.</solution>\n"
    "<answer>{answer}</answer>"
)


def _rec(problem: str, answer: str | None) -> dict:
    return new_record(source="import:test", original_problem=problem, original_answer=answer)


def _run(record, server, tmp_path, cross_check: bool = False, **kw):
    settings = LLMSettings(base_url=server.base_url, model="m", backoff_s=0.01, max_retries=1, **kw)
    client = LLMClient(settings, cache_dir=tmp_path / "cache")

    async def go():
        try:
            return await rewrite_record(record, client, cross_check=cross_check)
        finally:
            await client.aclose()

    return asyncio.run(go()), client


def test_prompt_has_the_four_steps_and_few_shots():
    msgs = build_messages("Find all pairs.", "(1,2)")
    system = msgs[0]["content"]
    for step in (
        "Extract the answer format",
        "Rewrite the statement",
        "Solve the rewritten",
        "Give the integer",
    ):
        assert step in system
    assert [m["role"] for m in msgs[1:-1]] == ["user", "assistant"] * ((len(msgs) - 2) // 2)
    for m in msgs[2:-1:2][:-1]:  # every few-shot answer but the declining one parses
        assert parse_reply(m["content"]).answer.lstrip("-").isdigit()
    assert msgs[-1]["content"].endswith("Original answer: (1,2)")


def test_parse_reply_strict():
    ok = parse_reply(GOOD.format(answer="020"))
    assert ok.answer == "20" and ok.problem.startswith("Find the sum")
    js = parse_reply(
        json.dumps({"format": "f", "problem": "Find the number of things.", "solution": "s", "answer": 7})
    )
    assert js.answer == "7"
    bad = [
        ("no tags at all", "0 <format>"),
        (GOOD.format(answer="3/4"), "not an integer"),
        (GOOD.format(answer="NONE"), "declined"),
        (GOOD.format(answer="1") + "<answer>2</answer>", "2 <answer>"),
        ('{"format": "f", "problem": ', "not valid JSON"),
    ]
    for text, fragment in bad:
        with pytest.raises(ReplyError, match=fragment):
            parse_reply(text)


def test_rules_first_no_request(server, tmp_path):
    server.script(GOOD.format(answer="99"))
    out, client = _run(_rec("What is the probability?", "\\frac{3}{8}"), server, tmp_path)
    assert out["status"] == "kept" and out["transform"] == "fraction" and out["answer"] == "11"
    assert client.usage["requests"] == 0


def test_llm_rewrites_what_rules_miss(server, tmp_path):
    server.script(GOOD.format(answer="20"))
    out, client = _run(
        _rec("Find all pairs (x, y) of positive integers with x^2-y^2=15.", "(8,7), (4,1)"), server, tmp_path
    )
    assert out["status"] == "kept"
    assert out["transform"] == "llm" and out["answer"] == "20"
    assert out["problem"].startswith("Find the sum of x+y")
    assert json.loads(out["transform_detail"])["rule_miss"] == "tuple or several answers"
    assert client.usage["requests"] == 1


@pytest.mark.parametrize(
    ("reply", "status"),
    [
        ("I think the answer is 20.", "llm_unparsed: llm reply has 0 <format>"),
        (GOOD.format(answer="NONE"), "llm_unparsed: llm declined"),
        (GOOD.format(answer="x+1"), "llm_unparsed: llm answer"),
    ],
)
def test_unusable_replies_are_rejected_with_the_reason(server, tmp_path, reply, status):
    server.script(reply)
    out, _ = _run(_rec("Find all pairs.", "(1,2)"), server, tmp_path)
    assert out["status"].startswith(status)
    assert out["answer"] is None


# what Qwen2.5-Coder-1.5B-Instruct wrote for an OlympiadBench problem (bench/results/real_model.md):
# the four steps in markdown headings, no tags
CHATTY = (
    "### Step 1: Extract the answer format\nThe answer is an expression in n.\n\n"
    "### Step 4: Give the integer\nThe answer is 1024."
)


def test_an_unreadable_reply_is_asked_again_once_naming_the_error(server, tmp_path):
    server.script(CHATTY, rules=[{"match": "could not be read", "content": GOOD.format(answer="20")}])
    out, client = _run(_rec("Find all pairs (x, y) with x^2-y^2=15.", "(8,7), (4,1)"), server, tmp_path)
    assert out["status"] == "kept" and out["answer"] == "20"
    assert json.loads(out["transform_detail"])["format_retries"] == 1
    assert client.usage["requests"] == 2  # the second matched the reminder's wording


def test_format_retries_are_bounded_and_said_in_the_reason(server, tmp_path):
    server.script(CHATTY)
    out, client = _run(_rec("Find all pairs, once more.", "(1,2)"), server, tmp_path)
    assert (
        out["status"] == "llm_unparsed: llm reply has 0 <format> sections, expected 1 (after 1 format retry)"
    )
    assert client.usage["requests"] == 2 and out["answer"] is None
    server.script(GOOD.format(answer="NONE"))  # a decline is an answer: not asked again
    out, client = _run(_rec("Describe all pairs.", "(1,2)"), server, tmp_path)
    assert out["status"].startswith("llm_unparsed: llm declined") and client.usage["requests"] == 1


def test_format_retry_message_names_the_error_and_keeps_the_reply():
    msgs = build_messages("Find all pairs.", "(1,2)")
    err = ReplyError("llm answer '20 apples' is not an integer")
    again = format_retry_messages(msgs, CHATTY, err)
    assert again[: len(msgs)] == msgs
    assert again[-2] == {"role": "assistant", "content": CHATTY}
    assert (
        "'20 apples' is not an integer" in again[-1]["content"]
        and "<answer>INTEGER</answer>" in again[-1]["content"]
    )


def test_endpoint_failure_and_budget_reject(server, tmp_path):
    server.script("x", rules=[{"action": "500"}])
    out, _ = _run(_rec("Find all pairs.", "(1,2)"), server, tmp_path)
    assert out["status"].startswith("llm_error:")
    server.script(GOOD.format(answer="1"))
    out, _ = _run(_rec("Find all pairs, again.", "(1,2)"), server, tmp_path, max_requests=0)
    assert out["status"].startswith("llm_budget:")


def test_cross_check_rejects_disagreement(server, tmp_path):
    rec = _rec("Compute the ratio.", "\\frac{3}{8}")
    server.script(GOOD.format(answer="12"))
    out, _ = _run(rec, server, tmp_path / "a", cross_check=True)
    assert out["status"] == "llm_disagrees: rule fraction gives 11, llm gives 12"
    assert json.loads(out["transform_detail"])["llm_answer"] == "12"
    server.script(GOOD.format(answer="11"))
    out, _ = _run(rec, server, tmp_path / "b", cross_check=True)
    assert out["status"] == "kept" and out["transform"] == "fraction"


def test_without_llm_misses_wait_for_it(tmp_path):
    out = asyncio.run(rewrite_record(_rec("Find n.", "2n+1"), None))
    assert out["status"] == "needs_llm: expression in variables (n)"
    out = asyncio.run(rewrite_record(_rec("Prove it.", ""), None))
    assert out["status"] == "rejected: empty answer"


def test_olympiadbench_report(tmp_path):
    from pathlib import Path

    path = Path(__file__).parents[2] / "data" / "sources" / "olympiadbench.jsonl"
    report = rules_report_file(path)
    assert report["total"] == sum(1 for line in path.open() if line.strip())
    assert report["rewritten"] + report["needs_llm"] + report["rejected"] == report["total"]
    assert sum(report["by_rule"].values()) == report["rewritten"]
    # OlympiadBench mixes integers, fractions, radicals and tuples: each outcome must be present
    assert {"identity", "fraction"} <= set(report["by_rule"])
    assert "tuple or several answers" in report["needs_llm_reasons"]


def test_rules_can_be_switched_off(server, tmp_path):
    rec = _rec("What is the probability?", "\\frac{3}{8}")
    out = asyncio.run(rewrite_record(rec, None, use_rules=False))
    assert out["status"] == "needs_llm: rules disabled in the config"
    server.script(GOOD.format(answer="11"))
    settings = LLMSettings(base_url=server.base_url, model="m", backoff_s=0.01)
    client = LLMClient(settings, cache_dir=tmp_path)

    async def go():
        try:
            return await rewrite_record(rec, client, use_rules=False)
        finally:
            await client.aclose()

    out = asyncio.run(go())
    assert out["transform"] == "llm" and out["answer"] == "11" and client.usage["requests"] == 1


def test_llm_sees_the_cleaned_statement(server, tmp_path):
    rec = {**_rec("Which is it? (A) 1 (B) 2 (C) (1,2)", "(1,2)"), "problem": "Which pair is it?"}
    server.script(GOOD.format(answer="3"))
    out, _ = _run(rec, server, tmp_path)
    assert out["answer"] == "3"
    # the scripted server matched on the last user message, which carried the cleaned stem
    server.script(
        "nothing", rules=[{"match": "Problem: Which pair is it?", "content": GOOD.format(answer="4")}]
    )
    out, _ = _run(rec, server, tmp_path / "fresh")
    assert out["answer"] == "4"
