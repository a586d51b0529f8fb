"""``--board sim --stdio``: events as JSON lines on stdin, state lines on stdout.

Input lines are exactly those of docs/events.md. Either every line carries ``t`` (virtual time:
time moves only with the input, and the daemon waits for the engine's reply before reading the
next line, so a script replays deterministically) or none does (each line is stamped with the
monotonic clock, counted from the start, and timers run in real time). Mixing the two is an error.

Output: one state line for each input line (no ``"reason"`` key), plus unprompted lines that carry
a ``"reason"``: a code from docs/events.md (``engine-move``, ``hint``, ``clock`` for a timer: a
settled move, a fallen flag; ``new-game``, ``web`` for a web page's action, ``engine-error``).
Every line has ``"input"``,
the number of input lines handled so far. A malformed input line is answered by a state line with
an ``"error"`` key. At the end of input the game is saved and the exit status is 0.

The time base lives in an :class:`InputClock` that the daemon and the sim board are built with;
:func:`run_stdio` fixes its mode from the first line, and the daemon's own fields stay its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

from boardctl.actions import ActionError
from boardctl.daemon import Daemon
from boardctl.errors import EventFormatError
from boardctl.events import decode_line, event_from_json
from boardctl.lines import Overlong, is_blank, read_lines

log = logging.getLogger(__name__)


class InputClock:
    """The time of a stdio run: the input's own ``t`` (virtual) or the monotonic clock counted from
    the start (real), decided once by the first input line (:meth:`decide`)."""

    def __init__(self, monotonic: Callable[[], float] = time.monotonic) -> None:
        self._monotonic = monotonic
        self._origin = monotonic()
        self._virtual: bool | None = None
        self._t = 0.0

    @property
    def is_virtual(self) -> bool:
        return bool(self._virtual)

    @property
    def is_decided(self) -> bool:
        return self._virtual is not None

    def decide(self, *, virtual: bool, t: float = 0.0) -> None:
        """Fix the time base (once); a virtual clock starts at ``t``, the first line's time."""
        if self._virtual is not None:
            raise RuntimeError("the time base of a stdio run is decided once")
        self._virtual = virtual
        self._t = t

    def advance(self, t: float) -> None:
        """Virtual time: the latest ``t`` read (it never goes back)."""
        self._t = max(self._t, t)

    def now(self) -> float:
        if self._virtual:
            return self._t
        return self._monotonic() - self._origin


class MixedTimeError(EventFormatError):
    """Some input lines carry ``t`` and others do not."""


async def _printer(queue: asyncio.Queue[dict[str, Any]], out: TextIO, counter: list[int]) -> None:
    while True:
        line = await queue.get()
        out.write(json.dumps({**line, "input": counter[0]}, separators=(",", ":")) + "\n")
        out.flush()
        queue.task_done()


async def run_stdio(
    daemon: Daemon,
    stop: asyncio.Event,
    *,
    clock: InputClock,
    stdin_fd: int = 0,
    stdout: TextIO | None = None,
) -> int:
    """Run ``daemon`` from JSON lines until EOF or ``stop``; returns the exit status.

    ``daemon`` and its sim board were built with ``clock.now`` as their clock and deliver
    directly (``Daemon(direct=True)``); the board is started here, once the time base is known.
    """
    out = stdout if stdout is not None else sys.stdout
    loop = asyncio.get_running_loop()
    queue = daemon.subscribe()
    counter = [0]
    printer = loop.create_task(_printer(queue, out, counter))
    timed: bool | None = None
    board_names = _board_names(daemon)
    ticker: asyncio.Task[None] | None = None
    stopper = loop.create_task(stop.wait())
    lines = read_lines(stdin_fd, loop, name="stdin-reader")
    status = 0
    try:
        while not stop.is_set():
            reading = loop.create_task(lines.get())
            waited = {reading, stopper} if ticker is None else {reading, stopper, ticker}
            done, _ = await asyncio.wait(waited, return_when=asyncio.FIRST_COMPLETED)
            if ticker is not None and ticker in done:
                reading.cancel()
                ticker.result()  # raises TimerError: the game is saved, the run ends
            if reading not in done:
                reading.cancel()
                break
            raw = reading.result()
            if raw is None:
                break
            if is_blank(raw):
                continue
            counter[0] += 1
            where = f"stdin:{counter[0]}"
            try:
                if isinstance(raw, Overlong):
                    raise EventFormatError(f"{where}: {raw}")
                obj = decode_line(raw, where=where)
                if not isinstance(obj, dict):  # answered, and says nothing about the time base
                    event_from_json(obj, where=where, **board_names)
            except EventFormatError as exc:
                log.warning("%s", exc)
                daemon.flush(error=str(exc))
                await queue.join()
                continue
            line_timed = isinstance(obj, dict) and "t" in obj
            if timed is None:
                timed = line_timed
                _start(daemon, clock, obj, timed)
                if not timed:
                    ticker = loop.create_task(daemon.run_ticker())
            elif line_timed != timed and isinstance(obj, dict):
                raise MixedTimeError(
                    f"{where}: every line must carry 't' or none may "
                    f"(the first line {'did' if timed else 'did not'}, this one {'does' if line_timed else 'does not'})"
                )
            try:
                event = event_from_json(obj, t=None if timed else daemon.now(), where=where, **board_names)
                if event.t < daemon.session.t:
                    raise EventFormatError(f"{where}: 't' went back from {daemon.session.t:g} to {event.t:g}")
            except EventFormatError as exc:
                log.warning("%s", exc)
                daemon.flush(error=str(exc))
            else:
                if timed:
                    clock.advance(event.t)
                with contextlib.suppress(ActionError):  # an impossible event: answered in its line
                    daemon.inject(event)
                if timed:
                    await daemon.idle()
            await queue.join()
    except MixedTimeError as exc:
        sys.stderr.write(f"boardctl: error: {exc}\n")
        status = 2
    finally:
        if ticker is not None:
            ticker.cancel()
        stopper.cancel()
        await queue.join()
        printer.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await printer
        daemon.unsubscribe(queue)
    return status


def _board_names(daemon: Daemon) -> dict[str, Any]:
    """How input lines name the points: the game's own (``a0``..``i9`` in xiangqi, snapshots of
    its hex width)."""
    return {"geometry": daemon.variant.geometry}


def _start(daemon: Daemon, clock: InputClock, first: Any, timed: bool) -> None:
    """Start the sim board once the time base is known: its opening snapshot is stamped with the
    first line's time (virtual) or now (real)."""
    t = 0.0
    if timed:
        with contextlib.suppress(EventFormatError):
            t = max(daemon.session.t, event_from_json(first, **_board_names(daemon)).t)
    clock.decide(virtual=timed, t=t)
    if daemon.board is not None:
        daemon.board.start(daemon.feed)
    if not timed:
        daemon.tick()
