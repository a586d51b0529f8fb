"""Xiangqi (Chinese chess): rules, the judge, notation and records, with no python-chess.

- :class:`XiangqiBoard` (``board.py``): the position and its legal moves, shaped like
  python-chess's ``Board`` (implements ``boardctl.core.rules.GameBoard``). Points ``a0``..``i9``,
  bit ``rank * 9 + file``; moves in engine coordinates (``h2e2``); FEN with ``w`` (or ``r``)
  for Red; ``generate_legal_moves(from_mask, to_mask)``; ``san`` writes WXF (``C2.5``) and
  ``parse_san``/``push_san`` read any notation.
- ``outcome()``: no legal move loses (``checkmate``/``stalemate``); bare armies draw
  (``insufficient_material``); ``perpetual_check``, ``perpetual_chase`` (the offender loses),
  ``repetition`` and ``sixty_moves`` (draws) are ruled by pyffish (``judge.py``, pinned, the
  engine's judge), asked only when a position has recurred or 50 moves a side passed.
- ``notation.py``: :func:`~.notation.iccs` (``H2-E2``), :func:`~.notation.wxf` (``C2.5``,
  ``R+.3``), :func:`~.notation.chinese` (``炮二平五``, ``马8进7``, ``前车平三``),
  :func:`~.notation.write_line` and :func:`~.notation.parse_move` (any of them).
- ``records.py``, for ``boardctl games open FILE --ply N`` and ``boardctl games export
  --notation iccs|wxf|chinese``:

  - ``read_record(path) -> Record(start_fen, moves, tags)``: PGN (UTF-8 or GB18030, moves in
    any notation) or XQF (through cchess); one ``GameFileError`` naming file and line or move;
  - ``position_after(record, ply)``: the board after ``ply`` moves (default all), moves on
    its stack;
  - ``export(moves, start_fen, notation, *, tags, result) -> str``: a PGN document in the
    Chinese-chess convention (``[Game "Chinese Chess"]`` first, then ``Red``, ``Black``,
    ``Result`` with ``1-0`` = Red won, ``FEN`` for a set-up, ``Format "ICCS"``...).
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
from boardctl.variants.xiangqi.notation import chinese, iccs, parse_move, wxf
from boardctl.variants.xiangqi.records import Record, export, position_after, read_record

__all__ = [
    "BLACK",
    "RED",
    "STARTING_FEN",
    "VARIANT",
    "IllegalMoveError",
    "Piece",
    "Record",
    "XiangqiBoard",
    "XiangqiMove",
    "chinese",
    "export",
    "iccs",
    "parse_move",
    "perft",
    "position_after",
    "read_record",
    "wxf",
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
