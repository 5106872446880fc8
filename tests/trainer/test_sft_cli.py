"""SFT warm-up, the saved policy's tokenizer, plots and the CLI commands."""

import json

import pytest
from typer.testing import CliRunner


def test_sft_learns_the_format_and_saves_a_loadable_policy(sft_dir, toy):
    from mathdata.export import dapo_prompt
    from trainer.model import load_model, load_tokenizer
    from trainer.sft import SFTExample, encode

    path, summary = sft_dir
    assert summary["steps"] == 150 and summary["loss"] < 1.5  # from ~5.7 (uniform over the vocab)
    tok = load_tokenizer(path)
    model = load_model(path)
    assert not model.config.tie_word_embeddings and model.config.model_type == "qwen2"
    head = model.config.hidden_size // model.config.num_attention_heads
    assert 32 <= head <= 256
    # the reloaded tokenizer must split text exactly as the one SFT trained with (merges across spaces)
    ids, plen = encode(tok, SFTExample(dapo_prompt("What is 3 + 4?"), "3 + 4 = 7.\nAnswer: 7"))
    assert tok.decode(ids[plen:]) == "3 + 4 = 7.\nAnswer: 7<|im_end|>"


def test_tiny_tokenizer_collapses_the_repeated_template_and_keeps_digits(toy):
    from mathdata.export import dapo_prompt
    from trainer.model import train_tokenizer

    probs = toy.problems(300)
    tok = train_tokenizer([dapo_prompt(p["problem"]) for p in probs] + [p["solution"] for p in probs], 512)
    assert (
        len(tok(dapo_prompt("What is 12 + 34?"))["input_ids"]) < 15
    )  # ~60 words of boilerplate, a few tokens
    pieces = tok.convert_ids_to_tokens(tok("1234 + 5")["input_ids"])
    assert pieces[:4] == ["1", "2", "3", "4"]


def test_sft_rejects_solutions_without_answer_line(tmp_path):
    from mathdata.schema import new_record
    from mathdata.store import write_records
    from trainer.sft import load_sft_examples

    write_records(tmp_path / "r", [new_record(source="s", original_problem="What is 1 + 1?", problem="What is 1 + 1?",
                                              answer="2", solution="1 + 1 = 2", split="train")])  # fmt: skip
    with pytest.raises(ValueError, match="no 'Answer:' line"):
        load_sft_examples(tmp_path / "r")


def test_plot_run_writes_png(tmp_path):
    from trainer.metrics import MetricsLog
    from trainer.plots import plot_run

    log = MetricsLog(tmp_path, tensorboard=True)
    for s in range(1, 4):
        log.log(s, {"response_length_mean": 10 + s, "reward_mean": -1 + s / 2, "entropy": 1 / s, "mean_prob": 0.5,
                    "acc": s / 4, **({"eval/avg@8": 0.3} if s == 3 else {})})  # fmt: skip
    log.close()
    png = plot_run(tmp_path)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert any((tmp_path / "tb").iterdir())


def test_cli_eval_and_config_errors(sft_dir, toy, tmp_path):
    from dapo_cli import app

    data = toy.write_verl(tmp_path / "e.parquet", toy.problems(4))
    # the checkpoint form documented before `dapo eval --endpoint` existed, through the same core
    args = ["eval", str(sft_dir[0]), data, "--k", "2", "--max-new-tokens", "16", "--out", str(tmp_path / "ev"),
            "--no-progress", "--json", str(tmp_path / "ev.json")]  # fmt: skip
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0, r.output
    assert "| e | 4 |" in r.output and "8 samples drawn, 0 from the store" in r.output
    res = json.loads((tmp_path / "ev.json").read_text())
    assert {"avg@2", "pass@2", "cons@2", "maj@2", "mean_length", "truncation_rate"} <= set(res)
    assert res["n_prompts"] == 4 and 0 <= res["avg@2"] <= res["pass@2"] <= 1
    rep = json.loads((tmp_path / "ev" / "report.json").read_text())
    assert rep["sampler"] == {"kind": "checkpoint", "path": str(sft_dir[0])}
    assert rep["prompt"]["example"][0]["content"].startswith("Solve the following math problem")
    assert 0 < rep["overall"]["mean_length"] <= 16
    r = CliRunner().invoke(app, args)  # resumed from the store: nothing sampled again
    assert r.exit_code == 0 and "0 samples drawn, 8 from the store" in r.output
    # issue 14: `--split test` on a file without that split says which splits it has, in one line
    r = CliRunner().invoke(
        app, ["eval", str(sft_dir[0]), data, "--split", "test", "--out", str(tmp_path / "x")]
    )
    assert (
        r.exit_code == 2
        and "the file holds splits 'train' (4 rows)" in r.output
        and "Traceback" not in r.output
    )

    cfg = tmp_path / "bad.yaml"
    cfg.write_text("algo:\n  clip_ratio_high: 0.28\n")
    r = CliRunner().invoke(app, ["train", str(cfg)])
    assert r.exit_code == 2 and "write algo.eps_high instead" in r.output


