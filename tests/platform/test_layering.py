"""The floors, read from the source (every import statement, nested ones too):
verifiers <- mathdata <- pipelines; trainer uses verifiers + mathdata; evals sits on top (it may use
all four: pipelines' LLM client for endpoints, trainer's generation for checkpoints) and nothing
but dapo_cli imports it. A module importing upward would make a lower floor need a higher extra."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("verifiers", "mathdata", "pipelines", "trainer", "evals")
MAY_IMPORT = {
    "verifiers": {"verifiers"},
    "mathdata": {"verifiers", "mathdata"},
    "pipelines": {"verifiers", "mathdata", "pipelines"},
    "trainer": {"verifiers", "mathdata", "trainer"},
    "evals": set(PACKAGES),
}


def _imports(path: Path) -> list[tuple[int, str, list[str]]]:
    """(line, imported module, names) for every import in the file."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name, []) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append((node.lineno, node.module, [a.name for a in node.names]))
    return out


@pytest.mark.parametrize("package", PACKAGES)
def test_no_package_imports_a_higher_floor(package):
    bad = []
    for f in sorted((ROOT / package).rglob("*.py")):
        for line, module, _ in _imports(f):
            top = module.split(".")[0]
            if top in PACKAGES and top not in MAY_IMPORT[package]:
                bad.append(f"{f.relative_to(ROOT)}:{line} imports {module}")
    assert not bad, "\n".join(bad)


def test_the_metrics_are_pure_and_evals_takes_no_private_names():
    """verifiers.metrics (shared by `dapo eval` and the trainer) needs only the standard library and
    the verifier; evals uses the lower floors through their public names."""
    for _, module, _ in _imports(ROOT / "verifiers" / "metrics.py"):
        assert module.split(".")[0] in {"__future__", "math", "collections", "dataclasses", "verifiers"}, (
            module
        )
    private = [
        f"{f.relative_to(ROOT)}:{line} imports {module}.{n}"
        for f in sorted((ROOT / "evals").rglob("*.py"))
        for line, module, names in _imports(f)
        for n in names
        if module.split(".")[0] in PACKAGES and module.split(".")[0] != "evals" and n.startswith("_")
    ]
    assert not private, "\n".join(private)
