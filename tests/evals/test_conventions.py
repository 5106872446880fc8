"""The conventions of the harnesses people compare with (Qwen2.5-Math's eval, lighteval, evalchemy):
overall = the mean over benchmarks, a standard error on every metric, a greedy mode, a seed, and a
warning when k > 1 at temperature 0. Numbers are worked out by hand from the scripted answers."""

from __future__ import annotations

import json
from math import sqrt

import pytest
from typer.testing import CliRunner

from evals.benchmarks import Benchmark, Problem
from evals.command import sampling_params
from evals.prompts import PromptSpec
from evals.runner import EvalConfig, run_eval, sampling_warnings
from evals.store import Response, SamplingParams
from verifiers.metrics import ProblemResult, mean_over_benchmarks, summarize


class ScriptedSampler:
    """An evals Sampler answering each problem with fixed responses (sample i gets the i-th)."""

    def __init__(self, answers: dict[str, list[str]]):
        self.answers = answers

    def describe(self) -> dict:
        return {"kind": "scripted"}

    def run(self, jobs, params, emit) -> None:
        for job in jobs:
            text = job.prompt[-1]["content"]
            key = next(k for k in self.answers if k in text)
            emit(job, Response(f"Answer: {self.answers[key][job.index]}", 5, "stop"))


# bench A: 2 problems, accuracies 1 and 1/2; bench B: 4 problems, all wrong
A = Benchmark("A", "test", [Problem("a1", "ALPHA-1", "1"), Problem("a2", "ALPHA-2", "2")])
B = Benchmark("B", "test", [Problem(f"b{i}", f"BETA-{i}", str(10 + i)) for i in range(4)])
ANSWERS = {"ALPHA-1": ["1", "1"], "ALPHA-2": ["2", "3"], **{f"BETA-{i}": ["0", "0"] for i in range(4)}}


def _run(tmp_path, params: SamplingParams, benches=(A, B)) -> dict:
    cfg = EvalConfig(out=tmp_path / "out", params=params, prompt=PromptSpec.make("raw"), pass_ks=(1,),
                     progress=False, model="scripted")  # fmt: skip
    return run_eval(list(benches), ScriptedSampler(ANSWERS), cfg)


def test_overall_is_the_mean_over_benchmarks_not_pooled_problems(tmp_path):
    rep = _run(tmp_path, SamplingParams(k=2, temperature=1.0))
    assert rep["benchmarks"]["A"]["avg@2"] == 0.75 and rep["benchmarks"]["B"]["avg@2"] == 0.0
    assert rep["overall"]["avg@2"] == pytest.approx(0.375)  # (0.75 + 0) / 2 benchmarks
    assert rep["pooled"]["avg@2"] == pytest.approx(1.5 / 6)  # (1 + 0.5 + 0 * 4) / 6 problems
    assert rep["overall"]["n_benchmarks"] == 2 and rep["overall"]["n_problems"] == 6
    # A: sd of (1, 0.5) = 0.3536, / sqrt(2) = 0.25; B: 0; overall sqrt(0.25^2 + 0^2) / 2 = 0.125
    assert rep["benchmarks"]["A"]["avg@2_se"] == pytest.approx(0.25)
    assert rep["overall"]["avg@2_se"] == pytest.approx(0.125)
    md = (tmp_path / "out" / "report.md").read_text()
    assert "| overall (mean of benchmarks) | 6 | 37.5 ± 12.5 |" in md
    saved = json.loads((tmp_path / "out" / "report.json").read_text())
    assert saved["overall"]["avg@2"] == pytest.approx(0.375)


def test_every_metric_has_a_standard_error():
    rs = [ProblemResult(n=4, correct=c, maj_correct=c > 2) for c in (4, 3, 1, 0)]
    m = summarize(rs, 4, (1, 2))
    metrics = [key for key in m if key.split("@")[0] in ("avg", "pass", "maj") and not key.endswith("_se")]
    assert sorted(metrics) == ["avg@4", "maj@4", "pass@1", "pass@2", "pass@4"]
    for key in metrics:
        assert m[f"{key}_se"] is not None, key
    # maj@4 per problem (1, 1, 0, 0): sd sqrt(1/3), se sqrt(1/3) / 2
    assert m["maj@4_se"] == pytest.approx(sqrt(1 / 3) / 2)
    # pass@4 per problem (1, 1, 1, 0): mean 0.75, squares 3 * 0.0625 + 0.5625 = 0.75, / 3 / 4
    assert m["pass@4_se"] == pytest.approx(sqrt(0.75 / 3 / 4))
    # one benchmark: overall is that benchmark's numbers exactly
    assert mean_over_benchmarks([m]) == {"n_benchmarks": 1, **m}


def test_greedy_is_one_sample_at_temperature_zero_and_refuses_a_contradiction():
    p = sampling_params(
        k=None, temperature=None, top_p=None, max_tokens=64, seed=None, greedy=True, checkpoint=False
    )
    assert (p.k, p.temperature, p.top_p) == (1, 0.0, 1.0)
    with pytest.raises(ValueError, match="--greedy samples once at temperature 0"):
        sampling_params(
            k=4, temperature=None, top_p=None, max_tokens=64, seed=None, greedy=True, checkpoint=False
        )
    with pytest.raises(ValueError, match="--greedy"):
        sampling_params(
            k=None, temperature=0.7, top_p=None, max_tokens=64, seed=None, greedy=True, checkpoint=False
        )
    d = sampling_params(
        k=None, temperature=None, top_p=None, max_tokens=64, seed=None, greedy=False, checkpoint=False
    )
    assert (d.k, d.temperature, d.top_p) == (32, 1.0, 0.7)


def test_greedy_on_the_command_line_refuses_k_in_one_line():
    from dapo_cli import app

    r = CliRunner().invoke(app, ["eval", "--endpoint", "http://127.0.0.1:9/v1", "--model", "m", "--bench", "aime24",
                                 "--greedy", "--k", "4"])  # fmt: skip
    assert r.exit_code == 2 and "--greedy samples once at temperature 0" in r.output
    assert "Traceback" not in r.output


def test_seed_defaults_and_is_recorded(tmp_path):
    kw = dict(k=None, temperature=None, top_p=None, max_tokens=64, greedy=False)
    assert sampling_params(seed=None, checkpoint=True, **kw).seed == 0  # torch seeded by default
    assert sampling_params(seed=None, checkpoint=False, **kw).seed is None  # servers: only when asked
    assert sampling_params(seed=7, checkpoint=False, **kw).seed == 7
    rep = _run(tmp_path, SamplingParams(k=1, temperature=0.0, seed=7))
    assert rep["sampling"]["seed"] == 7
    assert "seed 7." in (tmp_path / "out" / "report.md").read_text()


def test_k_above_one_at_temperature_zero_is_warned_about(tmp_path, capsys):
    assert sampling_warnings(SamplingParams(k=1, temperature=0.0)) == []
    assert sampling_warnings(SamplingParams(k=4, temperature=0.5)) == []
    rep = _run(tmp_path, SamplingParams(k=2, temperature=0.0))
    assert len(rep["warnings"]) == 1 and "k=2 samples at temperature 0" in rep["warnings"][0]
    assert "warning: k=2 samples at temperature 0" in capsys.readouterr().err
    greedy = _run(tmp_path / "g", SamplingParams(k=1, temperature=0.0, top_p=1.0))
    assert greedy["warnings"] == []
