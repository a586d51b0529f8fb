"""Touch-move (FIDE 4.3-4.6; xiangqi's 摸子走子 and 落子无悔): which move the player is bound to.

The first own piece touched deliberately must move; an opponent's piece kept off past the settle
time must be captured; a king released on its castling square must castle; touching the rook
first forbids castling. The engine's move, while it waits to be made, is the only one allowed.
Policy ``casual`` binds to nothing but the engine's move.
"""

from __future__ import annotations

from collections.abc import Callable

from boardctl.core.geometry import Square, squares_of
from boardctl.core.rules import Move
from boardctl.core.tracking.game import Game, captures
from boardctl.core.tracking.outputs import Policy, Timing
from boardctl.core.tracking.readings import BIT, Readings
from boardctl.core.tracking.recognition import Recognizer
from boardctl.events import Code


class TouchMove:
    """What binds the move being made; forgotten whole when a move completes (:meth:`new_turn`)."""

    def __init__(
        self, policy: Policy, timing: Timing, game: Game, readings: Readings, recognizer: Recognizer,
        name: Callable[[Square], str],
    ) -> None:
        self.policy = policy
        self._settle = timing.settle
        self._game = game
        self._readings = readings
        self._recognizer = recognizer
        self._name = name
        self.new_turn()

    def new_turn(self, expected: Move | None = None) -> None:
        """A new move to make (``expected``: the engine's): nothing touched yet."""
        #: The first own piece deliberately lifted that has a legal move (FIDE 4.3), and when.
        self.touched: Square | None = None
        self.touched_t = float("inf")
        #: The first opponent's piece kept off past the settle time that can be captured, and when.
        self.victim: Square | None = None
        self.victim_t = float("inf")
        #: Castling the player is committed to: the king was released on its castling square (4.4).
        self.castle: Move | None = None
        #: The engine's move waiting to be made on the board: only it is accepted meanwhile.
        self.expected = expected
        #: "J'adoube" announced: lifts now are adjustments, not touches.
        self.adjusting = False

    def commit_castle(self, castle: Move) -> None:
        """The king was released on its castling square: castling is due (strict, no engine move)."""
        if self.policy is Policy.STRICT and self.expected is None:
            self.castle = castle

    def update(self, t: float, *, exclude: int = 0) -> None:
        """The first piece of each colour touched deliberately, as FIDE 4.3 counts them
        (``exclude``: the other side's lifts that belong to the reply)."""
        if self.policy is not Policy.STRICT or self.expected is not None or self.adjusting:
            return  # casual, the engine's move, or "j'adoube" announced
        if self.touched is not None and self.victim is not None:
            return
        board = self._game.board
        readings = self._readings
        own = board.occupied_co[board.turn]
        theirs = board.occupied_co[not board.turn]
        if not readings.lifted & (theirs & ~exclude if self.touched is not None else board.occupied):
            return  # nothing new to find: no piece (no opponent's piece, once the own one is known) lifted
        log = readings.log
        seen = 0
        touched, touched_t = self.touched, self.touched_t
        victim, victim_t = self.victim, self.victim_t
        for index, change in enumerate(log):
            bit = BIT[change.square]
            if change.occupied or seen & bit:
                continue
            if own & bit and touched is None and not board.move_stack and readings.put_back_quickly(index):
                continue  # straightened before the first move: the game has not begun; a later lift counts
            seen |= bit
            if touched is not None and own & bit:
                continue
            if own & bit:
                if touched is None and self._recognizer.has_legal_move_from(change.square) and not (
                    len(log) > 1 and readings.is_knocked(index)
                ):
                    touched, touched_t = change.square, change.t
            elif theirs & bit & ~exclude and victim is None:
                back = next((c.t for c in log[index + 1:] if c.square == change.square), t)
                if back - change.t >= self._settle and not readings.is_knocked(index) and self._recognizer.can_capture(change.square):
                    victim, victim_t = change.square, change.t
        self.touched, self.touched_t, self.victim, self.victim_t = touched, touched_t, victim, victim_t

    def capture_obligation(self, t: float) -> Square | None:
        """An opponent's piece kept off past the settle time, while a legal move would have matched."""
        if self.policy is not Policy.STRICT or self.expected is not None:
            return None
        board = self._game.board
        readings = self._readings
        occ = readings.occ
        theirs = board.occupied_co[not board.turn]
        off = theirs & ~occ
        for square in squares_of(off):
            lift = readings.first_lift(square)
            if lift is None or t - lift.t < self._settle or readings.is_knocked(readings.log.index(lift)):
                continue
            with_victim = occ | BIT[square]
            if any(after == with_victim for _, after in self._recognizer.legal_after()):
                return square
        return None

    def refusal(self, move: Move) -> tuple[Code, str] | None:
        """Why FIDE 4.3-4.4 forbids ``move`` now, or None."""
        board = self._game.board
        name = self._name
        if self.castle is not None and move != self.castle:
            king = name(board.landing_square(self.castle))
            return Code.TOUCH_MOVE, f"{board.san(move)} but the king was released on {king}: castling {board.san(self.castle)} is due"
        own, victim = self.touched, self.victim
        if own is not None and victim is not None:
            pair = [m for m in board.generate_legal_moves(BIT[own]) if captures(board, m, victim)]
            if pair:
                if move.from_square == own and captures(board, move, victim):
                    return None
                return Code.TOUCH_MOVE, f"{board.san(move)} but {name(own)} must capture {name(victim)}"
            if self.touched_t <= self.victim_t:
                victim = None
            else:
                own = None
        if own is not None and move.from_square != own:
            if board.touch_first_forbids(move, own):
                return Code.CASTLING_ROOK_FIRST, f"rook {name(own)} touched before the king"
            return Code.TOUCH_MOVE, f"{board.san(move)} but {name(own)} was touched first"
        if victim is not None and own is None and not captures(board, move, victim):
            return Code.TOUCH_MOVE, f"{board.san(move)} but {name(victim)} was taken off and must be captured"
        return None

    def show(self, lit: dict[Square, Code]) -> None:
        """A piece touched or taken off and put back: a reminder that it must move or be captured."""
        if self.expected is not None:
            return
        occ = self._readings.occ
        if self.touched is not None and occ & BIT[self.touched]:
            lit.setdefault(self.touched, Code.TOUCH_MOVE)
        if self.victim is not None and occ & BIT[self.victim]:
            lit.setdefault(self.victim, Code.TOUCH_MOVE)
