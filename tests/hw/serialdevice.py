"""A scripted microcontroller for the serial backend's tests (not a test module).

``FakePico`` keeps the true occupancy, numbers its lines, remembers every line it sent (to
replay them), and answers the host's ``? TOKEN`` requests with ``S <occupancy> req TOKEN``:
at once, after ``delay`` seconds, or never for the next ``lose`` requests. ``Tap`` wraps the
port the host opens so that what the host writes reaches the fake device instead of coming
back to the host (as it would over a bare ``loop://``).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import Any

import chess
import serial

from boardctl.core.geometry import CHESS_8X8
from boardctl.hw.protocol import LineFramer, encode_line, line_limit, parse_line

START = chess.Board().occupied

#: ``make fuzz`` sets HYPOTHESIS_PROFILE=fuzz: the property tests here then run this many times longer.
FUZZ_SCALE = 30 if os.environ.get("HYPOTHESIS_PROFILE") == "fuzz" else 1


def examples(n: int) -> int:
    """``n`` examples in ``make test``, ``n * FUZZ_SCALE`` under ``make fuzz``."""
    return n * FUZZ_SCALE


class Tap:
    """A pyserial port whose writes go to ``on_write``; everything else is the wrapped port's."""

    def __init__(self, port: Any, on_write: Callable[[bytes], None]) -> None:
        self._port = port
        self._on_write = on_write

    def write(self, data: bytes) -> int:
        self._on_write(bytes(data))
        return len(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._port, name)


class FakePico:
    """The device side; ``deliver`` carries its bytes to the host (a loop:// port, or a direct call)."""

    def __init__(self, deliver: Callable[[bytes], None] | None = None, *, occupancy: int = START) -> None:
        self.deliver = deliver or (lambda data: None)
        self.occupancy = occupancy
        self.seq = 0
        self.sent: list[bytes] = []
        self.requests: list[str] = []  # tokens the host asked with
        self.host_lines: list[tuple[str, tuple[str, ...]]] = []
        self.answering = True
        self.echo_token = True  # False: firmware before boardfw-2, which answers "S <occ> req"
        self.version = "boardfw-2"
        self.geometry = CHESS_8X8  # the board's points (names in C lines)
        self.size = "8x8"  # rows x columns, as HELLO says it
        self.digits = 16  # hex digits of a snapshot
        self.answer_version = False  # True: answers V with VERSION (boardfw-3)
        self.delay = 0.0
        self.lose = 0
        self._framer = LineFramer(max_line=line_limit(90))  # room for a 90-point board's L lines
        self._lock = threading.RLock()
        self._timers: list[threading.Timer] = []

    # --- lines the device makes ------------------------------------------------------------
    def line(self, kind: str, *args: str) -> bytes:
        """The next line (consumes a sequence number; not sent)."""
        with self._lock:
            raw = encode_line(self.seq, kind, *args)
            self.seq = (self.seq + 1) & 0xFF
            self.sent.append(raw)
            return raw

    def send(self, kind: str, *args: str) -> bytes:
        with self._lock:
            raw = self.line(kind, *args)
            self.deliver(raw)
            return raw

    def change(self, square: str, occupied: bool) -> bytes:
        """A piece really lifted or placed: the truth changes, and the line is made (not sent)."""
        with self._lock:
            bit = 1 << self.geometry.parse(square)
            self.occupancy ^= bit
            assert bool(self.occupancy & bit) == occupied
            return self.line("C", square, "1" if occupied else "0")

    def move(self, square: str, occupied: bool) -> bytes:
        raw = self.change(square, occupied)
        self.deliver(raw)
        return raw

    def snapshot(self, why: str, *token: str) -> bytes:
        return self.line("S", f"{self.occupancy:0{self.digits}x}", why, *token)

    def boot(self) -> None:
        with self._lock:
            self.seq = 0
            self.deliver(self.line("HELLO", self.version, self.size))
            self.deliver(self.snapshot("boot"))

    # --- what the host sends -----------------------------------------------------------------
    def from_host(self, data: bytes) -> None:
        for raw in self._framer.feed(data):
            line = parse_line(raw)
            self.host_lines.append((line.kind, line.args))
            if line.kind == "?":
                assert len(line.args) == 1, "the host always sends a token"
                self.requests.append(line.args[0])
                self._requested(line.args[0])
            elif line.kind == "V" and self.answer_version:
                self.send("VERSION", self.version, self.size)

    def _requested(self, token: str) -> None:
        with self._lock:
            if not self.answering:
                return
            if self.lose > 0:
                self.lose -= 1
                return
            if self.delay <= 0:
                self._answer_later(token)
                return
            timer = threading.Timer(self.delay, self._answer_later, args=(token,))
            timer.daemon = True
            self._timers.append(timer)
            timer.start()

    def _answer_later(self, token: str) -> None:
        with self._lock:
            self.deliver(self.snapshot("req", *([token] if self.echo_token else [])))

    def close(self) -> None:
        for timer in self._timers:
            timer.cancel()


class LoopPico(FakePico):
    """A ``FakePico`` behind pyserial's ``loop://``: ``open`` is the host's opener (reopenable)."""

    def __init__(self, *, occupancy: int = START) -> None:
        super().__init__(self._write, occupancy=occupancy)
        self.port: Any = None
        self.opened = 0
        self.unplugged = False

    def _write(self, data: bytes) -> None:
        if self.port is not None and self.port.is_open:
            self.port.write(data)

    def open(self) -> Any:
        if self.unplugged:
            raise serial.SerialException("no such device")
        self.port = serial.serial_for_url("loop://", timeout=0.02)
        self.opened += 1
        return Tap(self.port, self.from_host)
