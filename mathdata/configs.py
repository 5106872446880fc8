"""The toolkit's one config-error plumbing, shared by the trainer's and the build's configs (both sit
above mathdata): the error type, reading a YAML file into a mapping, and the did-you-mean hint."""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterable
from pathlib import Path


class ConfigError(ValueError):
    """A config that cannot run; the message names the file or key and the fix."""


def read_yaml_mapping(path: str | os.PathLike, *, expected: str) -> dict:
    """A YAML file's top-level mapping, or a ConfigError naming the file and what is wrong.
    `expected` says what the top level should hold (shown when it is not a mapping)."""
    import yaml

    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"config file {path} not found")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as e:
        raise ConfigError(f"{path} is not valid YAML: {e}") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the top level must be a mapping of {expected}")
    return data


def did_you_mean(key: str, allowed: Iterable[str]) -> str | None:
    """The allowed key closest to a mistyped `key` (difflib, cutoff 0.6), or None."""
    close = difflib.get_close_matches(str(key), list(allowed), n=1, cutoff=0.6)
    return close[0] if close else None
