"""The kernels the Python driver calls: the ahead-of-time build when current, else numba's JIT."""

from __future__ import annotations

from engine.jit import AOT

__all__ = ["IS_COMPILED_AHEAD", "fill", "gen_moves", "make_move", "perft", "search", "unmake_move"]

IS_COMPILED_AHEAD = AOT is not None

if AOT is not None:
    fill, gen_moves, make_move = AOT.fill, AOT.gen_moves, AOT.make_move
    perft, search, unmake_move = AOT.perft, AOT.search, AOT.unmake_move
else:
    from engine.movegen import gen_moves, make_move, unmake_move
    from engine.movegen import perft_kernel as perft
    from engine.search import search
    from engine.tables import _fill as fill
