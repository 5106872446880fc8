"""Blind set G4 (perturbed word problems: GSM-IC, GSM-Symbolic, SVAMP variants; issue 21): a key stored as GSM8K's
answer marker alone (`#### 27`, FLARE's and LLM-Fallacy-Pressure's SVAMP files) is the value after it, as `Answer: 27`
is; the marker before anything but a value is not read so. And G4's rows also in D4 (the same case ids, taken from
repositories the labeller's list of used ones lacked) count with D4 only."""

import importlib.util
from pathlib import Path

import pytest
from rule_outcome import assert_kept_as, offline

ROOT = Path(__file__).resolve().parents[2]
BIRDS = "There were 86 bird families living near the mountain. 27 bird families flew away. How many are left?"


@pytest.mark.parametrize(
    ("key", "kept"), [("#### 59", "59"), ("####59", "59"), ("#### 59.0", "59"), ("#### x", None)]
)
def test_a_bare_gsm8k_marker_key(key, kept):
    assert_kept_as(offline(BIRDS, key), kept)


def test_rows_repeated_from_an_earlier_set_count_once():
    spec = importlib.util.spec_from_file_location("rules_labelled", ROOT / "bench" / "rules_labelled.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    scored, repeated = bench.labels_of("G4")
    d4 = {lab["case_id"] for lab in bench.load_labels(bench.SETS["D4"])}
    assert repeated and {lab["case_id"] for lab in repeated} <= d4
    assert not {lab["case_id"] for lab in scored} & d4
    assert len(scored) + len(repeated) == len(bench.load_labels(bench.SETS["G4"]))
