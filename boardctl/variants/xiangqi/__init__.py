"""Xiangqi (Chinese chess): rules, the judge, notation and records, with no python-chess.

- :class:`XiangqiBoard` (``board.py``): the position and its legal moves, shaped like
  python-chess's ``Board`` (implements ``boardctl.core.rules.GameBoard``). Points ``a0``..``i9``,
  bit ``rank * 9 + file``; moves in engine coordinates (``h2e2``); FEN with ``w`` for Red.
- ``judge.py``: pyffish, pinned, rules on perpetual check and chase (AXF), idle repetition and
  the 60-move rule; ``XiangqiBoard.outcome()`` asks it only when a position has recurred or
  the capture-free count nears 60 moves a side.
"""

from __future__ import annotations

from typing import cast

from boardctl.core.geometry import XIANGQI_9X10
from boardctl.core.rules import GameBoard, Variant
from boardctl.variants.xiangqi.board import (
    BLACK,
    RED,
    STARTING_FEN,
    IllegalMoveError,
    Piece,
    XiangqiBoard,
    XiangqiMove,
    perft,
)

__all__ = [
    "BLACK",
    "RED",
    "STARTING_FEN",
    "VARIANT",
    "IllegalMoveError",
    "Piece",
    "XiangqiBoard",
    "XiangqiMove",
    "perft",
]


def _board(fen: str) -> GameBoard:
    # The core interface grew the tracker's hooks after XiangqiBoard was written; until it has
    # them all (issue 13, next step), mypy cannot see it as a GameBoard.
    return cast(GameBoard, XiangqiBoard(fen))


VARIANT = Variant(
    name="xiangqi",
    geometry=XIANGQI_9X10,
    starting_fen=STARTING_FEN,
    color_names=("red", "black"),
    board_factory=_board,
)
