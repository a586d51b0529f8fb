"""A fake MicroPython ``machine`` (and ``neopixel``) module with the board's copper modelled.

Input pins read what the wiring says: a column reads 0 while a selected row (an output at 0)
has its reed switch closed at that crossing; a button pin reads 0 while pressed. ``PWM`` keeps
the RP2040's limits (8 Hz to 62.5 MHz, duty 0..65535) and raises ``ValueError`` outside them,
as MicroPython's ``machine.PWM`` does on a Pico.

It runs unchanged under CPython (``conftest.py`` installs it as ``machine`` and ``neopixel``) and
under MicroPython (``mpy_runner.mjs`` writes it as ``machine.py``), so it uses nothing but
builtins: no ``typing``, no ``from __future__`` (annotations are evaluated by CPython only).
"""

#: The RP2040's PWM frequency range at its default 125 MHz system clock.
PWM_MIN_HZ = 8
PWM_MAX_HZ = 62_500_000


class Wiring:
    def __init__(self) -> None:
        self.pins: dict[int, Pin] = {}
        self.rows: tuple[int, ...] = ()
        self.columns: tuple[int, ...] = ()
        self.closed = 0  # bitboard of closed reed switches
        self.files = 8  # points in a rank of the board (bit = rank * files + file)
        self.pressed: set[int] = set()

    def read(self, pin_id: int) -> int:
        if pin_id in self.columns:
            c = self.columns.index(pin_id)
            for r, row_id in enumerate(self.rows):
                row = self.pins.get(row_id)
                if row is not None and row.mode == Pin.OUT and row.out == 0 and self.closed >> (r * self.files + c) & 1:
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

    def value(self, v: object = None) -> int | None:
        if v is None:
            return self.out if self.mode == Pin.OUT else WIRING.read(self.id)
        self.out = int(bool(v))
        return None


class PWM:
    def __init__(self, pin: Pin) -> None:
        self.pin = pin
        self.history: list[tuple[int, int]] = []  # (freq, duty) each time the duty is set
        self._freq = 0
        self.refused: list[object] = []  # frequencies refused with ValueError

    def freq(self, hz: int | None = None) -> int | None:
        if hz is None:
            return self._freq
        if not isinstance(hz, int) or not PWM_MIN_HZ <= hz <= PWM_MAX_HZ:
            self.refused.append(hz)
            raise ValueError("freq out of range")
        self._freq = hz
        return None

    def duty_u16(self, duty: int | None = None) -> int | None:
        if duty is None:
            return self.history[-1][1] if self.history else 0
        if not isinstance(duty, int) or not 0 <= duty <= 65535:
            raise ValueError("duty out of range")
        self.history.append((self._freq, duty))
        return None


class NeoPixel:
    def __init__(self, pin: Pin, n: int) -> None:
        self.buf = [(0, 0, 0)] * n
        self.shown = list(self.buf)
        self.writes = 0

    def __len__(self) -> int:
        return len(self.buf)

    def __setitem__(self, i: int, colour: tuple[int, int, int]) -> None:
        if not (isinstance(colour, tuple) and len(colour) == 3 and all(0 <= c <= 255 for c in colour)):
            raise ValueError("bad colour")
        self.buf[i] = colour

    def __getitem__(self, i: int) -> tuple[int, int, int]:
        return self.buf[i]

    def write(self) -> None:
        self.shown = list(self.buf)
        self.writes += 1


# Handles kept for older tests: ``fake_machine.machine.PWM``, ``fake_machine.neopixel.NeoPixel``.
machine = __import__("sys").modules.get(__name__)


class neopixel:  # stands for the module
    NeoPixel = NeoPixel
