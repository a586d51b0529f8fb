"""Takebacks, as the session makes them: asked for (the takeback button, the page) and carried
out (the tracker's ``MoveTakenBack``: the record, the clocks and the engine go back too)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from boardctl.session.model import TAKEBACK_GRACE
from boardctl.tracker import MoveTakenBack

if TYPE_CHECKING:
    from boardctl.session.game import Session


class Takebacks:
    """Owns no state of its own: a takeback changes the record (the session's), the tracker's
    board, the clocks (``timing``) and the engine's turn (``engine``)."""

    def __init__(self, session: Session) -> None:
        self._s = session

    def take_back(self, t: float) -> None:
        """One takeback: against the engine the engine's reply and the human's move together."""
        s = self._s
        if s.pending is not None:
            s.turning.assumed()
            s._apply(s.tracker.expect(None, t))
        plies = 1
        if s.settings.mode == "play" and not s.is_engine_turn() and len(s.record.moves) >= 2:
            plies = 2
        plies = min(plies, len(s.board.move_stack))
        if plies == 0:
            s.warning = "nothing to take back"
            return
        s.engine.request = None
        s.turning.assumed()
        s._apply(s.tracker.take_back(plies, t))
        # the human moves next (or the engine, after the board matches)
        s.engine.schedule(t, delay=TAKEBACK_GRACE)

    def taken_back(self, out: MoveTakenBack) -> None:
        """The tracker took back ``out.move``: the record, the coach, the LEDs and the clocks too."""
        s = self._s
        record = s.record
        if record.moves and record.moves[-1] == out.move.uci():
            record.moves.pop()
            record.clocks.pop()
        record.violations = [v for v in record.violations if v.ply <= len(record.moves)]
        record.result, record.termination = "*", ""
        s.coaching.notes.trim(len(record.moves))
        s.display.light([])
        s.engine.forget()
        s.serial += 1
        s._dirty = True
        s.timing.restore(out.t)
        # By hand, more takebacks may follow; only then may the engine move again.
        s.engine.schedule(out.t, delay=TAKEBACK_GRACE)
