"""Dynamic sampling (filter, refill, give up) and overlong filtering, with a scripted engine."""

import pytest
import torch

from trainer.batch import make_batch
from trainer.data import Prompt, PromptSampler
from trainer.reward import score_samples
from trainer.rollout import Sample
from trainer.sampling import DynamicSamplingError, collect


class ScriptedEngine:
    """Answers each prompt with a fixed list of texts (keyed by prompt id), like a deterministic policy."""

    def __init__(self, answers: dict[int, list[str]]):
        self.answers, self.calls = answers, []

    def generate(self, prompt_ids, *, n, max_new_tokens, temperature, top_p):
        self.calls.append(len(prompt_ids))
        out = []
        for p in prompt_ids:
            texts = self.answers[p[0]][:n]
            out.append([Sample(p, [5] * 3, [-0.1] * 3, False, t) for t in texts])
        return out

    def sync_weights(self, model):
        pass


def _score(samples, gold, question=None):
    return score_samples(samples, gold, question, max_len=64, cache_len=8)


def _setup(kinds):
    """Prompt i has gold '1'; kinds[i] says whether its group is all right, all wrong, or mixed."""
    texts = {"right": ["Answer: 1"] * 4, "wrong": ["Answer: 2"] * 4, "mixed": ["Answer: 1", "Answer: 2"] * 2}
    prompts = [Prompt(str(i), [i], "1", "q") for i in range(len(kinds))]
    return prompts, ScriptedEngine({i: texts[k] for i, k in enumerate(kinds)})


def test_filter_drops_all_equal_groups_and_refills():
    kinds = ["right", "mixed", "wrong", "mixed", "right", "right", "mixed", "wrong"]
    prompts, engine = _setup(kinds)
    sampler = PromptSampler(len(prompts), seed=0)
    order = PromptSampler(len(prompts), seed=0).take(8)
    rb = collect(engine, prompts, sampler, _score, target=2, gen_prompts=2, dynamic=True, max_gen_batches=10,
                 n=4, max_new_tokens=8, temperature=1.0, top_p=1.0)  # fmt: skip
    mixed_pos = [j for j, i in enumerate(order) if kinds[i] == "mixed"]
    # generation batches of 2 prompts continue until the second mixed prompt has been drawn
    assert rb.gen_batches == mixed_pos[1] // 2 + 1
    assert [g.prompt.key for g in rb.groups] == [str(order[j]) for j in mixed_pos[:2]]
    assert all(g.informative for g in rb.groups)
    assert rb.filtered == sum(kinds[order[j]] != "mixed" for j in range(2 * rb.gen_batches))
    assert engine.calls == [2] * rb.gen_batches


def test_surplus_groups_are_cut_to_the_target():
    prompts, engine = _setup(["mixed"] * 6)
    rb = collect(engine, prompts, PromptSampler(6, 0), _score, target=3, gen_prompts=4, dynamic=True,
                 max_gen_batches=3, n=4, max_new_tokens=8, temperature=1.0, top_p=1.0)  # fmt: skip
    assert len(rb.groups) == 3 and rb.gen_batches == 1 and len(rb.generated) == 4


def test_gives_up_after_max_gen_batches_with_a_clear_error():
    prompts, engine = _setup(["right", "wrong", "right", "mixed"])
    with pytest.raises(
        DynamicSamplingError, match=r"kept 1 of 2 groups after max_gen_batches=3.*raise algo.max_gen_batches"
    ):
        collect(engine, prompts, PromptSampler(4, 0), _score, target=2, gen_prompts=1, dynamic=True,
                max_gen_batches=3, n=4, max_new_tokens=8, temperature=1.0, top_p=1.0)  # fmt: skip


def test_without_dynamic_sampling_all_groups_are_kept():
    prompts, engine = _setup(["right", "wrong", "mixed"])
    rb = collect(engine, prompts, PromptSampler(3, 0), _score, target=3, gen_prompts=1, dynamic=False,
                 max_gen_batches=1, n=4, max_new_tokens=8, temperature=1.0, top_p=1.0)  # fmt: skip
    assert len(rb.groups) == 3 and rb.filtered == 0 and engine.calls == [3]


def test_overlong_filter_zeroes_truncated_responses():
    from trainer.sampling import Group

    s_ok = Sample([1, 2, 3], [7, 8, 1], [-0.5, -0.5, -0.1], False, "Answer: 1")
    s_cut = Sample([1, 2], [7, 7, 7, 7], [-0.2] * 4, True, "7777")
    g = Group(Prompt("a", [1, 2, 3], "1", "q"), [s_ok, s_cut], _score([s_ok, s_cut], "1"))
    on = make_batch([g], pad_id=0, overlong_filter=True)
    off = make_batch([g], pad_id=0, overlong_filter=False)
    assert on.mask.tolist() == [[1, 1, 1, 0], [1, 1, 1, 1]]
    assert on.loss_mask.tolist() == [[1, 1, 1, 0], [0, 0, 0, 0]]
    assert off.loss_mask.tolist() == on.mask.tolist()
    # the truncated response is still scored (wrong, with the overlong term) so the group stays informative
    assert g.scores[1].score < 0 and g.informative
    # layout: prompts left-padded to one width, responses start in the same column
    assert on.ids.tolist() == [[1, 2, 3, 7, 8, 1, 0], [0, 1, 2, 7, 7, 7, 7]]
    assert on.pos[1].tolist()[1:] == [0, 1, 2, 3, 4, 5]
    assert torch.equal(on.resp, on.ids[:, 3:])


