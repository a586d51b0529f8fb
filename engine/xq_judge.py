"""pyffish (Fairy-Stockfish 0.0.90) as the judge of xiangqi game ends: Asian repetition rules,
the 60-move rule, no legal move. The engine process never imports this module.

pyffish's moves number the ranks 1-10; ours (UCCI) 0-9: :func:`to_ffish` and
:func:`from_ffish` convert. The variant ``xiangqi60`` is Fairy-Stockfish's xiangqi with
``nMoveRule = 60`` (its built-in xiangqi draws after 50 moves).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from enum import Enum
from typing import Any

VARIANT = "xiangqi60"
CONFIG = f"[{VARIANT}:xiangqi]\nnMoveRule = 60\n"
_SQ = re.compile(r"([a-i])(\d+)")


class Ending(Enum):
    """How a xiangqi game stands, from the side to move's view."""

    ONGOING = "ongoing"
    WIN = "win"
    LOSS = "loss"
    DRAW = "draw"


@dataclass(frozen=True)
class Ruling:
    ending: Ending
    optional: bool  # a repetition or the 60-move rule, as opposed to no legal move


@functools.cache
def ffish() -> Any:
    """pyffish with the 60-move variant loaded."""
    import pyffish

    pyffish.load_variant_config(CONFIG)
    return pyffish


def to_ffish(move: str) -> str:
    """``h2e2`` -> ``h3e3``."""
    return _SQ.sub(lambda m: f"{m.group(1)}{int(m.group(2)) + 1}", move)


def from_ffish(move: str) -> str:
    """``h3e3`` -> ``h2e2`` (also ``a10a9`` -> ``a9a8``)."""
    return _SQ.sub(lambda m: f"{m.group(1)}{int(m.group(2)) - 1}", move)


def legal_moves(fen: str, moves: list[str]) -> list[str]:
    """pyffish's legal moves after ``moves`` from ``fen``, in our coordinates."""
    return [from_ffish(m) for m in ffish().legal_moves(VARIANT, fen, [to_ffish(m) for m in moves])]


def ruling(fen: str, moves: list[str]) -> Ruling:
    """pyffish's verdict on the position after ``moves`` (side to move's view)."""
    sf = ffish()
    fm = [to_ffish(m) for m in moves]
    if not sf.legal_moves(VARIANT, fen, fm):
        result = sf.game_result(VARIANT, fen, fm)
        return Ruling(Ending.WIN if result > 0 else Ending.LOSS if result < 0 else Ending.DRAW, False)
    ended, result = sf.is_optional_game_end(VARIANT, fen, fm)
    if not ended:
        return Ruling(Ending.ONGOING, False)
    return Ruling(Ending.WIN if result > 0 else Ending.LOSS if result < 0 else Ending.DRAW, True)
