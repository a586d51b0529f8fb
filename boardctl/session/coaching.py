"""The coach's side of the session (boardctl.learning.coach judges): whether a coach judges the
human's moves, its verdicts as LEDs and page lines, and the review saved with the game."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from boardctl.events import Code, LedIntent
from boardctl.learning.verdicts import CoachNotes, Verdict
from boardctl.levels import PRACTICE_LEVELS
from boardctl.session.model import legal

if TYPE_CHECKING:
    from boardctl.session.game import Session


class Coaching:
    """Owns the coach's ``notes`` (its verdicts on this game's moves)."""

    def __init__(self, session: Session) -> None:
        self._s = session
        self.notes = CoachNotes()

    def is_coached(self) -> bool:
        """A coach judges the human's moves: asked for (``--coach``), or at a practice level
        unless turned off (``--no-coach``)."""
        settings = self._s.settings
        if settings.mode != "play":
            return False
        if settings.coach is not None:
            return settings.coach
        return settings.level in PRACTICE_LEVELS

    def verdict(self, verdict: Verdict | None, ply: int, move: str) -> bool:
        """The coach's answer about the move ``move`` at ``ply``; True when the LEDs and the page
        change (the better move lit with ``coach``, replacing the blunder warning)."""
        s = self._s
        if not self.is_coached() or not self.notes.accept(verdict, ply=ply, move=move, moves=s.record.moves):
            return False
        assert verdict is not None
        board = s.variant.board(s.record.fen)
        for uci in s.record.moves[:ply]:
            board.push(board.parse_uci(uci))
        better = legal(board, verdict.best)
        if better is not None:
            s.display.light([LedIntent(better.from_square, Code.COACH), LedIntent(better.to_square, Code.COACH)])
            s.display.sound(Code.COACH)
        if s.is_over():
            self.save_review()
        return True

    def line(self) -> dict[str, Any] | None:
        """The state line's ``coach``: the verdict on the last move, while it is on the board."""
        current = self.notes.current
        if current is None or not self.is_coached() or current.ply >= len(self._s.record.moves):
            return None
        return current.to_json()

    def review(self) -> list[dict[str, Any]] | None:
        """The state line's ``review`` (the verdicts of a coached game)."""
        return [v.to_json() for v in self.notes.review()] if self.is_coached() else None

    def save_review(self) -> None:
        if self.is_coached():
            self._s.record.review = self.notes.annotations()
            self._s._dirty = True
