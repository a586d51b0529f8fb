# Two commands for a newcomer: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# Debian packages the tests use: Chromium for the browser tests, Stockfish as the alternative engine.
SYSTEM := $(VENV)/.system
export NUMBA_CACHE_DIR ?= $(CURDIR)/.numba-cache

.PHONY: demo test lint bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/boardctl demo

lint: $(STAMP)
	$(BIN)/ruff check boardctl engine tests bench firmware
	$(BIN)/mypy

$(SYSTEM): scripts/ensure-chromium.sh scripts/ensure-stockfish.sh
	sh scripts/ensure-chromium.sh
	sh scripts/ensure-stockfish.sh
	touch $(SYSTEM)

test: $(STAMP) $(SYSTEM) lint
	$(BIN)/pytest -q

bench: $(STAMP) $(SYSTEM)
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) .numba-cache .pytest_cache .mypy_cache .ruff_cache
