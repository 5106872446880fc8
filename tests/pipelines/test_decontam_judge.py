"""The LLM judge of decontamination's borderline pairs, through a real build against the scripted
OpenAI-compatible server on loopback (the real openai client; no mocks)."""

from __future__ import annotations

import json

from mathdata.benchmarks import load_benchmark
from mathdata.store import read_table
from pipelines.build import build
from pipelines.decontam_judge import JUDGE_PROMPT, parse_verdict

OTHER_STORY = (
    "A farmer plants rows of apple trees along a river and waters them every evening with a bucket that "
    "leaks slowly, so that each trip loses some water on the way back from the river to the orchard."
)


def test_parse_verdict():
    assert parse_verdict("YES") is True and parse_verdict("no.") is False
    assert parse_verdict("Yes, it is the same problem.") is True
    assert parse_verdict("I cannot tell") is None and parse_verdict("YES or NO?") is None


def test_build_asks_the_endpoint_about_borderline_pairs(server, tmp_path):
    items = load_benchmark("aime24").column("original_problem").to_pylist()
    half_copy = items[7][: int(len(items[7]) * 0.45)] + " " + OTHER_STORY  # borderline: 0.4-0.6 of its grams
    rows = [
        {"question": half_copy + " How many trees are there?", "answer": "12"},
        {
            "question": "A train travels 60 miles in 1.5 hours. What is its speed in miles per hour?",
            "answer": "40",
        },
    ]
    data = tmp_path / "in.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    server.script("NO", rules=[{"match": "leaks slowly", "content": "YES"}])
    cfg = {
        "name": "judge-test",
        "sources": [{"kind": "import", "name": "tiny", "path": str(data)}],
        "llm": {"base_url": server.base_url, "model": "scripted", "backoff_s": 0.01},
        "decontaminate": {"judge": True, "benchmarks": ["aime24"]},
    }
    res = build(cfg, tmp_path / "out", progress=False)
    status = {
        r["original_problem"][:20]: r["status"] for r in read_table(tmp_path / "out" / "records").to_pylist()
    }
    assert status[half_copy[:20]].startswith("contaminated:aime24:")
    hits = res.reports["decontam"]["hits"]
    assert [h["method"] for h in hits] == ["judge"] and hits[0]["benchmark"] == "aime24"
    assert status[rows[1]["question"][:20]] == "kept"
    stats = server.stats()
    assert stats["requests"] == 1  # one borderline pair, one question
    assert "PROBLEM A" in JUDGE_PROMPT
    # judged again on a rebuild elsewhere: the reply comes from the build's LLM cache or the server, same verdict
    server.script("NO")
    res2 = build(cfg, tmp_path / "out2", progress=False)
    assert [h["method"] for h in res2.reports["decontam"]["hits"]] == []  # the server now says NO
