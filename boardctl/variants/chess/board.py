"""``ChessBoard``: python-chess's ``Board`` with the core's hooks (castling, en passant, promotion).

A subclass rather than a wrapper, so the tracker's hot loops (legal moves with the occupancy after
each) cost what they cost on ``chess.Board``. Moves are ``chess.Move``; the methods that take a
move declare the core :class:`~boardctl.core.rules.Move` for the type checker only (a wider
parameter is a valid override), because the core hands a board only the moves it produced.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import chess

from boardctl.core.geometry import CHESS_8X8, Geometry, Square
from boardctl.core.rules import Color, Move, Notice, Outcome

#: Promotion pieces by letter, in the order the promote button cycles (queen is the default).
CHOICES = ("q", "r", "b", "n")
_PIECE_OF = {letter: chess.PIECE_SYMBOLS.index(letter) for letter in CHOICES}
_SYMBOL_OF: dict[object, str] = {piece: letter for letter, piece in _PIECE_OF.items()}


def castling_rook_squares(board: ChessBoard, move: Move) -> tuple[Square, Square]:
    """Where the rook of a castling move starts and ends (standard chess)."""
    rank = chess.square_rank(move.from_square)
    if board.is_kingside_castling(move):
        return chess.square(7, rank), chess.square(5, rank)
    return chess.square(0, rank), chess.square(3, rank)


def en_passant_victim(move: Move) -> Square:
    """The square of the pawn an en passant move captures."""
    return chess.square(chess.square_file(move.to_square), chess.square_rank(move.from_square))


def _king_to(board: ChessBoard, move: Move) -> Square:
    return chess.square(6 if board.is_kingside_castling(move) else 2, chess.square_rank(move.from_square))


class ChessBoard(chess.Board):
    """Standard chess behind :class:`boardctl.core.rules.GameBoard`."""

    geometry: Geometry = CHESS_8X8
    #: SAN ends a mating move with "#" and a check with "+".
    notation_marks_mate: bool = True

    @classmethod
    def adopt(cls, board: object) -> ChessBoard:
        """A ``ChessBoard`` copy of any python-chess ``Board`` (its move stack included)."""
        if isinstance(board, ChessBoard):
            return board.copy()
        if not isinstance(board, chess.Board):
            raise TypeError(f"not a chess board: {type(board).__name__}")
        root = board.root()
        own = cls(None, chess960=board.chess960)
        own.set_fen(root.fen())
        for move in board.move_stack:
            own.push(move)
        return own

    # -- the position ------------------------------------------------------------------------

    def occupied_by(self, color: Color) -> int:
        return self.occupied_co[color]

    def piece_name(self, square: Square) -> str | None:
        piece_type = self.piece_type_at(square)
        return chess.piece_name(piece_type) if piece_type else None

    # -- the end of the game -----------------------------------------------------------------

    def outcome(self, *, claim_draw: bool = False) -> Outcome | None:  # type: ignore[override]
        # python-chess's own callers (is_game_over, result) need only ``is None`` and result().
        found = super().outcome(claim_draw=claim_draw)
        if found is None:
            return None
        return Outcome(found.termination.name.lower(), found.winner)

    def claimable_draw(self) -> str | None:
        # Only the position on the board counts: a button cannot announce a move to be made.
        if self.is_repetition(3):
            return "threefold repetition"
        if self.is_fifty_moves():
            return "fifty-move rule"
        return None

    def notice(self) -> Notice | None:
        """Chess rules nothing while the game goes on (draws are claimed or automatic)."""
        return None

    # -- hooks ---------------------------------------------------------------------------------

    def occupied_after(self, move: Move) -> int:
        occ = self.occupied
        from_bb, to_bb = 1 << move.from_square, 1 << move.to_square
        if self.is_castling(move):
            rook_from, rook_to = castling_rook_squares(self, move)
            occ &= ~(from_bb | 1 << rook_from)
            return occ | 1 << _king_to(self, move) | 1 << rook_to
        if self.is_en_passant(move):
            occ &= ~(1 << en_passant_victim(move))
        return (occ & ~from_bb) | to_bb

    def move_mask(self, move: Move) -> int:
        squares = 1 << move.from_square | 1 << move.to_square
        if self.is_castling(move):
            rook_from, rook_to = castling_rook_squares(self, move)
            return squares | 1 << rook_from | 1 << rook_to
        if self.is_en_passant(move):
            return squares | 1 << en_passant_victim(move)
        return squares

    def landing_square(self, move: Move) -> Square:
        return _king_to(self, move) if self.is_castling(move) else move.to_square

    def capture_square(self, move: Move) -> Square | None:
        if self.is_en_passant(move):
            return en_passant_victim(move)
        return move.to_square if self.occupied_co[not self.turn] >> move.to_square & 1 else None

    def capture_to_mask(self, square: Square) -> int:
        if self.ep_square is not None and self.piece_type_at(square) == chess.PAWN:
            return 1 << square | 1 << self.ep_square
        return 1 << square

    def extra_targets(self) -> int:
        return self.castling_rights

    def attempt_region(self, diff: int) -> int:
        region = diff
        for square in chess.SquareSet(diff & self.kings & self.occupied_co[self.turn]):
            rank, file = chess.square_rank(square), chess.square_file(square)
            for side, rook_file, rook_to in ((2, 7, file + 1), (-2, 0, file - 1)):
                if 0 <= file + side < 8 and diff & ~self.occupied & chess.BB_SQUARES[chess.square(file + side, rank)]:
                    # The king went two files: the castling rook may still follow, as one attempt.
                    region |= chess.BB_SQUARES[chess.square(rook_file, rank)] | chess.BB_SQUARES[chess.square(rook_to, rank)]
        return region

    def compound_after(self, occupancy: int) -> chess.Move | None:
        # Castling after the rook moves the king of the side that just moved.
        if not self.move_stack or not self.kings & self.occupied_co[not self.turn] & ~occupancy:
            return None
        last = self.peek()
        if self.piece_type_at(last.to_square) != chess.ROOK or occupancy & chess.BB_SQUARES[last.to_square] == 0:
            return None
        rook_move = self.pop()
        try:
            for move in self.generate_castling_moves():
                if castling_rook_squares(self, move) == (rook_move.from_square, rook_move.to_square) and (
                    self.occupied_after(move) == occupancy
                ):
                    return move
            return None
        finally:
            self.push(rook_move)

    def commits_to(self, move: Move, occupancy: int) -> bool:
        return self.is_castling(move) and occupancy >> _king_to(self, move) & 1 == 1

    def touch_first_forbids(self, move: Move, touched: Square) -> bool:
        return self.is_castling(move) and self.piece_type_at(touched) == chess.ROOK

    def choices(self) -> tuple[str, ...]:
        return CHOICES

    def choice_of(self, move: Move) -> str | None:
        promotion = getattr(move, "promotion", None)  # chess.Move's; no typing.cast call on this path
        return _SYMBOL_OF.get(promotion)

    def with_choice(self, move: Move, choice: str) -> chess.Move:
        piece = _PIECE_OF.get(choice)
        if piece is None:
            raise ValueError(f"a promotion is one of {', '.join(CHOICES)}, got {choice!r:.20}")
        return chess.Move(move.from_square, move.to_square, piece)

    if TYPE_CHECKING:
        # The core's move type for the type checker (see the module docstring).
        def push(self, move: Move) -> None: ...
        def is_legal(self, move: Move) -> bool: ...
        def san(self, move: Move) -> str: ...
        def san_and_push(self, move: Move) -> str: ...
        def variation_san(self, variation: Iterable[Move]) -> str: ...
        def is_castling(self, move: Move) -> bool: ...
        def is_kingside_castling(self, move: Move) -> bool: ...
        def is_en_passant(self, move: Move) -> bool: ...
        def is_capture(self, move: Move) -> bool: ...


def board_from_fen(fen: str) -> ChessBoard:
    """A board from ``fen``; ValueError (python-chess's) names what is wrong."""
    return ChessBoard(fen)


def variation_moves(board: ChessBoard, moves: Sequence[str]) -> list[chess.Move]:
    """UCI strings as moves, checked one by one from ``board``; ValueError names the first bad one."""
    probe = board.copy(stack=False)
    out = []
    for uci in moves:
        move = probe.parse_uci(uci)
        probe.push(move)
        out.append(move)
    return out
