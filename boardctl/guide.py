"""Guided mode: what a session asks of the guide that leads it (a lesson, a replayed game).

A :class:`~boardctl.session.Session` with a ``guide`` stays the game it always is (tracker, record,
LEDs, buttons); the guide only adds to it, through five calls the session makes:

- ``after(session, t)`` once every input has been applied: the guide looks at the moves made
  (``session.record.moves``), judges a new one, has a wrong one taken back
  (:meth:`Session.take_back`) and may make the other side's move itself
  (:meth:`Session.engine_replied` with the session's own request);
- ``on_button(session, button, t)`` first for every button; True means the guide handled it;
- ``may_ask_engine(session, kind)``: whether the engine may be asked now (a lesson plays its
  own replies; after the line it lets the engine play on);
- ``leds(session, intents)``: the LEDs to show, given the tracker's and the session's (logical
  squares); the guide adds its own, or replaces them (a replay being watched);
- ``state(session)``: keys added to the state line (``lesson``, ``step``, ``message``);
- ``take_sounds()``: the codes to sound since the last call (``lesson-wrong``).

A guide may name a ``record_mode`` (one of :data:`GUIDED_MODES`): the games it leads are saved
with that mode instead of ``play``/``record``, so that ``play`` and ``record`` never resume one
left midway, and ``games list`` says "left midway", not "unfinished".

Guides are pure like the session: no I/O and no clock; anything to save or say goes through a
callback their creator gives them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Protocol

from boardctl.core.geometry import Square
from boardctl.core.rules import GameBoard, Move
from boardctl.events import Button, Code, LedIntent

if TYPE_CHECKING:
    from boardctl.session import Session


#: The modes of the games a guide leads (a lesson's, a replay's): no game to resume.
GUIDED_MODES = ("lesson", "replay")


class Guide(Protocol):
    def after(self, session: Session, t: float) -> None: ...

    def on_button(self, session: Session, button: Button, t: float) -> bool: ...

    def may_ask_engine(self, session: Session, kind: str) -> bool: ...

    def leds(self, session: Session, intents: list[LedIntent]) -> list[LedIntent]: ...

    def state(self, session: Session) -> dict[str, Any]: ...

    def take_sounds(self) -> list[Code]: ...


def squares(mask: int) -> Iterator[Square]:
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def move_leds(board: GameBoard, move: Move, code: Code) -> list[LedIntent]:
    """``move``'s squares on ``board`` (from, to, and a castling rook's or an e.p. victim's), lit ``code``."""
    return [LedIntent(square, code) for square in squares(board.move_mask(move))]


def legal(board: GameBoard, uci: str) -> Move | None:
    """The legal move written ``uci`` on ``board``, or None."""
    try:
        return board.parse_uci(uci)
    except ValueError:
        return None


def wrong_leds(intents: list[LedIntent]) -> list[LedIntent]:
    """A wrong move's squares, while they are still to be put back (the tracker lights them
    ``takeback``), lit ``lesson-wrong`` as well: the board shows ``takeback`` (higher in the
    table), the state line and the page say both."""
    return [LedIntent(i.square, Code.LESSON_WRONG) for i in intents if i.why == Code.TAKEBACK]
