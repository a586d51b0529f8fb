"""Chess: python-chess's rules behind the core interface (the only place that imports ``chess``)."""

from __future__ import annotations

from typing import cast

import chess

from boardctl.core.geometry import CHESS_8X8
from boardctl.core.rules import GameBoard, Variant


def _board(fen: str) -> GameBoard:
    # Placeholder factory until ChessBoard (a chess.Board subclass implementing GameBoard) exists.
    return cast(GameBoard, chess.Board(fen))


VARIANT = Variant(
    name="chess",
    geometry=CHESS_8X8,
    starting_fen=chess.STARTING_FEN,
    color_names=("white", "black"),
    board_factory=_board,
)