def test_cli_sft_starts_from_a_model_path_with_its_own_tokenizer(sft_dir, tmp_path):
    """`dapo sft --model DIR` fine-tunes that model (a Hugging Face directory) with its own tokenizer and
    chat template instead of building a tiny model with a freshly trained tokenizer."""
    import torch

    from dapo_cli import app
    from mathdata.schema import new_record
    from mathdata.store import write_records
    from trainer.model import load_model, load_tokenizer

    recs = [new_record(source="s", original_problem=f"What is {a} + 2?", problem=f"What is {a} + 2?",
                       answer=str(a + 2), solution=f"{a} + 2 = {a + 2}.\nAnswer: {a + 2}", split="train")
            for a in range(8)]  # fmt: skip
    write_records(tmp_path / "records", recs)
    out = tmp_path / "tuned"
    args = ["sft", str(tmp_path / "records"), "--out", str(out), "--model", str(sft_dir[0]),
            "--steps", "2", "--batch-size", "4", "--lr", "1e-3"]  # fmt: skip
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0, r.output
    before, after = load_model(sft_dir[0]), load_model(out)
    assert before.config.to_dict()["hidden_size"] == after.config.to_dict()["hidden_size"]
    changed = [n for (n, a), b in zip(before.state_dict().items(), after.state_dict().values(), strict=True)
               if not torch.equal(a, b)]  # fmt: skip
    assert changed, "two SFT steps left every weight as it was"
    assert load_tokenizer(out).get_vocab() == load_tokenizer(sft_dir[0]).get_vocab()


def test_sft_stops_at_the_first_check_whose_gold_solution_probability_reaches_the_target(
    toy_records, tmp_path
):
    """The demo's stopping rule: the teacher-forced P(gold solution), no sampling; the same call
    stops at the same step, and the probability is the product of the per-token probabilities
    (padding in a batch changes nothing)."""
    import torch

    from trainer.config import ModelConfig, TinyModelConfig
    from trainer.model import load_model, load_tokenizer
    from trainer.sft import SFTExample, collate, encode, gold_solution_prob, load_sft_examples, sft

    tiny = {"hidden_size": 64, "num_layers": 2, "num_heads": 2, "num_kv_heads": 1, "intermediate_size": 128}
    kw = {"model_cfg": ModelConfig(tiny=TinyModelConfig(**tiny, vocab_size=300)), "steps": 24, "batch_size": 8,
          "lr": 3e-3, "warmup": 5, "eval_every": 4, "progress": False}  # fmt: skip
    full = sft(toy_records, tmp_path / "full", stop_at_gold_prob=0.999, **kw)
    assert full["stopped_by"] is None and full["steps"] == 24 and 0 < full["gold_prob"] < 0.999
    target = full["gold_prob"] / 2
    a = sft(toy_records, tmp_path / "a", stop_at_gold_prob=target, **kw)
    b = sft(toy_records, tmp_path / "b", stop_at_gold_prob=target, **kw)
    assert a["stopped_by"] == "gold_prob" and a["steps"] % 4 == 0 and a["gold_prob"] >= target
    assert (a["steps"], a["gold_prob"]) == (b["steps"], b["gold_prob"])

    model, tok = load_model(tmp_path / "full"), load_tokenizer(tmp_path / "full")
    short, long = load_sft_examples(toy_records)[:2]
    long = SFTExample(long.prompt, long.solution + "\nso the answer stands.")
    ids, plen = encode(tok, short)
    with torch.no_grad():  # one token at a time: P(response) = prod_t p(token_t | everything before)
        logp = torch.log_softmax(model(torch.tensor([ids])).logits[0].double(), -1)
    by_hand = float(sum(logp[t - 1, ids[t]] for t in range(plen, len(ids))).exp())
    both = gold_solution_prob(model, collate([encode(tok, short), encode(tok, long)], tok.pad_token_id))
    alone = gold_solution_prob(model, collate([encode(tok, long)], tok.pad_token_id))
    assert both == pytest.approx((by_hand + alone) / 2, rel=1e-4)
    with pytest.raises(ValueError, match="stop_at_gold_prob must be in"):
        sft(toy_records, tmp_path / "c", stop_at_gold_prob=1.5, **kw)


def test_cli_sft_names_a_bad_gold_probability(toy_records, tmp_path):
    from dapo_cli import app

    r = CliRunner().invoke(
        app, ["sft", toy_records, "--out", str(tmp_path / "p"), "--stop-at-gold-prob", "1.5"]
    )
    assert r.exit_code == 2 and "stop_at_gold_prob must be in (0, 1)" in r.output


def test_cli_sft_device_cuda_without_a_gpu_is_a_clear_error(toy_records, tmp_path, monkeypatch):
    import torch

    from dapo_cli import app

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    r = CliRunner().invoke(
        app, ["sft", toy_records, "--out", str(tmp_path / "p"), "--device", "cuda", "--steps", "1"]
    )
    assert r.exit_code == 2 and "CUDA is not available" in r.output and not (tmp_path / "p").exists()
