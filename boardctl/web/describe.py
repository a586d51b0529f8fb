"""Plain words for the page about a position and the pieces on the board (pure, python-chess only).

The state line says *that* the board differs from the game (``matching``) and lights squares; the
page also needs to say *what* to do, e.g. after the king half of castling, when nothing is lit
because the tracker waits for the rook.
"""

from __future__ import annotations

import chess

from boardctl.tracker import castling_rook_squares, en_passant_victim, occupancy_after

_NAMES = {
    chess.PAWN: "pawn",
    chess.KNIGHT: "knight",
    chess.BISHOP: "bishop",
    chess.ROOK: "rook",
    chess.QUEEN: "queen",
    chess.KING: "king",
}
#: Squares listed by name before the rest is counted ("… and 9 more"): the status stays short.
MAX_LISTED = 6


def _squares(bb: int) -> list[str]:
    return [chess.square_name(sq) for sq in chess.SquareSet(bb)]


def _listed(names: list[str]) -> str:
    if len(names) <= MAX_LISTED:
        return ", ".join(names)
    return ", ".join(names[:MAX_LISTED]) + f" and {len(names) - MAX_LISTED} more"


def describe_board(board: chess.Board, occupancy: int) -> str | None:
    """What to do so that the pieces (``occupancy``, logical squares) show ``board``.

    None when they match, or when the difference is a move in the hand (a lifted piece, a capture
    under way), which needs no words.
    """
    occupied = board.occupied
    missing = occupied & ~occupancy
    extra = occupancy & ~occupied
    if not missing and not extra:
        return None
    for move in board.generate_castling_moves():
        rook_from, rook_to = castling_rook_squares(board, move)
        king_to = chess.square(6 if board.is_kingside_castling(move) else 2, chess.square_rank(move.from_square))
        king_only = (occupied & ~chess.BB_SQUARES[move.from_square]) | chess.BB_SQUARES[king_to]
        if occupancy == king_only:
            return (
                f"Complete castling: move the rook {chess.square_name(rook_from)}\u2192{chess.square_name(rook_to)}."
            )
    for move in board.generate_legal_ep():
        victim = en_passant_victim(board, move)
        pawn_only = (occupied & ~chess.BB_SQUARES[move.from_square]) | chess.BB_SQUARES[move.to_square]
        if occupancy == pawn_only:
            return f"Complete en passant: take the pawn on {chess.square_name(victim)} off the board."
    if any(occupancy_after(board, move) == occupancy for move in board.generate_legal_moves()):
        return None  # a move made, about to settle
    own = board.occupied_co[board.turn]
    theirs = board.occupied_co[not board.turn]
    if not extra and chess.popcount(missing & own) <= 1 and chess.popcount(missing & theirs) <= 1:
        return None  # a piece in the hand, or a capture being made
    parts = []
    if missing:
        pieces = []
        for sq in chess.SquareSet(missing):
            piece = board.piece_at(sq)
            assert piece is not None
            pieces.append(f"{_NAMES[piece.piece_type]} {chess.square_name(sq)}")
        parts.append("put back " + _listed(pieces))
    if extra:
        parts.append("take the pieces off " + _listed(_squares(extra)))
    return "The board differs from the game: " + "; ".join(parts) + "."


def check_square(board: chess.Board) -> str | None:
    """The square of the king in check (the side to move's), else None."""
    if not board.is_check():
        return None
    king = board.king(board.turn)
    return chess.square_name(king) if king is not None else None


def can_promote(board: chess.Board) -> bool:
    """Whether the side to move has a legal promotion now."""
    rank = chess.BB_RANK_7 if board.turn == chess.WHITE else chess.BB_RANK_2
    pawns = board.pawns & board.occupied_co[board.turn] & rank
    return pawns != 0 and any(m.promotion for m in board.generate_legal_moves(pawns))


def logical_occupancy(occupancy: str | int | None, *, flipped: bool) -> int | None:
    """The state line's ``occupancy`` (hex, board wiring) on the game's squares."""
    if occupancy is None:
        return None
    try:
        bb = int(occupancy, 16) if isinstance(occupancy, str) else int(occupancy)
    except ValueError:
        return None
    if not 0 <= bb < 1 << 64:
        return None
    return chess.flip_vertical(chess.flip_horizontal(bb)) if flipped else bb
