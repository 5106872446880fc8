#!/usr/bin/env bash
# CI step: install the core alone (`pip install dapo-toolkit`, no extras) into a fresh venv in a
# temp dir, run the reward smoke test there, check that torch is absent and that the `dapo`
# command names the extra a subcommand needs. Prints the venv's size.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# copy the sources, so the build writes nothing into the checkout (setuptools builds in tree)
mkdir "$tmp/src"
# every top-level module (pyproject py-modules: dapo_*.py) and package
cp -r pyproject.toml README.md dapo_*.py verifiers mathdata pipelines trainer evals "$tmp/src/"
find "$tmp/src" -name __pycache__ -prune -exec rm -rf {} +
t0=$(date +%s)
"$PYTHON" -m venv "$tmp/venv"
"$tmp/venv/bin/pip" install -q -U pip
"$tmp/venv/bin/pip" install -q "$tmp/src"
echo "core install: $(( $(date +%s) - t0 ))s, venv $(du -sm "$tmp/venv" | cut -f1) MB"
"$tmp/venv/bin/pip" list --format=freeze | tr '\n' ' ' | sed 's/^/  /'; echo
cd "$tmp"
"$tmp/venv/bin/python" "$OLDPWD/scripts/core_smoke.py"
"$tmp/venv/bin/dapo" doctor
"$tmp/venv/bin/dapo" verify --pred '\frac{1}{2}' --gold 0.5
set +e
out=$("$tmp/venv/bin/dapo" build x.yaml --out o 2>&1); rc=$?
set -e
echo "dapo build -> rc=$rc: $out"
[[ $rc == 2 && $out == *"pip install 'dapo-toolkit[pipelines]'"* ]] || { echo "dapo build did not name the [pipelines] extra"; exit 1; }
echo "core install check passed"
