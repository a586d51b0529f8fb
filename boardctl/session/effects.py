"""What the session answers every input with (issue 31): one value the daemon carries out, as the
tracker answers every event with a ``Step``. The session does no I/O; everything its input asks
of the world (lights, the buzzer, the disk, the engine, the other board) is in here."""

from __future__ import annotations

from dataclasses import dataclass

from boardctl.events import Code, Event, LedIntent
from boardctl.session.model import EngineRequest
from boardctl.storage import GameRecord


@dataclass(frozen=True, slots=True)
class Effects:
    """The answer to one input (or to several, joined with :meth:`then`).

    ``leds``: the complete set to show now, physical squares; ``sounds``: the codes to sound, in
    order; ``log``: game-log entries, each with the id of the game whose ``.jsonl`` it belongs
    to; ``finished``: earlier records to save once more (a game abandoned for a new one);
    ``record``: the game's record when it changed (to save), else None; ``engine``: what the
    engine should be asked now (None: nothing; the same object again: already asked);
    ``requests``: this board's requests for the other side of a network game
    (``NETWORK_REQUESTS``); ``changed``: the game changed, not only the time.
    """

    leds: tuple[LedIntent, ...] = ()
    sounds: tuple[Code, ...] = ()
    log: tuple[tuple[str, Event], ...] = ()
    finished: tuple[GameRecord, ...] = ()
    record: GameRecord | None = None
    engine: EngineRequest | None = None
    requests: tuple[str, ...] = ()
    changed: bool = False

    def then(self, later: Effects) -> Effects:
        """This answer followed by ``later``: what is shown and asked is the later one's, what is
        said, logged and saved is both's, in order (a record changed first and then left for a
        new game is saved too)."""
        finished = self.finished
        if self.record is not None and later.record is not None and self.record is not later.record:
            finished += (self.record,)
        return Effects(
            leds=later.leds,
            sounds=self.sounds + later.sounds,
            log=self.log + later.log,
            finished=finished + later.finished,
            record=later.record if later.record is not None else self.record,
            engine=later.engine,
            requests=self.requests + later.requests,
            changed=self.changed or later.changed,
        )


#: The answer of an input made inside another one (a guide's takeback while the session applies
#: a move): the outer input's answer holds its effects.
NOTHING = Effects()
