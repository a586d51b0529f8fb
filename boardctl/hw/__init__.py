"""The hardware layer: the only code that touches pins, SPI and serial ports.

A *board* (``boardctl.hw.base.Board``) is a sensor source, an LED sink and a buzzer in one
object. Backends:

- ``gpio``: the Pi scans the reed matrix itself (``boardctl.hw.gpio``, gpiozero, MAX7219 LEDs);
- ``serial``: a Pico runs ``firmware/`` and talks the line protocol of ``firmware/PROTOCOL.md``
  (``boardctl.hw.seriallink``, pyserial);
- ``sim``: a virtual board holding its pieces like real wood (``boardctl.hw.sim``).

``open_board(kind, ...)`` picks one by name. Hardware is injected (``pin_factory``, ``url`` or
``opener``) and nothing is opened at import or at construction of this package.

Receiving events (thread-safety contract)
----------------------------------------
``board.start(callback)`` starts delivery. The first event is always a ``Snapshot`` of the
occupancy as it stands (a resync, never a burst of lifts/places); after that come
``SquareChanged`` and ``ButtonPressed`` events, and further ``Snapshot`` events whenever the
backend had to resync (serial reconnect, device reset, lost line, ``request_snapshot()``).
The callback is called from the backend's own thread (gpio scanner thread, gpiozero button
thread, serial reader thread; the sim calls it on the thread that drives it), one call at a
time, with ``t`` from the Pi's monotonic clock and never decreasing. It must not block. For
an asyncio daemon::

    queue: asyncio.Queue[Event] = asyncio.Queue()
    board.start(asyncio_callback(asyncio.get_running_loop(), queue))
    while True:
        event = await queue.get()

``asyncio_callback`` hands each event over with ``loop.call_soon_threadsafe``. Blocking code
can use ``EventQueue`` instead. ``board.show(intents)`` and ``board.play(code)`` may be called
from any one thread (the daemon's loop); ``show`` replaces the whole LED set and returns
after the first frame is out, blinking is animated by the backend (see ``boardctl.hw.leds``).
``board.close()`` stops threads and releases pins; it is idempotent and boards are context
managers.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from boardctl.core.geometry import CHESS_8X8, Geometry
from boardctl.errors import ConfigError
from boardctl.hw.base import (
    Board,
    Buzzer,
    Clock,
    EventCallback,
    EventQueue,
    LedSink,
    SensorSource,
    asyncio_callback,
)
from boardctl.hw.leds import SIGNALS, LedFrame, Signal

__all__ = [
    "KINDS",
    "SIGNALS",
    "Board",
    "Buzzer",
    "EventCallback",
    "EventQueue",
    "LedFrame",
    "LedSink",
    "SensorSource",
    "Signal",
    "asyncio_callback",
    "open_board",
]

KINDS = ("gpio", "serial", "sim")


def open_board(
    kind: str,
    *,
    clock: Clock = time.monotonic,
    pinout: Path | str | None = None,
    pin_factory: Any = None,
    debounce: float = 0.025,
    scan_hz: float = 200.0,
    url: str | None = None,
    baudrate: int = 115200,
    occupancy: int = 0,
    geometry: Geometry | None = None,
) -> Board:
    """Construct the backend ``kind`` (``gpio``, ``serial`` or ``sim``); its threads start with ``start()``.

    gpio: ``pinout`` file (default ``hardware/pinout.toml``, or the game's: ``pinout-xiangqi.toml``), gpiozero ``pin_factory``
    (a factory, or a ``board.pin_factory`` name that ``boardctl.hw.factory.choose`` starts; default ``auto``), ``debounce``
    seconds, ``scan_hz`` full scans per second.
    serial: ``url`` for ``serial.serial_for_url`` (``/dev/ttyACM0``, ``loop://``, ``spy://...``).
    sim: starting ``occupancy`` (see ``sim.occupancy_for_setup`` for ``--sim-setup``).
    ``geometry``: the game's board; a gpio pin map or a serial device for another board is
    refused with one line naming both. None: the pin map's board (gpio), else chess.
    """
    if kind == "gpio":
        from boardctl.hw.gpio import GpioBoard
        from boardctl.hw.pinout import Pinout, default_pinout

        if pinout is None and geometry is not None:
            pinout = default_pinout(geometry)
        return GpioBoard(
            Pinout.from_file(pinout), pin_factory=pin_factory, debounce=debounce, scan_hz=scan_hz, clock=clock,
            geometry=geometry,
        )
    if kind == "serial":
        from boardctl.hw.seriallink import SerialBoard

        if not url:
            raise ConfigError("serial_url: the serial board needs a port URL, e.g. /dev/ttyACM0")
        board: Board = SerialBoard(url, baudrate=baudrate, clock=clock, geometry=geometry or CHESS_8X8)
        return board
    if kind == "sim":
        from boardctl.hw.sim import SimBoard

        return SimBoard(occupancy, clock=clock, geometry=geometry or CHESS_8X8)
    raise ConfigError(f"board: unknown backend {kind!r} (one of {', '.join(KINDS)})")
