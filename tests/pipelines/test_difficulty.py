"""The difficulty stage against the scripted OpenAI-compatible server (with faults).

Three integer problems, whose replies the script fixes: one every sample solves, one no
sample solves, and one whose first requests fail with 500 before the server answers right.
Pass rates are stored in `checks.difficulty` and in the verl export's extra_info; min_pass /
max_pass mark the two extremes; a rerun is answered from the cache.
"""

import json
from pathlib import Path

import pyarrow.parquet as pq
import yaml

from mathdata.store import read_table
from pipelines.build import build

ROWS = [
    {"question": "What is $3+4$?", "answer": "7"},
    {"question": "What is $5 \\times 6$?", "answer": "30"},
    {"question": "What is $9-2-2$?", "answer": "5"},
]


def _cfg(tmp_path: Path, server, **difficulty) -> Path:
    data = tmp_path / "in.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    cfg = {
        "name": "difficulty-test",
        "sources": [{"kind": "import", "name": "d", "path": str(data)}],
        "llm": {"base_url": server.base_url, "model": "scripted", "backoff_s": 0.01},
        "difficulty": {"enabled": True, "n": 4, **difficulty},
        "dedup": {"enabled": False},
        "decontaminate": {"enabled": False},
    }
    path = tmp_path / "cfg.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


def test_difficulty_pass_rates_filters_export_and_cache(server, tmp_path):
    server.script(
        "Answer: 0",
        rules=[
            {"match": "What is $3+4$?", "content": "So the sum is 7.\nAnswer: 7"},
            {"match": "What is $9-2-2$?", "action": "500", "times": 3},  # retried, then answered:
            {"match": "What is $9-2-2$?", "content": "Answer: 5", "times": 2},  # 2 of 4 right
        ],
    )
    res = build(_cfg(tmp_path, server, min_pass=0.1, max_pass=0.9), tmp_path / "out", progress=False)
    recs = {r["original_problem"]: r for r in read_table(tmp_path / "out" / "records").to_pylist()}
    easy, hard, flaky = (recs[r["question"]] for r in ROWS)
    d_easy = json.loads(easy["checks"])["difficulty"]
    assert d_easy == {"model": "scripted", "n": 4, "correct": 4, "pass_rate": 1.0}
    assert easy["status"].startswith("too_easy: pass rate 1.000 > max_pass 0.9")
    assert json.loads(hard["checks"])["difficulty"]["correct"] == 0
    assert hard["status"].startswith("too_hard: pass rate 0.000 < min_pass 0.1")
    # the 500s were retried: every sample came back and was scored
    assert json.loads(flaky["checks"])["difficulty"] == {
        "model": "scripted",
        "n": 4,
        "correct": 2,
        "pass_rate": 0.5,
    }
    assert res.llm_usage["retries"] >= 3 and res.llm_usage["completions"] == 12
    assert res.stages[-1].name == "difficulty"
    assert res.kept == 1 and flaky["status"] == "kept"
    verl = pq.read_table(tmp_path / "out" / "verl" / "train.parquet").to_pylist()
    assert [v["extra_info"]["difficulty"]["pass_rate"] for v in verl] == [0.5]

    # a new build with other filters, same cache: no request at all
    server.script("Answer: 0")
    cache = tmp_path / "out" / "llm_cache"
    cfg2 = yaml.safe_load(_cfg(tmp_path, server).read_text())
    cfg2["llm"]["cache_dir"] = str(cache)
    path2 = tmp_path / "cfg2.yaml"
    path2.write_text(yaml.safe_dump(cfg2))
    again = build(path2, tmp_path / "out2", progress=False)
    assert server.stats()["requests"] == 0
    assert again.kept == 3  # no filters: all three kept, with their pass rates
