"""The verl compute_score (loaded the way verl loads it) and the TRL reward function."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

import verifiers
from verifiers.trl import dapo_trl_reward, make_trl_reward

VERL_FILE = Path(verifiers.__file__).parent / "verl.py"


def _load_like_verl(path: Path, name: str):
    """What verl's get_custom_reward_fn does: import the file by path, getattr the function."""
    spec = importlib.util.spec_from_file_location("custom_module", str(path))
    module = importlib.util.module_from_spec(spec)
    sys.modules["custom_module"] = module
    try:
        spec.loader.exec_module(module)
    finally:
        sys.modules.pop("custom_module", None)
    return getattr(module, name)


def test_verl_compute_score_from_file_path():
    compute_score = _load_like_verl(VERL_FILE, "compute_score")
    out = compute_score("math_dapo", "Let me think.\nAnswer: 034", "34", extra_info={"index": 0})
    assert out["score"] == 1.0 and out["acc"] == 1.0 and out["pred"] == "34"
    wrong = compute_score(
        data_source="math_dapo", solution_str="Answer: 35", ground_truth="34", extra_info=None
    )
    assert wrong["score"] == -1.0 and wrong["acc"] == 0.0
    none = compute_score("math_dapo", "Let me try.\nThis is hard.\nI give up", "34")
    assert none["pred"] is None and none["reason"] == "no_answer" and none["acc"] == 0.0


def test_verl_overlong_options_and_list_gold():
    from verifiers.verl import compute_score

    out = compute_score("d", "Answer: 7", "7", extra_info={"max_len": 100, "cache_len": 40, "length": 80})
    assert out["length_penalty"] == pytest.approx(-0.5) and out["score"] == pytest.approx(0.5)
    assert compute_score("d", "Answer: 0.5", ["\\frac{1}{3}", "\\frac{1}{2}"])["acc"] == 1.0


def test_verl_gold_read_by_pandas_as_a_numpy_array_is_a_list_of_golds():
    """A list column read through pandas arrives as a numpy array: it scored every answer wrong."""
    import numpy as np

    from verifiers.verl import compute_score

    assert compute_score("d", "Answer: 34", np.array(["34", "35"]))["acc"] == 1.0
    assert compute_score("d", "Answer: 36", np.array(["34", "35"]))["acc"] == 0.0
    assert compute_score("d", "Answer: 34", np.int64(34))["acc"] == 1.0


def test_trl_string_completions_with_answer_column():
    rewards = dapo_trl_reward(["p1", "p2"], ["...\nAnswer: 34", "...\nAnswer: 12"], answer=["34", "120"])
    assert rewards == [1.0, -1.0]


def test_trl_message_completions_and_other_gold_columns():
    comps = [
        [{"role": "assistant", "content": "so \\boxed{5}"}],
        [{"role": "assistant", "content": "Answer: 4"}],
    ]
    assert dapo_trl_reward(["p", "p"], comps, ground_truth=["5", "5"]) == [1.0, -1.0]
    rm = [{"style": "rule", "ground_truth": "5"}, {"style": "rule", "ground_truth": "4"}]
    assert dapo_trl_reward(["p", "p"], comps, reward_model=rm, trainer_state=None) == [1.0, 1.0]


def test_trl_missing_gold_is_a_clear_error():
    with pytest.raises(ValueError, match="no 'answer', 'ground_truth' or 'reward_model' column"):
        dapo_trl_reward(["p"], ["Answer: 1"], solution=["1"])


def test_make_trl_reward_custom_column_name_and_lengths():
    fn = make_trl_reward(answer_column="target", max_len=10, cache_len=4)
    assert fn.__name__ == "dapo_reward"
    out = fn(["p", "p"], ["Answer: 3", "Answer: 3"], target=["3", "3"], completion_ids=[[1] * 5, [1] * 8])
    assert out == [1.0, pytest.approx(1.0 - 2 / 4)]


@pytest.mark.parametrize("response", ["I give up", "idk", "blah", "Hmm.", "pass", "I don't know"])
def test_a_refusal_is_no_answer_not_an_answer_that_is_wrong(response):
    """README: a response with no answer is `no_answer` with pred None; `I give up` was read as the
    answer `I give up` (kind_mismatch), so eval's "no answer" share was too low."""
    v = verifiers.check(response, "34")
    assert (v.equivalent, v.reason, v.pred) == (False, "no_answer", None)
    assert verifiers.check("Monday", "Monday").equivalent  # a one-word answer is still an answer
