"""A microcontroller scans the board; the Pi talks to it over serial (``firmware/PROTOCOL.md``).

One reader thread owns the port: it opens it (again and again after an unplug), requests a
snapshot on every connect, parses lines, and emits events stamped with the Pi's monotonic
clock on arrival (the device's ticks reset and wrap, so they are never used).

Recovery: a line failing its checksum or grammar, a gap in the device's sequence numbers,
a change that contradicts the known occupancy, a device reset (``HELLO``), a silent link or
a reconnect all mark the state uncertain and ask for a snapshot (``?``). The snapshot that
answers reaches the tracker as one ``Snapshot`` event (a resync by comparison), never as a
burst of lifts and places. Periodic heartbeat snapshots are compared silently and emitted
only if they differ. Every such fault is logged and counted in ``stats``.
"""

from __future__ import annotations

import errno
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import serial

from boardctl.errors import HardwareError, ProtocolError
from boardctl.events import ButtonPressed, Code, Snapshot, SquareChanged
from boardctl.hw import protocol as p
from boardctl.hw.base import Board, Clock
from boardctl.hw.leds import SIGNALS, LedFrame

log = logging.getLogger(__name__)

Opener = Callable[[], Any]  # returns an open pyserial port


@dataclass
class LinkStats:
    """Counters of what went wrong (and was recovered from)."""

    lines: int = 0
    bad_lines: int = 0
    lost_lines: int = 0
    echoes: int = 0
    overflows: int = 0
    resets: int = 0
    reconnects: int = 0
    resyncs: int = 0
    device_errors: int = 0


