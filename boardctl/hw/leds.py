"""The LED language: one table giving every ``Code`` a blink pattern, a colour and a sound.

Single-colour LEDs (the MAX7219 of the gpio variant) can only blink, so each code has a
blink pattern that differs from every other one even when shifted in time; colour LEDs
(the WS2812 chain of the firmware variant) add a colour. A square lit for several reasons
shows the one highest in the table. Backends animate the patterns themselves: the daemon
only says which intents hold now (``LedSink.show``), never ticks the blinking.

A pattern is 16 steps of ``STEP`` seconds (one second per cycle); ``#`` is on, ``.`` off.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from boardctl.core.geometry import Square
from boardctl.events import Code, LedIntent

#: One blink step, seconds. Sixteen steps make a one-second cycle.
STEP = 1 / 16
STEPS = 16


@dataclass(frozen=True, slots=True)
class Signal:
    """How one code looks (pattern, colour) and sounds (tones of (Hz, seconds); Hz 0 = rest)."""

    pattern: str
    colour: tuple[int, int, int]
    tones: tuple[tuple[float, float], ...] = ()

    @property
    def mask(self) -> int:
        """The pattern as 16 bits, bit ``i`` = step ``i``."""
        return sum(1 << i for i, c in enumerate(self.pattern) if c == "#")


#: THE table. Order is priority: a square wanted for several codes shows the first listed.
SIGNALS: dict[Code, Signal] = {
    Code.ILLEGAL_MOVE: Signal("##..##..##..##..", (255, 0, 0), ((220.0, 0.15), (0.0, 0.05), (220.0, 0.15))),
    Code.MISMATCH: Signal("#.#.#.#.#.#.#.#.", (255, 0, 160)),
    Code.TOUCH_MOVE: Signal("####....####....", (255, 200, 0), ((330.0, 0.2),)),
    Code.CASTLING_ROOK_FIRST: Signal("###.#.#.........", (255, 110, 0), ((330.0, 0.1), (0.0, 0.05), (330.0, 0.1))),
    Code.TAKEBACK: Signal("###.###.###.....", (150, 0, 255), ((523.0, 0.08), (392.0, 0.12))),
    Code.SETUP: Signal("#.#.#.#.........", (255, 140, 60)),
    Code.ENGINE_MOVE: Signal("################", (0, 80, 255), ((880.0, 0.08),)),
    Code.PROMOTION: Signal("##.##.##........", (255, 215, 0), ((659.0, 0.08), (0.0, 0.04), (659.0, 0.08))),
    Code.WHICH_CAPTURE: Signal("##.#.##.........", (180, 255, 0), ((440.0, 0.1), (0.0, 0.05), (660.0, 0.1))),
    Code.CHECK: Signal("#.#.............", (255, 40, 40), ((988.0, 0.06), (0.0, 0.04), (988.0, 0.06))),
    Code.BLUNDER: Signal("#.#.....#.#.....", (255, 70, 0), ((196.0, 0.3),)),
    Code.HINT: Signal("########........", (0, 220, 220)),
    Code.LIFTED: Signal("##############..", (255, 255, 255)),
    Code.LEGAL_MOVES: Signal("#######.#######.", (0, 200, 0)),
    Code.RESULT: Signal("########....##..", (0, 255, 90), ((523.0, 0.15), (659.0, 0.15), (784.0, 0.3))),
    Code.DRAW_OFFER: Signal("##..............", (0, 160, 255), ((587.0, 0.1), (0.0, 0.05), (587.0, 0.1))),
    Code.CLOCK: Signal("#...#...........", (255, 255, 0), ((1319.0, 0.3),)),
    Code.NEW_GAME: Signal("#...............", (255, 255, 255), ((523.0, 0.1), (784.0, 0.1))),
    Code.SELFTEST: Signal("###############.", (255, 255, 255)),
    Code.STORAGE: Signal("#..#..#.........", (255, 60, 200), ((147.0, 0.4),)),
    Code.REMOTE_MOVE: Signal("############.##.", (0, 200, 120), ((784.0, 0.08),)),
    Code.COACH: Signal("###.#.###.......", (120, 255, 60), ((392.0, 0.12), (523.0, 0.12))),
    Code.LESSON_MOVE: Signal("#####...#####...", (0, 255, 200)),
    Code.LESSON_WRONG: Signal("#.###.#.........", (255, 120, 180), ((262.0, 0.12), (0.0, 0.04), (196.0, 0.2))),
    Code.STEP_MOVE: Signal("######..........", (120, 160, 255)),
    Code.MUST_VARY: Signal("###.###.#.#.....", (230, 0, 60), ((262.0, 0.15), (0.0, 0.05), (262.0, 0.15))),
    Code.APP: Signal("##########.#....", (255, 255, 255)),
}

_PRIORITY: dict[Code, int] = {code: i for i, code in enumerate(SIGNALS)}


@dataclass(frozen=True, slots=True)
class Lamp:
    """One square as shown: its blink mask (16 bits) and colour."""

    square: Square
    mask: int
    colour: tuple[int, int, int]
    why: Code


@dataclass(frozen=True, slots=True)
class LedFrame:
    """What the LEDs show for a set of intents: at most one lamp per square, by priority."""

    lamps: tuple[Lamp, ...]

    @classmethod
    def from_intents(cls, intents: Iterable[LedIntent]) -> LedFrame:
        best: dict[Square, LedIntent] = {}
        for intent in intents:
            held = best.get(intent.square)
            if held is None or _PRIORITY[intent.why] < _PRIORITY[held.why]:
                best[intent.square] = intent
        return cls(
            tuple(
                Lamp(sq, SIGNALS[i.why].mask if i.mask is None else i.mask & 0xFFFF, SIGNALS[i.why].colour, i.why)
                for sq, i in sorted(best.items())
            )
        )

    def lit(self, step: int) -> int:
        """Bitboard of squares lit at blink step ``step`` (taken modulo 16)."""
        bit = 1 << (step % STEPS)
        out = 0
        for lamp in self.lamps:
            if lamp.mask & bit:
                out |= 1 << lamp.square
        return out

    def colours(self, step: int) -> Mapping[Square, tuple[int, int, int]]:
        """Colour of every square lit at ``step`` (unlisted squares are dark)."""
        bit = 1 << (step % STEPS)
        return {lamp.square: lamp.colour for lamp in self.lamps if lamp.mask & bit}

    @property
    def is_blinking(self) -> bool:
        return any(lamp.mask not in (0, (1 << STEPS) - 1) for lamp in self.lamps)


def step_at(t: float) -> int:
    """The blink step for monotonic time ``t``; every backend uses it so patterns stay in phase."""
    return int(t / STEP) % STEPS
