"""The ahead-of-time build of the xiangqi kernels: the engine plays xiangqi without numba."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from engine import aot

pytestmark = pytest.mark.slow

PROBE = """
import json, sys
from engine import kernels
from engine.searcher import Limits
from engine.xq_position import XqBoard, perft, ruling
from engine.xq_searcher import XqSearcher
s = XqSearcher(hash_mb=4)
r = s.search(XqBoard(), Limits(depth=6))
loop = XqBoard.from_moves("3k5/9/9/9/9/9/9/9/4R4/5K3 w - - 0 1", "e1d1 d9e9 d1e1 e9d9".split() * 2)
print(json.dumps({"compiled_ahead": kernels.IS_COMPILED_AHEAD, "perft": perft(XqBoard(), 3),
                  "best": r.best.uci(), "nodes": r.info.nodes, "ruling": ruling(loop),
                  "numba_imported": "numba" in sys.modules}))
"""


def test_xiangqi_runs_from_the_build_without_numba() -> None:
    if not aot.module_path("xiangqi").is_file():
        pytest.fail(f"no ahead-of-time kernels at {aot.module_path('xiangqi')}: `make` builds them "
                    "(python -m engine warm)")
    env = dict(os.environ, **{aot.FORCE_JIT: "0"})
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=300,
                         check=True)
    found = json.loads(out.stdout.strip().splitlines()[-1])
    assert found["compiled_ahead"] is True and found["numba_imported"] is False
    assert found["perft"] == 79_666 and found["nodes"] > 0 and len(found["best"]) == 4
    assert found["ruling"] == ["loss", True]  # Red checked with every move: Red, to move, has lost


def test_the_build_exports_every_xiangqi_kernel() -> None:
    code = "from engine.jit import AOT_XIANGQI; print(' '.join(n for n in dir(AOT_XIANGQI) if n.startswith('xq_')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    wanted = {"xq_search", "xq_gen_moves", "xq_make_move", "xq_unmake_move", "xq_perft", "xq_in_check_of",
              "xq_game_end", "xq_make_null", "xq_unmake_null"}
    assert wanted <= set(out.stdout.split())