class SerialBoard(Board):
    kind = "serial"

    #: Seconds between snapshot requests while one is outstanding.
    REQUEST_RETRY = 0.5
    #: Resend the LED frame this often, in case a host line was lost.
    FRAME_REFRESH = 2.0
    #: No line for this long (the device sends a heartbeat every second) means ask again.
    SILENCE = 3.5

    def __init__(
        self,
        url: str | None = None,
        *,
        baudrate: int = 115200,
        clock: Clock = time.monotonic,
        opener: Opener | None = None,
        reconnect_delay: float = 0.5,
    ) -> None:
        super().__init__(clock=clock)
        if opener is None:
            if not url:
                raise HardwareError("serial: no port URL given")

            def opener() -> Any:
                # write_timeout: a device that stops reading must not block the daemon for long
                return serial.serial_for_url(url, baudrate=baudrate, timeout=0.05, write_timeout=0.5)

        self.url = url or "the device"
        self._opener = opener
        self._reconnect_delay = reconnect_delay
        self.stats = LinkStats()
        self._port: Any = None
        self._write_lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._framer = p.LineFramer()
        self._tx_seq = 0
        self._expect_seq: int | None = None
        self._resync_pending = True
        self._last_request = float("-inf")
        self._last_frame_sent = float("-inf")
        self._last_line = 0.0
        self._connected = threading.Event()

    # --- lifetime --------------------------------------------------------------------------------------
    def _start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="boardctl-serial", daemon=True)
        self._thread.start()

    def _close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=3.0)
        self._drop_port()

    def wait_connected(self, timeout: float) -> bool:
        """Block until the port is open (for tools and tests)."""
        return self._connected.wait(timeout)

    # --- requests to the device ------------------------------------------------------------------------
    def request_snapshot(self) -> None:
        self._resync_pending = True
        self._request(force=True)

    def _request(self, *, force: bool = False) -> None:
        now = time.monotonic()
        if force or now - self._last_request >= self.REQUEST_RETRY:
            self._last_request = now
            self._send("?")

    def _show(self, frame: LedFrame) -> None:
        self._send_frame(frame)

    def _send_frame(self, frame: LedFrame) -> None:
        self._last_frame_sent = time.monotonic()
        self._send("L", *(p.lamp_arg(lamp.square, lamp.mask, lamp.colour) for lamp in frame.lamps))

    def play(self, code: Code) -> None:
        tones = SIGNALS[code].tones
        if tones:
            self._send("T", *(p.tone_arg(hz, s) for hz, s in tones))

    def _send(self, kind: str, *args: str) -> None:
        with self._write_lock:
            port = self._port
            if port is None:
                return  # resent on connect
            line = p.encode_line(self._tx_seq, kind, *args)
            self._tx_seq = (self._tx_seq + 1) & 0xFF
            try:
                port.write(line)
            except (serial.SerialException, OSError, ValueError) as exc:
                log.debug("serial: write failed (%s); the reader will reconnect", exc)

    # --- the reader thread -----------------------------------------------------------------------------------
    def _run(self) -> None:
        failures = 0
        while not self._stop.is_set():
            try:
                port = self._opener()
            except (serial.SerialException, OSError, ValueError) as exc:
                if failures == 0:
                    log.warning("serial: cannot open %s (%s); retrying every %.1f s", self.url, exc, self._reconnect_delay)
                failures += 1
                self._stop.wait(self._reconnect_delay)
                continue
            if failures or self.stats.reconnects:
                log.warning("serial: connected to %s again", self.url)
            failures = 0
            self._on_connect(port)
            try:
                self._pump(port)
            except (serial.SerialException, OSError, ValueError, TypeError) as exc:
                # pyserial reports an unplugged USB device in many shapes; all mean the link is gone.
                if not self._stop.is_set():
                    log.warning("serial: link to %s lost (%s: %s); reconnecting", self.url, type(exc).__name__, exc)
            self._drop_port()
            if not self._stop.is_set():
                self.stats.reconnects += 1
                self._stop.wait(self._reconnect_delay)

    def _on_connect(self, port: Any) -> None:
        with self._write_lock:
            self._port = port
        self._framer.reset()
        self._expect_seq = None
        self._last_line = time.monotonic()
        self._connected.set()
        self.request_snapshot()
        self._send_frame(self._frame)

    def _drop_port(self) -> None:
        self._connected.clear()
        with self._write_lock:
            port, self._port = self._port, None
        if port is not None:
            try:
                port.close()
            except Exception:  # closing a vanished device may fail in odd ways
                log.debug("serial: close failed", exc_info=True)

    def _pump(self, port: Any) -> None:
        while not self._stop.is_set():
            data = port.read(max(1, port.in_waiting))
            if data:
                for raw in self._framer.feed(data):
                    self.handle_line(raw)
                if self._framer.overflows != self.stats.overflows:
                    self.stats.overflows = self._framer.overflows
                    self._uncertain("an overlong line (garbage)")
            self._housekeeping()

    def _housekeeping(self) -> None:
        now = time.monotonic()
        if self._resync_pending:
            self._request()
        if now - self._last_line > self.SILENCE:
            log.warning("serial: no line from the device for %.1f s; asking for a snapshot", now - self._last_line)
            self._last_line = now
            self._uncertain("silence")
        if now - self._last_frame_sent > self.FRAME_REFRESH:
            self._send_frame(self._frame)

    def _uncertain(self, why: str) -> None:
        self.stats.resyncs += 1
        log.info("serial: resync after %s", why)
        self._resync_pending = True
        self._request()

    def handle_line(self, raw: bytes) -> None:
        """Interpret one line from the device (the reader thread's work; public for tests)."""
        self._last_line = time.monotonic()
        try:
            line = p.parse_line(raw)
        except ProtocolError as exc:
            self.stats.bad_lines += 1
            log.warning("serial: dropped a bad line: %s", exc)
            self._uncertain("a bad line")
            return
        self.stats.lines += 1
        if line.kind in p.HOST_KINDS:
            self.stats.echoes += 1
            log.debug("serial: ignoring an echo of our own %s line", line.kind)
            return
        if line.kind == "HELLO":
            self.stats.resets += 1
            log.warning("serial: device (re)started: %s", " ".join(line.args))
            self._expect_seq = (line.seq + 1) & 0xFF
            self._resync_pending = True
            self._send_frame(self._frame)
            return
        if self._expect_seq is not None and line.seq != self._expect_seq:
            lost = (line.seq - self._expect_seq) & 0xFF
            self.stats.lost_lines += lost
            log.warning("serial: %d line(s) lost before seq %02x", lost, line.seq)
            self._uncertain("lost lines")
        self._expect_seq = (line.seq + 1) & 0xFF
        try:
            self._dispatch(line)
        except ProtocolError as exc:
            self.stats.bad_lines += 1
            log.warning("serial: dropped a bad line: %s", exc)
            self._uncertain("a bad line")

    def _dispatch(self, line: p.Line) -> None:
        now = self._clock()
        if line.kind == "S":
            occupancy = p.bitboard_arg(line, 0)
            if self._resync_pending or occupancy != self._occupancy:
                if not self._resync_pending:
                    log.warning("serial: heartbeat snapshot differs from the known occupancy; resync")
                self._resync_pending = False
                self._occupancy = occupancy
                self._emit(Snapshot(now, occupancy))
        elif line.kind == "C":
            square, occupied = p.square_arg(line, 0), p.bit_arg(line, 1)
            if bool(self._occupancy >> square & 1) == occupied:
                log.warning("serial: change on %s contradicts the known occupancy", line.args[0])
                self._uncertain("a contradicting change")
                return
            self._occupancy ^= 1 << square
            self._emit(SquareChanged(now, square, occupied))
        elif line.kind == "B":
            self._emit(ButtonPressed(now, p.button_arg(line, 0)))
        elif line.kind == "E":
            self.stats.device_errors += 1
            log.warning("serial: device rejected a line: %s", " ".join(line.args))
            self._send_frame(self._frame)
        else:
            raise ProtocolError(f"unknown line kind {line.kind!r}")


