"""The real scanner and MAX7219 driver against gpiozero's MockFactory with the matrix wired up."""

from __future__ import annotations

import time

import chess
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardctl.errors import ConfigError, HardwareError
from boardctl.events import Button, ButtonPressed, Code, LedIntent, Snapshot, SquareChanged
from boardctl.hw import EventQueue, open_board
from boardctl.hw.gpio import GpioBoard
from boardctl.hw.leds import SIGNALS, STEP
from boardctl.hw.mockwiring import WiredMockFactory
from boardctl.hw.pinout import Pinout

from .conftest import FakeClock


def _board(factory: WiredMockFactory, clock: FakeClock, **kwargs: object) -> GpioBoard:
    return GpioBoard(factory.pinout, pin_factory=factory, clock=clock, **kwargs)  # type: ignore[arg-type]


@pytest.mark.slow
def test_scan_reads_any_occupancy_without_ghosts(factory: WiredMockFactory, clock: FakeClock) -> None:
    with _board(factory, clock) as board:

        @settings(max_examples=60, deadline=None)
        @given(occupancy=st.integers(0, chess.BB_ALL))
        def check(occupancy: int) -> None:
            factory.matrix.set(occupancy)
            assert board.scanner.read_raw() == occupancy

        check()


def test_start_snapshot_then_debounced_changes_only(factory: WiredMockFactory, clock: FakeClock) -> None:
    factory.matrix.set(chess.BB_RANK_1 | chess.BB_RANK_2)
    q = EventQueue()
    with _board(factory, clock, debounce=0.025) as board:
        board._spawn = lambda *a: None  # type: ignore[method-assign]  # drive poll() by hand
        board.start(q)
        assert q.drain() == [Snapshot(clock.t, chess.BB_RANK_1 | chess.BB_RANK_2)]
        assert board.poll() == []  # nothing changed: nothing emitted
        factory.matrix.open(chess.E2)
        assert board.poll() == []  # seen, not yet stable
        clock.t += 0.02
        assert board.poll() == []
        clock.t += 0.01
        assert board.poll() == [SquareChanged(clock.t, chess.E2, False)]
        clock.t += 0.05
        assert board.poll() == []
        assert board.occupancy == (chess.BB_RANK_1 | chess.BB_RANK_2) & ~chess.BB_E2
        assert q.drain() == [SquareChanged(clock.t - 0.05, chess.E2, False)]


@pytest.mark.slow
def test_bounce_shorter_than_debounce_is_ignored(factory: WiredMockFactory, clock: FakeClock) -> None:
    with _board(factory, clock, debounce=0.025) as board:
        for _ in range(5):  # chatter: closed 10 ms, open 10 ms
            factory.matrix.close(chess.D4)
            assert board.poll() == []
            clock.t += 0.01
            factory.matrix.open(chess.D4)
            assert board.poll() == []
            clock.t += 0.01
        factory.matrix.close(chess.D4)  # then it settles closed
        board.poll()
        clock.t += 0.01
        assert board.poll() == []
        clock.t += 0.02
        assert board.poll() == [SquareChanged(clock.t, chess.D4, True)]


@pytest.mark.slow
def test_several_squares_change_in_one_scan(factory: WiredMockFactory, clock: FakeClock) -> None:
    with _board(factory, clock, debounce=0.0) as board:
        board.poll()
        factory.matrix.set(chess.BB_E1 | chess.BB_H1)
        board.poll()
        assert sorted((e.square, e.occupied) for e in board.poll() if isinstance(e, SquareChanged)) == [
            (chess.E1, True),
            (chess.H1, True),
        ]


@pytest.mark.slow
def test_dead_and_stuck_switches(factory: WiredMockFactory, clock: FakeClock) -> None:
    factory.matrix.dead = chess.BB_A1
    factory.matrix.stuck = chess.BB_H8
    with _board(factory, clock, debounce=0.0) as board:
        factory.matrix.set(chess.BB_A1 | chess.BB_B1)
        assert board.scanner.read_raw() == chess.BB_B1 | chess.BB_H8


def test_pin_map_sizes_the_matrix(clock: FakeClock) -> None:
    pinout = Pinout.from_dict({"rows": [17, 27], "columns": [12, 13, 16]})
    factory = WiredMockFactory(pinout)
    with GpioBoard(pinout, pin_factory=factory, clock=clock, debounce=0.0) as board:
        factory.matrix.set(chess.BB_ALL)
        assert board.scanner.read_raw() == chess.BB_A1 | chess.BB_B1 | chess.BB_C1 | chess.BB_A2 | chess.BB_B2 | chess.BB_C2


