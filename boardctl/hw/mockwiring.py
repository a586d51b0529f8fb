"""Reed-matrix and MAX7219 wiring modelled on gpiozero's ``MockFactory``, for tests and benchmarks.

``WiredMockFactory`` is a ``MockFactory`` whose row pins, when driven, pull every column low
whose switch in that row is closed (the diodes make the matrix ghost-free, so a column is
low exactly when some selected row has its switch closed). The scanner under test is the
real one; only the copper and reed switches are simulated. ``MockMax7219`` decodes the SPI
words the real driver clocks out through gpiozero's software-SPI mock.
"""

from __future__ import annotations

from typing import Any

import chess
from gpiozero.pins.mock import MockFactory, MockPin, MockPWMPin, MockSPIDevice

from boardctl.hw.pinout import Pinout

# BCM pins of SPI0 as gpiozero's software SPI uses them.
_SCLK, _MOSI, _MISO, _CE = 11, 10, 9, (8, 7)


class _RowPin(MockPin):  # type: ignore[misc]
    matrix: ReedMatrix

    def _change_state(self, value: bool) -> bool:
        changed: bool = super()._change_state(value)
        if changed and self.function == "output":
            self.matrix.update()
        return changed


class ReedMatrix:
    """The switches: ``close(sq)``/``open(sq)``; faults ``dead``/``stuck`` for the selftest."""

    def __init__(self, factory: MockFactory, pinout: Pinout) -> None:
        self.closed = 0
        self.dead = 0
        self.stuck = 0
        self._rows: list[MockPin] = []
        for pin in pinout.rows:
            row = factory.pin(pin, pin_class=_RowPin)
            row.matrix = self
            self._rows.append(row)
        self._columns: list[MockPin] = [factory.pin(pin) for pin in pinout.columns]

    def set(self, occupancy: int) -> None:
        self.closed = occupancy & chess.BB_ALL
        self.update()

    def close(self, square: chess.Square) -> None:
        self.set(self.closed | 1 << square)

    def open(self, square: chess.Square) -> None:
        self.set(self.closed & ~(1 << square))

    def update(self) -> None:
        switches = (self.closed & ~self.dead) | self.stuck
        for c, column in enumerate(self._columns):
            if column.function != "input":
                continue
            low = any(
                row.function == "output" and not row.state and switches >> chess.square(c, r) & 1
                for r, row in enumerate(self._rows)
            )
            if low:
                column.drive_low()
            elif column.pull == "up":
                column.drive_high()


class MockMax7219(MockSPIDevice):  # type: ignore[misc]
    """The chip's registers as the SPI words set them; ``lit`` reads them back as a bitboard."""

    rx_bit: int
    rx_buf: list[int]

    def __init__(self, factory: MockFactory, *, select_pin: int = 8) -> None:
        super().__init__(_SCLK, _MOSI, None, select_pin, bits_per_word=16, pin_factory=factory)
        self.registers: dict[int, int] = {}
        self.writes = 0

    def on_bit(self) -> None:
        if self.rx_bit == 16:
            word = self.rx_word()
            self.registers[word >> 8] = word & 0xFF
            self.writes += 1
            self.rx_bit = 0
            self.rx_buf = []

    @property
    def is_on(self) -> bool:
        return self.registers.get(0x0C) == 1

    @property
    def lit(self) -> int:
        out = 0
        for rank in range(8):
            byte = self.registers.get(rank + 1, 0)
            for file in range(8):
                if byte & 0x80 >> file:
                    out |= 1 << chess.square(file, rank)
        return out


class WiredMockFactory(MockFactory):  # type: ignore[misc]
    """A ``MockFactory`` with the board's wiring attached: ``.matrix``, ``.max7219``, button pins."""

    def __init__(self, pinout: Pinout, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._classes: dict[int, type[MockPin]] = {}
        if pinout.buzzer is not None:
            self._classes[pinout.buzzer] = MockPWMPin
        self.matrix = ReedMatrix(self, pinout)
        self.max7219 = MockMax7219(self, select_pin=_CE[pinout.spi_device]) if pinout.led_driver == "max7219" else None
        self.pinout = pinout

    def pin(self, name: Any, pin_class: Any = None, **kwargs: Any) -> Any:
        if pin_class is None and isinstance(name, int):
            pin_class = self._classes.get(name)
        return super().pin(name, pin_class, **kwargs)

    def press(self, button: Any) -> None:
        """Press and release a button (its pin shorted to ground, then let go)."""
        pin = self.pin(self.pinout.buttons[button])
        pin.drive_low()
        pin.drive_high()
