"""Plain words for the page about a position and the pieces on the board (pure, core rules only).

The state line says *that* the board differs from the game (``matching``) and lights squares; the
page also needs to say *what* to do, e.g. after the king half of castling, when nothing is lit
because the tracker waits for the rook.
"""

from __future__ import annotations

from boardctl.core.geometry import CHESS_8X8, Geometry, squares_of
from boardctl.core.rules import GameBoard
from boardctl.tracker import game_board

#: Squares listed by name before the rest is counted ("… and 9 more"): the status stays short.
MAX_LISTED = 6


def _listed(names: list[str]) -> str:
    if len(names) <= MAX_LISTED:
        return ", ".join(names)
    return ", ".join(names[:MAX_LISTED]) + f" and {len(names) - MAX_LISTED} more"


def _half_made(board: GameBoard, occupancy: int) -> str | None:
    """Words for a move of two pieces with only its first piece moved (castling's king, an e.p.
    pawn beside its victim), when ``occupancy`` shows exactly that."""
    occupied = board.occupied
    name = board.geometry.square_name
    for move in board.generate_legal_moves():
        mask = board.move_mask(move)
        if mask.bit_count() <= 2:
            continue
        landing = board.landing_square(move)
        first_only = (occupied & ~(1 << move.from_square)) | 1 << landing
        if occupancy != first_only:
            continue
        victim = board.capture_square(move)
        if victim is not None and victim != move.to_square:
            return f"Complete en passant: take the {board.piece_name(victim)} on {name(victim)} off the board."
        rest = mask & ~(1 << move.from_square | 1 << landing | 1 << move.to_square)
        start = rest & occupied
        end = rest & ~occupied
        if start and end:
            piece = board.piece_name(next(squares_of(start)))
            return f"Complete castling: move the {piece} {name(next(squares_of(start)))}\u2192{name(next(squares_of(end)))}."
    return None


def describe_board(board: GameBoard, occupancy: int) -> str | None:
    """What to do so that the pieces (``occupancy``, logical squares) show ``board``.

    None when they match, or when the difference is a move in the hand (a lifted piece, a capture
    under way), which needs no words.
    """
    board = game_board(board)
    occupied = board.occupied
    missing = occupied & ~occupancy
    extra = occupancy & ~occupied
    if not missing and not extra:
        return None
    half = _half_made(board, occupancy)
    if half is not None:
        return half
    if any(board.occupied_after(move) == occupancy for move in board.generate_legal_moves()):
        return None  # a move made, about to settle
    own = board.occupied_by(board.turn)
    theirs = board.occupied_by(not board.turn)
    if not extra and (missing & own).bit_count() <= 1 and (missing & theirs).bit_count() <= 1:
        return None  # a piece in the hand, or a capture being made
    name = board.geometry.square_name
    parts = []
    if missing:
        pieces = [f"{board.piece_name(sq)} {name(sq)}" for sq in squares_of(missing)]
        parts.append("put back " + _listed(pieces))
    if extra:
        parts.append("take the pieces off " + _listed([name(sq) for sq in squares_of(extra)]))
    return "The board differs from the game: " + "; ".join(parts) + "."


def check_square(board: GameBoard) -> str | None:
    """The square of the king in check (the side to move's), else None."""
    board = game_board(board)
    if not board.is_check():
        return None
    king = board.king(board.turn)
    return board.geometry.square_name(king) if king is not None else None


def can_promote(board: GameBoard) -> bool:
    """Whether the side to move has a legal move with a choice (a promotion) now."""
    board = game_board(board)
    if not board.choices():
        return False
    return any(board.choice_of(m) is not None for m in board.generate_legal_moves())


def logical_occupancy(
    occupancy: str | int | None, *, flipped: bool, geometry: Geometry = CHESS_8X8
) -> int | None:
    """The state line's ``occupancy`` (hex, board wiring) on the game's squares."""
    if occupancy is None:
        return None
    try:
        bb = int(occupancy, 16) if isinstance(occupancy, str) else int(occupancy)
    except ValueError:
        return None
    if not 0 <= bb <= geometry.all_mask:
        return None
    return geometry.turn_mask(bb) if flipped else bb