#: Seconds ``play``/``record --board serial`` wait at start for the board to answer before giving up
#: (unless ``board.serial_wait``); the device sends a heartbeat every second.
START_TIMEOUT = 6.0


def wait_for_device(
    url: str,
    *,
    timeout: float = START_TIMEOUT,
    baudrate: int = 115200,
    opener: Opener | None = None,
    retry: float = 0.5,
) -> None:
    """Return once a board answers on ``url`` (the port opens and a valid device line arrives);
    raise :class:`HardwareError`, one line saying what to check, after ``timeout`` seconds.

    At start a wrong port must not leave the daemon waiting forever with nothing said; once the
    game runs, a pulled cable is recovered by :class:`SerialBoard` instead.
    """
    if opener is None:

        def opener() -> Any:
            return serial.serial_for_url(url, baudrate=baudrate, timeout=0.1, write_timeout=0.5)

    hint = "check the cable and --serial-url (board.serial_url), or give --serial-wait to wait for the board"
    deadline = time.monotonic() + timeout
    opened = False
    error: Exception | None = None
    while True:
        try:
            port = opener()
        except (serial.SerialException, OSError, ValueError) as exc:
            error = exc
        else:
            opened = True
            try:
                if _answers(port, deadline):
                    return
            except (serial.SerialException, OSError, ValueError, TypeError) as exc:
                error = exc
            finally:
                try:
                    port.close()
                except Exception:  # closing a vanished device may fail in odd ways
                    log.debug("serial: close failed", exc_info=True)
        if time.monotonic() + retry >= deadline:
            break
        time.sleep(retry)
    if not opened:
        raise HardwareError(f"serial: no device at {url} ({_why_not_open(error)}); {hint}")
    raise HardwareError(
        f"serial: {url} opened, but no board answered within {timeout:g} s (is the firmware running? "
        f"see firmware/README.md); {hint}"
    )


def _answers(port: Any, deadline: float) -> bool:
    """Ask for a snapshot (again every second) until a valid device line arrives or time is up."""
    framer = p.LineFramer()
    asked = float("-inf")
    while time.monotonic() < deadline:
        if time.monotonic() - asked >= 1.0:
            port.write(p.encode_line(0, "?"))
            asked = time.monotonic()
        data = port.read(max(1, port.in_waiting))
        for raw in framer.feed(data or b""):
            try:
                line = p.parse_line(raw)
            except ProtocolError:
                continue
            if line.kind in p.DEVICE_KINDS:
                return True
    return False


def _why_not_open(error: Exception | None) -> str:
    code = getattr(error, "errno", None)
    if code == errno.ENOENT:
        return "no such port"
    if code in (errno.EACCES, errno.EPERM):
        return "permission denied: add your user to the dialout group"
    if code == errno.EBUSY:
        return "the port is busy: another program has it open"
    return str(error)