def test_surplus_groups_are_returned_and_carried_into_the_next_step():
    from trainer.sampling import SurplusBuffer

    prompts, engine = _setup(["mixed"] * 6)
    sampler = PromptSampler(6, 0)
    order = PromptSampler(6, 0).take(6)
    kw = dict(dynamic=True, max_gen_batches=3, n=4, max_new_tokens=8, temperature=1.0, top_p=1.0)
    rb = collect(engine, prompts, sampler, _score, target=3, gen_prompts=4, **kw)
    # 4 informative groups for a target of 3: the 4th is the surplus
    assert [g.prompt.key for g in rb.groups] == [str(i) for i in order[:3]]
    assert [g.prompt.key for g in rb.surplus] == [str(order[3])] and rb.carried == 0
    buf = SurplusBuffer()
    buf.put(rb.surplus)
    # next step: the carried group comes first and one generation batch of 4 fills the rest (2 new surplus)
    rb2 = collect(engine, prompts, sampler, _score, target=3, gen_prompts=4, carry=buf.take(), **kw)
    assert rb2.carried == 1 and len(buf) == 0
    assert [g.prompt.key for g in rb2.groups] == [str(order[3]), str(order[4]), str(order[5])]
    assert len(rb2.surplus) == 2 and rb2.gen_batches == 1 and engine.calls == [4, 4]


def test_carry_larger_than_the_target_needs_no_generation_and_drops_the_rest():
    """Carried groups beyond the target are dropped, not carried a second time (at most one step old)."""
    prompts, engine = _setup(["mixed"] * 4)
    first = collect(engine, prompts, PromptSampler(4, 0), _score, target=4, gen_prompts=4, dynamic=True,
                    max_gen_batches=1, n=4, max_new_tokens=8, temperature=1.0, top_p=1.0)  # fmt: skip
    rb = collect(engine, prompts, PromptSampler(4, 1), _score, target=3, gen_prompts=4, dynamic=True,
                 max_gen_batches=1, n=4, max_new_tokens=8, temperature=1.0, top_p=1.0, carry=first.groups)  # fmt: skip
    assert rb.gen_batches == 0 and rb.carried == 3 and rb.groups == first.groups[:3]
    assert rb.surplus == [] and engine.calls == [4]


def test_surplus_buffer_state_round_trips_through_json():
    import json

    from trainer.sampling import Group, SurplusBuffer

    prompts, engine = _setup(["mixed"])
    samples = engine.generate([prompts[0].ids], n=4, max_new_tokens=8, temperature=1.0, top_p=1.0)[0]
    buf = SurplusBuffer()
    buf.put([Group(prompts[0], samples, _score(samples, "1"))])
    state = json.loads(json.dumps(buf.state_dict()))  # what trainer_state.json holds
    back = SurplusBuffer()
    back.load_state_dict(state)
    assert back.groups == buf.groups and back.groups[0].rewards == [1.0, -1.0, 1.0, -1.0]
    back.load_state_dict(None)  # a checkpoint written without a buffer
    assert len(back) == 0


def test_on_max_gen_batches_train_keeps_what_was_collected():
    prompts, engine = _setup(["right", "wrong", "right", "mixed"])
    rb = collect(engine, prompts, PromptSampler(4, 0), _score, target=2, gen_prompts=1, dynamic=True,
                 max_gen_batches=3, n=4, max_new_tokens=8, temperature=1.0, top_p=1.0,
                 on_max_gen_batches="train")  # fmt: skip
    # the same draw that raises above: 3 generation batches, one informative group, one missing
    assert rb.gen_batches == 3 and len(rb.groups) == 1 and rb.short == 1
    assert rb.groups[0].prompt.key == "3" and rb.filtered == 2


def test_on_max_gen_batches_train_still_fails_with_nothing_to_train_on():
    prompts, engine = _setup(["right", "wrong"])
    with pytest.raises(DynamicSamplingError, match="on_max_gen_batches: train"):
        collect(engine, prompts, PromptSampler(2, 0), _score, target=2, gen_prompts=1, dynamic=True,
                max_gen_batches=2, n=4, max_new_tokens=8, temperature=1.0, top_p=1.0,
                on_max_gen_batches="train")  # fmt: skip


