"""The emulated ChessLink board, pure: commands and statuses in, bytes and LED patterns out.

It keeps what a Millennium board keeps: the option bytes (its E2ROM), the LED patterns, the
status, and when the next automatic report is due. Time is given by the caller (``now``, in
seconds) so the same machine runs under the daemon's clock, in the tests' virtual time and in
the benchmark. One machine serves one connection; connections may share the option bytes.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from boardctl.chesslink import protocol as p

log = logging.getLogger(__name__)

#: After ``T`` a real board restarts for about 3 s: nothing is answered or reported meanwhile.
RESET_DELAY = 3.0


@dataclass(frozen=True, slots=True)
class Leds:
    """The LED patterns an app set: the slot time (4.096 ms units) and 81 pattern bytes."""

    slot_time: int
    patterns: tuple[int, ...]

    @property
    def is_dark(self) -> bool:
        return not any(self.patterns)


DARK = Leds(0, (0,) * p.LED_COUNT)


def default_options() -> bytearray:
    """A fresh E2ROM: 256 bytes, the documented defaults at addresses 0..4."""
    rom = bytearray(256)
    for address, value in p.DEFAULT_OPTIONS.items():
        rom[address] = value
    return rom


@dataclass(frozen=True, slots=True)
class Output:
    """What one input caused: bytes to send and, when the app changed them, the new LEDs."""

    data: bytes = b""
    leds: Leds | None = None


class EmulatedBoard:
    """One ChessLink conversation: replies to commands, automatic reports, LEDs, options."""

    def __init__(self, *, status: str = p.EMPTY_STATUS, options: bytearray | None = None,
                 version: tuple[int, int] = p.VERSION, reset_delay: float = RESET_DELAY, now: float = 0.0) -> None:
        self.options = options if options is not None else default_options()
        self.version = version
        self.reset_delay = reset_delay
        self.decoder = p.Decoder(block=self.block_parity)
        self.status = status
        self.leds = DARK
        self._last_reported: str | None = None
        self._next_scan = now + self.scan_time
        self._next_timed = now + self.report_time
        self._debounce_due: float | None = None
        self._quiet_until = float("-inf")

    # -- options ----------------------------------------------------------------------------------

    @property
    def block_parity(self) -> bool:
        return not self.options[p.ADDR_SERIAL] & 0x01

    @property
    def scan_time(self) -> float:
        return p.scan_seconds(self.options[p.ADDR_SCAN_TIME])

    @property
    def report_mode(self) -> p.ReportMode:
        return p.report_mode(self.options[p.ADDR_AUTO_REPORT])

    @property
    def report_time(self) -> float:
        return p.report_seconds(self.options[p.ADDR_REPORT_TIME], self.scan_time)

    @property
    def brightness(self) -> float:
        return p.brightness(self.options[p.ADDR_BRIGHTNESS])

    # -- input ------------------------------------------------------------------------------------

    def receive(self, data: bytes, now: float) -> Output:
        """Bytes from the app: the replies (and any report due) and the LEDs if changed."""
        if now < self._quiet_until:
            return Output()  # restarting: a real board hears nothing
        self.decoder.block = self.block_parity
        sent: list[bytes] = [self.poll(now)]
        leds: Leds | None = None
        for command in self.decoder.feed(data):
            if now < self._quiet_until:
                break  # a reset earlier in the same bytes
            reply, changed = self._answer(command, now)
            sent.append(reply)
            if changed is not None:
                leds = changed
        return Output(b"".join(sent), leds)

    def _answer(self, command: p.Command, now: float) -> tuple[bytes, Leds | None]:
        block = self.block_parity  # the setting in force when the command arrived
        letter = command.letter
        if letter == "V":
            return p.encode(p.version_reply(self.version), block=block), None
        if letter == "S":
            return p.encode(p.status_reply(self.status), block=block), None
        if letter == "X":
            self.leds = DARK
            return p.encode("x", block=block), DARK
        if letter == "L":
            led = p.led_command(command)
            self.leds = Leds(led.slot_time, led.patterns)
            return p.encode("l", block=block), self.leds
        if letter == "R":
            address = command.byte(0)
            return p.encode(p.option_reply("r", address, self.options[address]), block=block), None
        if letter == "W":
            address, value = command.byte(0), command.byte(1)
            self.options[address] = value
            self._restart_timers(now)
            self.decoder.block = self.block_parity
            return p.encode(p.option_reply("w", address, value), block=block), None
        # T: a hardware reset, no reply; status and LEDs cleared, scanning again after the delay.
        self.leds = DARK
        self._last_reported = None
        self._quiet_until = now + self.reset_delay
        self._restart_timers(self._quiet_until)
        self.decoder = p.Decoder(block=self.block_parity)
        return b"", DARK

    def _restart_timers(self, now: float) -> None:
        self._next_scan = now + self.scan_time
        self._next_timed = now + self.report_time
        self._debounce_due = None

    # -- the board's side -------------------------------------------------------------------------

    def set_status(self, status: str, now: float) -> bytes:
        """The pieces changed (``status``, 64 codes): the report it causes now, if any."""
        changed = status != self.status
        self.status = status
        if not changed or now < self._quiet_until:
            return b""
        mode = self.report_mode
        if mode.kind == "every-scan":
            self._next_scan = now + self.scan_time  # this scan saw the change: reported at once
            return self._report()
        if mode.kind == "on-change":
            if mode.debounce == 0:
                return self._report() if status != self._last_reported else b""
            self._debounce_due = now + mode.debounce * self.scan_time
        return b""

    def poll(self, now: float) -> bytes:
        """The reports due by ``now`` (every scan, timed, a debounced change)."""
        if now < self._quiet_until:
            return b""
        mode = self.report_mode
        if mode.kind == "every-scan" and now >= self._next_scan:
            self._next_scan = _next(self._next_scan, self.scan_time, now)
            return self._report()
        if mode.kind == "timed" and now >= self._next_timed:
            self._next_timed = _next(self._next_timed, self.report_time, now)
            return self._report()
        if mode.kind == "on-change" and self._debounce_due is not None and now >= self._debounce_due:
            self._debounce_due = None
            return self._report() if self.status != self._last_reported else b""
        return b""

    def next_due(self) -> float | None:
        """When :meth:`poll` may next have something to send (None: only on input)."""
        mode = self.report_mode
        due: float | None = None
        if mode.kind == "every-scan":
            due = self._next_scan
        elif mode.kind == "timed":
            due = self._next_timed
        elif mode.kind == "on-change":
            due = self._debounce_due
        if due is not None and due < self._quiet_until:
            due = self._quiet_until
        return due

    def _report(self) -> bytes:
        self._last_reported = self.status
        return p.encode(p.status_reply(self.status), block=self.block_parity)


def _next(due: float, period: float, now: float) -> float:
    """The next due time after ``due`` on a ``period`` grid; a board that fell behind skips ahead."""
    due += period
    return due if due > now else now + period
