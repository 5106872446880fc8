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


FOUR = ("verifiers", "mathdata", "pipelines", "trainer")
MAX_COMMAND_BODY = 40  # lines: argument checks and a few calls into the package that does the work


def project_files() -> list[Path]:
    skip = {".venv", ".git", "node_modules"}
    return [
        p
        for p in ROOT.rglob("*.py")
        if not skip & set(p.relative_to(ROOT).parts) and "site-packages" not in p.parts
    ]


def _is_command(node: ast.AST) -> bool:
    """`X.command(...)`: typer's decorator, or its registering call `X.command("name")(fn)`."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "command"


def typer_commands(path: Path) -> list[ast.FunctionDef]:
    """The functions a module makes typer commands, decorated or registered by call."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    functions = {n.name: n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    names = {n.name for n in functions.values() if any(_is_command(d) for d in n.decorator_list)}
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and _is_command(node.func)
            and node.args
            and isinstance(node.args[0], ast.Name)
        ):
            names.add(node.args[0].id)
    return [functions[n] for n in sorted(names) if n in functions]


def body_lines(fn: ast.FunctionDef) -> int:
    """Lines of a function's body, its signature and docstring aside."""
    body = fn.body
    if (
        isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        body = body[1:]
    return body[-1].end_lineno - body[0].lineno + 1 if body else 0


def test_every_cli_command_only_parses_arguments_and_calls_its_package():
    """A command's work lives in the package that owns it (callable from Python without typer);
    the command checks its arguments, calls it, prints and picks the exit code."""
    commands = {
        f"{p.relative_to(ROOT)}:{fn.name}": body_lines(fn)
        for p in project_files()
        for fn in typer_commands(p)
    }
    for expected in ("dapo_cli.py:eval_cmd", "dapo_cli.py:doctor", "pipelines/cli.py:rules_report_cmd",
                     "trainer/cli.py:train_cmd", "mathdata/cli.py:stats", "verifiers/cli.py:verify"):  # fmt: skip
        assert expected in commands  # the finder sees both ways of registering a command
    assert {name: n for name, n in commands.items() if n > MAX_COMMAND_BODY} == {}


def test_only_dapo_cli_knows_all_four_packages():
    knowing = sorted(str(p.relative_to(ROOT)) for p in project_files() if set(FOUR) <= imports_of(p))
    assert set(knowing) <= {"dapo_cli.py"}, knowing
    import dapo_cli

    # ... and it does: each package's commands are registered there (by name, loaded lazily)
    assert {p for needs in dapo_cli._NEEDS.values() for p in needs} >= set(FOUR)
