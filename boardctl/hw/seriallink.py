"""A microcontroller scans the board; the Pi talks to it over serial (``firmware/PROTOCOL.md``).

One reader thread owns the port: it opens it (again and again after an unplug), requests a
snapshot on every connect, parses lines, and emits events stamped with the Pi's monotonic
clock on arrival (the device's ticks reset and wrap, so they are never used).

Recovery: a line failing its checksum or grammar, an overlong line, a sequence number other
than the next one (a lost, duplicated, reordered or replayed line), a change that contradicts
the known occupancy, a heartbeat that differs from it, a device reset (``HELLO``), a silent link
or a reconnect all make the link *uncertain*. From then on no event reaches the tracker: changes
and button presses are dropped (counted in ``stats.dropped``) until the device has answered a
snapshot request (``? TOKEN``, repeated every 0.5 s with a fresh token) with ``S ... req TOKEN``
echoing a token asked for since the link became uncertain. Only that answer is trusted: a stale,
duplicated or replayed snapshot cannot carry a current token. It reaches the tracker as one
``Snapshot`` event (a resync by comparison), never as a burst of lifts and places, and
supersedes everything dropped. Every such fault is logged and counted in ``stats``.

Sizes: the board runs one game (``geometry``, chess by default). A device whose ``HELLO`` names a
protocol version this side cannot speak, or a board of another size (its ``HELLO``, or the width
of its snapshots), is *refused*: one error line naming the versions or sizes is logged, kept in
``refusal``, and nothing from the device reaches the tracker until it restarts with firmware and
a board that fit (a new ``HELLO``).
"""

from __future__ import annotations

import errno
import logging
import random
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import serial

from boardctl.core.geometry import CHESS_8X8, Geometry
from boardctl.errors import HardwareError, ProtocolError
from boardctl.events import ButtonPressed, Code, Snapshot, SquareChanged
from boardctl.hw import protocol as p
from boardctl.hw.base import Board, Clock
from boardctl.hw.leds import SIGNALS, LedFrame

log = logging.getLogger(__name__)

Opener = Callable[[], Any]  # returns an open pyserial port

#: Most bytes taken from the port at once (the framer never holds more than a line anyway).
READ_CHUNK = 4096


@dataclass
class LinkStats:
    """Counters of what went wrong (and was recovered from)."""

    lines: int = 0
    bad_lines: int = 0
    #: Lines whose sequence number was not the next one: lost, duplicated, reordered or replayed.
    sequence_gaps: int = 0
    echoes: int = 0
    overflows: int = 0
    resets: int = 0
    reconnects: int = 0
    resyncs: int = 0
    device_errors: int = 0
    #: A line repeated right after itself (ignored).
    duplicates: int = 0
    #: Changes and button presses dropped while a resync was pending (the snapshot supersedes them).
    dropped: int = 0
    #: Snapshots ignored while a resync was pending: heartbeats, boot snapshots, stale answers.
    stale_snapshots: int = 0
    #: Lines ignored because the device was refused (unknown protocol version, other board size).
    refused: int = 0


