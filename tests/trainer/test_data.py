"""verl Parquet reading: chat template, over-long prompts dropped and counted, bad rows named."""

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from trainer.data import PromptSampler, held_out_warning, load_prompts, read_verl


def test_long_prompts_are_dropped_and_counted(tmp_path, tiny_policy, toy):
    _, tok = tiny_policy
    probs = toy.problems(6)
    probs[2]["problem"] = "What is " + " + ".join(["1"] * 200) + "?"
    path = toy.write_verl(tmp_path / "t.parquet", probs)
    ps = load_prompts(path, tok, max_prompt_len=300)
    assert ps.dropped_too_long == 1 and len(ps.prompts) == 5
    p = ps.prompts[0]
    assert p.ids[: len(tok("<|im_start|>user")["input_ids"])] == tok("<|im_start|>user")["input_ids"]
    assert tok.decode(p.ids).endswith("<|im_start|>assistant\n") and p.gold == probs[0]["answer"]
    assert p.key == probs[0]["id"]


def test_split_filter(tmp_path, toy):
    a = toy.write_verl(tmp_path / "a.parquet", toy.problems(3), split="train")
    assert len(read_verl(a, split="train")) == 3 and read_verl(a, split="test") == []


def test_held_out_rows_in_the_training_file_are_warned_about(tmp_path, toy):
    train = toy.write_verl(tmp_path / "train.parquet", toy.problems(4), split="train")
    assert held_out_warning(train) is None
    rows = pq.read_table(train).to_pylist()
    test_rows = pq.read_table(
        toy.write_verl(tmp_path / "t.parquet", toy.problems(3, seed=5), split="test")
    ).to_pylist()
    pq.write_table(pa.Table.from_pylist(rows + test_rows), tmp_path / "mixed.parquet")
    msg = held_out_warning(tmp_path / "mixed.parquet")
    assert "3 rows of split 'test'" in msg and "data.train_split: train" in msg


def test_bad_rows_name_the_row_and_field(tmp_path):
    path = tmp_path / "bad.parquet"
    rows = [{"prompt": [{"role": "user", "content": "q"}], "reward_model": {"style": "rule", "ground_truth": "1"}},
            {"prompt": [{"role": "user", "content": "q"}], "reward_model": {"style": "rule", "ground_truth": ""}}]  # fmt: skip
    pq.write_table(pa.Table.from_pylist(rows), path)
    with pytest.raises(ValueError, match=r"row 1: field 'reward_model.ground_truth' is empty"):
        read_verl(path)
    pq.write_table(pa.table({"question": ["q"]}), tmp_path / "other.parquet")
    with pytest.raises(ValueError, match="column 'prompt' missing"):
        read_verl(tmp_path / "other.parquet")


def test_sampler_epochs_and_state():
    s = PromptSampler(5, seed=3)
    first = s.take(7)
    assert sorted(first[:5]) == list(range(5))  # an epoch is a permutation
    state = s.state_dict()
    nxt = s.take(4)
    s2 = PromptSampler(5, seed=3)
    s2.load_state_dict(state)
    assert s2.take(4) == nxt
