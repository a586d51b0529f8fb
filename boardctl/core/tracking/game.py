"""The game the board should show: its position, the illegal moves counted, whether it is over."""

from __future__ import annotations

from boardctl.core.geometry import Square
from boardctl.core.rules import Color, GameBoard, Move, Variant
from boardctl.core.tracking.outputs import Violation
from boardctl.events import Code


def can_mate(board: GameBoard, color: Color) -> bool:
    """Whether ``color`` could still mate by some legal series of moves (FIDE 6.9, 7.5.5)."""
    return not board.has_insufficient_material(color)


def loss_result(board: GameBoard, loser: Color) -> str:
    """The result when ``loser`` loses on time or by forfeit: a draw if the winner cannot mate."""
    if not can_mate(board, not loser):
        return "1/2-1/2"
    return "0-1" if loser else "1-0"


def no_moves_left(board: GameBoard) -> bool:
    """Mate or stalemate: the game is over whoever records it (other endings come from the session)."""
    return not any(board.generate_legal_moves())


def captures(board: GameBoard, move: Move, square: Square) -> bool:
    """Whether ``move`` takes the piece on ``square``."""
    return board.capture_square(move) == square


_START_OCCUPANCY: dict[str, int] = {}


def start_occupancy(variant: Variant) -> int:
    """The occupancy of ``variant``'s start position (worked out once per game)."""
    known = _START_OCCUPANCY.get(variant.name)
    if known is None:
        known = _START_OCCUPANCY[variant.name] = variant.board().occupied
    return known


class Game:
    """The moves accepted so far, on the tracker's own board (nobody else mutates it)."""

    def __init__(self, board: GameBoard) -> None:
        self.start(board)

    def start(self, board: GameBoard) -> None:
        """A new game from ``board``: nothing counted, over only if it has no move at all."""
        self.board = board
        self.illegal_counts: dict[Color, int] = {True: 0, False: 0}
        self.finished = no_moves_left(board)
        self.over_unknown = False  # True after a move until mate or stalemate is ruled out

    def check_over(self) -> bool:
        """Whether the game is over; mate or stalemate is looked for once per position, and only
        when needed (most positions are left by a legal move long before)."""
        if self.over_unknown:
            self.over_unknown = False
            if no_moves_left(self.board):
                self.finished = True
        return self.finished

    def push(self, move: Move) -> tuple[str, int]:
        """Play ``move``: its notation and ply. Mate (or, looked for later, no move at all) ends it."""
        board = self.board
        ply = len(board.move_stack) + 1
        san = board.san_and_push(move)
        if board.notation_marks_mate:  # the notation already says: "#" mate, "+" check
            self.finished = san.endswith("#")
            self.over_unknown = not self.finished and not san.endswith("+")
        elif board.is_check():
            self.finished = no_moves_left(board)
            self.over_unknown = False
        else:
            self.finished = False
            self.over_unknown = True
        return san, ply

    def pop(self) -> tuple[Move, int]:
        """Take the last move back: it and its ply. The game goes on."""
        ply = len(self.board.move_stack)
        move = self.board.pop()
        self.finished = False
        self.over_unknown = False
        return move, ply

    def violation(self, t: float, code: Code, detail: str) -> Violation:
        """A violation by the side to move, in the ply it is making."""
        return Violation(t, code, len(self.board.move_stack) + 1, self.board.turn, detail)
