"""The floors: verifiers <- mathdata <- pipelines; trainer uses verifiers + mathdata; nothing imports upward."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# what each package may import of ours (dapo_cli.py, the only file that knows all four, is not a package)
ALLOWED = {
    "verifiers": {"verifiers"},
    "mathdata": {"verifiers", "mathdata"},
    "pipelines": {"verifiers", "mathdata", "pipelines"},
    "trainer": {"verifiers", "mathdata", "trainer"},
}
OURS = {"verifiers", "mathdata", "pipelines", "trainer", "evals", "dapo_cli"}


def imports_of(path: Path) -> set[str]:
    """Top-level names of every module `path` imports, lazily or not."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.add(node.module.split(".")[0])
    return out


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_nothing_imports_upward(package):
    wrong = {
        str(p.relative_to(ROOT)): sorted((imports_of(p) & OURS) - ALLOWED[package])
        for p in (ROOT / package).rglob("*.py")
    }
    assert {k: v for k, v in wrong.items() if v} == {}
