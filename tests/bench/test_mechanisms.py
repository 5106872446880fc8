"""bench/mechanisms.py's measures: the chain checker, repetition, the paired 3 s.e. rule, the variants."""

import importlib.util
import json
import math
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def mech():
    spec = importlib.util.spec_from_file_location("mechanisms", ROOT / "bench" / "mechanisms.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_chain_prefix_checker_accepts_generated_scratchpads_cut_anywhere(mech):
    from pipelines.sources.synthetic import generate

    for r in generate(30, seed=2, kinds=["chain"], difficulty=3):
        text = r["solution"]
        assert mech.chain_ok_prefix(text)
        cut = text[: len(text) * 2 // 3]  # a truncated response: the steps written so far are right
        assert mech.chain_ok_prefix(cut)
    assert not mech.chain_ok_prefix("Step 1: 52 - 4 = 48.\nStep 2: 48 + 19 = 68.")  # wrong sum
    assert not mech.chain_ok_prefix("Step 1: 52 - 4 = 48.\nStep 2: 47 + 19 = 66.")  # does not continue
    assert not mech.chain_ok_prefix("Step 1: 52 - 4 = 48.\nStep 3: 48 + 1 = 49.")  # skipped a step
    assert not mech.chain_ok_prefix("no steps at all")


def test_repetition_is_a_line_written_twice(mech):
    assert mech.repeated("Step 1: 5 + 1 = 6.\nStep 1: 5 + 1 = 6.\n")
    assert not mech.repeated("Step 1: 5 + 1 = 6.\nStep 2: 6 + 1 = 7.\nAnswer: 7")


def _run(seed, **kw):
    base = {"seed": seed, "acc": 0.5, "entropy_late": 0.3, "effective_prompts": 8.0, "wrong_length": 60.0,
            "repetition": 0.0, "truncation": 0.1, "reward_noise": 0.2, "generated": 640}  # fmt: skip
    return {**base, **kw}


def test_an_effect_is_shown_only_at_three_standard_errors_of_the_paired_difference(mech):
    withs = [_run(s, entropy_late=0.50 + 0.01 * s) for s in range(5)]
    clear = [_run(s, entropy_late=0.20 + 0.01 * s + 0.002 * (s % 2)) for s in range(5)]
    c = mech.compare("clip_higher", withs, clear)
    assert c["shown"] and c["entropy_late"]["diff"] == pytest.approx(0.2998, abs=1e-3)
    noisy = [_run(s, entropy_late=[0.1, 0.9, 0.2, 0.8, 0.5][s]) for s in range(5)]
    assert not mech.compare("clip_higher", withs, noisy)["shown"]
    one_seed = mech.compare("clip_higher", withs[:1], clear[:1])
    assert not one_seed["shown"] and one_seed["entropy_late"]["se"] is None
    assert "not shown" in mech.line(one_seed)


def test_a_seed_missing_a_measure_in_one_arm_is_dropped_from_both(mech):
    """Reward noise is undefined where nothing was truncated: the pairs must stay paired by seed."""
    withs = [_run(s, reward_noise=[0.5, None, 0.7][s]) for s in range(3)]
    withouts = [_run(s, reward_noise=[0.1, 0.9, 0.2][s]) for s in range(3)]
    c = mech.compare("overlong", withs, withouts)["reward_noise"]
    assert (c["with"], c["without"], c["diff"]) == pytest.approx((0.6, 0.15, 0.45))


def test_every_without_arm_is_a_valid_trainer_config(mech):
    """The 'without' settings go through the same parser as `dapo train --set` and build a config."""
    from trainer.config import build_config

    cfgs = {(t, arm): build_config(mech.arm_overrides(t, arm, prompts=8)[1], preset="dapo")
            for t in mech.TECHNIQUES for arm in ("with", "without")}  # fmt: skip
    base = cfgs["clip_higher", "with"].algo
    assert (base.eps_high, base.dynamic_sampling, base.loss_agg) == (0.28, True, "token_mean")
    assert base.overlong_filter is True and base.overlong_penalty is True and base.max_gen_batches == 4
    assert cfgs["clip_higher", "without"].algo.eps_high == 0.2
    assert cfgs["dynamic_sampling", "without"].algo.dynamic_sampling is False
    assert cfgs["token_loss", "without"].algo.loss_agg == "seq_mean_token_mean"
    assert base.on_max_gen_batches == "train"
    skip = build_config(
        mech.arm_overrides("clip_higher", "without", prompts=8, on_max="skip")[1], preset="dapo"
    )
    assert (skip.algo.on_max_gen_batches, skip.algo.eps_high) == ("skip", 0.2)
    off = cfgs["overlong", "without"].algo
    assert (off.overlong_filter, off.overlong_penalty) == (False, False)
    for (t, arm), cfg in cfgs.items():  # each arm differs from the recipe in its own technique only
        assert arm == "with" or cfg.algo.model_dump() != base.model_dump(), t
        assert cfg.train.gen_prompts == 8
    # the four "with" arms are one recipe, so the study runs it once per seed and shares it
    assert all(
        cfgs[t, "with"].model_dump() == cfgs["clip_higher", "with"].model_dump() for t in mech.TECHNIQUES
    )
    assert {mech.arm_name(t, "with") for t in mech.TECHNIQUES} == {"dapo/with"}
    assert len({mech.arm_name(t, "without") for t in mech.TECHNIQUES}) == 4


def test_a_base_recipe_reaches_both_arms_and_cannot_hide_the_technique(mech):
    """--base changes the recipe both arms start from; the arm without still differs in its technique only."""
    from trainer.config import build_config

    base = ("algo.overlong_filter=false", "algo.overlong_penalty=false")
    w, wo = (build_config(mech.arm_overrides("token_loss", arm, prompts=8, base=base)[1], preset="dapo").algo
             for arm in ("with", "without"))  # fmt: skip
    assert (w.overlong_filter, w.overlong_penalty, w.loss_agg) == (False, False, "token_mean")
    assert (wo.overlong_filter, wo.overlong_penalty, wo.loss_agg) == (False, False, "seq_mean_token_mean")
    assert {k for k, v in w.model_dump().items() if wo.model_dump()[k] != v} == {"loss_agg"}
    with pytest.raises(ValueError, match="leave it out of --base"):  # a base that would undo the arm's change
        mech.arm_overrides("token_loss", "without", prompts=8, base=("algo.loss_agg=token_mean",))


def test_a_run_another_process_holds_is_skipped_not_waited_for(mech, tmp_path):
    """Two study processes side by side: the one that finds a run locked gets Busy and moves on."""
    import fcntl
    from types import SimpleNamespace

    args = SimpleNamespace(tag="", work=tmp_path)
    lock_path = tmp_path / "locks" / "dapo-with-seed3.lock"
    lock_path.parent.mkdir()
    with open(lock_path, "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(mech.Busy):
            mech.run_arm("overlong", "with", 3, args, data=None, steps=1)


def test_chain_responses_are_40_to_200_tokens_and_the_study_length_cuts_a_share(mech):
    """Measured with the tokenizer the SFT trains (digits one token each): the task the study needs."""
    from mathdata.export import dapo_prompt
    from pipelines.sources.synthetic import generate
    from trainer.model import train_tokenizer

    recs = [
        r
        for d in mech.TASK["difficulty"]
        for r in generate(600, seed=0, kinds=mech.TASK["kinds"], difficulty=d)
    ]
    tok = train_tokenizer([dapo_prompt(r["problem"]) for r in recs] + [r["solution"] for r in recs], 512)
    lengths = sorted(len(tok(r["solution"])["input_ids"]) + 1 for r in recs)  # + EOS
    assert lengths[len(lengths) // 10] >= 30 and lengths[len(lengths) // 2] >= 60 and lengths[-1] <= 200
    cut = sum(n > 96 for n in lengths) / len(lengths)  # bench/mechanisms.py's default --L
    assert 0.1 <= cut <= 0.4


def test_another_task_writes_its_own_table_region_and_leaves_the_study_alone(mech, tmp_path):
    """`--task sum_any` fills the sum_any markers of mechanisms.md; the chain study's table is untouched."""
    from types import SimpleNamespace

    chain_start, chain_end = mech.table_markers("chain")
    start, end = mech.table_markers("sum_any")
    study = f"{chain_start}\n| clip_higher | the study's row |\n{chain_end}"
    md = tmp_path / "mechanisms.md"
    md.write_text(f"# prose\n\n{study}\n\nmore prose\n\n{start}\n(filled by the run)\n{end}\n\ntail\n")
    withs = [{**_run(s, entropy_late=0.50 + 0.01 * s), "seconds": 60.0} for s in range(5)]
    withouts = [
        {**_run(s, entropy_late=0.20 + 0.01 * s + 0.002 * (s % 2)), "seconds": 60.0} for s in range(5)
    ]
    c = mech.compare("clip_higher", withs, withouts)
    c["runs"] = {"with": withs, "without": withouts}
    args = SimpleNamespace(steps=100, prompts=8, G=8, mini_batch=4, L=96, sft="500 (probe accuracy 0.21) steps", lr=2e-4,
                           probe_n=64, probe_k=4, task="sum_any", region="sum_any", prefix="mechanisms_sum_any")  # fmt: skip
    mech.write_table([c], args, tmp_path)
    text = md.read_text()
    assert study in text and text.startswith("# prose") and text.endswith("tail\n")
    region = text[text.index(start) : text.index(end)]
    assert "(filled by the run)" not in region
    assert "16 updates per rollout" in region and "[png](mechanisms_sum_any_clip_higher.png)" in region
    assert "| shown |" in region


def test_a_skipped_step_is_left_out_of_the_band_not_counted_as_zero(mech):
    runs = [{"curve": {"entropy": [0.2, None, 0.3]}}, {"curve": {"entropy": [0.4, 0.5, None]}}]
    m, se = mech.band(runs, "entropy", 3)
    assert m == pytest.approx([0.3, 0.5, 0.3]) and se[0] == pytest.approx(0.1) and se[1:] == [0.0, 0.0]
    m, _ = mech.band([{"curve": {"entropy": [None]}}], "entropy", 1)
    assert math.isnan(m[0])


def test_per_step_differences_pair_seeds_and_skip_a_step_either_arm_lacks(mech, tmp_path):
    withs = [{"curve": {"length": [100, 90, 80]}}, {"curve": {"length": [100, 70, None]}}]
    withouts = [{"curve": {"length": [100, 80, 60]}}, {"curve": {"length": [100, 66]}}]  # 2nd: ended early
    rows = mech.paired_steps(withs, withouts, "length", 4)
    assert [r["step"] for r in rows] == [1, 2, 3]  # step 4: no seed has it in both arms
    assert (rows[1]["with"], rows[1]["without"], rows[1]["diff"]) == pytest.approx((80, 73, 7))
    assert rows[1]["se"] == pytest.approx(3.0) and rows[0]["se"] == 0
    assert (rows[2]["diff"], rows[2]["seeds"], rows[2]["se"]) == (20, 1, None)
    stored = tmp_path / "r.json"
    stored.write_text(json.dumps([{"technique": "token_loss", "runs": {"with": withs, "without": withouts}},
                                  {"technique": "clip_higher", "seeds": [], "failed": ["every seed died"]}]))  # fmt: skip
    table = mech.per_step_tables(stored, ["length"], 3).splitlines()
    assert table[0].startswith("token_loss (2 seeds)") and "clip_higher" not in "\n".join(table)
    assert "| 2 | +7.000 ± 3.000 (+2.3) |" in table and "| 3 | +20.000 ± 0.000 |" in table


def test_every_variant_has_runs_and_outputs_of_its_own(mech):
    """A replication (`--name` alone), a base recipe, skip and another task never share runs, a JSON or a
    table region with the study or with each other; only the study itself has the bare names."""
    variants = [
        (task, skip, name)
        for task in ("chain", "sum_any")
        for skip in (False, True)
        for name in ("", "rep", "no_overlong")
    ]
    names = [mech.output_names(*v) for v in variants]
    assert len({n[1] for n in names}) == len({n[2] for n in names}) == len(variants)
    # run tags live in the task's own work directory (runs/mechanisms_<task>), so unique per task
    assert len({(v[0], n[0]) for v, n in zip(variants, names, strict=True)}) == len(variants)
    assert mech.output_names("chain", False, "") == ("", "mechanisms", "chain")
    assert mech.output_names("sum_any", True, "rep") == (
        "rep-skip-",
        "mechanisms_sum_any_skip_rep",
        "sum_any_skip_rep",
    )
    assert mech.output_names("chain", False, "", "quick-") == ("quick-", "mechanisms", "chain")


def _chain_records(tmp_path, *, seed: int):
    """400 chain problems with their worked scratchpads, as a records store (what the SFT variants rewrite)."""
    from mathdata.schema import new_record
    from mathdata.store import write_records
    from pipelines.sources.synthetic import generate

    rows = list(generate(400, seed=seed, kinds=["chain"], difficulty=3))
    src = tmp_path / "records"
    write_records(src, [new_record(source="synthetic", original_problem=r["problem"], source_key=str(i),
                                   problem=r["problem"], solution=r["solution"], answer=str(r["answer"]),
                                   split="train") for i, r in enumerate(rows)])  # fmt: skip
    return rows, src


def test_looping_scratchpads_repeat_a_line_answer_wrong_and_leave_the_rest_alone(mech, tmp_path):
    """The token-level-loss variant's SFT data: a share of scratchpads loops (long, repetitive, wrong)."""
    from mathdata.store import read_table

    rows, src = _chain_records(tmp_path, seed=5)
    looped = read_table(mech.looping_records(src, tmp_path / "out", share=0.3, seed=1), filter_status="kept")
    assert looped.num_rows == len(rows)
    loops = 0
    for r, sol in zip(rows, looped.column("solution").to_pylist(), strict=True):
        if sol == r["solution"]:
            assert not mech.repeated(sol)
            continue
        loops += 1
        lines = sol.splitlines()
        assert mech.repeated(sol) and lines.count(mech.FILLER) >= 2
        assert mech.chain_ok_prefix(sol)  # the steps written before the loop are the gold ones
        assert lines[-1].startswith("Answer: ") and lines[-1] != f"Answer: {r['answer']}"
        assert len(sol) > len(r["solution"]) or len(lines) >= 12
    assert 0.22 < loops / len(rows) < 0.38
    with pytest.raises(ValueError, match="between 0 and 1"):
        mech.looping_records(src, tmp_path / "bad", share=1.5)


def test_early_scratchpads_drop_the_last_step_answer_wrong_and_leave_the_rest_alone(mech, tmp_path):
    """The rare-token clip-higher variant's SFT data: a share of scratchpads stops one step early."""
    from mathdata.store import read_table

    rows, src = _chain_records(tmp_path, seed=6)
    early = read_table(mech.early_records(src, tmp_path / "out", share=0.8, seed=1), filter_status="kept")
    assert early.num_rows == len(rows)
    stopped = 0
    for r, sol in zip(rows, early.column("solution").to_pylist(), strict=True):
        assert mech.writes_every_step(r["problem"], r["solution"])  # every gold scratchpad writes every step
        if sol == r["solution"]:
            continue
        stopped += 1
        lines = sol.splitlines()
        assert mech.chain_ok_prefix(sol) and not mech.writes_every_step(r["problem"], sol)
        assert lines[:-1] == r["solution"].splitlines()[:-2]  # the gold steps but the last
        assert lines[-1].startswith("Answer: ") and lines[-1] != f"Answer: {r['answer']}"
    assert 0.72 < stopped / len(rows) < 0.88
    assert mech.writes_every_step("What is 2 + 2?", "4") is None  # no chain prompt: no measure


def test_early_long_scratchpads_stop_early_only_on_long_chains(mech, tmp_path):
    """The token-level loss's late variant: only chains of LONG_CHAIN operations or more stop a step early, so
    the move to learn lives in long responses; short chains keep their gold scratchpads."""
    from mathdata.store import read_table

    rows, src = _chain_records(tmp_path, seed=7)
    out = read_table(mech.early_long_records(src, tmp_path / "out", share=0.9, seed=1), filter_status="kept")
    long_rows = stopped = 0
    for r, sol in zip(rows, out.column("solution").to_pylist(), strict=True):
        n = mech.operations(r["problem"])
        assert n >= 1  # every chain prompt names its operations
        if n < mech.LONG_CHAIN:
            assert sol == r["solution"]
            continue
        long_rows += 1
        if sol != r["solution"]:
            stopped += 1
            assert not mech.writes_every_step(r["problem"], sol) and mech.chain_ok_prefix(sol)
    assert long_rows > 40 and 0.8 < stopped / long_rows <= 1.0
    assert mech.operations("What is 2 + 2?") == 0


def test_wrong_last_scratchpads_miss_only_the_last_value_and_answer_what_they_wrote(mech, tmp_path):
    """The seventh clip-higher variant's SFT data: a share of scratchpads writes every gold step but gets the
    last value wrong by 1-9 (never below 0), and answers the value it wrote: many wrong values, one right."""
    from mathdata.store import read_table

    rows, src = _chain_records(tmp_path, seed=8)
    out = read_table(mech.wrong_last_records(src, tmp_path / "out", share=0.95, seed=1), filter_status="kept")
    wrong, offsets = 0, set()
    for r, sol in zip(rows, out.column("solution").to_pylist(), strict=True):
        if sol == r["solution"]:
            continue
        wrong += 1
        lines, gold = sol.splitlines(), r["solution"].splitlines()
        assert lines[:-2] == gold[:-2] and len(lines) == len(
            gold
        )  # every step written, all but the last gold
        assert mech.writes_every_step(r["problem"], sol) and not mech.chain_ok_prefix(sol)
        written = int(mech.STEP_RE.fullmatch(lines[-2])[5])
        assert (
            written >= 0 and 1 <= abs(written - int(r["answer"])) <= 9 and lines[-1] == f"Answer: {written}"
        )
        offsets.add(written - int(r["answer"]))
    assert 0.9 < wrong / len(rows) < 0.99 and len(offsets) >= 15  # spread over many wrong values


def test_gold_steps_rebuild_the_worked_scratchpad_from_the_prompt(mech, tmp_path):
    rows, _ = _chain_records(tmp_path, seed=9)
    for r in rows:
        assert "\n".join(mech.gold_steps(r["problem"])) + f"\nAnswer: {r['answer']}" == r["solution"]
    assert mech.gold_steps("What is 2 + 2?") == []


def test_last_value_probability_is_high_for_the_trained_policy_and_low_for_an_untrained_one(mech, tmp_path):
    """Teacher-forced P(right last value): the shipped SFT policy writes its gold steps, so near 1; the same
    architecture with fresh weights spreads over the vocabulary, so near 0."""
    import torch
    from transformers import AutoModelForCausalLM

    from trainer.model import load_model, load_tokenizer

    rows, _ = _chain_records(tmp_path, seed=10)
    prompts = [r["problem"] for r in rows[:6]]
    tok = load_tokenizer(mech.SHIPPED_SFT)
    trained = load_model(mech.SHIPPED_SFT).eval()
    torch.manual_seed(0)
    fresh = AutoModelForCausalLM.from_config(trained.config).eval()
    with torch.no_grad():
        high = mech.last_value_prob(trained, tok, prompts)
        low = mech.last_value_prob(fresh, tok, prompts)
        assert mech.last_value_prob(trained, tok, ["What is 2 + 2?"]) is None
    assert high > 0.8 and low < 0.01


def test_another_headline_decides_shown_and_names_its_metric(mech):
    withs = [_run(s, repetition=0.10 + 0.001 * s, wrong_length=60.0 + s) for s in range(5)]
    withouts = [_run(s, repetition=0.25 + 0.002 * (s % 2), wrong_length=60.0 + [9, -9, 4, -4, 0][s])
                for s in range(5)]  # fmt: skip
    own = mech.compare("token_loss", withs, withouts)
    assert own["metric"] == "wrong_length" and not own["shown"]
    rep = mech.compare("token_loss", withs, withouts, "repetition")
    assert rep["metric"] == "repetition" and rep["shown"] and "repetition with 0.102" in mech.line(rep)
    old = {k: v for k, v in own.items() if k != "metric"}  # a result stored before --metric existed
    assert mech.headline(old) == "wrong_length"


@pytest.mark.parametrize(
    "flags",
    [
        ["--metric", "repetition"],
        ["--sft-loops", "0.3"],
        ["--sft-early", "0.8"],
        ["--sft-wrong-last", "0.95"],
    ],
)
def test_a_changed_study_must_be_named(mech, flags):
    with pytest.raises(SystemExit):
        mech.main(["--only", "token_loss", *flags])


@pytest.mark.parametrize("metric", [None, "repetition"])
def test_the_figure_shows_per_seed_the_headline_a_variant_chose(mech, tmp_path, metric):
    pytest.importorskip("matplotlib")
    from PIL import Image

    def run(seed, rep):
        return {**_run(seed, repetition=rep), "wrong_lengths": [60, 70, 80],
                "curve": {"length": [70.0, 72.0, 71.0], "entropy": [0.1] * 3, "acc": [0.2] * 3,
                          "truncation": [0.1] * 3, "effective": [8] * 3, "generated": [64] * 3}}  # fmt: skip

    path = mech.plot("token_loss", [run(s, 0.1) for s in range(3)], [run(s, 0.3) for s in range(3)], tmp_path,
                     prefix="t", metric=metric)  # fmt: skip
    assert path == tmp_path / "t_token_loss.png" and Image.open(path).size[0] > 500
