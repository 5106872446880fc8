"""The one config-error plumbing: both configs raise the same ConfigError with the same file messages."""

import pytest

from mathdata.configs import ConfigError, did_you_mean, read_yaml_mapping


def test_file_errors_name_the_file(tmp_path):
    with pytest.raises(ConfigError, match=r"config file .*nope.yaml not found"):
        read_yaml_mapping(tmp_path / "nope.yaml", expected="sections")
    bad = tmp_path / "bad.yaml"
    bad.write_text("a: [1,\n")
    with pytest.raises(ConfigError, match=r"bad.yaml is not valid YAML"):
        read_yaml_mapping(bad, expected="sections")
    lst = tmp_path / "list.yaml"
    lst.write_text("- 1\n")
    with pytest.raises(ConfigError, match=r"list.yaml: the top level must be a mapping of sections"):
        read_yaml_mapping(lst, expected="sections")
    empty = tmp_path / "empty.yaml"
    empty.write_text("")
    assert read_yaml_mapping(empty, expected="sections") == {}


def test_trainer_and_build_share_the_error_type():
    from pipelines.build import ConfigError as BuildError
    from trainer.config import ConfigError as TrainError

    assert BuildError is TrainError is ConfigError
    assert did_you_mean("concurency", ["concurrency", "timeout_s"]) == "concurrency"
    assert did_you_mean("zzz", ["concurrency"]) is None
