"""What the one search (engine/search_core.py, compiled per game by engine/search.py and
engine/xq_search.py) shares with the Python driver (engine/searcher.py): the score scale, the
``ctl`` slots the driver reads and writes, and the transposition-table entry format.

Kept apart from the search so that the driver and the tests can read these without importing a
game's kernels; each game's ahead-of-time module (engine/aot.py) depends on this, the core and its
own kernels only: an edit to one game's hooks does not rebuild the other game's kernels.
"""

from __future__ import annotations

from engine.bits import kernel

#: The deepest ply the search reaches (both games' move generators size their stacks for it).
MAXPLY = 100
INF = 32000
MATE = 31000
MATE_BOUND = MATE - 2 * MAXPLY
# ctl slots shared with the Python driver
STOP, NODES, NODE_LIMIT, SELDEPTH, CAN_STOP = 0, 1, 2, 3, 4
#: ctl slot: the contempt of the side to move at the root, in centipawns (Stockfish's meaning: a
#: draw is worth -contempt to it, +contempt to the other side); 0, the default, scores draws 0.
CONTEMPT = 5
BOUND_UPPER, BOUND_LOWER, BOUND_EXACT = 1, 2, 3


@kernel()
def tt_pack(move: int, score: int, depth: int, bound: int) -> int:
    """One transposition-table data word: move (18 bits), score, depth + 1 and bound."""
    return (move & 0x3FFFF) | ((score + 32768) << 18) | (max(0, min(depth + 1, 255)) << 34) | (bound << 42)
