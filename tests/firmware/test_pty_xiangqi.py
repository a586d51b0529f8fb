"""The serial backend and the real firmware on the 90-point xiangqi board, through a pseudo-terminal:
the firmware built from ``boardfw/pins_xiangqi.py`` (as deployed on the xiangqi board's Pico), the
host told the game is xiangqi; and each side refusing what does not fit."""

from __future__ import annotations

import importlib
import logging
import os
import time
import tty
from collections.abc import Iterator

import pytest
from boardfw import edge

from boardctl.core.geometry import CHESS_8X8, XIANGQI_9X10
from boardctl.errors import HardwareError
from boardctl.events import Button, ButtonPressed, Code, LedIntent, Snapshot, SquareChanged
from boardctl.hw import EventQueue
from boardctl.hw.seriallink import SerialBoard, wait_for_device

from .fake_machine import Wiring
from .test_pty_end_to_end import Pico, _until, _wait_for

G = XIANGQI_9X10
START = G.mask(
    [G.square(f, 0) for f in range(9)] + [G.square(f, 9) for f in range(9)]
    + [G.parse(n) for n in ("b2", "h2", "b7", "h7")]
    + [G.square(f, r) for f in (0, 2, 4, 6, 8) for r in (3, 6)]
)
PINS = importlib.import_module("boardfw.pins_xiangqi")


@pytest.fixture
def xq_pico(wiring: Wiring, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Pico, str]]:
    monkeypatch.setattr(edge, "pins", PINS)
    wiring.rows, wiring.columns, wiring.files = PINS.ROWS, PINS.COLUMNS, 9
    wiring.closed = START
    master, slave = os.openpty()
    tty.setraw(slave)
    pico = Pico(master)
    pico.boot()
    try:
        yield pico, os.ttyname(slave)
    finally:
        pico.power_off()
        os.close(master)
        os.close(slave)


def test_xiangqi_moves_buttons_and_90_leds_cross_the_link(xq_pico: tuple[Pico, str], wiring: Wiring) -> None:
    pico, path = xq_pico
    wait_for_device(path, timeout=5.0, geometry=XIANGQI_9X10)  # VERSION boardfw-3 10x9: accepted
    q = EventQueue()
    with SerialBoard(path, reconnect_delay=0.05, geometry=XIANGQI_9X10) as board:
        board.start(q)
        assert _wait_for(q, lambda e: isinstance(e, Snapshot)) == Snapshot(board._last_t, START)
        for name, occupied in (("h2", False), ("e2", True), ("e6", False), ("i9", False)):
            wiring.closed ^= 1 << G.parse(name)
            event = _wait_for(q, lambda e: isinstance(e, SquareChanged))
            assert event == SquareChanged(board._last_t, G.parse(name), occupied)
        wiring.pressed.add(PINS.BUTTONS["draw"])
        assert _wait_for(q, lambda e: isinstance(e, ButtonPressed)).button is Button.DRAW  # type: ignore[union-attr]
        every = [LedIntent(s, Code.SELFTEST) for s in range(90)]  # a full 90-lamp L line (over 1200 bytes)
        board.show(every)
        strip = pico.device.strip
        _until(lambda: sum(1 for c in strip.pixels.shown if c != (0, 0, 0)) == 90)
        board.show([LedIntent(G.parse("e9"), Code.ENGINE_MOVE)])
        _until(lambda: [i for i, c in enumerate(strip.pixels.shown) if c != (0, 0, 0)] == [strip.index(G.parse("e9"))])
        assert board.refusal is None and board.stats.bad_lines == 0 and pico.device.bad_lines == 0


def test_a_xiangqi_board_is_refused_for_a_chess_game(xq_pico: tuple[Pico, str], caplog: pytest.LogCaptureFixture) -> None:
    pico, path = xq_pico
    with pytest.raises(HardwareError, match=r"board is '10x9'.*game is chess, which needs 8x8") as info:
        wait_for_device(path, timeout=5.0, geometry=CHESS_8X8)
    assert "\n" not in str(info.value)
    q = EventQueue()
    with caplog.at_level(logging.ERROR), SerialBoard(path, reconnect_delay=0.05) as board:
        board.start(q)
        _until(lambda: board.refusal is not None)
        pico.power_off()
        pico.boot()  # its HELLO names the size too
        _until(lambda: board.stats.refused >= 2)
        assert q.drain() == []  # nothing from a board of another size reaches the tracker
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert errors and all("needs 8x8" in m or "23-digit snapshots" in m for m in errors)


@pytest.mark.slow
def test_selftest_over_serial_checks_all_90_switches_and_leds(xq_pico: tuple[Pico, str], wiring: Wiring) -> None:
    """``boardctl selftest --board serial --variant xiangqi`` against the real firmware: a person
    sees the lit WS2812, places and lifts a disc there; a dead switch and a dead LED are found."""
    from boardctl.commands.selftest import SelfTest

    pico, path = xq_pico
    dead_switch, dead_led = G.parse("h9"), G.parse("c3")
    wiring.closed = 0  # the discs cleared away before the test (and the firmware has seen it)
    _until(lambda: pico.device.matrix.snapshot_hex() == "0" * 23)

    def lit(expect: int) -> int:
        """What is lit once the frame asked for has had time to arrive (the dead LED never lights)."""
        strip = pico.device.strip
        deadline = time.monotonic() + 0.5
        seen = 0
        while time.monotonic() < deadline:
            seen = G.mask(s for s in range(90) if s != dead_led and strip.pixels.shown[strip.index(s)] != (0, 0, 0))
            if seen == 1 << expect:
                break
            time.sleep(0.005)
        return seen

    def prompt(text: str) -> None:
        if text.startswith("all LEDs are off"):
            wiring.pressed.add(PINS.BUTTONS["hint"])  # none lit: HINT
            time.sleep(0.08)
            wiring.pressed.discard(PINS.BUTTONS["hint"])
            return
        if "place" not in text and "lift" not in text:
            return
        square = G.parse(text.split(":")[0])
        seen = lit(square)
        if seen == 0:
            wiring.pressed.add(PINS.BUTTONS["hint"])  # "the point is not lit"
            time.sleep(0.08)
            wiring.pressed.discard(PINS.BUTTONS["hint"])
        else:
            assert seen == 1 << square, text
        if square == dead_switch:
            return
        if "place" in text:
            wiring.closed |= 1 << square
        else:
            wiring.closed &= ~(1 << square)

    with SerialBoard(path, reconnect_delay=0.05, geometry=XIANGQI_9X10) as board:
        report = SelfTest(board, timeout=0.6, dark_timeout=2.0, prompt=prompt).run()
    assert report.tested == list(range(90))
    assert report.dead_switches == [dead_switch] and report.dead_leds == [dead_led]
    assert report.stuck_switches == [] and report.stuck_leds == [] and report.crossed == {}
    assert "points tested: 90" in report.format()
