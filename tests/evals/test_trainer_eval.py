"""Eval metrics: the unbiased pass@k estimator and majority vote, against hand computations."""

from math import comb

import pytest

from trainer.eval import majority_correct, pass_at_k


def test_pass_at_k_matches_the_combinatorial_formula_by_hand():
    # n=5 samples, c=2 correct, k=2: 1 - C(3,2)/C(5,2) = 1 - 3/10
    assert pass_at_k(5, 2, 2) == pytest.approx(0.7)
    # k=1 is the plain fraction correct
    assert pass_at_k(8, 3, 1) == pytest.approx(3 / 8)
    # fewer wrong samples than k: some draw must be correct
    assert pass_at_k(4, 2, 3) == 1.0
    assert pass_at_k(4, 0, 4) == 0.0
    for n, c, k in [(10, 3, 4), (16, 1, 8), (32, 5, 16)]:
        assert pass_at_k(n, c, k) == pytest.approx(1 - comb(n - c, k) / comb(n, k))


def test_pass_at_k_rejects_impossible_counts():
    with pytest.raises(ValueError, match="n=4 c=5"):
        pass_at_k(4, 5, 1)
    with pytest.raises(ValueError, match="k=9"):
        pass_at_k(8, 1, 9)


def test_majority_vote():
    assert majority_correct(["7", "7", "8", None], [True, True, False, False])
    assert not majority_correct(["8", "7", "8"], [False, True, False])
    # a tie goes to the answer seen first
    assert majority_correct(["7", "8", "8", "7"], [True, False, False, True])
    assert not majority_correct(["8", "7", "7", "8"], [False, True, True, False])
    # no extracted answer at all is wrong, never an error
    assert not majority_correct([None, None], [False, False])
