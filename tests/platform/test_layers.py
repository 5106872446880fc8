"""The floors: verifiers <- mathdata <- pipelines; trainer uses verifiers + mathdata; nothing imports upward."""

import ast
import re
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


PENDING: set[str] = set()  # private imports still to remove (none)


def test_no_module_outside_mathdata_imports_a_private_mathdata_name():
    """Tests may reach into a module they test; code may not."""
    wrong = []
    for p in ROOT.rglob("*.py"):
        rel = p.relative_to(ROOT)
        if rel.parts[0] in ("mathdata", "tests", ".venv", ".git") or "site-packages" in rel.parts:
            continue
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "mathdata":
                wrong += [f"{rel}: {node.module}.{a.name}" for a in node.names if a.name.startswith("_")]
    assert sorted(set(wrong) - PENDING) == []


def test_no_engine_compares_a_step_name():
    """Engines execute what a step declares (pipelines.plan); they never branch on which step it is."""
    for name in ("engine.py", "ray_engine.py"):
        text = (ROOT / "pipelines" / name).read_text(encoding="utf-8")
        assert not re.search(r"step\.name\s*(==|!=|in\b)", text), name
        assert not re.search(r"\"\d_[a-z]+\"", text), name  # no stage folder named by a literal
