"""New games, as the session starts them: asked for (a button, the page, a rematch) or begun by
the tracker itself (the start position set up), and the game left behind (abandoned, saved)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from boardctl.events import GameDecided
from boardctl.storage import GameRecord

if TYPE_CHECKING:
    from boardctl.session.game import Session
    from boardctl.session.model import Settings


class NewGames:
    """Owns the records left behind still to save (``take_finished``) and two flags of
    :meth:`new_game`: whether the tracker's own ``GameStarted`` came, and that a start is wanted
    (agreed: not a start the tracker saw on the board by itself)."""

    def __init__(self, session: Session) -> None:
        self._s = session
        self._to_save: list[GameRecord] = []
        self._game_started = False
        self._agreed_start = False  # in new_game(): the tracker's GameStarted is wanted

    def new_game(self, t: float, *, fen: str | None = None, settings: Settings | None = None) -> None:
        """Start a new game now (button or web); the tracker waits for the board to match."""
        s = self._s
        if settings is not None:
            s.settings = settings
        board = s.variant.board(fen) if fen else None
        self._game_started = False
        self._agreed_start = True  # asked for: not a start the tracker saw on the board by itself
        try:
            s._apply(s.tracker.new_game(t, board))
            if not self._game_started:
                self.started(board.fen() if board else s.variant.starting_fen, t)
        finally:
            self._agreed_start = False
        s._after(t)

    def started(self, fen: str, t: float) -> None:
        """A new game from ``fen`` begins (the tracker's ``GameStarted``, or :meth:`new_game`)."""
        s = self._s
        if s.remote.restoring:
            return
        if s.local_color() is not None and not self._agreed_start:
            s.remote.keep_game(t)
            return
        old = s.record
        s.record = s._new_record(fen)
        if not old.moves and not old.is_finished():
            s.record.id = old.id  # nothing worth keeping: the same files are reused
        elif not old.is_finished():
            old.termination = "abandoned"
            self._to_save.append(old)
            if self._agreed_start and s._started:
                # Abandoned from outside the board's events (the page's New game): its log says so.
                s.game_log.add(old.id, GameDecided(t, "*", "abandoned"))
        s.turning.new_game(t)
        s.timing.new_game()
        s.notice = None
        s.referee.new_game()
        s.remote.offer = None
        s.remote.rematch_offered = False
        s.warning = None
        s.display.light([])
        s.engine.forget()
        s.coaching.notes.clear()
        self._game_started = True
        s.serial += 1
        s._dirty = True
        s.game_log.new_game(t)
        s.engine.schedule(t)

    def take_finished(self) -> list[GameRecord]:
        """Earlier records to save once more (a game abandoned for a new one)."""
        records, self._to_save = self._to_save, []
        return records
