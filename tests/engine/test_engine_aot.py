"""The ahead-of-time kernels: built by `make`, loaded without numba, and identical to the JIT."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine import aot

# Searches a few positions and counts perft in a fresh process; prints what it found as JSON.
PROBE = """
import json, sys
import chess
from engine import kernels
from engine.position import perft
from engine.searcher import Limits, Searcher
from engine.uci import BENCH_FENS
s = Searcher(hash_mb=4)
found = {"compiled_ahead": kernels.IS_COMPILED_AHEAD, "bench": []}
for fen in BENCH_FENS[:4]:
    s.clear()
    r = s.search(chess.Board(fen), Limits(depth=6))
    found["bench"].append([r.best.uci(), r.info.nodes, r.info.score_cp])
kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
found["perft"] = [perft(chess.Board(kiwipete), 3), perft(chess.Board(kiwipete), 3, bulk=False)]
found["numba_imported"] = "numba" in sys.modules
print(json.dumps(found))
"""


def _probe(*, jit: bool) -> dict[str, object]:
    env = dict(os.environ, **{aot.FORCE_JIT: "1" if jit else "0"})
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True,
                         timeout=600, check=True)
    found: dict[str, object] = json.loads(out.stdout.strip().splitlines()[-1])
    return found


@pytest.fixture(scope="module")
def built() -> Path:
    for game in aot.GAMES:
        path = aot.module_path(game)
        assert path.is_file(), f"no ahead-of-time kernels at {path}: `make` builds them (python -m engine warm)"
    return aot.module_path("chess")


@pytest.mark.slow
def test_compiled_kernels_run_without_numba_and_match_the_jit(built: Path) -> None:
    ahead = _probe(jit=False)
    jit = _probe(jit=True)
    assert ahead["compiled_ahead"] is True and ahead["numba_imported"] is False
    assert jit["compiled_ahead"] is False and jit["numba_imported"] is True
    assert ahead["perft"] == jit["perft"] == [97_862, 97_862]
    assert ahead["bench"] == jit["bench"]


@pytest.mark.slow
def test_search_releases_the_gil_so_stop_works(built: Path) -> None:
    # One kernel call to depth 40 runs for ages; only a thread that gets the interpreter can
    # set its stop flag. With the GIL held for the call, this process would hang until killed.
    code = """
import threading, time, chess
from engine import kernels
from engine.position import Position
from engine.search_common import CAN_STOP, INF, NODE_LIMIT, NODES, STOP
from engine.searcher import Searcher
assert kernels.IS_COMPILED_AHEAD
s = Searcher(hash_mb=4); s.warm()
s.ctl[:] = 0; s.ctl[CAN_STOP] = 1; s.ctl[NODE_LIMIT] = 2**62
pos = Position.from_board(chess.Board())
t = threading.Thread(target=s._call, args=(pos, 40, -INF, INF))
t.start(); time.sleep(0.3)
s.ctl[STOP] = 1; stopped = time.perf_counter(); t.join(10)
print(t.is_alive(), int(s.ctl[NODES]), time.perf_counter() - stopped)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    alive, nodes, seconds = out.stdout.split()
    assert alive == "False" and int(nodes) > 0
    assert float(seconds) < 1.0


def test_a_build_for_other_sources_or_cpu_is_not_loaded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "shared"))  # nor in the user's cache
    names = {}
    for game in aot.GAMES:
        assert aot.load(game) is None  # nothing built here
        names[game] = aot.module_name(game)
    monkeypatch.setenv("NUMBA_CPU_NAME", "generic")
    for game in aot.GAMES:
        assert aot.module_name(game) != names[game]  # another CPU, another module


def test_forcing_the_jit_ignores_the_build(built: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for game in aot.GAMES:
        monkeypatch.setenv(aot.FORCE_JIT, "1")
        assert aot.load(game) is None
        monkeypatch.setenv(aot.FORCE_JIT, "0")
        assert aot.load(game) is not None


@pytest.mark.parametrize("source", aot.KERNEL_SOURCES)
def test_an_edit_to_a_kernel_source_rebuilds_the_games_that_compile_it(
        source: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # numba alone would keep running a cached search with the old, inlined move generator; and an
    # edit to one game's kernels must not cost a build of the other's (issue 35, finding 7).
    for name in aot.KERNEL_SOURCES:
        (tmp_path / name).write_bytes((aot.HERE / name).read_bytes())
    monkeypatch.setattr(aot, "HERE", tmp_path)
    modules, jit_dir = {g: aot.module_name(g) for g in aot.GAMES}, aot.jit_cache_dir()
    with (tmp_path / source).open("a") as f:
        f.write("\n# an edit\n")
    assert aot.jit_cache_dir() != jit_dir
    changed = {g for g in aot.GAMES if aot.module_name(g) != modules[g]}
    assert changed == {g for g, sources in aot.GAMES.items() if source in sources}
    assert changed  # every kernel source belongs to a game


# Which module each game's compiled code is imported from: a kernel module of one game must not
# import another game's kernels (its build would then hide a dependency the digest does not see).
GAME_PREFIXES = {"chess": ("movegen", "evaluate", "search", "tables", "magics"), "xiangqi": ("xq_",)}


@pytest.mark.parametrize("game", aot.GAMES)
def test_each_games_kernel_sources_are_all_its_kernels_import(game: str) -> None:
    import ast

    sources = set(aot.GAMES[game])
    for name in sources - {"aotbuild.py"}:
        tree = ast.parse((aot.HERE / name).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("engine."):
                imported = node.module.removeprefix("engine.") + ".py"
                if imported in ("jit.py", "aot.py", "kernels.py"):
                    continue  # the decorator's choice and the driver's dispatch, not compiled code
                assert imported in sources, f"{name} imports engine/{imported}, which {game}'s digest leaves out"


def test_both_searches_share_one_ply_limit() -> None:
    from engine import movegen, search_common, xq_movegen

    assert movegen.MAXPLY == xq_movegen.MAXPLY == search_common.MAXPLY


@pytest.mark.slow
def test_the_jit_caches_under_the_digest() -> None:
    code = "import engine.movegen, numba; print(numba.config.CACHE_DIR)"
    env = dict(os.environ, **{aot.FORCE_JIT: "1"})
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120,
                         check=True)
    assert out.stdout.strip() == str(aot.jit_cache_dir())
