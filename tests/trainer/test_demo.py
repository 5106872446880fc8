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
