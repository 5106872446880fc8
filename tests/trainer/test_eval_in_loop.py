"""The in-loop eval (trainer.eval.evaluate) computes avg/pass/cons with verifiers.metrics, the code
`dapo eval` uses; its values must equal the computation it had before (per-prompt c/k, pass_at_k
and the vote, averaged by hand), to the bit, so the demo's numbers do not move."""

from __future__ import annotations

import pytest

# (gold, four responses): the hand values are below each
CASES = [
    ("7", ["Answer: 7", "Answer: 7.0", "Answer: 3", "Answer: 3"]),  # c=2, vote tie -> first class (7) wins
    ("12", ["Answer: 1/2", "Answer: 0.5", "Answer: 12", "no idea"]),  # c=1, wrong 1/2 = 0.5 outvote 12
    ("5", ["Answer: 4", "Answer: 6", "Answer: 4", "Answer: 6"]),  # c=0
    ("9", ["Answer: 9"] * 4),  # c=4
]


class ScriptedEngine:
    """Hands back fixed responses (tokenised with the real tokenizer) in the engine's shape, so the
    metric arithmetic is checked on known samples; the real model still scores the entropy."""

    def __init__(self, tok, responses: list[list[str]]):
        self.tok, self.responses = tok, responses
        self.pad_id = tok.pad_token_id if tok.pad_token_id is not None else 0
        self.drawn: list[list] = []

    def generate(self, prompt_ids, *, n, max_new_tokens, temperature, top_p):
        from trainer.rollout import Sample

        out = []
        for ids, texts in zip(
            prompt_ids, self.responses[len(self.drawn) : len(self.drawn) + len(prompt_ids)], strict=True
        ):
            assert len(texts) == n
            group = []
            for t in texts:
                r = self.tok(t, add_special_tokens=False)["input_ids"][:max_new_tokens]
                group.append(Sample(list(ids), r, [0.0] * len(r), False, t))
            out.append(group)
        self.drawn += out
        return out


def _before(drawn, golds, k: int, max_new_tokens: int) -> dict:
    """The pre-refactor computation, kept here as the reference (verdicts as trainer.reward's
    score_samples gave them: the verifier's acc and pred, truncated responses wrong)."""
    from verifiers import dapo_reward
    from verifiers.metrics import majority_vote, pass_at_k, same_answer

    accs, passes, cons = [], [], []
    for samples, gold in zip(drawn, golds, strict=True):
        rs = [dapo_reward(s.text, gold, max_len=max_new_tokens, cache_len=0, length=len(s.response_ids),
                          truncated=s.truncated) for s in samples]  # fmt: skip
        a = [bool(r.acc) for r in rs]
        accs.append(sum(a) / k)
        passes.append(pass_at_k(k, sum(a), k))
        cons.append(majority_vote([r.pred for r in rs], a, same_answer(1.0)))
    n = len(drawn)
    return {f"avg@{k}": sum(accs) / n, f"pass@{k}": sum(passes) / n, f"cons@{k}": sum(cons) / n}


@pytest.mark.parametrize("batch_prompts", [4, 3])
def test_in_loop_eval_metrics_are_identical_to_before(tiny_policy, batch_prompts):
    from trainer.data import Prompt
    from trainer.eval import evaluate

    model, tok = tiny_policy
    prompts = [
        Prompt(f"p{i}", tok(f"What is {g}?")["input_ids"], g, f"What is {g}?")
        for i, (g, _) in enumerate(CASES)
    ]
    engine = ScriptedEngine(tok, [r for _, r in CASES])
    got = evaluate(model, tok, prompts, k=4, max_new_tokens=64, engine=engine, batch_prompts=batch_prompts)
    ref = _before(engine.drawn, [g for g, _ in CASES], 4, 64)
    for key in ("avg@4", "pass@4", "cons@4"):
        assert got[key] == ref[key], key  # bit-identical, not approximately
    # and the hand values: avg (2+1+0+4)/16, pass@4 3 of 4 problems, cons 2 of 4 (7 and 9)
    assert (got["avg@4"], got["pass@4"], got["cons@4"]) == (7 / 16, 0.75, 0.5)
    assert got["n_prompts"] == 4 and got["truncation_ratio"] == 0.0 and got["entropy"] > 0


def test_in_loop_eval_grade_timeout_is_a_training_key():
    from trainer.config import build_config

    cfg = build_config({"train": {"eval_grade_timeout": 2.5}})
    assert cfg.train.eval_grade_timeout == 2.5
    assert build_config({}).train.eval_grade_timeout == 1.0  # the default of `dapo eval --grade-timeout`
    with pytest.raises(Exception, match="eval_grade_timeout"):
        build_config({"train": {"eval_grade_timeout": 0}})


def test_in_loop_eval_grades_a_cut_off_response_as_dapo_eval_does():
    """One policy: a response stopped at the token limit is read as `dapo eval` reads it (its answer
    line or box counts; prose does not), not marked wrong outright as the training reward does."""
    from evals.runner import grade
    from trainer.eval import _grade
    from trainer.rollout import Sample

    texts = [
        "so the total is \\boxed{7} and then we check that",
        "the answer might be 7 because",
        "Answer: 7",
    ]
    samples = [Sample([1], [2, 3], [0.0, 0.0], True, t) for t in texts]
    ours = [bool(r.acc) for r in _grade(samples, "7", 1.0)]
    theirs = [bool(g.correct) for g in grade(texts, ["7"] * 3, cut_off=[True] * 3)]
    assert ours == theirs == [True, False, True]
