"""boardctl's serial backend talking to the firmware (its real edge loop) through a pseudo-terminal."""

from __future__ import annotations

import os
import threading
import time
import tty
from collections.abc import Callable, Iterator
from typing import Any

import chess
import pytest
from boardfw import edge

from boardctl.events import Button, ButtonPressed, Code, Event, LedIntent, Snapshot, SquareChanged
from boardctl.hw import EventQueue
from boardctl.hw.seriallink import SerialBoard

from .fake_machine import Wiring

START = chess.Board().occupied


class Pico:
    """The firmware running in a thread on the master side of a pty, restartable (a reset)."""

    def __init__(self, master: int) -> None:
        self.master = master
        self.reader = open(master, "rb", buffering=0, closefd=False)  # noqa: SIM115
        self.device: Any = None
        self.sent: list[bytes] = []  # everything the firmware wrote, to replay
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def write(self, data: bytes) -> None:
        self.sent.append(bytes(data))
        os.write(self.master, data)

    def boot(self) -> None:
        self._stop = threading.Event()
        self.device = edge.build(self.write)
        self._thread = threading.Thread(
            target=edge.run,
            kwargs={"stream": self.reader, "reader": self.reader, "writer": self, "should_stop": self._stop.is_set, "device": self.device},
            daemon=True,
        )
        self._thread.start()

    def power_off(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=3)


def _wait_for(q: EventQueue, match: Callable[[Event], bool], timeout: float = 3.0) -> Event:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        event = q.get(timeout=0.05)
        if event is not None and match(event):
            return event
    raise AssertionError("expected event did not arrive")


def _until(cond: Callable[[], bool], timeout: float = 3.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, "condition not reached"
        time.sleep(0.01)


@pytest.fixture
def link(wiring: Wiring) -> Iterator[tuple[Pico, SerialBoard, EventQueue]]:
    master, slave = os.openpty()
    tty.setraw(slave)
    pico = Pico(master)
    wiring.closed = START
    pico.boot()
    q = EventQueue()
    board = SerialBoard(os.ttyname(slave), reconnect_delay=0.05)
    board.start(q)
    try:
        yield pico, board, q
    finally:
        board.close()
        pico.power_off()
        os.close(master)
        os.close(slave)


def test_moves_buttons_leds_and_tunes_cross_the_link(link: tuple[Pico, SerialBoard, EventQueue], wiring: Wiring) -> None:
    pico, board, q = link
    snap = _wait_for(q, lambda e: isinstance(e, Snapshot))
    assert snap.occupancy == START  # type: ignore[union-attr]
    wiring.closed ^= chess.BB_E2
    ev = _wait_for(q, lambda e: isinstance(e, SquareChanged))
    assert (ev.square, ev.occupied) == (chess.E2, False)  # type: ignore[union-attr]
    wiring.closed ^= chess.BB_E4
    ev = _wait_for(q, lambda e: isinstance(e, SquareChanged))
    assert (ev.square, ev.occupied) == (chess.E4, True)  # type: ignore[union-attr]
    wiring.pressed.add(18)  # the hint button's GP pin
    assert _wait_for(q, lambda e: isinstance(e, ButtonPressed)).button is Button.HINT  # type: ignore[union-attr]

    board.show([LedIntent(chess.G8, Code.ENGINE_MOVE), LedIntent(chess.F6, Code.ENGINE_MOVE)])
    strip = pico.device.strip
    _until(lambda: strip.pixels.shown[strip.index(chess.G8)] != (0, 0, 0))
    assert strip.pixels.shown[strip.index(chess.F6)] == strip.pixels.shown[strip.index(chess.G8)]
    assert sum(1 for c in strip.pixels.shown if c != (0, 0, 0)) == 2
    board.play(Code.ENGINE_MOVE)
    _until(lambda: bool(pico.device.tune.pwm.history))
    assert board.occupancy == START ^ chess.BB_E2 ^ chess.BB_E4
    assert board.stats.bad_lines == 0 and pico.device.bad_lines == 0


def test_reset_and_line_noise_are_resynced(link: tuple[Pico, SerialBoard, EventQueue], wiring: Wiring) -> None:
    pico, board, q = link
    _wait_for(q, lambda e: isinstance(e, Snapshot))
    board.show([LedIntent(chess.D2, Code.HINT)])
    resets = board.stats.resets
    pico.power_off()
    wiring.closed ^= chess.BB_D2 | chess.BB_D4  # a move made while the Pico was resetting
    pico.boot()
    snap = _wait_for(q, lambda e: isinstance(e, Snapshot))
    assert snap.occupancy == START ^ chess.BB_D2 ^ chess.BB_D4  # type: ignore[union-attr]
    assert board.stats.resets == resets + 1
    strip = pico.device.strip
    _until(lambda: any(c != (0, 0, 0) for c in strip.pixels.shown))  # LEDs restored after the reset
    pico.write(b"\x13\x37 line noise \xff\n")
    _wait_for(q, lambda e: isinstance(e, Snapshot))  # resync by snapshot, not by replay
    assert board.stats.bad_lines == 1
    assert q.drain() == []


def test_replayed_firmware_lines_are_never_acted_on(link: tuple[Pico, SerialBoard, EventQueue], wiring: Wiring) -> None:
    """The firmware's own lines, replayed later (valid checksums, stale sequence numbers), are
    dropped until the firmware has answered a fresh snapshot request."""
    pico, board, q = link
    _wait_for(q, lambda e: isinstance(e, Snapshot))
    wiring.closed ^= chess.BB_G1  # lift the knight...
    assert _wait_for(q, lambda e: isinstance(e, SquareChanged)) == SquareChanged(board._last_t, chess.G1, False)
    wiring.closed ^= chess.BB_G1  # ...and put it back
    assert _wait_for(q, lambda e: isinstance(e, SquareChanged)) == SquareChanged(board._last_t, chess.G1, True)
    lift = next(raw for raw in pico.sent if b" C g1 0*" in raw)
    gaps = board.stats.sequence_gaps
    for _ in range(3):
        os.write(pico.master, lift)  # the lift again: it would leave g1 empty
    snap = _wait_for(q, lambda e: isinstance(e, Snapshot))
    assert snap.occupancy == START  # type: ignore[union-attr]
    time.sleep(0.2)
    assert q.drain() == [] and board.occupancy == START
    assert board.stats.sequence_gaps > gaps and board.stats.dropped >= 1  # out of order: dropped, resynced
    wiring.closed ^= chess.BB_G1  # and the link works on
    assert _wait_for(q, lambda e: isinstance(e, SquareChanged)) == SquareChanged(board._last_t, chess.G1, False)
