"""A serial port where another program talks to the board (``boardctl link``): raw bytes both ways.

Any pyserial URL: a USB gadget serial port on the Pi (``/dev/ttyGS0``), a pty in the tests, a
real UART, ``socket://``/``rfc2217://``. The port runs at 38400 baud 8N1: the ChessLink protocol
is 7O1, and its parity bit is bit 7 of each byte, set and checked by the protocol itself
(:mod:`boardctl.chesslink.protocol`), which puts the same bits on the wire. Bytes received are
handed to a callback from the port's reader thread; writes come from the caller's thread.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable
from types import TracebackType
from typing import Any, Self

from boardctl.errors import HardwareError

log = logging.getLogger(__name__)

#: The ChessLink line speed.
BAUDRATE = 38400


class AppPort:
    """One serial port opened by URL; ``start(callback)`` reads in a thread, ``write`` sends."""

    def __init__(self, url: str, *, baudrate: int = BAUDRATE, opener: Callable[..., Any] | None = None) -> None:
        import serial

        self.url = url
        try:
            self._port = (opener or serial.serial_for_url)(url, baudrate=baudrate, timeout=0.05, write_timeout=0.5)
        except (serial.SerialException, OSError, ValueError) as exc:
            raise HardwareError(f"link: cannot open the port {url} ({exc})") from None
        self._serial_error: type[BaseException] = serial.SerialException
        self._thread: threading.Thread | None = None
        self._closed = threading.Event()
        self._lock = threading.Lock()

    def start(self, on_bytes: Callable[[bytes], None], on_closed: Callable[[], None] | None = None) -> None:
        """Deliver received bytes to ``on_bytes`` from a reader thread; ``on_closed`` when the port fails."""

        def run() -> None:
            try:
                while not self._closed.is_set():
                    data = self._port.read(max(1, self._port.in_waiting))
                    if data:
                        on_bytes(bytes(data))
            except (self._serial_error, OSError, TypeError, AttributeError) as exc:
                if not self._closed.is_set():
                    log.warning("link: the port %s failed (%s)", self.url, exc)
            finally:
                if on_closed is not None and not self._closed.is_set():
                    on_closed()

        self._thread = threading.Thread(target=run, name="boardctl-link-port", daemon=True)
        self._thread.start()

    def write(self, data: bytes) -> None:
        """Send ``data``; a port nobody reads (its buffer full past the write timeout) drops it."""
        if not data or self._closed.is_set():
            return
        with self._lock:
            try:
                self._port.write(data)
            except (self._serial_error, OSError) as exc:
                log.debug("link: %d bytes not sent on %s (%s)", len(data), self.url, exc)

    def close(self) -> None:
        if self._closed.is_set():
            return
        self._closed.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=1.0)
        with contextlib.suppress(self._serial_error, OSError):
            self._port.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()
