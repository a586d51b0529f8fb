"""The kernels the Python driver calls: the ahead-of-time build when current, else numba's JIT."""

from __future__ import annotations

from engine.jit import ALL_AHEAD, AOT_CHESS, AOT_XIANGQI

__all__ = [
    "CHESS_COMPILED_AHEAD",
    "IS_COMPILED_AHEAD",
    "XIANGQI_COMPILED_AHEAD",
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

#: Whether both games run from the ahead-of-time builds, and each game alone.
IS_COMPILED_AHEAD = ALL_AHEAD
CHESS_COMPILED_AHEAD = AOT_CHESS is not None
XIANGQI_COMPILED_AHEAD = AOT_XIANGQI is not None

if AOT_CHESS is not None:
    fill, gen_moves, make_move = AOT_CHESS.fill, AOT_CHESS.gen_moves, AOT_CHESS.make_move
    perft, search, unmake_move = AOT_CHESS.perft, AOT_CHESS.search, AOT_CHESS.unmake_move
else:
    from engine.movegen import gen_moves, make_move, unmake_move
    from engine.movegen import perft_kernel as perft
    from engine.search import search
    from engine.tables import _fill as fill
if AOT_XIANGQI is not None:
    xq_gen_moves, xq_in_check_of = AOT_XIANGQI.xq_gen_moves, AOT_XIANGQI.xq_in_check_of
    xq_make_move, xq_unmake_move = AOT_XIANGQI.xq_make_move, AOT_XIANGQI.xq_unmake_move
    xq_perft, xq_search, xq_game_end = AOT_XIANGQI.xq_perft, AOT_XIANGQI.xq_search, AOT_XIANGQI.xq_game_end
    xq_make_null, xq_unmake_null = AOT_XIANGQI.xq_make_null, AOT_XIANGQI.xq_unmake_null
else:
    from engine.xq_movegen import gen_moves as xq_gen_moves
    from engine.xq_movegen import in_check_of as xq_in_check_of
    from engine.xq_movegen import make_move as xq_make_move
    from engine.xq_movegen import make_null as xq_make_null
    from engine.xq_movegen import perft_kernel as xq_perft
    from engine.xq_movegen import unmake_move as xq_unmake_move
    from engine.xq_movegen import unmake_null as xq_unmake_null
    from engine.xq_rules import game_end as xq_game_end
    from engine.xq_search import search as xq_search
