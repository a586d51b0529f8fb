# Two commands for a newcomer: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export NUMBA_CACHE_DIR ?= $(CURDIR)/.numba-cache

# The engine's kernels compiled ahead of time (engine/aot.py), one module per game. Any engine edit
# reruns `warm`, which rebuilds a game's module only when its kernel sources' digest has none yet.
KERNELS := $(VENV)/.kernels

.PHONY: demo demo-club test fuzz lint bench clean system tune pi-check

$(STAMP): pyproject.toml
	@echo "Installing boardctl and its dependencies into $(VENV) (first run only)..."
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

$(KERNELS): $(STAMP) $(wildcard engine/*.py)
	@echo "Preparing the engine: its search is compiled once, on the first run or after an engine change..."
	$(BIN)/python -m engine warm
	touch $(KERNELS)

# The demo plays chess: it waits only for the chess kernels (about 30 s to build), and leaves
# xiangqi's to a background build (issue 35, finding 7).
demo: $(STAMP)
	$(BIN)/python -m engine warm chess --rest-in-background
	$(BIN)/boardctl demo

# A room of simulated boards broadcasting through a private Mosquitto, live on the relay's page
# (docs/broadcast.md); Ctrl-C ends it.
demo-club: $(STAMP)
	sh scripts/ensure-mosquitto.sh
	$(BIN)/python -m bench club --demo

lint: $(STAMP)
	$(BIN)/ruff check boardctl engine tests bench firmware
	$(BIN)/mypy

# Debian packages the tests use, installed only when missing: Chromium for the browser tests,
# Stockfish as the alternative engine and the benchmarks' opponent.
# Fairy-Stockfish as the xiangqi perft reference and sparring partner.
# Noto CJK so that the xiangqi page's screenshots show the Chinese characters.
# Mosquitto, the MQTT broker the club broadcast's tests start on a port of their own.
system:
	sh scripts/ensure-chromium.sh
	sh scripts/ensure-cjk-fonts.sh
	sh scripts/ensure-stockfish.sh
	sh scripts/ensure-micropython.sh
	sh scripts/ensure-fairy-stockfish.sh
	sh scripts/ensure-espeak.sh
	sh scripts/ensure-mosquitto.sh

# Two workers (pytest-xdist): most of the suite's time is spent waiting on the daemons, engines and
# browsers it starts, not computing, so two run in about half the time even on two cores.
# --fail-on-skip: a test skipped for a missing tool fails here (tests/conftest.py), since make test
# installs every tool; only what the machine decides (arm64 emulation, GPIO pins) may skip.
TEST_WORKERS ?= 2

test: $(STAMP) $(KERNELS) system lint
	$(BIN)/pytest -q -n $(TEST_WORKERS) --fail-on-skip

# The parsers' fuzz tests (marked `fuzz`) with many more examples than `make test` runs
# (the `fuzz` hypothesis profile, tests/conftest.py). Hypothesis keeps failing examples in
# .hypothesis/, so a rerun tries them first.
fuzz: $(STAMP) $(KERNELS) system
	HYPOTHESIS_PROFILE=fuzz $(BIN)/pytest -q -m fuzz

# sunfish is only the benchmark's opponent; its pin on an old python-chess is ignored (--no-deps).
bench: $(STAMP) $(KERNELS) system
	$(BIN)/pip install --quiet --no-deps sunfish
	$(BIN)/python -m bench

# boardctl on Raspberry Pi OS's software (Debian bookworm arm64) under qemu, as root: a cached
# debootstrap root, a fresh clone, make demo's install, the engine build, a game, perft and the
# selftest, with a table of times and versions (scripts/pi-check). Slow, so not part of `make test`,
# whose tests/test_arm64.py reuses the root it leaves.
pi-check:
	bash scripts/pi-check

clean:
	rm -rf $(VENV) .numba-cache .pytest_cache .mypy_cache .ruff_cache

# The evaluation's weights tuned on data (docs/tuning.md): self-play games at fixed nodes,
# labelled by their results and by Stockfish at a fixed depth, then Texel's method. The data
# (.tune/, not in git) is played in TUNE_JOBS parallel shards, each regenerated only when
# missing. Writes engine/data/eval_weights.json. The defaults make the third tuned set, the
# shipped one (docs/tuning.md); TUNE_SEED=2 TUNE_GAMES=2000 TUNE_MAX_POSITIONS=12724 the second.
TUNE_SEED ?= 3
TUNE_GAMES ?= 20000
TUNE_NODES ?= 1000
TUNE_NODES_MAX ?= 3000
TUNE_RANDOM_RATE ?= 0.03
TUNE_PER_GAME ?= 30
TUNE_MAX_POSITIONS ?= 124410
TUNE_JOBS ?= 2
TUNE_LAMBDA ?= 0
TUNE_LR ?= 0.2
TUNE_L2 ?= 0
TUNE_ARGS ?=
TUNE_SHARDS := $(shell seq 0 $$(($(TUNE_JOBS) - 1)))
TUNE_DATA := $(foreach i,$(TUNE_SHARDS),.tune/selfplay-s$(TUNE_SEED)-g$(TUNE_GAMES)-$(i)of$(TUNE_JOBS).tsv)
tune: $(STAMP) $(KERNELS) system
	for i in $(TUNE_SHARDS); do \
	  test -f .tune/selfplay-s$(TUNE_SEED)-g$(TUNE_GAMES)-$${i}of$(TUNE_JOBS).tsv || \
	  nice -n 10 $(BIN)/python -m bench tune_data --games $(TUNE_GAMES) --nodes $(TUNE_NODES) --nodes-max $(TUNE_NODES_MAX) --random-rate $(TUNE_RANDOM_RATE) --per-game $(TUNE_PER_GAME) --seed $(TUNE_SEED) --max-positions $(TUNE_MAX_POSITIONS) --shard $$i/$(TUNE_JOBS) & \
	done; wait
	nice -n 10 $(BIN)/python -m bench tune --data $(TUNE_DATA) --seed $(TUNE_SEED) --lambda $(TUNE_LAMBDA) --lr $(TUNE_LR) --l2 $(TUNE_L2) $(TUNE_ARGS)
