"""The toolkit's one atomic-write helper, in the lowest package that writes files (verifiers'
CLI and LLM cache; mathdata, pipelines and the trainer import it from here or via mathdata.files).
"""

from __future__ import annotations

import os
from pathlib import Path


def default_file_mode() -> int:
    """The mode a plain `open(path, "w")` gives a new file here: 0o666 minus the process umask."""
    try:  # Linux: read it without changing it (os.umask has no getter and is process-wide)
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return 0o666 & ~int(line.split()[1], 8)
    except OSError:
        pass
    old = os.umask(0o022)
    os.umask(old)
    return 0o666 & ~old


def atomic_write(path: str | os.PathLike, data: bytes | str, *, encoding: str = "utf-8") -> Path:
    """Write `data` to `path` through a temp file in the same directory and one rename.

    A reader sees the old file or the new one, never half of it; a crash leaves no partial file
    (the temp file is removed). The file gets the permissions a plain `open()` would give it
    (0o666 minus the umask: 0644 under umask 022), not mkstemp's private 0600.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode(encoding)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # the kernel applies the umask
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


def make_readable(path: str | os.PathLike) -> None:
    """Give the files at `path` (a file, or every file under a directory) the mode plain `open()` gives.

    For files written by libraries that create them private (safetensors writes 0600): call it on
    the temp directory before the rename that publishes it.
    """
    mode = default_file_mode()
    p = Path(path)
    for item in p.rglob("*") if p.is_dir() else [p]:
        if item.is_file() and not item.is_symlink():
            os.chmod(item, mode)


def iter_jsonl(path: str | os.PathLike, *, error: type[Exception] = ValueError):
    """(line number, object) for each non-blank line of a JSON Lines file: the toolkit's one reader.
    A line that is not JSON, or not a JSON object, raises `error` naming the file and line."""
    import json

    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as e:
                raise error(
                    f"{path}:{lineno}: not valid JSON ({e.msg} at column {e.colno}); fix or remove the line"
                ) from e
            if not isinstance(row, dict):
                raise error(f"{path}:{lineno}: expected a JSON object per line, got {type(row).__name__}")
            yield lineno, row
