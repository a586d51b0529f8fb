"""A chess clock (Fischer increment) driven by explicit times, so virtual and real time behave alike."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from boardctl.config import check_time_control
from boardctl.core.rules import Color


@dataclass(frozen=True)
class TimeControl:
    initial: float  # seconds
    increment: float  # seconds added after each of a player's moves

    @classmethod
    def from_string(cls, text: str) -> TimeControl | None:
        """``"15+10"`` (minutes + seconds) -> TimeControl; ``""`` -> None (no clock)."""
        check_time_control(text)
        if not text:
            return None
        minutes, increment = text.split("+")
        return cls(float(minutes) * 60, float(increment))

    def pgn(self) -> str:
        """The PGN ``TimeControl`` tag value, e.g. ``900+10``."""
        return f"{self.initial:g}+{self.increment:g}"


class Clock:
    """Remaining time per colour; at most one side runs at a time."""

    def __init__(self, control: TimeControl, *, names: tuple[str, str] = ("white", "black")) -> None:
        """``names``: the sides as the game calls them (first to move first), for :meth:`to_json`."""
        self.control = control
        self.names = names
        self._left = {True: control.initial, False: control.initial}
        self.running: Color | None = None
        self._since = 0.0

    def remaining(self, color: Color, t: float) -> float:
        left = self._left[color]
        if self.running == color:
            left -= max(0.0, t - self._since)
        return max(0.0, left)

    def start(self, color: Color, t: float) -> None:
        """Start ``color``'s time (stopping the other side's without increment)."""
        self.stop(t)
        self.running = color
        self._since = t

    def stop(self, t: float) -> None:
        if self.running is not None:
            self._left[self.running] = self.remaining(self.running, t)
            self.running = None

    def moved(self, color: Color, t: float) -> float:
        """``color`` completed a move at ``t``: stop, add the increment; returns its time left."""
        if self.running == color:
            self.stop(t)
        self._left[color] += self.control.increment
        return self._left[color]

    def add(self, color: Color, seconds: float) -> None:
        """Give ``color`` extra time (FIDE 7.5.5: two minutes after the opponent's illegal move)."""
        self._left[color] += seconds

    def take_back(self, color: Color, left: float) -> None:
        """Restore ``color``'s time to what it had (a takeback)."""
        self._left[color] = left

    def flagged(self, t: float) -> Color | None:
        """The side whose flag has fallen, if any."""
        if self.running is not None and self.remaining(self.running, t) <= 0:
            return self.running
        return None

    def to_json(self, t: float) -> dict[str, Any]:
        return {
            self.names[0]: round(self.remaining(True, t), 3),
            self.names[1]: round(self.remaining(False, t), 3),
            "running": None if self.running is None else self.names[0 if self.running else 1],
        }

    @classmethod
    def from_json(cls, control: TimeControl, data: dict[str, Any], *, names: tuple[str, str] = ("white", "black")) -> Clock:
        """A stopped clock with the saved times (a resumed game restarts the clock when play resumes)."""
        clock = cls(control, names=names)
        clock._left = {True: float(data[names[0]]), False: float(data[names[1]])}
        return clock
