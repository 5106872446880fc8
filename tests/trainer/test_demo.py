"""`dapo demo` (trainer/demo.py): a policy that has learnt the task does not end the demo in an error."""

import json

import pytest

import trainer.demo as demo


@pytest.mark.slow
def test_demo_evaluates_the_last_checkpoint_when_no_informative_group_is_left(tmp_path, monkeypatch):
    """On one CPU the demo's policy reached 99% training accuracy at step 150 of 200; dynamic sampling
    then found 7 of 16 informative groups in 20 batches and `dapo demo` died with the error, no report.
    With on_max_gen_batches: train it trains on the groups it found, and when not one is left (the fault
    injected here after one real step) it stops RL and evaluates the last checkpoint."""
    import trainer.loop
    from pipelines.build import build
    from trainer.sampling import DynamicSamplingError

    assert demo.DEMO_RL["algo"]["on_max_gen_batches"] == "train"
    real_train = trainer.loop.train

    def one_step_then_nothing_to_learn(cfg, progress=True, resume=False):
        real_train(cfg, progress=False, max_steps=1)
        raise DynamicSamplingError("dynamic sampling kept 0 of 16 groups after max_gen_batches=20 (injected)")

    monkeypatch.setattr(trainer.loop, "train", one_step_then_nothing_to_learn)
    monkeypatch.setitem(demo.DEMO_SFT, "steps", 20)  # a short warm-up: this test is about the RL stage
    monkeypatch.setitem(demo.EVAL, "n_prompts", 8)
    corpus = json.loads(json.dumps(demo.DEMO_CORPUS))
    corpus["sources"][0]["n"], corpus["sources"][1]["n"] = 200, 40
    data = build(corpus, tmp_path / "data", offline=True)
    report = demo.run(tmp_path, records=data.records_dir, verl=data.verl_path,
                      held_out=data.verl_files["test"][0], progress=False)  # fmt: skip
    assert report["rl"]["steps"] == 1 and report["rl"]["steps_planned"] == demo.DEMO_RL["train"]["steps"]
    assert "injected" in report["rl"]["stopped_early"]
    assert report["rl"]["checkpoint"].endswith("step-000001")
    assert 0.0 <= report["after"]["avg@8"] <= 1.0
    assert json.loads((tmp_path / "report.json").read_text())["rl"]["steps"] == 1


def test_reference_line_places_a_run_in_the_measured_spread(tmp_path):
    ref = tmp_path / "ref.json"
    rows = [
        {"kernels": "native", "capability": "AVX512", "seed": 0, "before": 19.4, "after": 99.7},
        {"kernels": "avx2", "capability": "AVX2", "seed": 0, "before": 16.5, "after": 36.3},
    ]
    ref.write_text(json.dumps({"runs": 6, "kernels": ["avx2", "generic", "native"], "seeds": [0, 1], "code": "abc1234",
                               "before": {"min": 15.2, "median": 18.0, "max": 21.4},
                               "after": {"min": 36.3, "median": 60.0, "max": 99.7}, "rows": rows}))  # fmt: skip
    report = {
        "eval": {"k": 8},
        "before": {"avg@8": 0.152},
        "after": {"avg@8": 0.30},
        "seed": 1,
        "cpu_capability": "AVX2",
    }
    line = demo.reference_line(report, ref)
    assert "before 15.2 (inside 15.2-21.4)" in line and "after 30.0 (below 36.3-99.7)" in line
    assert "6 runs: 3 CPU kernel sets x seeds [0, 1], code abc1234" in line
    assert "same kernel set" not in line  # no reference run with seed 1 on AVX2
    report["after"]["avg@8"] = 0.998
    assert "after 99.8 (above 36.3-99.7)" in demo.reference_line(report, ref)
    # the reference run of this kernel set and seed: repeated, or not
    report.update(seed=0, before={"avg@8": 0.165}, after={"avg@8": 0.363})
    assert (
        "same kernel set (AVX2) and seed (0) as a reference run: 16.5 -> 36.3 there, 16.5 -> 36.3 here (the same)"
        in (demo.reference_line(report, ref))
    )
    report["after"]["avg@8"] = 0.40
    assert "16.5 -> 40.0 here (different" in demo.reference_line(report, ref)
    assert demo.reference_line(report, tmp_path / "missing.json") is None


def test_the_shipped_reference_is_the_spread_the_bench_wrote():
    """trainer/demo_reference.json is bench/demo_spread.py's summary of bench/results/demo_spread.json."""
    import sys
    from pathlib import Path

    root = Path(demo.__file__).resolve().parents[1]
    sys.path.insert(0, str(root / "bench"))
    import demo_spread

    stored = json.loads((root / "bench/results/demo_spread.json").read_text())
    shipped = json.loads(demo.REFERENCE.read_text())
    assert {
        k: shipped[k] for k in ("runs", "kernels", "seeds", "before", "after", "gain")
    } == demo_spread.summarise(stored["rows"])
    assert shipped["code"] == stored["code"] and shipped["runs"] >= 4 and len(shipped["kernels"]) >= 2
    assert shipped["rows"] == [
        {k: r[k] for k in ("kernels", "capability", "seed", "before", "after")} for r in stored["rows"]
    ]
