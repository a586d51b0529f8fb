"""Set-up positions: the one check that a FEN describes a position a game can start from.

``replay --fen``, ``--fen`` on ``play``/``record`` and the ``new-game`` action all call
:func:`board_from_fen`, so each refuses the same faults with the same words: every fault the
game's rules report (``Variant.faults``; for chess, all of ``chess.Board.status()``: two kings of
a colour, the side not to move in check, pawns on the first or last rank, ...).
"""

from __future__ import annotations

from boardctl.core.rules import GameBoard, Variant
from boardctl.errors import PositionError
from boardctl.variants import get_variant


def faults(board: GameBoard, *, variant: Variant | None = None) -> list[str]:
    """Every fault of ``board``'s position, named; empty when it is a legal position."""
    return (variant or get_variant("chess")).faults(board)


def board_from_fen(fen: str, *, where: str, variant: Variant | None = None) -> GameBoard:
    """The board of ``fen`` (chess unless ``variant``), or :class:`PositionError` naming ``where`` and every fault."""
    variant = variant or get_variant("chess")
    try:
        board = variant.board(fen.strip())
    except ValueError as exc:
        raise PositionError(f"{where}: not a valid FEN ({exc})") from None
    problems = variant.faults(board)
    if problems:
        raise PositionError(f"{where}: impossible position ({'; '.join(problems)}): {fen.strip()}")
    return board