def test_on_max_gen_batches_skip_returns_an_empty_batch_instead_of_failing():
    prompts, engine = _setup(["right", "wrong"])
    rb = collect(engine, prompts, PromptSampler(2, 0), _score, target=2, gen_prompts=1, dynamic=True,
                 max_gen_batches=2, n=4, max_new_tokens=8, temperature=1.0, top_p=1.0,
                 on_max_gen_batches="skip")  # fmt: skip
    assert rb.groups == [] and rb.short == 2 and rb.gen_batches == 2 and rb.filtered == 2


class LengthEngine:
    """Answers prompt i with fixed (text, response length) pairs, so the overlong penalty varies."""

    def __init__(self, answers: dict[int, list[tuple[str, int]]]):
        self.answers = answers

    def generate(self, prompt_ids, *, n, max_new_tokens, temperature, top_p):
        return [
            [Sample(p, [5] * length, [-0.1] * length, False, text) for text, length in self.answers[p[0]][:n]]
            for p in prompt_ids
        ]


@pytest.mark.parametrize(("metric", "kept"), [("acc", ["1"]), ("reward", ["0", "1"])])
def test_filter_metric_acc_drops_an_all_right_group_whose_lengths_differ(metric, kept):
    """DAPO's 0 < |correct| < G (acc) vs distinct rewards: an all-right group, half of it penalised
    for length to a reward of 0 (64 tokens, Lmax 64, Lcache 8), is dropped under acc and kept under
    reward; correctness is the verifier's verdict, not reward > 0."""
    right, wrong = "Answer: 1", "Answer: 2"
    engine = LengthEngine({0: [(right, 3), (right, 64)] * 2, 1: [(right, 64), (wrong, 3)] * 2})
    prompts = [Prompt(str(i), [i], "1", "q") for i in range(2)]
    rb = collect(engine, prompts, PromptSampler(2, 0), _score, target=2, gen_prompts=2, dynamic=True,
                 max_gen_batches=1, n=4, max_new_tokens=64, temperature=1.0, top_p=1.0,
                 on_max_gen_batches="train", filter_metric=metric)  # fmt: skip
    by_key = {g.prompt.key: g for g in rb.generated}
    assert by_key["0"].rewards == [1.0, 0.0, 1.0, 0.0] and all(s.acc for s in by_key["0"].scores)
    assert by_key["1"].rewards == [0.0, -1.0, 0.0, -1.0]  # the right answer's reward is 0, still correct
    assert sorted(g.prompt.key for g in rb.groups) == kept
    assert rb.filtered == 2 - len(kept) and rb.short == 2 - len(kept)


def test_filter_metric_acc_error_says_what_was_dropped():
    prompts, engine = _setup(["right", "wrong"])
    with pytest.raises(DynamicSamplingError, match="2 were all right or all wrong"):
        collect(engine, prompts, PromptSampler(2, 0), _score, target=1, gen_prompts=2, dynamic=True,
                max_gen_batches=1, n=4, max_new_tokens=8, temperature=1.0, top_p=1.0)  # fmt: skip
    with pytest.raises(ValueError, match="filter_metric 'score': write acc or reward"):
        collect(engine, prompts, PromptSampler(2, 0), _score, target=1, gen_prompts=2, dynamic=True,
                max_gen_batches=1, n=4, max_new_tokens=8, temperature=1.0, top_p=1.0, filter_metric="score")  # fmt: skip


def test_groups_of_identical_responses_are_named_as_such():
    """temperature 0 (or a collapsed policy) with G = 4: the error blamed only the data's difficulty."""
    prompts, engine = _setup(["right", "wrong", "right", "wrong"])
    with pytest.raises(DynamicSamplingError, match=r"In 2 of 2 groups all 4 responses are the same text"):
        collect(engine, prompts, PromptSampler(4, 0), _score, target=2, gen_prompts=2, dynamic=True,
                max_gen_batches=1, n=4, max_new_tokens=8, temperature=0.0, top_p=1.0)  # fmt: skip


def test_collect_scores_each_group_with_its_question_so_a_restated_question_is_wrong():
    """A policy that answers "What is $23+45$?" with `23+45` copies the question: equal by arithmetic, but
    rewarded it learns to copy; the group's prompt text reaches the reward, which calls it wrong."""
    prompts = [Prompt("0", [0], "68", "What is $23+45$?")]
    engine = ScriptedEngine({0: ["Answer: 23+45", "Answer: 68", "Answer: 23+45", "Answer: 67"]})
    rb = collect(engine, prompts, PromptSampler(1, 0), _score, target=1, gen_prompts=1, dynamic=False,
                 max_gen_batches=1, n=4, max_new_tokens=8, temperature=1.0, top_p=1.0)  # fmt: skip
    (g,) = rb.groups
    assert [s.acc for s in g.scores] == [0.0, 1.0, 0.0, 0.0]
    assert [s.reason for s in g.scores][0] == "restates_question"