def test_scanner_thread_reports_changes_and_buttons(factory: WiredMockFactory) -> None:
    q = EventQueue()
    with open_board("gpio", pin_factory=factory, debounce=0.01, scan_hz=200) as board:
        board.start(q)
        assert isinstance(q.get(timeout=1.0), Snapshot)
        factory.matrix.close(chess.G7)
        event = q.get(timeout=2.0)
        assert isinstance(event, SquareChanged) and (event.square, event.occupied) == (chess.G7, True)
        factory.press(Button.TAKEBACK)
        event = q.get(timeout=2.0)
        assert isinstance(event, ButtonPressed) and event.button is Button.TAKEBACK
        board.request_snapshot()
        event = q.get(timeout=2.0)
        assert event == Snapshot(event.t, chess.BB_G7) if isinstance(event, Snapshot) else False
        times = [e.t for e in q.drain()]
        assert times == sorted(times)


@pytest.mark.slow
def test_max7219_shows_the_frame_and_blinks(factory: WiredMockFactory, clock: FakeClock) -> None:
    chip = factory.max7219
    assert chip is not None
    with _board(factory, clock) as board:
        assert chip.is_on and chip.lit == 0
        assert chip.registers[0x0B] == 7 and chip.registers[0x09] == 0
        clock.t = 1000.0  # blink step 0
        board.show([LedIntent(chess.E2, Code.ENGINE_MOVE), LedIntent(chess.E4, Code.ILLEGAL_MOVE)])
        assert chip.lit == chess.BB_E2 | chess.BB_E4
        board._spawn(board._blink_loop, "test-blink")
        clock.t = 1000.0 + 2.5 * STEP  # ILLEGAL_MOVE "##.." is off at step 2
        assert SIGNALS[Code.ILLEGAL_MOVE].pattern[2] == "."
        deadline = time.monotonic() + 2.0
        while chip.lit != chess.BB_E2 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert chip.lit == chess.BB_E2
        board.show([])
        assert chip.lit == 0
    assert not chip.is_on


@pytest.mark.slow
def test_buzzer_plays_a_code(factory: WiredMockFactory, clock: FakeClock) -> None:
    pin = factory.pin(factory.pinout.buzzer)
    with _board(factory, clock) as board:
        board.play(Code.ENGINE_MOVE)
        deadline = time.monotonic() + 2.0
        while not any(s.state for s in pin.states) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert any(s.state for s in pin.states)
        board.play(Code.LIFTED)  # no tune: silent, no error


@pytest.mark.slow
def test_close_releases_pins_and_is_idempotent(factory: WiredMockFactory, clock: FakeClock) -> None:
    board = _board(factory, clock)
    board.close()
    board.close()
    assert board.is_closed
    with _board(factory, clock):  # the pins are free again
        pass


@pytest.mark.slow
def test_pin_conflict_is_a_hardware_error(factory: WiredMockFactory, clock: FakeClock) -> None:
    with _board(factory, clock), pytest.raises(HardwareError, match="gpio"):
        _board(factory, clock)


def test_bad_pin_map_names_the_key() -> None:
    with pytest.raises(ConfigError, match=r"gpio\.rows"):
        Pinout.from_dict({"rows": "17", "columns": [1]})
    with pytest.raises(ConfigError, match="used twice"):
        Pinout.from_dict({"rows": [17], "columns": [17]})
    with pytest.raises(ConfigError, match=r"gpio\.buttons\.nope"):
        Pinout.from_dict({"rows": [17], "columns": [18], "buttons": {"nope": 3}})
    with pytest.raises(ConfigError, match="unknown backend"):
        open_board("wood")


def test_no_pi_is_a_hardware_error(monkeypatch: pytest.MonkeyPatch, pinout: Pinout) -> None:
    from gpiozero import Device

    monkeypatch.setattr(Device, "pin_factory", None)
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "lgpio")  # not installed here: no factory can load
    with pytest.raises(HardwareError, match=r"gpio: no pin factory could start \(GPIOZERO_PIN_FACTORY\): lgpio: .*lgpio"):
        GpioBoard(pinout)
