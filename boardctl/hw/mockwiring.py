"""Reed-matrix and MAX7219 wiring modelled on gpiozero's ``MockFactory``, for tests and benchmarks.

``WiredMockFactory`` is a ``MockFactory`` whose row pins, when driven, pull every column low
whose switch in that row is closed (the diodes make the matrix ghost-free, so a column is
low exactly when some selected row has its switch closed). The scanner under test is the
real one; only the copper and reed switches are simulated. ``MockMax7219`` models a daisy
chain of MAX7219s (each a 16-bit shift register passing its oldest bit on to the next chip, all
latching on LOAD's rising edge) and decodes the SPI words the real driver clocks out through
gpiozero's software-SPI mock.
"""

from __future__ import annotations

from typing import Any

from gpiozero.pins.mock import MockFactory, MockPin, MockPWMPin, MockSPIDevice

from boardctl.core.geometry import Square
from boardctl.hw.pinout import MAX7219_LEDS, Pinout

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
        self.geometry = pinout.geometry
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
        self.closed = occupancy & self.geometry.all_mask
        self.update()

    def close(self, square: Square) -> None:
        self.set(self.closed | 1 << square)

    def open(self, square: Square) -> None:
        self.set(self.closed & ~(1 << square))

    def update(self) -> None:
        switches = (self.closed & ~self.dead) | self.stuck
        files = self.geometry.files
        for c, column in enumerate(self._columns):
            if column.function != "input":
                continue
            low = any(
                row.function == "output" and not row.state and switches >> (r * files + c) & 1
                for r, row in enumerate(self._rows)
            )
            if low:
                column.drive_low()
            elif column.pull == "up":
                column.drive_high()


class MockMax7219(MockSPIDevice):  # type: ignore[misc]
    """A daisy chain of ``chips`` MAX7219s: their registers as the SPI words set them.

    ``chip_registers[k]`` are chip ``k``'s (0 = nearest the Pi), ``registers`` chip 0's, and
    ``lit`` reads the LEDs back as a bitboard (LED ``n`` = chip ``n // 64``, digit
    ``n % 64 // 8``, segment bit ``7 - n % 8``; see ``boardctl.hw.gpio``).
    """

    rx_bit: int
    rx_buf: list[int]
    mosi_pin: Any
    select_pin: Any
    select_high: bool

    def __init__(self, factory: MockFactory, *, select_pin: int = 8, chips: int = 1) -> None:
        super().__init__(_SCLK, _MOSI, None, select_pin, bits_per_word=16, pin_factory=factory)
        self.chips = chips
        self.chip_registers: list[dict[int, int]] = [{} for _ in range(chips)]
        self._shift = [0] * chips
        self.writes = 0

    @property
    def registers(self) -> dict[int, int]:
        return self.chip_registers[0]

    def on_bit(self) -> None:
        shift = self._shift
        for k in range(self.chips - 1, 0, -1):  # each chip's oldest bit moves on to the next
            shift[k] = (shift[k] << 1 | shift[k - 1] >> 15) & 0xFFFF
        shift[0] = (shift[0] << 1 | (1 if self.rx_buf[-1] else 0)) & 0xFFFF
        self.rx_buf = []

    def on_select(self) -> None:
        super().on_select()
        if self.select_pin.state != self.select_high:  # LOAD rises: every chip latches its word
            for registers, word in zip(self.chip_registers, self._shift, strict=True):
                if word >> 8:  # register 0 is the no-op
                    registers[word >> 8 & 0x0F] = word & 0xFF
                    self.writes += 1
            self.rx_bit = 0

    @property
    def is_on(self) -> bool:
        return all(r.get(0x0C) == 1 for r in self.chip_registers)

    @property
    def lit(self) -> int:
        out = 0
        for chip, registers in enumerate(self.chip_registers):
            for digit in range(8):
                byte = registers.get(digit + 1, 0)
                for seg in range(8):
                    if byte & 0x80 >> seg:
                        out |= 1 << (chip * MAX7219_LEDS + digit * 8 + seg)
        return out


class WiredMockFactory(MockFactory):  # type: ignore[misc]
    """A ``MockFactory`` with the board's wiring attached: ``.matrix``, ``.max7219``, button pins."""

    def __init__(self, pinout: Pinout, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._classes: dict[int, type[MockPin]] = {}
        if pinout.buzzer is not None:
            self._classes[pinout.buzzer] = MockPWMPin
        self.matrix = ReedMatrix(self, pinout)
        self.max7219 = (
            MockMax7219(self, select_pin=_CE[pinout.spi_device], chips=pinout.chips)
            if pinout.led_driver == "max7219"
            else None
        )
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
