"""model.path may name a save_pretrained directory or a .gguf file; both give clear errors when missing.

(Loading a real GGUF is tested in tests/real_model/, which needs the `gguf` package and the weights.)
"""

from __future__ import annotations

import pytest

from trainer.model import gguf_parts, load_model


def test_gguf_parts_splits_a_gguf_file_into_directory_and_name(tmp_path):
    f = tmp_path / "Some-Model.Q4_1.GGUF"
    f.write_bytes(b"GGUF")
    assert gguf_parts(f) == (str(tmp_path), "Some-Model.Q4_1.GGUF")


def test_gguf_parts_is_none_for_a_model_directory(tmp_path):
    assert gguf_parts(tmp_path) is None


def test_a_missing_gguf_file_is_named_in_the_error(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"missing\.gguf"):
        load_model(tmp_path / "missing.gguf")


def test_a_missing_model_path_says_what_is_accepted(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"config\.json or a \.gguf file"):
        load_model(tmp_path / "nowhere")
