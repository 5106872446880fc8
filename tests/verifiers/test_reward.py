"""length_penalty (DESIGN.md formula), dapo_reward and format_report."""

from __future__ import annotations

import pytest

from verifiers import dapo_reward, format_report, length_penalty


@pytest.mark.parametrize(
    "length, want",
    [(0, 0.0), (12288, 0.0), (12289, -1 / 4096), (14336, -0.5), (16384, -1.0), (16385, -1.0), (99999, -1.0)],
)
def test_length_penalty_formula(length, want):
    assert length_penalty(length, 16384, 4096) == pytest.approx(want)


def test_length_penalty_off_and_bad_config():
    assert length_penalty(10**9, None, None) == 0.0
    with pytest.raises(ValueError, match="cache_len"):
        length_penalty(10, 100, 200)


def test_dapo_reward_correct_wrong_and_penalised():
    good = dapo_reward("work...\nAnswer: 34", "34")
    assert (good.score, good.acc, good.pred, good.reason) == (1.0, 1.0, "34", "integer_match")
    bad = dapo_reward("work...\nAnswer: 35", "34")
    assert (bad.score, bad.acc) == (-1.0, 0.0)
    long = dapo_reward("Answer: 34", "34", max_len=100, cache_len=40, length=80)
    assert long.length_penalty == pytest.approx(-0.5)
    assert long.score == pytest.approx(0.5)


def test_dapo_reward_character_fallback_and_truncation():
    text = "x" * 396 + "\nAnswer: 34"  # 407 chars -> ceil(407/4) = 102 tokens > max_len 100
    r = dapo_reward(text, "34", max_len=100, cache_len=40)
    assert r.length_penalty == -1.0 and r.score == 0.0
    t = dapo_reward("Answer: 34", "34", truncated=True)
    assert (t.score, t.reason) == (-1.0, "truncated")


def test_format_report_good_and_bad():
    ok = format_report("Step one.\nStep two.\nAnswer: 34")
    assert (ok.n_answer_lines, ok.answer_at_end, ok.truncated, ok.ok) == (1, True, False, True)
    two = format_report("Answer: 3\nmore\nAnswer: 4")
    assert two.n_answer_lines == 2 and not two.ok
    not_end = format_report("Answer: 3\nand then I continued talking")
    assert not not_end.answer_at_end and not not_end.ok
    cut = format_report("so we compute the sum of all the")
    assert cut.truncated and not cut.ok
    assert format_report("Answer: 3", truncated=True, length=17).truncated
    assert format_report("Answer: 3", length=17).length == 17


def test_repetition_score_detects_loops():
    fresh = format_report("We factor the quadratic and find both roots are positive integers.\nAnswer: 5")
    loop = format_report("let me check again " * 200 + "\nAnswer: 5")
    assert fresh.repetition_score == 0.0
    assert loop.repetition_score > 0.9 and not loop.ok
    assert 0.0 <= loop.repetition_score <= 1.0
