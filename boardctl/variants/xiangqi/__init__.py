"""Xiangqi (Chinese chess): rules, the judge, notation and records, with no python-chess.

- :class:`XiangqiBoard` (``board.py``): the position and its legal moves, shaped like
  python-chess's ``Board`` (implements ``boardctl.core.rules.GameBoard``). Points ``a0``..``i9``,
  bit ``rank * 9 + file``; moves in engine coordinates (``h2e2``); FEN with ``w`` for Red.
- ``judge.py``: pyffish, pinned, rules on perpetual check and chase (AXF), idle repetition and
  the 60-move rule; ``XiangqiBoard.outcome()`` asks it only when a position has recurred or
  the capture-free count nears 60 moves a side.
"""

from __future__ import annotations

from typing import TextIO

from boardctl.core.geometry import XIANGQI_9X10
from boardctl.core.rules import GameBoard, GameText, ReadGame, Variant
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
    from boardctl.variants.xiangqi.game import XiangqiGameBoard

    return XiangqiGameBoard(fen)


def _adopt(board: GameBoard) -> GameBoard:
    from boardctl.variants.xiangqi.game import adopt

    return adopt(board)


def _faults(board: GameBoard) -> list[str]:
    return []  # the FEN reader refuses impossible placements itself (PositionError)


def _write_pgn(text: GameText) -> str:
    from boardctl.variants.xiangqi.game import write_pgn

    return write_pgn(text)


def _read_pgn(handle: TextIO) -> ReadGame | None:
    from boardctl.variants.xiangqi.game import read_pgn

    return read_pgn(handle)


def _read_pgn_headers(handle: TextIO) -> dict[str, str] | None:
    from boardctl.variants.xiangqi.game import read_pgn_headers

    return read_pgn_headers(handle)


VARIANT = Variant(
    name="xiangqi",
    geometry=XIANGQI_9X10,
    starting_fen=STARTING_FEN,
    color_names=("red", "black"),
    board_factory=_board,
    adopt=_adopt,
    faults=_faults,
    write_pgn=_write_pgn,
    read_pgn=_read_pgn,
    read_pgn_headers=_read_pgn_headers,
)
