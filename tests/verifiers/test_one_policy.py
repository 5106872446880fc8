"""One answer policy: the reward, `dapo eval`'s grading, the pipeline's solver (and difficulty)
check and the judge all read a response's answer through `verifiers.extract`, and a response
with no answer is `no_answer` with no prediction, never the response itself."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "pipelines"))

from scripted_server import ScriptedServer  # noqa: E402

import verifiers  # noqa: E402

EXTRACT_MODULE = sys.modules["verifiers.extract"]  # `verifiers.extract` itself is the function


@pytest.fixture
def spy(monkeypatch):
    """Every text the one extraction reads (its cache is bypassed so each call is seen)."""
    seen: list[str] = []
    real = EXTRACT_MODULE._extract

    def recording(text: str, gold: bool, cut_off: bool = False):
        seen.append(text)
        return real(text, gold, cut_off)

    EXTRACT_MODULE._CACHE.clear()
    monkeypatch.setattr(EXTRACT_MODULE, "_extract", recording)
    return seen


@pytest.fixture(scope="module", autouse=True)
def _warm():
    verifiers.warmup()


def test_one_name_exported():
    assert verifiers.extract is EXTRACT_MODULE.extract
    assert "extract" in verifiers.__all__ and "extract_answer" not in verifiers.__all__
    assert not hasattr(verifiers, "extract_answer")


def test_the_reward_reads_through_extract(spy):
    text = "Work.\nSo the result is \\boxed{\\frac{7}{2}} (reward)."
    r = verifiers.dapo_reward(text, "3.5")
    assert r.acc == 1.0 and text in spy
    assert r.extracted == verifiers.extract(text).answer == "\\frac{7}{2}" and r.gold == "3.5"


def test_dapo_eval_grading_reads_through_extract(spy):
    from evals.runner import grade

    text = "Work.\nSo the result is \\boxed{\\frac{9}{2}} (eval)."
    [g] = grade([text], ["4.5"])
    assert g.correct and text in spy
    assert g.extracted == verifiers.extract(text).answer == "\\frac{9}{2}"


class _Solver:
    """The pipeline's LLM client's interface (`complete`), answering from a script."""

    def __init__(self, texts: list[tuple[str, str]]):
        self.texts = texts

    async def complete(self, messages, temperature: float = 1.0, sample: int = 0):
        from pipelines.llm import Completion

        text, finish = self.texts[sample]
        return Completion(text, False, 10, 10, finish)


def test_pipeline_solver_check_reads_through_extract(spy):
    from pipelines.validate import solver_agreement

    draws = [
        ("We get \\boxed{12} (solver).", "stop"),
        ("Thinking... the answer is 12 (solver).", "stop"),  # a sentence: the reward reads it too
        ("Answer: 13 (solver)", "stop"),
        ("Still working, the answer is 12 but let me", "length"),  # cut off: prose is not read
    ]
    agree, n = asyncio.run(solver_agreement({"problem": "p", "answer": "12"}, _Solver(draws), 4))
    assert (agree, n) == (2, 4)
    assert {t for t, _ in draws} <= set(spy)
    # the same verdicts as the reward gives each response
    assert [verifiers.check(t, "12", cut_off=f == "length").equivalent for t, f in draws] == [
        True,
        True,
        False,
        False,
    ]


def test_the_judge_is_shown_what_extract_read(spy, tmp_path):
    text = "Long work.\nAnswer: 0.333 (judged)"
    want = verifiers.extract(text).answer
    assert want == "0.333 (judged)"
    with ScriptedServer() as srv:
        srv.script(
            "NO", rules=[{"match": f"Candidate answer:\n{want}\n", "action": "reply", "content": "YES"}]
        )
        judge = {"base_url": srv.base_url, "model": "scripted", "cache_dir": str(tmp_path / "j")}
        r = verifiers.dapo_reward(text, "\\frac{1}{3}", judge=judge, question="one third?")
        assert r.reason == "judge_match" and srv.stats()["requests"] == 1
        [b] = verifiers.score_batch([text + " "], ["\\frac{1}{3}"], workers=1, judge=judge)
        assert b.reason == "judge_match"  # score_batch's judge is asked the same (disk-cached) question
    assert text in spy


@pytest.mark.parametrize(
    "response",
    [
        "no answer at all",
        "I could not solve this problem.",
        "so 3 apples and then 12.5 pears",
        "Answer:",
        "Let me try.\nThis is hard.\nI give up",
        "",
    ],
)
def test_no_answer_is_never_the_response(response):
    out = verifiers.compute_score("math_dapo", response, "34")
    assert (out["reason"], out["pred"], out["extracted"], out["acc"]) == ("no_answer", None, None, 0.0)
    assert out["valid"] is True


@pytest.mark.parametrize("bare, want", [("twelve", "12"), ("one thousand", "1000"), ("no real solutions",
                         "\\text{no real solutions}"), ("Evelyn and Navin", "\\text{Evelyn and Navin}")])  # fmt: skip
def test_short_word_answers_are_still_answers(bare, want):
    v = verifiers.check(bare, want)
    assert v.extracted == bare and v.equivalent


def test_a_cut_off_response_gives_only_a_box_or_an_answer_line():
    cut = "Let $x=3$. Then the value is $x+4=7$. So the result is 7 and then we check that"
    assert verifiers.check(cut, "7", cut_off=True).reason == "no_answer"
    boxed = "We find \\boxed{7}. Now let us double-check by"
    assert verifiers.check(boxed, "7", cut_off=True).equivalent
    assert verifiers.check("Answer: 7\nbut wait, let me", "7", cut_off=True).equivalent
    assert verifiers.dapo_reward(cut, "7", cut_off=True).reason == "no_answer"


def test_gold_invalid_is_flagged_apart_from_a_wrong_answer():
    for gold in ("", "\\boxed{}", "\\sqrt{" * 50, "Answer: \\frac{1}{2"):
        v = verifiers.check("\\boxed{1}", gold)
        assert (v.equivalent, v.reason, v.valid) == (False, "gold_invalid", False), gold
        r = verifiers.dapo_reward("\\boxed{1}", gold)
        assert r.valid is False and r.acc == 0.0
    wrong = verifiers.dapo_reward("\\boxed{1}", "2")
    assert wrong.valid is True and wrong.reason == "integer_mismatch"
    assert (wrong.extracted, wrong.gold) == ("1", "2")


def test_score_batch_logs_the_parsed_gold_and_prediction():
    res = verifiers.score_batch(
        ["So \\boxed{\\dfrac{1}{2}}.", "nothing here at all, sorry", "Answer: 0.5"],
        ["Answer: $\\frac{1}{2}$", "3", "\\boxed{\\frac12}"],
        workers=1,
        cut_off=[False, False, True],
    )
    assert [(r.extracted, r.gold, r.acc) for r in res] == [
        ("\\dfrac{1}{2}", "\\frac{1}{2}", 1.0),
        (None, "3", 0.0),
        ("0.5", "\\frac12", 1.0),
    ]
