"""A fake MicroPython ``machine`` (and ``neopixel``) module with the board's copper modelled.

Input pins read what the wiring says: a column reads 0 while a selected row (an output at 0)
has its reed switch closed at that crossing; a button pin reads 0 while pressed.
"""

from __future__ import annotations

import types
from typing import Any


class Wiring:
    def __init__(self) -> None:
        self.pins: dict[int, Pin] = {}
        self.rows: tuple[int, ...] = ()
        self.columns: tuple[int, ...] = ()
        self.closed = 0  # bitboard of closed reed switches
        self.pressed: set[int] = set()

    def read(self, pin_id: int) -> int:
        if pin_id in self.columns:
            c = self.columns.index(pin_id)
            for r, row_id in enumerate(self.rows):
                row = self.pins.get(row_id)
                if row is not None and row.mode == Pin.OUT and row.out == 0 and self.closed >> (r * 8 + c) & 1:
                    return 0
            return 1
        return 0 if pin_id in self.pressed else 1


WIRING = Wiring()


class Pin:
    IN, OUT, PULL_UP = 0, 1, 2

    def __init__(self, pin_id: int, mode: int = -1, pull: int = -1, *, value: int | None = None) -> None:
        self.id, self.mode, self.pull = pin_id, mode, pull
        self.out = 1 if value is None else int(bool(value))
        WIRING.pins[pin_id] = self

    def value(self, v: Any = None) -> int | None:
        if v is None:
            return self.out if self.mode == Pin.OUT else WIRING.read(self.id)
        self.out = int(bool(v))
        return None


class PWM:
    def __init__(self, pin: Pin) -> None:
        self.pin = pin
        self.history: list[tuple[int, int]] = []  # (freq, duty) each time the duty is set
        self._freq = 0

    def freq(self, hz: int | None = None) -> int | None:
        if hz is None:
            return self._freq
        self._freq = hz
        return None

    def duty_u16(self, duty: int | None = None) -> None:
        if duty is not None:
            self.history.append((self._freq, duty))


class NeoPixel:
    def __init__(self, pin: Pin, n: int) -> None:
        self.buf = [(0, 0, 0)] * n
        self.shown = list(self.buf)
        self.writes = 0

    def __len__(self) -> int:
        return len(self.buf)

    def __setitem__(self, i: int, colour: tuple[int, int, int]) -> None:
        self.buf[i] = colour

    def __getitem__(self, i: int) -> tuple[int, int, int]:
        return self.buf[i]

    def write(self) -> None:
        self.shown = list(self.buf)
        self.writes += 1


machine = types.ModuleType("machine")
machine.Pin = Pin  # type: ignore[attr-defined]
machine.PWM = PWM  # type: ignore[attr-defined]
neopixel = types.ModuleType("neopixel")
neopixel.NeoPixel = NeoPixel  # type: ignore[attr-defined]
