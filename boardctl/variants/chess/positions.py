"""What is wrong with a chess set-up, in words: every fault ``chess.Board.status()`` reports."""

from __future__ import annotations

import chess

from boardctl.core.rules import GameBoard

#: How each ``chess.Status`` fault is named to the user.
FAULTS: dict[chess.Status, str] = {
    chess.STATUS_EMPTY: "the board is empty",
    chess.STATUS_NO_WHITE_KING: "no white king",
    chess.STATUS_NO_BLACK_KING: "no black king",
    chess.STATUS_TOO_MANY_KINGS: "more than one king of a colour",
    chess.STATUS_TOO_MANY_WHITE_PAWNS: "more than 8 white pawns",
    chess.STATUS_TOO_MANY_BLACK_PAWNS: "more than 8 black pawns",
    chess.STATUS_PAWNS_ON_BACKRANK: "pawns on the first or last rank",
    chess.STATUS_TOO_MANY_WHITE_PIECES: "more than 16 white pieces",
    chess.STATUS_TOO_MANY_BLACK_PIECES: "more than 16 black pieces",
    chess.STATUS_BAD_CASTLING_RIGHTS: "castling rights without the king and rook on their squares",
    chess.STATUS_INVALID_EP_SQUARE: "an impossible en passant square",
    chess.STATUS_OPPOSITE_CHECK: "the side not to move is in check",
    chess.STATUS_TOO_MANY_CHECKERS: "the king is checked by more than two pieces",
    chess.STATUS_IMPOSSIBLE_CHECK: "a check no last move could have given",
}


def faults(board: GameBoard) -> list[str]:
    """Every fault of ``board``'s position, named; empty when it is a legal position."""
    if not isinstance(board, chess.Board):
        raise TypeError(f"not a chess board: {type(board).__name__}")
    status = board.status()
    named = [text for flag, text in FAULTS.items() if status & flag]
    unnamed = status & ~sum(FAULTS, chess.STATUS_VALID)
    if unnamed:
        named.append(f"status {int(unnamed):#x}")
    return named
