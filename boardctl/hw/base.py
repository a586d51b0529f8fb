"""The interfaces every backend implements, and the thread-safe plumbing they share."""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
import time
from collections.abc import Callable, Collection
from dataclasses import replace
from types import TracebackType
from typing import Protocol, Self, runtime_checkable

from boardctl.core.geometry import CHESS_8X8, Geometry
from boardctl.events import Code, Event, LedIntent
from boardctl.hw.leds import LedFrame

log = logging.getLogger(__name__)

#: Receives events; backends call it from their own threads (see ``boardctl.hw``).
EventCallback = Callable[[Event], None]
Clock = Callable[[], float]


@runtime_checkable
class SensorSource(Protocol):
    """Reed switches and buttons: ``SquareChanged``, ``ButtonPressed`` and ``Snapshot`` events."""

    @property
    def occupancy(self) -> int:
        """Occupancy as last reported to the callback (bitboard)."""
        ...

    def start(self, callback: EventCallback) -> None:
        """Begin delivering events to ``callback`` (first a ``Snapshot`` of the board as it is)."""
        ...

    def request_snapshot(self) -> None:
        """Ask for a fresh ``Snapshot`` event (a resync)."""
        ...


@runtime_checkable
class LedSink(Protocol):
    def show(self, intents: Collection[LedIntent]) -> None:
        """Replace what the LEDs show; the backend animates blink patterns itself."""
        ...


@runtime_checkable
class Buzzer(Protocol):
    def play(self, code: Code) -> None:
        """Sound ``code``'s tune (see ``leds.SIGNALS``) without blocking; codes without one are silent."""
        ...


class Board:
    """Base of every backend: sensors + LEDs + buzzer, a context manager, ``close()`` idempotent.

    Subclasses call ``_emit`` from any thread; it keeps event times non-decreasing and
    serialises calls to the callback.
    """

    kind = "base"
    #: The board's points (each backend sets its own; chess unless told).
    geometry: Geometry = CHESS_8X8

    def __init__(self, *, clock: Clock = time.monotonic) -> None:
        self._clock = clock
        self._callback: EventCallback | None = None
        self._emit_lock = threading.RLock()  # the sim emits on the caller's thread, maybe from a callback
        self._last_t = float("-inf")
        self._occupancy = 0
        self._frame = LedFrame(())
        self._intents: frozenset[LedIntent] = frozenset()
        self._closed = False

    # --- SensorSource -------------------------------------------------------------------------
    @property
    def occupancy(self) -> int:
        return self._occupancy

    def start(self, callback: EventCallback) -> None:
        if self._callback is not None:
            raise RuntimeError(f"{self.kind} board already started")
        self._callback = callback
        self._start()

    def _start(self) -> None:
        """Backend hook: begin producing events (first a snapshot)."""

    def request_snapshot(self) -> None:
        raise NotImplementedError

    def _emit(self, event: Event) -> None:
        with self._emit_lock:
            if event.t < self._last_t:
                event = replace(event, t=self._last_t)
            self._last_t = event.t
            callback = self._callback
            if callback is None:
                return
            try:
                callback(event)
            except Exception:
                log.exception("%s board: event callback failed on %r", self.kind, event)

    # --- LedSink / Buzzer -----------------------------------------------------------------------
    @property
    def intents(self) -> frozenset[LedIntent]:
        """The intents last shown."""
        return self._intents

    @property
    def frame(self) -> LedFrame:
        return self._frame

    def show(self, intents: Collection[LedIntent]) -> None:
        new = frozenset(intents)
        if new == self._intents:
            return
        self._intents = new
        self._frame = LedFrame.from_intents(new)
        self._show(self._frame)

    def _show(self, frame: LedFrame) -> None:
        """Backend hook: display ``frame`` now."""

    def play(self, code: Code) -> None:
        """Default: silent."""

    # --- lifetime ---------------------------------------------------------------------------------
    @property
    def is_closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._callback = None
        self._close()

    def _close(self) -> None:
        """Backend hook: release hardware and stop threads."""

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} kind={self.kind!r} closed={self._closed}>"


class EventQueue:
    """A callback that stores events in a ``queue.Queue``, for blocking consumers (selftest, tests)."""

    def __init__(self) -> None:
        self.queue: queue.Queue[Event] = queue.Queue()

    def __call__(self, event: Event) -> None:
        self.queue.put(event)

    def get(self, timeout: float | None = None) -> Event | None:
        """The next event, or ``None`` after ``timeout`` seconds."""
        try:
            return self.queue.get(timeout=timeout)
        except queue.Empty:
            return None

    def drain(self) -> list[Event]:
        out: list[Event] = []
        while True:
            try:
                out.append(self.queue.get_nowait())
            except queue.Empty:
                return out


def asyncio_callback(loop: asyncio.AbstractEventLoop, q: asyncio.Queue[Event]) -> EventCallback:
    """A callback, safe from any thread, that puts events into ``q`` on ``loop``."""

    def callback(event: Event) -> None:
        try:
            loop.call_soon_threadsafe(q.put_nowait, event)
        except RuntimeError:  # the loop closed while the backend was still running
            log.debug("event %r dropped: event loop closed", event)

    return callback
