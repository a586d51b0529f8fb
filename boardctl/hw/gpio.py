"""The Pi scans the reed matrix itself: gpiozero rows/columns, MAX7219 LEDs on SPI, buttons, buzzer.

Matrix: ``rows`` are outputs held HIGH; a scan drives one row LOW at a time and reads every
column (inputs with pull-ups): a LOW column means the switch at (row, column) is closed. A
diode in series with each switch stops ghost squares. The scan reads ``pin.state`` of the
gpiozero devices' pins directly, since 72 device-level calls per scan would cost more than
the whole debounce logic.

Debounce: a square's raw reading must stay the same for ``debounce`` seconds before a
change is reported; it is stamped with the time the change was confirmed, so times from
the scanner thread and button callbacks stay ordered.

LEDs: MAX7219s in a daisy chain on SPI (one chip drives 64 LEDs and needs only MOSI/CLK/CE
and one resistor; two drive the 90 points of a xiangqi board). LED ``n`` lights the point of
bit ``n``: chip ``n // 64`` (chip 0 nearest the Pi), digit ``n % 64 // 8``, segment bit
``7 - n % 8``; on a chess board that is DIGn = rank n+1, segment bit 7-j = file j. A digit is
written (to every chip in one transfer) only when it changes.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from gpiozero import Button as GzButton
from gpiozero import Device, InputDevice, OutputDevice, TonalBuzzer
from gpiozero.pins.pi import SPI_HARDWARE_PINS
from gpiozero.tones import Tone

from boardctl.core.geometry import CHESS_8X8, Geometry, Square
from boardctl.errors import ConfigError, HardwareError
from boardctl.events import Button, ButtonPressed, Code, Event, Snapshot, SquareChanged
from boardctl.hw import factory
from boardctl.hw.base import Board, Clock
from boardctl.hw.leds import SIGNALS, STEP, LedFrame, step_at
from boardctl.hw.pinout import Pinout

log = logging.getLogger(__name__)

# MAX7219 registers.
_NO_OP, _DECODE_MODE, _INTENSITY, _SCAN_LIMIT, _SHUTDOWN, _DISPLAY_TEST = 0x00, 0x09, 0x0A, 0x0B, 0x0C, 0x0F


class MatrixScanner:
    """Scans and debounces; ``scan(now)`` is one full cycle returning the confirmed changes."""

    def __init__(
        self, rows: list[Any], columns: list[Any], *, debounce: float, geometry: Geometry = CHESS_8X8
    ) -> None:
        self._rows = rows  # gpiozero pins, outputs
        self._columns = columns  # gpiozero pins, inputs with pull-up
        self.geometry = geometry
        self._squares = [[geometry.square(c, r) for c in range(len(columns))] for r in range(len(rows))]
        self.debounce = debounce
        self.stable = 0
        self._last_raw = 0
        self._since: dict[Square, float] = {}

    def read_raw(self) -> int:
        raw = 0
        columns = self._columns
        for row, squares in zip(self._rows, self._squares, strict=True):
            row.state = 0
            for col, sq in zip(columns, squares, strict=True):
                if not col.state:
                    raw |= 1 << sq
            row.state = 1
        return raw

    def prime(self) -> int:
        """Take the board as it is now as the stable state (start-up)."""
        self.stable = self._last_raw = self.read_raw()
        self._since.clear()
        return self.stable

    def scan(self, now: float) -> list[SquareChanged]:
        raw = self.read_raw()
        moved = raw ^ self._last_raw
        self._last_raw = raw
        differ = raw ^ self.stable
        since = self._since
        if not differ and not since:
            return []
        out: list[SquareChanged] = []
        for sq in list(since):
            if not differ >> sq & 1:
                del since[sq]  # bounced back
        bb = differ
        while bb:
            low = bb & -bb
            sq = low.bit_length() - 1
            bb ^= low
            if moved & low or sq not in since:
                since[sq] = now
            elif now - since[sq] >= self.debounce:
                del since[sq]
                self.stable ^= low
                out.append(SquareChanged(now, sq, bool(raw & low)))
        return out


#: Segment byte of eight LED bits (bit j of the input lights segment bit 7 - j).
_REVERSED = bytes(int(f"{i:08b}"[::-1], 2) for i in range(256))


class Max7219:
    """``chips`` MAX7219s in a daisy chain, 64 LEDs each; writes only digits that changed.

    One transfer carries one 16-bit word per chip, the farthest chip's first (it is shifted
    through the nearer ones), so a digit is written on every chip at once.
    """

    def __init__(self, spi: Any, *, intensity: int, chips: int = 1) -> None:
        self._spi = spi
        self.chips = chips
        self._digits: list[bytes | None] = [None] * 8
        for reg, value in ((_DISPLAY_TEST, 0), (_SCAN_LIMIT, 7), (_DECODE_MODE, 0), (_INTENSITY, intensity)):
            self._write_all(reg, [value] * chips)
        self.show_mask(0)
        self._write_all(_SHUTDOWN, [1] * chips)

    def _write_all(self, register: int, values: list[int]) -> None:
        """Set ``register`` on every chip: ``values[k]`` goes to chip ``k`` (0 = nearest the Pi)."""
        words: list[int] = []
        for value in reversed(values):
            words += (register, value)
        self._spi.transfer(words)

    def show_mask(self, lit: int) -> None:
        chips = self.chips
        for digit in range(8):
            row = bytes(_REVERSED[lit >> (64 * chip + 8 * digit) & 0xFF] for chip in range(chips))
            if self._digits[digit] != row:
                self._write_all(digit + 1, list(row))
                self._digits[digit] = row

    def close(self) -> None:
        try:
            self._write_all(_SHUTDOWN, [0] * self.chips)
        finally:
            self._spi.close()


class GpioBoard(Board):
    kind = "gpio"

    def __init__(
        self,
        pinout: Pinout,
        *,
        pin_factory: Any = None,
        debounce: float = 0.025,
        scan_hz: float = 200.0,
        clock: Clock = time.monotonic,
        geometry: Geometry | None = None,
    ) -> None:
        """``geometry``: the game's board (None: the pin map's); a map for another board is refused."""
        super().__init__(clock=clock)
        if scan_hz <= 0 or debounce < 0:
            raise ValueError(f"gpio: scan_hz must be > 0 and debounce >= 0, got {scan_hz}, {debounce}")
        if geometry is not None:
            try:
                pinout.check_game(geometry)
            except ConfigError as exc:
                raise HardwareError(f"gpio: {exc}") from None
        self.geometry = pinout.geometry
        self.pinout = pinout
        self.period = 1.0 / scan_hz
        self._devices: list[Any] = []
        self._lock = threading.Lock()  # SPI and LED state
        self._stop = threading.Event()
        self._snapshot_wanted = threading.Event()
        self._threads: list[threading.Thread] = []
        self._tune = threading.Event()
        self._max7219: Max7219 | None = None
        self._buzzer: Any = None
        self.pin_factory_name = ""  # which gpiozero pin factory, and why (boardctl selftest says)
        try:
            if pin_factory in (None, "auto") and Device.pin_factory is not None:  # set by the program (a test)
                pin_factory = Device.pin_factory
                self.pin_factory_name = f"{factory.name_of(pin_factory)} (gpiozero's Device.pin_factory)"
            elif pin_factory is None or isinstance(pin_factory, str):  # board.pin_factory (boardctl/hw/factory.py)
                chosen = factory.choose(pin_factory or "auto")
                # gpiozero's software SPI makes its own devices on the global factory: the same one.
                Device.pin_factory = pin_factory = chosen.factory
                self.pin_factory_name = chosen.describe()
            else:
                self.pin_factory_name = factory.name_of(pin_factory)
            rows = [self._add(OutputDevice(p, active_high=False, initial_value=False, pin_factory=pin_factory)) for p in pinout.rows]
            cols = [self._add(InputDevice(p, pull_up=True, pin_factory=pin_factory)) for p in pinout.columns]
            self.scanner = MatrixScanner(
                [d.pin for d in rows], [d.pin for d in cols], debounce=debounce, geometry=self.geometry
            )
            for button, pin in pinout.buttons.items():
                device = self._add(GzButton(pin, pull_up=True, bounce_time=0.03, pin_factory=pin_factory))
                device.when_pressed = self._button_handler(button)
            if pinout.buzzer is not None:
                self._buzzer = self._add(TonalBuzzer(pinout.buzzer, mid_tone=Tone("A5"), octaves=2, pin_factory=pin_factory))
            if pinout.led_driver == "max7219":
                # Without MISO: the chips are write-only, and a big board needs GPIO9 for its matrix
                # (with dtoverlay=spi0-1cs,no_miso, see hardware/pinout-xiangqi.toml).
                lines = SPI_HARDWARE_PINS[pinout.spi_port]
                spi = pin_factory.spi(
                    clock_pin=lines["clock"], mosi_pin=lines["mosi"], miso_pin=None,
                    select_pin=lines["select"][pinout.spi_device],
                )
                self._max7219 = Max7219(spi, intensity=pinout.intensity, chips=pinout.chips)
        except Exception as exc:
            self._close()
            if isinstance(exc, HardwareError):
                raise
            raise HardwareError(f"gpio: cannot open the board's pins ({type(exc).__name__}: {exc})") from exc
        self._occupancy = self.scanner.prime()

    def _add(self, device: Any) -> Any:
        self._devices.append(device)
        return device

    def _button_handler(self, button: Button) -> Any:
        def pressed() -> None:
            self._emit(ButtonPressed(self._clock(), button))

        return pressed

    # --- sensing ------------------------------------------------------------------------------------
    def _start(self) -> None:
        self._emit(Snapshot(self._clock(), self._occupancy))
        self._spawn(self._scan_loop, "boardctl-gpio-scan")
        if self._max7219 is not None:
            self._spawn(self._blink_loop, "boardctl-gpio-leds")

    def _spawn(self, target: Any, name: str) -> None:
        thread = threading.Thread(target=target, name=name, daemon=True)
        self._threads.append(thread)
        thread.start()

    def request_snapshot(self) -> None:
        self._snapshot_wanted.set()

    def poll(self) -> list[Event]:
        """One scan cycle at the clock's time; emits and returns the events (the thread's body)."""
        now = self._clock()
        events: list[Event] = list(self.scanner.scan(now))
        self._occupancy = self.scanner.stable
        if self._snapshot_wanted.is_set():
            self._snapshot_wanted.clear()
            events.append(Snapshot(now, self._occupancy))
        for event in events:
            self._emit(event)
        return events

    def _scan_loop(self) -> None:
        deadline = time.monotonic()
        while not self._stop.is_set():
            try:
                self.poll()
            except Exception:  # a pin error must not kill sensing silently
                log.exception("gpio: scan failed")
                if self._stop.wait(0.5):
                    return
            deadline += self.period
            delay = deadline - time.monotonic()
            if delay < -self.period:
                log.debug("gpio: scan overran by %.1f ms", -delay * 1e3)
                deadline = time.monotonic()
            elif delay > 0 and self._stop.wait(delay):
                return

    # --- LEDs and buzzer ---------------------------------------------------------------------------------
    def _show(self, frame: LedFrame) -> None:
        if self._max7219 is None:
            return
        with self._lock:
            self._max7219.show_mask(frame.lit(step_at(self._clock())))

    def _blink_loop(self) -> None:
        while not self._stop.wait(STEP - time.monotonic() % STEP):
            frame = self._frame
            if frame.is_blinking:
                try:
                    self._show(frame)
                except Exception:
                    log.exception("gpio: LED refresh failed")

    def play(self, code: Code) -> None:
        tones = SIGNALS[code].tones
        if self._buzzer is None or not tones:
            return
        self._tune.set()  # cut a tune still playing
        cancel = threading.Event()
        self._tune = cancel
        threading.Thread(target=self._sing, args=(tones, cancel), name="boardctl-gpio-tune", daemon=True).start()

    def _sing(self, tones: tuple[tuple[float, float], ...], cancel: threading.Event) -> None:
        buzzer = self._buzzer
        try:
            for hz, seconds in tones:
                if hz > 0:
                    hz = min(max(hz, buzzer.min_tone.frequency), buzzer.max_tone.frequency)
                    buzzer.play(Tone.from_frequency(hz))
                else:
                    buzzer.stop()
                if cancel.wait(seconds) or self._stop.is_set():
                    break
            buzzer.stop()
        except Exception:
            log.exception("gpio: buzzer failed")

    def _close(self) -> None:
        self._stop.set()
        self._tune.set()
        for thread in self._threads:
            thread.join(timeout=2.0)
        if self._max7219 is not None:
            try:
                self._max7219.close()
            except Exception:
                log.exception("gpio: closing the MAX7219 failed")
        for device in reversed(self._devices):
            device.close()
        self._devices.clear()
