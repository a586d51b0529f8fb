"""The kernels the Python driver calls: the ahead-of-time build when current, else numba's JIT."""

from __future__ import annotations

from engine.jit import AOT

__all__ = [
    "IS_COMPILED_AHEAD",
    "fill",
    "gen_moves",
    "make_move",
    "perft",
    "search",
    "unmake_move",
    "xq_game_end",
    "xq_gen_moves",
    "xq_in_check_of",
    "xq_make_move",
    "xq_make_null",
    "xq_perft",
    "xq_search",
    "xq_unmake_move",
    "xq_unmake_null",
]

IS_COMPILED_AHEAD = AOT is not None

if AOT is not None:
    fill, gen_moves, make_move = AOT.fill, AOT.gen_moves, AOT.make_move
    perft, search, unmake_move = AOT.perft, AOT.search, AOT.unmake_move
    xq_gen_moves, xq_in_check_of, xq_make_move = AOT.xq_gen_moves, AOT.xq_in_check_of, AOT.xq_make_move
    xq_perft, xq_search, xq_unmake_move = AOT.xq_perft, AOT.xq_search, AOT.xq_unmake_move
    xq_game_end = AOT.xq_game_end
    xq_make_null, xq_unmake_null = AOT.xq_make_null, AOT.xq_unmake_null
else:
    from engine.movegen import gen_moves, make_move, unmake_move
    from engine.movegen import perft_kernel as perft
    from engine.search import search
    from engine.tables import _fill as fill
    from engine.xq_movegen import gen_moves as xq_gen_moves
    from engine.xq_movegen import in_check_of as xq_in_check_of
    from engine.xq_movegen import make_move as xq_make_move
    from engine.xq_movegen import make_null as xq_make_null
    from engine.xq_movegen import perft_kernel as xq_perft
    from engine.xq_movegen import unmake_move as xq_unmake_move
    from engine.xq_movegen import unmake_null as xq_unmake_null
    from engine.xq_rules import game_end as xq_game_end
    from engine.xq_search import search as xq_search
