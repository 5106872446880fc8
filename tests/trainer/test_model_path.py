"""A model path that is something else says what it is: a run directory printed transformers'
multi-line tokenizer complaint, a Parquet file "config file ... is not a valid JSON file"."""

import pytest

from trainer.model import check_model_path, load_model, load_tokenizer


def test_a_run_directory_names_its_latest_checkpoint(tmp_path, sft_dir):
    (tmp_path / "run" / "checkpoints" / "step-000004").mkdir(parents=True)
    (tmp_path / "run" / "checkpoints" / "step-000012").mkdir()
    with pytest.raises(ValueError, match=r"is a training run, not a model; .*step-000012"):
        load_tokenizer(tmp_path / "run")
    (tmp_path / "train.parquet").write_bytes(b"PAR1")
    with pytest.raises(ValueError, match="is a file, not a model"):
        load_model(tmp_path / "train.parquet")
    with pytest.raises(ValueError, match="holds no config.json"):
        check_model_path(tmp_path)
    assert check_model_path(sft_dir[0]) == sft_dir[0]  # a saved model passes
