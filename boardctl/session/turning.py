"""Which way round the board stands, for the session: physical squares (the board's wiring) to
logical ones (the game's) and, before the first move of an ``auto`` game, both readings of the
board (boardctl.orientation) until a move tells."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from boardctl.core.geometry import Square
from boardctl.core.rules import Move
from boardctl.events import Event, Snapshot, SquareChanged, Tick
from boardctl.orientation import Readings

if TYPE_CHECKING:
    from boardctl.session.game import Session


class Turning:
    """Owns ``flipped`` (None: not known yet) and ``readings`` (the two readings while it is not
    known); switches the session's tracker to the reading that won."""

    def __init__(self, session: Session) -> None:
        self._s = session
        self.flipped: bool | None = {"normal": False, "flipped": True}.get(session.record.orientation)
        self.readings: Readings | None = None

    def begin(self, t: float | None = None) -> None:
        """A game's orientation from its record; unknown: the first move tells (both readings),
        known: one reading (the last game's turned reading must never read this game's set-up
        as moves)."""
        self.flipped = {"normal": False, "flipped": True}.get(self._s.record.orientation)
        self.readings = self._make_readings(t) if self.flipped is None else None

    def new_game(self, t: float) -> None:
        """A new game: with ``auto`` the board stays where it is, if that is known."""
        s = self._s
        if self.flipped is not None and s.settings.orientation == "auto":
            s.record.orientation = "flipped" if self.flipped else "normal"
        self.begin(t)

    def _make_readings(self, t: float | None = None) -> Readings:
        """The board read as it stands (the session's tracker) and turned round, from the same
        position. While the pieces are being set up for a new game, the turned reading waits for
        its own set-up too: set-up changes read turned round must never count as moves."""
        s = self._s
        board = s.tracker.board
        turned = s._make_tracker(board.copy(), s.geometry.turn_mask(s.tracker.occupancy))
        if t is not None and s.tracker.is_setting_up():
            turned.new_game(t, board.copy())
        return Readings(s.geometry, s.tracker, turned)

    def told(self, flipped: bool) -> None:
        """The first move told which way round the board stands: keep that reading, and log the
        events sensed so far in game orientation."""
        s = self._s
        readings = self.readings
        assert readings is not None
        self.readings = None
        self.flipped = flipped
        s.record.orientation = "flipped" if flipped else "normal"
        s.tracker = readings.turned if flipped else readings.normal
        for event in readings.unlogged:
            s.game_log.entry(self.to_logical(event))
            # a resumed game: what the switches showed, first
            s.game_log.snapshot_first(event.t, self.logical_bb(readings.normal_start))
        s._dirty = True

    def assumed(self) -> None:
        """Something other than a move (a takeback, the engine, the result) needs one reading
        before a move told: the board as it stands."""
        if self.readings is not None:
            self.told(False)

    def feed(self, event: Event) -> None:
        """Auto orientation before the first move: both readings take the event."""
        s = self._s
        readings = self.readings
        assert readings is not None
        readings.unlogged.append(event)
        flipped, step = readings.feed(event)
        if flipped is not None:
            self.told(flipped)
        s._apply(step)
        s._after(event.t)

    def tick(self, t: float) -> None:
        """Time passes before the first move told: both readings take it."""
        s = self._s
        readings = self.readings
        assert readings is not None
        flipped, step = readings.tick(t)
        if step.outputs:
            readings.unlogged.append(Tick(t))  # a tick that changed something: replay needs it
        if flipped is not None:
            self.told(flipped)
        s._apply(step)
        s._after(t)

    def hint(self, move: Move | None) -> None:
        """A hint shown before the orientation is known: the turned reading shows it too."""
        if self.readings is not None:
            self.readings.turned.hint(move)

    def logical_sq(self, square: Square) -> Square:
        return self._s.geometry.turned(square) if self.flipped else square

    def logical_bb(self, bb: int) -> int:
        return self._s.geometry.turn_mask(bb) if self.flipped else bb

    def to_logical(self, event: Event) -> Event:
        if isinstance(event, SquareChanged):
            return replace(event, square=self.logical_sq(event.square))
        if isinstance(event, Snapshot):
            return replace(event, occupancy=self.logical_bb(event.occupancy))
        return event
