"""The game log the session writes (docs/events.md): a header line once time starts, then every
event in game orientation, each with the id of the game whose ``.jsonl`` it belongs to."""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from boardctl.events import Event, GameHeader, Snapshot
from boardctl.session.model import HEADER_VERSION

if TYPE_CHECKING:
    from boardctl.session.game import Session


class GameLog:
    """Owns the entries not yet taken, the header still to write and whether a resumed game's
    first snapshot (what the switches showed) is still to come."""

    def __init__(self, session: Session) -> None:
        self._s = session
        self._entries: list[tuple[str, Event]] = []
        self._header: dict[str, Any] | None = self._header_now()  # logged once time starts
        self._need_snapshot = session.resumed

    def _header_now(self) -> dict[str, Any]:
        """The header line's content: all a replay needs to judge the events as this session does."""
        s = self._s
        return {
            "version": HEADER_VERSION,
            "settings": asdict(s.settings),
            "record": s.record.to_json(),
            "occupancy": s.geometry.to_hex(s.tracker.occupancy),
        }

    def header(self, t: float) -> None:
        """The header line, stamped ``t``, unless written already."""
        if self._header is not None:
            self._entries.append((self._s.record.id, GameHeader(t, self._header)))
            self._header = None

    def new_game(self, t: float) -> None:
        """A new game's header, at once: later entries go to the new game's own log."""
        self._header = self._header_now()
        self.header(t)

    def entry(self, entry: Event) -> None:
        """``entry`` in the current game's log."""
        # Something other than a sensed event before any move told the orientation (the engine's
        # move, a network result): the board as it stands, and the events sensed so far logged
        # first, so that the log's times never go back.
        self._s.turning.assumed()
        self.header(entry.t)
        self._entries.append((self._s.record.id, entry))

    def add(self, game: str, entry: Event) -> None:
        """``entry`` in the log of game ``game`` as it is (a tick, an abandoned game's end)."""
        self._entries.append((game, entry))

    def snapshot_first(self, t: float, occupancy: int) -> None:
        """A resumed game: what the switches showed (logical), before the first event logged."""
        if self._need_snapshot:
            self._entries.insert(len(self._entries) - 1, (self._s.record.id, Snapshot(t, occupancy)))
            self._need_snapshot = False

    def take(self) -> list[tuple[str, Event]]:
        entries, self._entries = self._entries, []
        return entries