class SerialBoard(Board):
    kind = "serial"

    #: Seconds between snapshot requests while one is outstanding.
    REQUEST_RETRY = 0.5
    #: Resend the LED frame this often, in case a host line was lost.
    FRAME_REFRESH = 2.0
    #: No line for this long (the device sends a heartbeat every second) means ask again.
    SILENCE = 3.5
    #: Tokens of the current resync remembered (at 2 a second, the last 30 s of requests).
    TOKENS_KEPT = 64

    def __init__(
        self,
        url: str | None = None,
        *,
        baudrate: int = 115200,
        clock: Clock = time.monotonic,
        opener: Opener | None = None,
        reconnect_delay: float = 0.5,
        geometry: Geometry = CHESS_8X8,
    ) -> None:
        super().__init__(clock=clock)
        self.geometry = geometry
        #: Why the device is refused (its firmware or board does not fit the game), or None.
        self.refusal: HardwareError | None = None
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
        self._framer = p.LineFramer(max_line=p.line_limit(geometry.points))
        self._tx_seq = 0
        self._expect_seq: int | None = None
        self._last_raw = b""
        # Only the reader thread touches the resync state; other threads set _snapshot_wanted.
        self._resync_pending = True
        self._tokens: deque[int] = deque(maxlen=self.TOKENS_KEPT)  # asked for since it became pending
        self._next_token = random.getrandbits(32)  # a random start: a restarted daemon takes no old answer for new
        self._warned_tokenless = False
        # Firmware before boardfw-2 echoes no token: until a device shows it does (its HELLO, or a
        # tokened answer), an answer without one, or the boot snapshot right after HELLO, is taken.
        self._tokens_seen = False
        self._after_hello = False
        self._snapshot_wanted = threading.Event()
        self._last_request = float("-inf")
        self._last_frame_sent = float("-inf")
        self._last_line = 0.0
        self._connected = threading.Event()

    # --- lifetime --------------------------------------------------------------------------------------
    def _start(self) -> None:
        self._spawn()

    def _spawn(self) -> None:
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
        """Ask for a resync; the reader thread sends the request (and drops events until it is answered)."""
        self._snapshot_wanted.set()

    @property
    def is_resync_pending(self) -> bool:
        """Events are being held back until a snapshot request is answered."""
        return self._resync_pending

    def _request(self, *, force: bool = False) -> None:
        now = time.monotonic()
        if force or now - self._last_request >= self.REQUEST_RETRY:
            self._last_request = now
            token = self._next_token
            self._next_token = (token + 1) & 0xFFFFFFFF
            self._tokens.append(token)
            self._send("?", p.token_hex(token))

    def _show(self, frame: LedFrame) -> None:
        self._send_frame(frame)

    def _send_frame(self, frame: LedFrame) -> None:
        self._last_frame_sent = time.monotonic()
        geometry = self.geometry
        self._send("L", *(p.lamp_arg(lamp.square, lamp.mask, lamp.colour, geometry) for lamp in frame.lamps))

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
            self.attach(port)
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

    def attach(self, port: Any) -> None:
        """Use ``port``, just opened: resync and resend the LEDs (the reader thread's work; public for tests)."""
        with self._write_lock:
            self._port = port
        self._framer.reset()
        self._expect_seq = None
        self._last_raw = b""
        self._tokens_seen = False
        self._after_hello = False
        self._last_line = time.monotonic()
        self._connected.set()
        self._uncertain("a (re)connect", restart=True)
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
            data = port.read(min(max(1, port.in_waiting), READ_CHUNK))
            if data:
                self.handle_bytes(data)
            self.housekeeping()

    def handle_bytes(self, data: bytes) -> None:
        """Frame and interpret bytes from the device (the reader thread's work; public for tests)."""
        for raw in self._framer.feed(data):
            self.handle_line(raw)
        if self._framer.overflows != self.stats.overflows:
            self.stats.overflows = self._framer.overflows
            log.warning(
                "serial: refused a line longer than %d bytes (starting %r); the rest of it is skipped",
                self._framer.max_line, self._framer.refused,
            )
            self._uncertain("an overlong line")

    def housekeeping(self) -> None:
        """Timed duties: repeat an unanswered ``?``, notice silence, refresh the LEDs (reader thread)."""
        now = time.monotonic()
        if self._snapshot_wanted.is_set():
            self._snapshot_wanted.clear()
            self._uncertain("a request", restart=True)
        if self._resync_pending:
            self._request()
        if now - self._last_line > self.SILENCE:
            log.warning("serial: no line from the device for %.1f s; asking for a snapshot", now - self._last_line)
            self._last_line = now
            self._uncertain("silence")
        if now - self._last_frame_sent > self.FRAME_REFRESH:
            self._send_frame(self._frame)

    def _uncertain(self, why: str, *, restart: bool = False) -> None:
        """Hold every event back until a snapshot asked for from now on has been received.

        ``restart`` (a reset, a reconnect, a request from outside): answers to requests sent
        before now no longer count even if a resync was already pending.
        """
        if self._resync_pending and not restart:
            log.debug("serial: %s while a resync is pending", why)
            self._request()
            return
        self.stats.resyncs += 1
        log.info("serial: resync after %s; events are held back until the snapshot arrives", why)
        self._resync_pending = True
        self._tokens.clear()
        self._request(force=True)

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
        if raw == self._last_raw:
            # The line just handled, again (a channel repeat): harmless, and no reason to resync.
            self.stats.duplicates += 1
            log.debug("serial: ignoring a repeat of line %02x", line.seq)
            return
        self._last_raw = raw
        if line.kind in ("HELLO", "VERSION"):
            try:
                p.check_identity(_arg_or(line, 0, "(none)"), _arg_or(line, 1, "(none)"), self.geometry)
            except HardwareError as exc:
                self._expect_seq = (line.seq + 1) & 0xFF
                self._refuse(exc)
                return
            if self.refusal is not None:
                log.warning("serial: the device now fits the game: %s", " ".join(line.args))
                self.refusal = None
                if line.kind == "VERSION":
                    self._expect_seq = (line.seq + 1) & 0xFF
                    self._uncertain("a device accepted", restart=True)
                    return
            elif line.kind == "VERSION":  # an answer to ``V``: nothing restarted
                self._expect_seq = (line.seq + 1) & 0xFF
                return
        if self.refusal is not None:
            self.stats.refused += 1
            return
        if line.kind == "S":
            try:
                p.check_snapshot_width(line, self.geometry)
            except HardwareError as exc:
                self._refuse(exc)
                return
        if line.kind == "HELLO":
            self.stats.resets += 1
            log.warning("serial: device (re)started: %s", " ".join(line.args))
            if line.args[0] in p.TOKEN_VERSIONS:
                self._tokens_seen = True
            else:
                log.warning(
                    "serial: firmware %s echoes no request token (it is older than boardfw-2); "
                    "deploy firmware/ again (firmware/README.md)", line.args[0],
                )
            self._after_hello = True
            self._expect_seq = (line.seq + 1) & 0xFF
            self._uncertain("a device reset", restart=True)
            self._send_frame(self._frame)
            return
        after_hello, self._after_hello = self._after_hello, False
        if self._expect_seq is not None and line.seq != self._expect_seq:
            after_hello = False
            ahead = (line.seq - self._expect_seq) & 0xFF
            self.stats.sequence_gaps += 1
            log.warning(
                "serial: line %02x arrived where %02x was due (%d lost, or a duplicated, reordered or replayed line)",
                line.seq, self._expect_seq, ahead,
            )
            self._uncertain("a sequence gap")
        self._expect_seq = (line.seq + 1) & 0xFF
        try:
            self._dispatch(line, after_hello=after_hello)
        except ProtocolError as exc:
            self.stats.bad_lines += 1
            log.warning("serial: dropped a bad line: %s", exc)
            self._uncertain("a bad line")

    def _refuse(self, exc: HardwareError) -> None:
        """Hold everything from a device that does not fit the game; say why once (see module doc)."""
        self.stats.refused += 1
        if self.refusal is None:
            log.error("%s", exc)
        elif str(self.refusal) != str(exc):
            log.debug("%s", exc)
        self.refusal = exc
        self._resync_pending = True
        self._tokens.clear()

    def _dispatch(self, line: p.Line, *, after_hello: bool = False) -> None:
        now = self._clock()
        if line.kind == "S":
            occupancy = p.bitboard_arg(line, 0, self.geometry)
            reason, token = _arg_or(line, 1), p.token_arg(line, 2)
            if token is not None:
                self._tokens_seen = True
            if self._resync_pending:
                if reason == "req" and token is not None and token in self._tokens:
                    pass  # the answer to a request sent since the doubt: trusted
                elif not self._tokens_seen and ((reason == "req" and token is None) or (reason == "boot" and after_hello)):
                    if not self._warned_tokenless:
                        self._warned_tokenless = True
                        log.warning("serial: the device echoes no request token (firmware before boardfw-2): "
                                    "its snapshots are taken as they come; deploy firmware/ again (firmware/README.md)")
                else:
                    self.stats.stale_snapshots += 1
                    log.debug("serial: snapshot %s ignored: not an answer to a current request", " ".join(line.args))
                    return
                self._resync_pending = False
                self._tokens.clear()
                self._occupancy = occupancy
                self._emit(Snapshot(now, occupancy))
            elif occupancy != self._occupancy:
                log.warning("serial: snapshot differs from the known occupancy on %d squares", bin(occupancy ^ self._occupancy).count("1"))
                self._uncertain("a differing snapshot")
        elif line.kind == "C":
            square, occupied = p.square_arg(line, 0, self.geometry), p.bit_arg(line, 1)
            if self._resync_pending:
                self._drop(line)
            elif bool(self._occupancy >> square & 1) == occupied:
                log.warning("serial: change on %s contradicts the known occupancy", line.args[0])
                self._uncertain("a contradicting change")
            else:
                self._occupancy ^= 1 << square
                self._emit(SquareChanged(now, square, occupied))
        elif line.kind == "B":
            button = p.button_arg(line, 0)
            if self._resync_pending:
                self._drop(line)
            else:
                self._emit(ButtonPressed(now, button))
        elif line.kind == "E":
            self.stats.device_errors += 1
            log.warning("serial: device rejected a line: %s", " ".join(line.args))
            self._send_frame(self._frame)
        else:
            raise ProtocolError(f"unknown line kind {line.kind!r}")

    def _drop(self, line: p.Line) -> None:
        self.stats.dropped += 1
        log.warning("serial: %s %s dropped: a resync is pending (the snapshot supersedes it)", line.kind, " ".join(line.args))


