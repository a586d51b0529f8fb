"""What the tracker is told and what it tells: its settings (policy, takeback mode, timing) and its outputs."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import NamedTuple

from boardctl.core.rules import Color, Move
from boardctl.events import ButtonPressed, Code, LedIntent


class Policy(StrEnum):
    """``strict``: touch-move as the game's rules have it (FIDE 4.3-4.7; xiangqi's 摸子走子 and
    落子无悔); ``fide`` is its older name and still accepted. ``casual``: none of it."""

    STRICT = "strict"
    FIDE = "strict"
    CASUAL = "casual"

    @classmethod
    def _missing_(cls, value: object) -> Policy | None:
        return cls.STRICT if value == "fide" else None


class TakebackMode(StrEnum):
    APPLY = "apply"
    OFFER = "offer"
    OFF = "off"


@dataclass(frozen=True, slots=True)
class Timing:
    """Seconds. ``settle`` is "released"; ``brush`` is the longest contact that is not a touch."""

    settle: float = 0.3
    brush: float = 0.1
    #: Two or more pieces lifted within this of each other were knocked (a sleeve, an elbow): no
    #: hand lifts two at once, so none of them is a touch (FIDE 4.3: "deliberately").
    knock: float = 0.06
    promotion_window: float = 2.0
    mismatch_delay: float = 1.0

    def __post_init__(self) -> None:
        if not 0 < self.brush < self.settle:
            raise ValueError(f"need 0 < brush < settle, got brush={self.brush} settle={self.settle}")
        if self.promotion_window < 0 or self.mismatch_delay < 0:
            raise ValueError("promotion_window and mismatch_delay must not be negative")


DEFAULT_TIMING = Timing()


@dataclass(frozen=True, slots=True)
class MoveMade:
    t: float
    move: Move
    san: str
    ply: int


@dataclass(frozen=True, slots=True)
class MoveTakenBack:
    t: float
    move: Move
    ply: int


@dataclass(frozen=True, slots=True)
class TakebackOffered:
    """The board shows the position before ``move``; ``Button.TAKEBACK`` confirms."""

    t: float
    move: Move


@dataclass(frozen=True, slots=True)
class GameStarted:
    t: float
    fen: str


@dataclass(frozen=True, slots=True)
class Violation:
    t: float
    code: Code
    ply: int
    color: Color
    detail: str


@dataclass(frozen=True, slots=True)
class Matched:
    """The board matches the game again (after a mismatch, a refused move, a takeback or a setup)."""

    t: float


@dataclass(frozen=True, slots=True)
class Forfeit:
    """FIDE 7.5.5 with ``arbiter``: a second completed illegal move ends the game."""

    t: float
    loser: Color
    result: str


Output = MoveMade | MoveTakenBack | TakebackOffered | GameStarted | Violation | Matched | Forfeit | ButtonPressed


class Step(NamedTuple):
    """What one event or tick produced: outputs in order, and the complete LED set wanted now.
    (A named tuple: one is made for every event, and a frozen dataclass costs more to make.)"""

    outputs: tuple[Output, ...]
    leds: tuple[LedIntent, ...]

    @property
    def moves(self) -> list[Move]:
        return [o.move for o in self.outputs if isinstance(o, MoveMade)]

    @property
    def violations(self) -> list[Violation]:
        return [o for o in self.outputs if isinstance(o, Violation)]

