"""What the session shows: the LEDs (the tracker's and the session's own, in the board's wiring),
the sounds, and the state line everyone sees (stdio, web page; docs/events.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from boardctl.core.geometry import Square
from boardctl.events import Code, LedIntent

if TYPE_CHECKING:
    from boardctl.session.game import Session


class Display:
    """Owns the LEDs to light (``tracker_leds``: the tracker's last, ``extra_leds``: the
    session's own, logical squares) and the sounds not yet taken."""

    def __init__(self, session: Session) -> None:
        self._s = session
        self.tracker_leds: tuple[LedIntent, ...] = ()
        self.extra_leds: list[LedIntent] = []
        self._sounds: list[Code] = []

    def light(self, intents: list[LedIntent]) -> None:
        """The session's own LEDs from now on (replacing the ones before; [] puts them out)."""
        self.extra_leds = intents

    def light_kings(self, why: Code) -> None:
        """Both kings (generals) lit for ``why`` (a draw offered or to claim)."""
        self.extra_leds = [LedIntent(sq, why) for sq in self.king_squares()]

    def king_squares(self) -> list[Square]:
        board = self._s.board
        return [sq for c in (True, False) if (sq := board.king(c)) is not None]

    def sound(self, code: Code) -> None:
        self._sounds.append(code)

    def take_sounds(self) -> list[Code]:
        sounds, self._sounds = self._sounds, []
        return sounds

    def leds(self) -> list[LedIntent]:
        """The LEDs to light now, physical squares, tracker's first then the session's."""
        s = self._s
        seen: set[tuple[int, str]] = set()
        out: list[LedIntent] = []
        network = s.settings.mode == "network"
        intents = [*self.tracker_leds, *self.extra_leds]
        if s.guide is not None:
            intents = s.guide.leds(s, intents)
        for intent in intents:
            why = Code.REMOTE_MOVE if network and intent.why is Code.ENGINE_MOVE else intent.why
            phys = LedIntent(s.turning.logical_sq(intent.square), why)
            if (phys.square, phys.why) not in seen:
                seen.add((phys.square, phys.why))
                out.append(phys)
        return out

    def state_line(self) -> dict[str, Any]:
        """The state everyone sees (stdio, web page); keys documented in docs/events.md."""
        s = self._s
        line: dict[str, Any] = {
            "fen": s.board.fen(),
            "start_fen": s.record.fen,
            "occupancy": s.geometry.to_hex(s.turning.logical_bb(s.tracker.occupancy)),
            "pending": None if s.pending is None else s.pending.uci(),
            "promotion": None if s.tracker.promotion is None else s.tracker.promotion.uci(),
            "moves": [move.uci() for move in s.tracker.moves],
            "leds": [intent.to_json(s.geometry) for intent in self.leds()],
            "result": s.record.result,
            "termination": s.record.termination or None,
            "turn": s.variant.color_name(s.board.turn),
            "variant": s.variant.name,
            "mode": s.settings.mode,
            "human": s.record.human,
            "level": s.record.level,
            "orientation": s.record.orientation,
            "clock": None if s.clock is None else s.clock.to_json(s.t),
            "hint": None if s.hint_move is None else s.hint_move.uci(),
            "eval": s.engine.eval(),
            "book": s.engine.book,
            "pv": s.engine.pv,
            "draw_offer": s.draw_offer,
            "matching": s.tracker.is_matching(),
            "thinking": s.engine.thinking,
            "warning": s.warning,
            "game": s.record.id,
            "notice": s.notice,
            "opponent": s.settings.opponent or s.remote.opponent(),
            "coach": s.coaching.line(),
            "review": s.coaching.review() if s.is_over() else None,
        }
        if s.guide is not None:
            line.update(s.guide.state(s))
        return line