def _arg_or(line: p.Line, i: int, default: str = "") -> str:
    return line.args[i] if i < len(line.args) else default


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
    geometry: Geometry = CHESS_8X8,
) -> None:
    """Return once a board answers on ``url`` (the port opens and a valid device line arrives);
    raise :class:`HardwareError`, one line saying what to check, after ``timeout`` seconds.

    The device is also asked who it is (``V``): firmware speaking a protocol version this side
    cannot speak, or a board that is not ``geometry``'s size, is refused at once with one line
    naming the versions or sizes (:func:`protocol.check_identity`).

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
                if _answers(port, deadline, geometry):
                    return
            except HardwareError:
                raise  # the device answered, and does not fit the game: no use waiting
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


#: Seconds to wait, after a device's first answer, for it to say who it is (firmware before
#: boardfw-3 answers ``V`` with ``E kind``; a device saying nothing is taken as it is).
IDENTIFY_GRACE = 0.5


def _answers(port: Any, deadline: float, geometry: Geometry) -> bool:
    """Ask for a snapshot and who the device is (again every second) until it has said who it is,
    or answered and stayed silent on that for ``IDENTIFY_GRACE``, or time is up."""
    framer = p.LineFramer(max_line=p.line_limit(geometry.points))
    asked = float("-inf")
    answered: float | None = None
    misfit: HardwareError | None = None  # a snapshot of another width: said after who it is, if it says
    while time.monotonic() < deadline:
        if answered is not None and time.monotonic() - answered >= IDENTIFY_GRACE:
            if misfit is not None:
                raise misfit
            return True
        if time.monotonic() - asked >= 1.0:
            port.write(p.encode_line(0, "?") + p.encode_line(1, "V"))
            asked = time.monotonic()
        data = port.read(max(1, port.in_waiting))
        for raw in framer.feed(data or b""):
            try:
                line = p.parse_line(raw)
            except ProtocolError:
                continue
            if line.kind not in p.DEVICE_KINDS:
                continue
            if line.kind in ("HELLO", "VERSION"):
                p.check_identity(_arg_or(line, 0, "(none)"), _arg_or(line, 1, "(none)"), geometry)
                if misfit is not None:
                    raise misfit
                return True
            if line.kind == "E" and line.args[:1] == ("kind",):  # firmware before boardfw-3: no ``V``
                if geometry != CHESS_8X8:
                    raise HardwareError(
                        f"serial: the board's firmware is older than {p.PROTOCOL_VERSION} (it does not answer V) "
                        f"and drives only 8x8 chess boards, but the game is {geometry.name} "
                        f"({p.board_size(geometry)}); deploy firmware/ again (firmware/README.md)"
                    )
                if misfit is not None:
                    raise misfit
                return True
            if line.kind == "S":
                try:
                    p.check_snapshot_width(line, geometry)
                except HardwareError as exc:
                    misfit = exc
            if answered is None:
                answered = time.monotonic()
    return answered is not None


def _why_not_open(error: Exception | None) -> str:
    code = getattr(error, "errno", None)
    if code == errno.ENOENT:
        return "no such port"
    if code in (errno.EACCES, errno.EPERM):
        return "permission denied: add your user to the dialout group"
    if code == errno.EBUSY:
        return "the port is busy: another program has it open"
    return str(error)
