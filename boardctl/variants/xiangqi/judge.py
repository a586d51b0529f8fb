"""pyffish (Fairy-Stockfish 0.0.90, pinned) as the judge of xiangqi's optional game ends.

The same judge as the engine's tests (``engine/xq_judge.py``): Fairy-Stockfish's xiangqi with
``nMoveRule = 60`` loaded through ``load_variant_config``. It rules on perpetual check and
perpetual chase by the Asian (AXF) rules, on idle or mutual repetition, and on the 60-move
rule. pyffish is imported only when a ruling is needed (a position recurred, or the count of
moves without a capture nears 60 a side), never by the board's move generation.

pyffish numbers the ranks 1-10; our points (and the engine's moves) 0-9:
:func:`to_ffish` converts.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import Any

VARIANT = "xiangqi60"
CONFIG = f"[{VARIANT}:xiangqi]\nnMoveRule = 60\n"
_POINT = re.compile(r"([a-i])(\d+)")


@functools.cache
def ffish() -> Any:
    """pyffish with the 60-move xiangqi loaded (once per process)."""
    import pyffish

    pyffish.load_variant_config(CONFIG)
    return pyffish


def to_ffish(move: str) -> str:
    """``h2e2`` -> ``h3e3`` (pyffish counts ranks from 1)."""
    return _POINT.sub(lambda m: f"{m.group(1)}{int(m.group(2)) + 1}", move)


def from_ffish(move: str) -> str:
    """``h3e3`` -> ``h2e2``; ``a10a9`` -> ``a9a8``."""
    return _POINT.sub(lambda m: f"{m.group(1)}{int(m.group(2)) - 1}", move)


def legal_moves(fen: str, moves: Sequence[str] = ()) -> list[str]:
    """pyffish's legal moves after ``moves`` (our coordinates) from ``fen``."""
    return [from_ffish(m) for m in ffish().legal_moves(VARIANT, fen, [to_ffish(m) for m in moves])]


def optional_end(fen: str, moves: Sequence[str]) -> int | None:
    """pyffish's ruling on a repetition or the 60-move rule after ``moves`` from ``fen``:
    None if the game goes on, else its result for the side to move (>0 win, <0 loss, 0 draw)."""
    ended, result = ffish().is_optional_game_end(VARIANT, fen, [to_ffish(m) for m in moves])
    return int(result) if ended else None
