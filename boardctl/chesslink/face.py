"""The ChessLink face on the daemon: state lines in, statuses out to each app, the app's LEDs on the board.

It registers with the daemon like any face (``subscribe`` for state lines, ``show_face_leds``
for the LEDs) and imports no other face. Every connected app (a serial port, a TCP client, a
BLE central) is a :class:`Link` with its own :class:`~boardctl.chesslink.board.EmulatedBoard`;
they share the option bytes, as one board's E2ROM. While an app is connected its ``L``
patterns are the board's LEDs; when the last one leaves, the LEDs are the game's again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from boardctl.chesslink import protocol as p
from boardctl.chesslink.board import RESET_DELAY, EmulatedBoard, Leds, default_options
from boardctl.chesslink.view import PieceView
from boardctl.core.geometry import CHESS_8X8
from boardctl.events import Code, LedIntent

log = logging.getLogger(__name__)


class Link(Protocol):
    """One app's byte stream, whatever carries it."""

    name: str

    async def read(self) -> bytes:
        """The next bytes from the app; ``b""`` once it is gone."""
        ...

    def write(self, data: bytes) -> None:
        """Send without waiting (a full buffer drops, as a real board's UART would)."""
        ...

    async def close(self) -> None: ...


class Daemonish(Protocol):
    """What the face asks of the daemon (``boardctl.daemon.Daemon``)."""

    def subscribe(self) -> asyncio.Queue[dict[str, Any]]: ...

    def unsubscribe(self, queue: asyncio.Queue[dict[str, Any]]) -> None: ...

    def state(self) -> dict[str, Any]: ...

    def show_face_leds(self, intents: Any) -> None: ...


def led_mask(pattern: int) -> int:
    """An 8-slot ``L`` pattern (bit 7 first) as the board's 16-step blink mask: each slot two
    steps of 1/16 s, so the app's on/off sequence is kept on the board's one-second cycle."""
    mask = 0
    for slot in range(8):
        if pattern >> (7 - slot) & 1:
            mask |= 0b11 << (2 * slot)
    return mask


def led_intents(leds: Leds, *, flipped: bool = False) -> list[LedIntent]:
    """The board's LED intents (squares in its wiring) for an app's LED patterns."""
    out = []
    for square, pattern in sorted(p.square_patterns(leds.patterns).items()):
        wired = CHESS_8X8.turned(square) if flipped else square
        out.append(LedIntent(wired, Code.APP, mask=led_mask(pattern)))
    return out


@dataclass
class _Conn:
    link: Link
    machine: EmulatedBoard
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    #: When this app last set the LEDs (``L``, ``X``, ``T``), or None: never.
    lit_at: float | None = None


class ChessLinkFace:
    """Serves ChessLink to every :class:`Link` given to :meth:`serve`, from the daemon's state lines."""

    def __init__(self, daemon: Daemonish, *, clock: Callable[[], float] = time.monotonic,
                 reset_delay: float = RESET_DELAY) -> None:
        self.daemon = daemon
        self.clock = clock
        self.reset_delay = reset_delay
        self.options = default_options()
        self.view = PieceView()
        self._conns: list[_Conn] = []
        self._flipped = False
        self._leds_from: _Conn | None = None
        self._queue: asyncio.Queue[dict[str, Any]] | None = None
        self.follow(daemon.state())

    @property
    def status(self) -> str:
        return self.view.status

    @property
    def connections(self) -> int:
        return len(self._conns)

    def follow(self, line: dict[str, Any]) -> None:
        """One state line: the statuses it causes go to every app at once."""
        fen, occupancy = line.get("fen"), line.get("occupancy")
        if not isinstance(fen, str) or not isinstance(occupancy, str):
            return
        self._flipped = line.get("orientation") == "flipped"
        try:
            bits = CHESS_8X8.from_hex(occupancy)
        except ValueError:
            return
        if self._flipped:
            bits = CHESS_8X8.turn_mask(bits)
        promotion = line.get("promotion")
        statuses = self.view.update(fen, bits, promotion if isinstance(promotion, str) else None)
        if not statuses:
            return
        now = self.clock()
        for conn in self._conns:
            for status in statuses:
                conn.link.write(conn.machine.set_status(status, now))
            conn.wake.set()

    def drain(self) -> None:
        """Follow the state lines still queued (the daemon is closing: the apps get the last ones)."""
        queue = self._queue
        while queue is not None and not queue.empty():
            self.follow(queue.get_nowait())

    async def run(self, stop: asyncio.Event) -> None:
        """Follow the daemon's state lines until ``stop``."""
        queue = self.daemon.subscribe()
        self._queue = queue
        stopper = asyncio.get_running_loop().create_task(stop.wait())
        try:
            while not stop.is_set():
                getter = asyncio.get_running_loop().create_task(queue.get())
                done, _ = await asyncio.wait({getter, stopper}, return_when=asyncio.FIRST_COMPLETED)
                if getter not in done:
                    getter.cancel()
                    break
                self.follow(getter.result())
                while not queue.empty():  # a burst: each line in turn, none skipped (apps see every state)
                    self.follow(queue.get_nowait())
        finally:
            stopper.cancel()
            self.daemon.unsubscribe(queue)

    async def serve(self, link: Link) -> None:
        """Talk ChessLink with one app until it goes; its LEDs leave the board with it."""
        machine = EmulatedBoard(status=self.view.status, options=self.options, reset_delay=self.reset_delay,
                                now=self.clock())
        conn = _Conn(link, machine)
        self._conns.append(conn)
        log.info("link: %s connected", link.name)
        loop = asyncio.get_running_loop()
        reader: asyncio.Task[bytes] = loop.create_task(link.read())
        try:
            while True:
                due = machine.next_due()
                timeout = None if due is None else max(0.0, due - self.clock())
                waker = loop.create_task(conn.wake.wait())
                done, _ = await asyncio.wait({reader, waker}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
                waker.cancel()
                conn.wake.clear()
                if reader in done:
                    try:
                        data = reader.result()
                    except (OSError, ConnectionError) as exc:
                        log.info("link: %s failed (%s)", link.name, exc)
                        break
                    if not data:
                        break
                    out = machine.receive(data, self.clock())
                    link.write(out.data)
                    if out.leds is not None:
                        self._show(conn, out.leds)
                    reader = loop.create_task(link.read())
                link.write(machine.poll(self.clock()))
        finally:
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await reader
            self._conns.remove(conn)
            if self._leds_from is conn:
                # The LEDs of the app still connected that set them last, else the game's again.
                lit = [c for c in self._conns if c.lit_at is not None]
                self._leds_from = max(lit, key=lambda c: c.lit_at or 0.0) if lit else None
                if self._leds_from is None:
                    self.daemon.show_face_leds(None)
                else:
                    self._show(self._leds_from, self._leds_from.machine.leds)
            log.info("link: %s gone", link.name)
            with contextlib.suppress(Exception):
                await link.close()

    def _show(self, conn: _Conn, leds: Leds) -> None:
        """An app's ``L``/``X``/``T``: the board shows it now (the latest app wins)."""
        self._leds_from = conn
        conn.lit_at = self.clock()
        self.daemon.show_face_leds(led_intents(leds, flipped=self._flipped))
