"""Equivalence is symmetric: for two bare answers from the labelled corpora (no answer marker, no
response text), `check(a, b)` and `check(b, a)` agree. Percent, decimals against exact values, the
choice letter with its option and malformed LaTeX are each decided once, for both sides."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import verifiers

DATA = Path(__file__).parent / "data"
# a marker, a line break, math delimiters or chat debris: a response, not a bare answer
_NOT_BARE = re.compile(r"answer|boxed|fbox|####|\n|\$|\\\[|\\\(|<\||</s>|[\x00-\x08]", re.IGNORECASE)


def bare_pairs() -> list[tuple[str, str]]:
    pairs = []
    for name in ("labelled_corpus", "external_cases", "math_verify_tests"):
        for line in (DATA / f"{name}.jsonl").read_text(encoding="utf-8").splitlines():
            c = json.loads(line)
            if "pred_gen" in c or "gold_gen" in c or c.get("pred_is_response"):
                continue
            p, g = c["pred"], c["gold"]
            if _NOT_BARE.search(p + g) or len(p) > 80 or len(g) > 80:
                continue
            pairs.append((p, g))
    return pairs


PAIRS = bare_pairs()


@pytest.fixture(scope="module", autouse=True)
def _warm():
    verifiers.warmup()


def _both_ways(a: str, b: str) -> tuple:
    ab, ba = verifiers.check(a, b, timeout=5.0), verifiers.check(b, a, timeout=5.0)
    return ab.equivalent, ba.equivalent, ab.reason, ba.reason


def test_there_are_enough_pairs():
    assert len(PAIRS) >= 800


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(PAIRS))
def test_equivalence_is_symmetric_on_labelled_bare_answers(pair):
    ab, ba, why_ab, why_ba = _both_ways(*pair)
    assert ab == ba, f"{pair}: {why_ab} one way, {why_ba} the other"


@pytest.mark.slow
def test_equivalence_is_symmetric_on_every_labelled_bare_pair():
    bad = [(p, g, r) for p, g in PAIRS if (r := _both_ways(p, g))[0] != r[1]]
    assert bad == []


@pytest.mark.parametrize(
    "a, b, equal",
    [
        ("0.5", "50\\%", True),
        ("5\\%", "0.05", True),
        ("25\\%", "\\frac14", True),
        ("50", "50\\%", True),
        ("28 percent", "0.28", True),
        ("50\\%", "5", False),
        ("0.05", "50\\%", False),
        ("2.8\\%", "28\\%", False),
        ("0.8660254037844386", "\\frac{\\sqrt3}{2}", False),
        ("0.333333333333333*x^2", "x^2/3", False),
        ("0.333333333333333", "\\frac13", False),
        ("0.5x", "\\frac{x}{2}", True),
        ("0.1x + 1.5", "\\frac{x}{10}+\\frac32", True),
        ("\\{0.333333333333333\\}", "\\{\\frac13\\}", False),
    ],
)
def test_percent_and_decimals_both_ways(a, b, equal):
    assert verifiers.check(a, b).equivalent is equal
    assert verifiers.check(b, a).equivalent is equal


@pytest.mark.parametrize("empty", ["", " ", "\\boxed{}", "\\boxed{ }", "Answer: ", "$ $"])
def test_nothing_never_equals_anything(empty):
    for gold in ("", "\\boxed{}", "0", "\\text{}"):
        v = verifiers.check(empty, gold)
        assert not v.equivalent and v.reason in ("no_answer", "gold_invalid"), (empty, gold, v)


def test_a_matrix_written_over_several_lines_is_read():
    lines = "\\begin{pmatrix}\n1 \\\\\n-2\n\\end{pmatrix}"
    one_line = "\\begin{pmatrix} 1 \\\\ -2 \\end{pmatrix}"
    assert verifiers.extract(lines, gold=True).answer == lines
    assert verifiers.check(f"\\boxed{{{one_line}}}", lines).equivalent
    assert verifiers.check(lines, one_line).equivalent
    assert verifiers.check("$$\n" + lines + "\n$$", "(1,-2)").equivalent
    assert not verifiers.check(lines, "\\begin{pmatrix} 1 \\\\ 2 \\end{pmatrix}").equivalent


@pytest.mark.parametrize(
    ("a", "b", "equal"),
    [("\\{3\\}", "3", True), ("\\{2\\}", "[1,2]\\cap[2,3]", True), ("\\{3\\}", "(3, 4)", False)],
)
def test_a_singleton_set_is_its_value_either_way(a, b, equal):
    assert verifiers.is_equivalent(a, b) is equal
    assert verifiers.is_equivalent(b, a) is equal
