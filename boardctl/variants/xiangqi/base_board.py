"""The pieces of a xiangqi position and where they stand, without a side to move or the moves that
led there: python-chess's ``BaseBoard`` split, for :class:`~.board.XiangqiBoard`.

:class:`XiangqiBaseBoard` owns the placement (the mailbox of 90 small ints, ``type`` for Red and
``type | 8`` for Black, a bitboard per side and each general's point) and is the only class that
changes it; the questions asked of it are answered by :mod:`.movegen` and :mod:`.fen`.
"""

from __future__ import annotations

from boardctl.core.geometry import XIANGQI_9X10, Square, squares_of
from boardctl.core.rules import Color
from boardctl.variants.xiangqi.fen import board_fen, diagram
from boardctl.variants.xiangqi.movegen import make_move, targets, unmake_move
from boardctl.variants.xiangqi.points import (
    BLACK_BIT,
    CANNON,
    HORSE,
    PAWN,
    PIECE_NAMES,
    POINTS,
    ROOK,
    Piece,
)


class XiangqiBaseBoard:
    """Pieces on the 90 points; ``occupied_co[BLACK]``, ``occupied_co[RED]`` as in python-chess."""

    geometry = XIANGQI_9X10

    def __init__(self) -> None:
        self._b: list[int] = [0] * POINTS
        #: ``occupied_co[BLACK]``, ``occupied_co[RED]`` as in python-chess.
        self.occupied_co: list[int] = [0, 0]
        self._kings: list[Square] = [-1, -1]

    # ---- changing the placement (the board's set-up, push and pop) -------------------------

    def _set_placement(self, b: list[int], occupied_co: list[int], kings: list[Square]) -> None:
        """Take ``b`` and its bitboards and generals' points (-1: none) as the placement."""
        self._b, self.occupied_co, self._kings = b, occupied_co, kings

    def _copy_placement_to(self, other: XiangqiBaseBoard) -> None:
        other._set_placement(self._b.copy(), self.occupied_co.copy(), self._kings.copy())

    def _move_piece(self, f: Square, t: Square) -> int:
        """The piece on ``f`` to ``t``; the piece it took (0: none)."""
        return make_move(self._b, self.occupied_co, self._kings, f, t)

    def _unmove_piece(self, f: Square, t: Square, captured: int) -> None:
        unmake_move(self._b, self.occupied_co, self._kings, f, t, captured)

    # ---- pieces ----------------------------------------------------------------------------

    @property
    def occupied(self) -> int:
        return self.occupied_co[0] | self.occupied_co[1]

    def occupied_by(self, color: Color) -> int:
        return self.occupied_co[color]

    def piece_at(self, square: Square) -> Piece | None:
        p = self._b[square]
        return Piece(p & 7, p < BLACK_BIT) if p else None

    def piece_name(self, square: Square) -> str | None:
        """``general``, ``advisor``, ``elephant``, ``horse``, ``chariot``, ``cannon``, ``soldier``."""
        p = self._b[square]
        return PIECE_NAMES[p & 7] if p else None

    def piece_type_at(self, square: Square) -> int | None:
        p = self._b[square]
        return p & 7 if p else None

    def color_at(self, square: Square) -> Color | None:
        p = self._b[square]
        return p < BLACK_BIT if p else None

    def piece_map(self) -> dict[Square, Piece]:
        return {s: Piece(p & 7, p < BLACK_BIT) for s, p in enumerate(self._b) if p}

    def pieces_mask(self, piece_type: int, color: Color) -> int:
        code = piece_type if color else piece_type | BLACK_BIT
        return XIANGQI_9X10.mask(s for s, p in enumerate(self._b) if p == code)

    def king(self, color: Color) -> Square | None:
        s = self._kings[color]
        return s if s >= 0 else None

    @property
    def kings(self) -> int:
        return sum(1 << s for s in self._kings if s >= 0)

    def has_insufficient_material(self, color: Color) -> bool:
        """Whether ``color`` has nothing that can cross the river (only general, advisors and
        elephants), as pyffish's ``has_insufficient_material`` says for xiangqi."""
        off = 0 if color else BLACK_BIT
        return not any(
            p and (p < BLACK_BIT) == color and p - off in (HORSE, ROOK, CANNON, PAWN)
            for p in self._b
        )

    # ---- attacks ---------------------------------------------------------------------------

    def attacks_mask(self, square: Square) -> int:
        """The points the piece on ``square`` attacks (moves to, own pieces included)."""
        p = self._b[square]
        if not p:
            return 0
        return XIANGQI_9X10.mask(targets(self._b, self.occupied_co, square, p, include_own=True))

    def attackers_mask(self, color: Color, square: Square) -> int:
        """The pieces of ``color`` that attack ``square`` (whatever stands there)."""
        out = 0
        for s in squares_of(self.occupied_co[color]):
            if square in targets(self._b, self.occupied_co, s, self._b[s], include_own=True):
                out |= 1 << s
        return out

    def is_attacked_by(self, color: Color, square: Square) -> bool:
        return bool(self.attackers_mask(color, square))

    # ---- text ------------------------------------------------------------------------------

    def board_fen(self) -> str:
        return board_fen(self._b)

    def __str__(self) -> str:
        return diagram(self._b)
