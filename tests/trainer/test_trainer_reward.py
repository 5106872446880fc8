"""The trainer's rewards are the verifier's `RewardResult`, shaped once (verifiers.reward.shaped_result)."""

from trainer.data import Prompt
from trainer.reward import reward_from_dict, score_samples
from trainer.rollout import Sample
from trainer.sampling import Group, SurplusBuffer
from verifiers import RewardResult, length_penalty

TEXTS = ["The answer is \\boxed{34}", "\\boxed{35}", "no answer here", "x" * 300 + " \\boxed{34}"]


def _samples(length: int, truncated: bool = False) -> list[Sample]:
    return [Sample([1], [7] * length, [0.0] * length, truncated, t) for t in TEXTS]


def test_scores_are_plus_minus_one_plus_the_length_penalty_exactly_when_the_flag_is_on():
    for length in (10, 57, 60, 64, 65):
        pen = length_penalty(length, 64, 8)
        on = score_samples(_samples(length), "34", max_len=64, cache_len=8)
        off = score_samples(_samples(length), "34", max_len=64, cache_len=8, overlong_penalty=False)
        assert [r.acc for r in on] == [r.acc for r in off] == [1.0, 0.0, 0.0, 1.0]
        # bit-identical to the formula the trainer used to apply itself
        assert [r.score for r in on] == [(1.0 if r.acc else -1.0) + pen for r in on]
        assert [r.score for r in off] == [1.0 if r.acc else -1.0 for r in off]
        assert all(r.length_penalty == pen for r in on + off)  # reported either way


def test_a_truncated_response_scores_as_wrong_with_the_penalty():
    r = score_samples(_samples(70, truncated=True)[:1], "34", max_len=64, cache_len=8)[0]
    assert (r.score, r.acc, r.reason, r.length_penalty) == (-2.0, 0.0, "truncated", -1.0)


def test_a_buffer_saved_before_the_trainer_used_reward_result_still_loads():
    old = {"score": 0.5, "acc": True, "pred": "34", "overlong_penalty": -0.5}
    assert reward_from_dict(old) == RewardResult(0.5, 1.0, "34", "", -0.5)
    buf = SurplusBuffer()
    prompt = Prompt("k", [1, 2], "3", "1 + 2?")
    buf.put([Group(prompt, _samples(3)[:1], [RewardResult(1.0, 1.0, "3", "integer_match", 0.0)])])
    state = buf.state_dict()
    state[0]["scores"] = [old]  # as an earlier checkpoint wrote it
    buf.load_state_dict(state)
    assert buf.take()[0].scores == [RewardResult(0.5, 1.0, "34", "", -0.5)]


def test_with_the_question_an_answer_restating_it_scores_as_wrong():
    samples = [Sample([1], [7] * 5, [0.0] * 5, False, t) for t in ("\\boxed{23+45}", "\\boxed{68}")]
    asked = score_samples(samples, "68", "What is $23 + 45$?", max_len=64, cache_len=8)
    assert [(r.acc, r.reason) for r in asked] == [(0.0, "restates_question"), (1.0, "integer_match")]
    # without the question the arithmetic is all the verifier sees
    assert [r.acc for r in score_samples(samples, "68", max_len=64, cache_len=8)] == [1.0, 1.0]
