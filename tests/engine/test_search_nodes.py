"""The one search of both games (engine/search_core.py) searches exactly as the two searches it
replaced: the same nodes, scores and principal variations at every iteration, in chess and xiangqi,
on numba's JIT and on the ahead-of-time build.

tests/engine/data/search_nodes.json was recorded (``python -m tests.engine.search_nodes_lib``) from
the two separate searches before the merge, engine/search.py and engine/xq_search.py at commit
f03fc13, on the JIT and the build alike; the cases are in tests/engine/search_nodes_lib.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine import aot

ROOT = Path(__file__).resolve().parents[2]
RECORDED = Path(__file__).parent / "data" / "search_nodes.json"


def _record(*, jit: bool) -> dict[str, Any]:
    env = dict(os.environ, **{aot.FORCE_JIT: "1" if jit else "0"})
    out = subprocess.run([sys.executable, "-m", "tests.engine.search_nodes_lib"], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=1800, check=True)
    found: dict[str, Any] = json.loads(out.stdout)
    return found


def _differences(recorded: list[dict[str, Any]], found: list[dict[str, Any]]) -> list[str]:
    return [f"{want['fen']} {want['moves']}: {want['best']} {want['iterations'][-1:]} recorded, "
            f"{got['best']} {got['iterations'][-1:]} now"
            for want, got in zip(recorded, found, strict=True) if want != got]


def test_the_recording_covers_both_games_broadly() -> None:
    recorded = json.loads(RECORDED.read_text(encoding="utf-8"))
    for game in ("chess", "xiangqi"):
        cases = recorded[game]
        assert len(cases) >= 30
        assert sum(case["iterations"][-1][1] for case in cases if case["iterations"]) > 300_000
        assert len({case["best"] for case in cases}) > 20  # not one move everywhere


@pytest.mark.slow
@pytest.mark.parametrize("jit", [True, False], ids=["jit", "ahead-of-time"])
def test_the_search_reproduces_the_recorded_nodes_scores_and_lines(jit: bool) -> None:
    if not jit:
        for game in aot.GAMES:
            path = aot.module_path(game)
            assert path.is_file(), f"no ahead-of-time kernels at {path}: `make` builds them (python -m engine warm)"
    recorded = json.loads(RECORDED.read_text(encoding="utf-8"))
    found = _record(jit=jit)
    assert found["compiled_ahead"] == {"chess": not jit, "xiangqi": not jit}
    for game in ("chess", "xiangqi"):
        assert _differences(recorded[game], found[game]) == [], game


# Runs a search of each game under the JIT; prints what numba's cache said about each search kernel.
CACHE_PROBE = """
import json, chess
from engine import search, xq_search
from engine.searcher import Limits, Searcher
from engine.xq_searcher import XqSearcher
Searcher(hash_mb=1).search(chess.Board(), Limits(depth=3))
XqSearcher(hash_mb=1).search(XqSearcher(hash_mb=1)._board(), Limits(depth=3))
stats = {name: [sum(d.stats.cache_hits.values()), sum(d.stats.cache_misses.values())]
         for name, d in (("search", search.search), ("search_chess", search.search_chess),
                         ("xq_search", xq_search.search), ("search_xiangqi", xq_search.search_xiangqi))}
print(json.dumps(stats))
"""


@pytest.mark.slow
def test_a_second_process_loads_both_games_searches_from_the_jit_cache() -> None:
    # the games' copies of the one search have names of their own, so numba caches both
    env = dict(os.environ, **{aot.FORCE_JIT: "1"})

    def probe() -> dict[str, list[int]]:
        out = subprocess.run([sys.executable, "-c", CACHE_PROBE], cwd=ROOT, env=env, capture_output=True, text=True,
                             timeout=1800, check=True)
        stats: dict[str, list[int]] = json.loads(out.stdout.strip().splitlines()[-1])
        return stats

    probe()  # compiles whatever the cache lacks
    stats = probe()
    assert all(misses == 0 for _hits, misses in stats.values()), stats  # nothing compiled again
    assert stats["search"][0] >= 1 and stats["xq_search"][0] >= 1, stats  # the entries came from the cache
