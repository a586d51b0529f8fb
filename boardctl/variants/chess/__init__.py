"""Chess: python-chess's rules behind the core interface (the only place that imports ``chess``)."""

from __future__ import annotations

import chess

from boardctl.core.geometry import CHESS_8X8
from boardctl.core.rules import Capabilities, GameBoard, Variant
from boardctl.variants.chess.board import ChessBoard
from boardctl.variants.chess.pgn import read_pgn, read_pgn_headers, write_pgn
from boardctl.variants.chess.positions import faults

__all__ = ["VARIANT", "ChessBoard"]


def _board(fen: str) -> GameBoard:
    return ChessBoard(fen)


def _adopt(board: GameBoard) -> GameBoard:
    return ChessBoard.adopt(board)


VARIANT = Variant(
    name="chess",
    geometry=CHESS_8X8,
    starting_fen=chess.STARTING_FEN,
    color_names=("white", "black"),
    board_factory=_board,
    adopt=_adopt,
    faults=faults,
    write_pgn=write_pgn,
    read_pgn=read_pgn,
    read_pgn_headers=read_pgn_headers,
    capabilities=Capabilities(
        parts=frozenset({"reading", "spoken", "terminal_moves", "tactics", "lessons"}),
        is_rated=True,
        is_online=True,
        has_app_link=True,
    ),
)
