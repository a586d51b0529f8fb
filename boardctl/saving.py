"""The daemon's saving: what the session's answers give to keep (log entries, records) goes to the
game store; while the disk fails it is kept in memory, the player is warned once per cause and
saving is retried (docs/events.md, ``storage``). One :class:`Keeper` per daemon."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

from boardctl.core.geometry import Geometry
from boardctl.events import Code, Event, LedIntent
from boardctl.session import Effects
from boardctl.storage import EventLog, GameRecord, GameStore

log = logging.getLogger(__name__)

#: While saving fails, how often to try again besides on every move (seconds).
STORAGE_RETRY_INTERVAL = 5.0


def corner_squares(geometry: Geometry) -> tuple[int, ...]:
    """Where the ``storage`` warning shows on the board: the four corners (a1 h1 a8 h8 in chess)."""
    files, points = geometry.files, geometry.points
    return (0, files - 1, points - files, points - 1)


class Keeper:
    """Owns what is not on disk yet (``_unsaved_events``, ``_unsaved_records``), the open event
    log, why saving fails (``error``, shown; ``reason``, for the log) and its retry, the save
    put off until after the state line (``after_publish``), and whether the board has said
    anything yet (``board_seen``: a board that never answered leaves no empty game behind)."""

    def __init__(
        self,
        store: GameStore,
        *,
        current: Callable[[], GameRecord],
        failed: Callable[[bool], None],
        recovered: Callable[[], object],
    ) -> None:
        """``current``: the game being played (named in the log); ``failed(first)``: saving
        failed (``first``: it worked until now); ``recovered``: what was kept is on disk now."""
        self.store = store
        self._current = current
        self._failed = failed
        self._recovered = recovered
        self._log: EventLog | None = None
        self._unsaved_events: list[tuple[str, Event]] = []
        self._unsaved_records: dict[str, GameRecord] = {}
        self.error: str | None = None
        self.reason = ""
        self._retry: asyncio.TimerHandle | None = None
        self._soon: asyncio.TimerHandle | None = None
        self.closed = False
        self.board_seen = False
        #: Save a millisecond after the state line rather than before it (network games: the other
        #: board sees a move without waiting for this disk's fsyncs); closing always saves at once.
        self.after_publish = False
        #: Called with each game record once it is on disk (play --opponent rates finished games).
        self.on_record_saved: list[Callable[[GameRecord], object]] = []

    def keep(self, effects: Effects) -> None:
        """Take what ``effects`` gives to save and write it (now, or just after the state line);
        on failure keep it and warn (never raise)."""
        for old in effects.finished:
            self._unsaved_records[old.id] = old
        self._unsaved_events.extend(effects.log)  # (game id, entry): each entry to its own game's log
        if effects.record is not None and self.is_worth_saving(effects.record):
            self._unsaved_records[effects.record.id] = effects.record
        elif self.error is not None and not effects.log:
            return  # nothing new: the retry timer tries again, not every clock tick
        if self.after_publish and not self.closed:
            if self._soon is not None:
                return  # already due in a moment
            with contextlib.suppress(RuntimeError):  # no running loop: saved at once below
                self._soon = asyncio.get_running_loop().call_later(0.001, self._write_later)
                return
        self.write()

    def _write_later(self) -> None:
        self._soon = None
        self.write()

    def write(self) -> bool:
        """Write the kept events and records; True when nothing is left unsaved."""
        if self._soon is not None:
            self._soon.cancel()
            self._soon = None
        if not self._unsaved_events and not self._unsaved_records:
            return True
        try:
            while self._unsaved_events:
                game_id = self._unsaved_events[0][0]
                batch = [e for gid, e in self._unsaved_events if gid == game_id]
                if self._log is None or self._log.path != self.store.path(game_id, ".jsonl"):
                    if self._log is not None:
                        self._log.close()
                    self._log = self.store.event_log(game_id)
                self._log.extend(batch)
                self._unsaved_events = [(gid, e) for gid, e in self._unsaved_events if gid != game_id]
            for game_id, record in list(self._unsaved_records.items()):
                self.store.save(record)
                del self._unsaved_records[game_id]
                for hook in self.on_record_saved:
                    try:
                        hook(record)
                    except Exception:  # a hook must never stop saving
                        log.exception("after saving game %s", game_id)
        except OSError as exc:
            self.failed(exc)
            return False
        if self.error is not None:
            log.warning("saving works again: game %s saved in %s", self._current().id, self.store.root)
            self.error = None
        return True

    def failed(self, exc: OSError) -> None:
        """Keep the game in memory, warn once per distinct cause (LEDs, buzzer, state line, log), retry."""
        reason = getattr(exc, "reason", None) or exc.strerror or str(exc)
        self.reason = reason
        message = f"cannot save in {self.store.root} ({reason}); the game is kept in memory and saving is retried"
        first = self.error is None
        if message != self.error:
            log.error("cannot save the game: %s (moves so far: %s)", exc, " ".join(self._current().moves) or "none")
        self.error = message
        self._schedule_retry()
        self._failed(first)

    def _schedule_retry(self) -> None:
        if self.closed or (self._retry is not None and not self._retry.cancelled()):
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._retry = loop.call_later(STORAGE_RETRY_INTERVAL, self._retry_now)

    def _retry_now(self) -> None:
        self._retry = None
        if self.closed or self.error is None:
            return
        if self.write():
            self._recovered()  # the warning goes off the LEDs and the page
        else:
            self._schedule_retry()

    def leds(self, geometry: Geometry) -> list[LedIntent]:
        """The ``storage`` warning's LEDs while saving fails, else none."""
        if self.error is None:
            return []
        return [LedIntent(square, Code.STORAGE) for square in corner_squares(geometry)]

    def is_worth_saving(self, record: GameRecord) -> bool:
        """Not before the board has said anything: a board that never answered (a serial port
        waited for with ``serial_wait``) leaves no empty game behind."""
        return bool(self.board_seen or record.moves or self.store.path(record.id, ".json").exists())

    def stop(self) -> None:
        """The daemon closes: no more retries, and what is kept is written at once."""
        self.closed = True
        if self._retry is not None:
            self._retry.cancel()

    def close(self, record: GameRecord) -> bool:
        """The last save (``record``: the game as it stands, saved whether changed or not); True
        when everything is on disk."""
        self.stop()
        if self.is_worth_saving(record):
            self._unsaved_records[record.id] = record
        saved = self.write()
        if self._log is not None:
            self._log.close()
        return saved
