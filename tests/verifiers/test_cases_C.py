"""Set C (data/verifier_cases_C.jsonl, 483 cases from projects not used before, labelled blind;
see its notes .md). Every case agrees with its label, except those decided in writing in
data/verifier_cases_C_decisions.json: disputed labels (kept, our verdict pinned, with the reason)
and an explicit xfail list of false NEGATIVES with reasons. A false positive is never expected:
precision first, so each one is fixed in code or disputed with a written reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import verifiers

DATA = Path(__file__).parent / "data"
CASES = [
    json.loads(line)
    for line in (DATA / "verifier_cases_C.jsonl").read_text(encoding="utf-8").splitlines()
    if line.strip()
]
DECIDED = {
    d["id"]: d
    for d in json.loads((DATA / "verifier_cases_C_decisions.json").read_text(encoding="utf-8"))["cases"]
}
BUDGET_S = 5.0  # generous: what is tested is the verdict; the bench measures the time
MAX_XFAIL_SHARE = 0.10  # the known false negatives (44 of 483 after its first fixes): may only shrink


@pytest.fixture(scope="module", autouse=True)
def _warm():
    verifiers.warmup()


def test_decisions_name_real_cases_and_never_excuse_a_false_positive():
    by_id = {c["id"]: c for c in CASES}
    assert set(DECIDED) <= set(by_id)
    for d in DECIDED.values():
        case = by_id[d["id"]]
        assert d["decision"] in ("disputed", "xfail") and len(d["why"]) > 20, d["id"]
        assert d["label"] == case["equivalent"], f"{d['id']}: the decision must quote the label as it is"
        if d["decision"] == "xfail":
            assert case["equivalent"] is True, f"{d['id']}: only a false negative may be xfailed"
        else:
            assert d["ours"] != case["equivalent"], f"{d['id']}: a dispute pins the other verdict"
    assert sum(d["decision"] == "xfail" for d in DECIDED.values()) <= MAX_XFAIL_SHARE * len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_case(case):
    d = DECIDED.get(case["id"])
    v = verifiers.check(case["pred"], case["gold"], timeout=BUDGET_S)
    if d is not None and d["decision"] == "xfail" and not v.equivalent:
        pytest.xfail(d["why"])
    want = d["ours"] if d is not None and d["decision"] == "disputed" else case["equivalent"]
    assert v.equivalent == want, (
        f"{case['cls']} ({case['why']}): pred={case['pred'][-150:]!r} gold={case['gold']!r} -> {v}"
    )
