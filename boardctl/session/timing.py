"""The game's clock, as the session runs it: whose time runs when a move is made, shown (the
engine's, the other board's) or taken back, and the wait for the pieces before it starts."""

from __future__ import annotations

from typing import TYPE_CHECKING

from boardctl.clock import Clock, TimeControl
from boardctl.core.rules import Color
from boardctl.session.model import ARBITER_BONUS

if TYPE_CHECKING:
    from boardctl.session.game import Session


class Timekeeper:
    """Owns the ``clock`` (None: no time control), whether it ``waits`` for the board to match
    the game before it starts, and ``shown_left``: the time the mover of a move shown on the
    LEDs (the engine's, the other board's) had when it was shown."""

    def __init__(self, session: Session) -> None:
        self._s = session
        self.clock = self._make()
        #: A clock waits for the board to match the game before it starts (a new game being set
        #: up, a resumed game whose pieces are not back yet): nobody's time runs meanwhile.
        self.waits = False
        self.shown_left: float | None = None

    def _make(self) -> Clock | None:
        s = self._s
        control = TimeControl.from_string(s.record.time_control)
        if control is None:
            return None
        names = s.variant.color_names
        if s.record.clock is not None:
            return Clock.from_json(control, s.record.clock, names=names)
        return Clock(control, names=names)

    def new_game(self) -> None:
        """A new game's clock, which starts once the pieces are set up."""
        self.clock = self._make()
        self.waits = self.clock is not None
        self.shown_left = None

    def on_start(self) -> None:
        """Time starts for the session: a clock not running waits for the board (resume)."""
        if self.clock is not None and not self._s.is_over() and self.clock.running is None:
            self.waits = True  # started by start_when_matching

    def start_when_matching(self, t: float) -> None:
        """Start the waiting clock once the pieces stand as the game says (not while setting up)."""
        s = self._s
        if not self.waits or self.clock is None:
            return
        if s.is_over():
            self.waits = False
            return
        if not s.tracker.is_matching():
            return
        self.waits = False
        if s.pending is not None:  # resumed with the engine's move on the LEDs: the human's time
            self.shown_left = self.clock.remaining(s.board.turn, t)
            self.clock.start(not s.board.turn, t)
        else:
            self.clock.start(s.board.turn, t)

    def moved(self, mover: Color, shown: bool, t: float) -> float | None:
        """A move made on the board by ``mover`` (``shown``: the engine's or the other board's,
        lit before): the mover's time left, None without a clock."""
        left: float | None = None
        if self.waits and self.clock is not None:
            self.waits = False
            self.clock.start(mover, t)
        if self.clock is not None:
            if shown:
                left = self.shown_left  # switched when the move was shown
            else:
                left = self.clock.moved(mover, t)
                self.clock.start(not mover, t)  # an engine's time runs while it thinks
        self.shown_left = None
        return left

    def engine_shown(self, t: float) -> None:
        """The engine's move is lit for the human to make by hand: the human's time runs from now."""
        if self.clock is None:
            return
        engine_color = self._s.board.turn
        self.shown_left = round(self.clock.moved(engine_color, t), 3)
        self.clock.start(not engine_color, t)

    def remote_shown(self, t: float, left: float | None) -> None:
        """The other board's move is lit for this board's player to make by hand, whose time
        runs from now. ``left``: the mover's time as the authoritative side counts it."""
        if self.clock is None:
            return
        mover = self._s.board.turn
        moved = self.clock.moved(mover, t) if left is None else left
        if left is not None:
            self.clock.stop(t)
            self.clock.take_back(mover, left)
        self.shown_left = round(moved, 3)
        self.waits = False
        self.clock.start(not mover, t)  # this board's time runs from the moment it is lit

    def sync(self, remaining: dict[str, float], running: str | None, t: float) -> None:
        """Set both clocks to the authoritative side's times (``remaining`` by colour name)."""
        if self.clock is None or self._s.is_over():
            return
        names = self._s.variant.color_names
        self.clock.stop(t)
        for color, name in ((True, names[0]), (False, names[1])):
            if name in remaining:
                self.clock.take_back(color, float(remaining[name]))
        if running in names:
            self.clock.start(running == names[0], t)
            self.waits = False

    def restore(self, t: float) -> None:
        """After a takeback: each side's time as it was at its last move still on the record."""
        if self.clock is None:
            return
        s = self._s
        board = s.variant.board(s.record.fen)
        left = {True: self.clock.control.initial, False: self.clock.control.initial}
        for uci, clk in zip(s.record.moves, s.record.clocks, strict=True):
            if clk is not None:
                left[board.turn] = clk
            board.push(board.parse_uci(uci))
        self.clock.stop(t)
        for color, value in left.items():
            self.clock.take_back(color, value)
        self.clock.start(s.board.turn, t)

    def flagged(self, t: float) -> Color | None:
        return self.clock.flagged(t) if self.clock is not None else None

    def stop(self, t: float) -> None:
        if self.clock is not None:
            self.clock.stop(t)

    def arbiter_bonus(self, color: Color) -> None:
        """FIDE 7.5.5: the first completed illegal move of ``color`` gives the opponent two minutes."""
        if self.clock is not None:
            self.clock.add(not color, ARBITER_BONUS)

    def budget(self, t: float) -> float | None:
        """A fortieth of the side to move's time left plus half the increment: never flag for thinking."""
        if self.clock is None:
            return None
        left = self.clock.remaining(self._s.board.turn, t)
        return left / 40 + self.clock.control.increment / 2
