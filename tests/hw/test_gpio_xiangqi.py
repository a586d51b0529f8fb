"""The gpio backend on the 90-point xiangqi board: the real scanner and chained MAX7219 driver
against gpiozero's MockFactory wired as hardware/pinout-xiangqi.toml says."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardctl.core.geometry import CHESS_8X8, XIANGQI_9X10
from boardctl.errors import ConfigError, HardwareError
from boardctl.events import Button, ButtonPressed, Code, LedIntent, Snapshot, SquareChanged
from boardctl.hw import EventQueue, open_board
from boardctl.hw.gpio import GpioBoard
from boardctl.hw.mockwiring import WiredMockFactory
from boardctl.hw.pinout import XIANGQI_PATH, Pinout

from .conftest import FakeClock

G = XIANGQI_9X10
ALL = G.all_mask
#: A xiangqi start position's points.
START = G.mask(
    [G.square(f, 0) for f in range(9)] + [G.square(f, 9) for f in range(9)]
    + [G.parse(n) for n in ("b2", "h2", "b7", "h7")]
    + [G.square(f, r) for f in (0, 2, 4, 6, 8) for r in (3, 6)]
)


def _board(factory: WiredMockFactory, clock: FakeClock, **kwargs: Any) -> GpioBoard:
    return GpioBoard(factory.pinout, pin_factory=factory, clock=clock, **kwargs)


def test_the_xiangqi_pin_map_is_a_10_by_9_matrix_with_two_chained_chips(xiangqi_pinout: Pinout) -> None:
    p = xiangqi_pinout
    assert (len(p.rows), len(p.columns), p.size) == (10, 9, "10x9")
    assert p.geometry == XIANGQI_9X10 and p.points == 90
    assert p.led_driver == "max7219" and p.chips == 2
    assert set(p.buttons) == {Button.HINT, Button.TAKEBACK, Button.NEW_GAME, Button.DRAW, Button.RESIGN}
    assert p.buzzer is not None
    used = [*p.rows, *p.columns, *p.buttons.values(), p.buzzer, 8, 10, 11]  # + SPI CE0, MOSI, SCLK
    assert len(used) == len(set(used)) == 28 and set(used) == set(range(28))


@pytest.mark.slow
def test_scan_reads_any_of_the_90_points_without_ghosts(xiangqi_factory: WiredMockFactory, clock: FakeClock) -> None:
    with _board(xiangqi_factory, clock) as board:
        assert board.geometry == XIANGQI_9X10

        @settings(max_examples=60, deadline=None)
        @given(occupancy=st.integers(0, ALL))
        def check(occupancy: int) -> None:
            xiangqi_factory.matrix.set(occupancy)
            assert board.scanner.read_raw() == occupancy

        check()
        for square in (0, 8, 9, 44, 80, 81, 89):  # corners, centre, the last rank: each point alone
            xiangqi_factory.matrix.set(1 << square)
            assert board.scanner.read_raw() == 1 << square


@pytest.mark.slow
@pytest.mark.parametrize("name", ["a0", "e0", "i0", "a9", "e9", "i9", "b2", "h7", "e4", "e5"])
def test_debounced_change_on_each_kind_of_point(xiangqi_factory: WiredMockFactory, clock: FakeClock, name: str) -> None:
    xiangqi_factory.matrix.set(START)
    q = EventQueue()
    square = G.parse(name)
    with _board(xiangqi_factory, clock, debounce=0.025) as board:
        board._spawn = lambda *a: None  # type: ignore[method-assign]  # drive poll() by hand
        board.start(q)
        assert q.drain() == [Snapshot(clock.t, START)]
        xiangqi_factory.matrix.set(START ^ 1 << square)
        assert board.poll() == []
        clock.t += 0.03
        assert board.poll() == [SquareChanged(clock.t, square, not START >> square & 1)]
        assert board.occupancy == START ^ 1 << square


@pytest.mark.slow
def test_scanner_thread_and_buttons_on_90_points(xiangqi_factory: WiredMockFactory) -> None:
    q = EventQueue()
    with open_board("gpio", pinout=XIANGQI_PATH, pin_factory=xiangqi_factory, debounce=0.01,
                    geometry=XIANGQI_9X10) as board:
        board.start(q)
        assert q.get(timeout=1.0) == Snapshot(board._last_t, 0)
        xiangqi_factory.matrix.close(G.parse("i9"))
        event = q.get(timeout=2.0)
        assert event == SquareChanged(event.t, 89, True) if event is not None else False
        xiangqi_factory.press(Button.RESIGN)
        event = q.get(timeout=2.0)
        assert isinstance(event, ButtonPressed) and event.button is Button.RESIGN


@pytest.mark.slow
@pytest.mark.parametrize("names", [["e0"], ["i7"], ["h7", "a8"], ["a0", "i9"], ["b2", "e2", "h9", "i8"]])
def test_chained_max7219s_light_every_point(xiangqi_factory: WiredMockFactory, clock: FakeClock, names: list[str]) -> None:
    chip = xiangqi_factory.max7219
    assert chip is not None and chip.chips == 2
    with _board(xiangqi_factory, clock) as board:
        assert chip.is_on and chip.lit == 0
        assert all(r[0x0B] == 7 and r[0x09] == 0 and r[0x0A] == 4 for r in chip.chip_registers)
        clock.t = 1000.0  # blink step 0: ENGINE_MOVE is on
        squares = [G.parse(n) for n in names]
        board.show([LedIntent(s, Code.ENGINE_MOVE) for s in squares])
        assert chip.lit == G.mask(squares)
        board.show([])
        assert chip.lit == 0
    assert not chip.is_on


@pytest.mark.slow
def test_every_point_lights_its_own_led(xiangqi_factory: WiredMockFactory, clock: FakeClock) -> None:
    chip = xiangqi_factory.max7219
    assert chip is not None
    clock.t = 1000.0
    with _board(xiangqi_factory, clock) as board:
        for square in range(90):
            board.show([LedIntent(square, Code.SELFTEST)])
            assert chip.lit == 1 << square, G.square_name(square)


def test_led_writes_only_digits_that_change(xiangqi_factory: WiredMockFactory, clock: FakeClock) -> None:
    chip = xiangqi_factory.max7219
    assert chip is not None
    clock.t = 1000.0
    with _board(xiangqi_factory, clock) as board:
        before = chip.writes
        board.show([LedIntent(G.parse("i9"), Code.ENGINE_MOVE)])  # bit 89: chip 1, digit 3
        assert chip.writes - before == 2  # one transfer: a word to each chip
        before = chip.writes
        board.show([LedIntent(G.parse("i9"), Code.HINT)])  # the same LED lit for another reason
        assert chip.writes == before


def test_a_chess_pin_map_cannot_run_xiangqi_and_back(pinout: Pinout, xiangqi_pinout: Pinout, clock: FakeClock) -> None:
    with pytest.raises(HardwareError, match=r"pin map is for a chess board.*game is xiangqi"):
        GpioBoard(pinout, pin_factory=WiredMockFactory(pinout), clock=clock, geometry=XIANGQI_9X10)
    with pytest.raises(HardwareError, match=r"pin map is for a xiangqi board.*game is chess"):
        GpioBoard(xiangqi_pinout, pin_factory=WiredMockFactory(xiangqi_pinout), clock=clock, geometry=CHESS_8X8)


ROWS10 = [17, 27, 22, 23, 24, 25, 5, 6, 0, 1]
COLS9 = [12, 13, 16, 19, 20, 21, 26, 4, 9]

BAD_MAPS: list[tuple[dict[str, Any], Any, str]] = [
    ({"rows": list(range(17)), "columns": [20]}, "xiangqi", r"gpio\.rows: need 1\.\.16"),
    ({"rows": [], "columns": [20]}, None, r"gpio\.rows: need 1\.\.16"),
    ({"rows": [17], "columns": []}, None, r"gpio\.columns: need 1\.\.16"),
    ({"rows": [*ROWS10, 2], "columns": COLS9}, None, r"gpio\.rows/gpio\.columns: a 11-row x 9-column matrix fits no"),
    ({"rows": ROWS10, "columns": [*COLS9, 2]}, "xiangqi", r"gpio\.rows/gpio\.columns: a 10-row x 10-column.*xiangqi"),
    ({"rows": ROWS10, "columns": COLS9}, "chess", r"gpio\.rows/gpio\.columns: a 10-row x 9-column.*chess"),
    ({"rows": ROWS10, "columns": COLS9}, "shogi", r"game must be one of chess, xiangqi"),
    ({"rows": ROWS10, "columns": COLS9, "leds": {"driver": "max7219", "chips": 1}}, None, r"gpio\.leds\.chips: 90 points need 2\.\.8"),
    ({"rows": ROWS10, "columns": COLS9, "leds": {"chips": "2"}}, None, r"gpio\.leds\.chips must be an integer"),
    ({"rows": ROWS10, "columns": COLS9, "leds": {"intensity": 16}}, None, r"gpio\.leds\.intensity must be 0\.\.15"),
    ({"rows": ROWS10, "columns": COLS9, "leds": {"driver": "ws2812"}}, None, r"gpio\.leds\.driver must be"),
    ({"rows": ROWS10, "columns": [*COLS9[:-1], 0]}, None, r"pin\(s\) \[0\] used twice"),
    ({"rows": ROWS10, "columns": [*COLS9[:-1], 28]}, None, r"gpio\.columns must be a list of BCM pin numbers"),
    ({"rows": ROWS10, "columns": COLS9, "buzzer": 40}, None, r"gpio\.buzzer must be a BCM pin"),
    ({"rows": ROWS10, "columns": COLS9, "buttons": {"undo": 2}}, None, r"gpio\.buttons\.undo: unknown button"),
    ({"rows": ROWS10, "columns": COLS9, "leds": "max7219"}, None, r"gpio\.leds must be a table"),
]


@pytest.mark.parametrize(("gpio", "game", "message"), BAD_MAPS)
def test_bad_big_pin_maps_name_the_key(gpio: dict[str, Any], game: Any, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        Pinout.from_dict(gpio, where="pinout-x.toml", game=game)


@pytest.mark.parametrize(
    ("rows", "columns", "game", "geometry"),
    [(8, 8, None, CHESS_8X8), (3, 2, None, CHESS_8X8), (10, 9, None, XIANGQI_9X10), (9, 9, None, XIANGQI_9X10),
     (8, 8, "xiangqi", XIANGQI_9X10), (10, 9, "xiangqi", XIANGQI_9X10)],
)
def test_the_board_a_map_is_for(rows: int, columns: int, game: str | None, geometry: object) -> None:
    p = Pinout.from_dict({"rows": ROWS10[:rows], "columns": COLS9[:columns]}, game=game)
    assert p.geometry == geometry


def test_a_smaller_matrix_covers_the_board_from_a0(clock: FakeClock) -> None:
    pinout = Pinout.from_dict({"rows": [17, 27], "columns": [12, 13, 16]}, game="xiangqi")
    factory = WiredMockFactory(pinout)
    with GpioBoard(pinout, pin_factory=factory, clock=clock, debounce=0.0) as board:
        factory.matrix.set(ALL)
        assert board.scanner.read_raw() == G.mask(G.parse(n) for n in ("a0", "b0", "c0", "a1", "b1", "c1"))


def test_the_pin_map_file_is_validated_with_its_name(tmp_path: Any) -> None:
    bad = tmp_path / "pins.toml"
    bad.write_text('game = "xiangqi"\n[gpio]\nrows = [17]\ncolumns = "x"\n')
    with pytest.raises(ConfigError, match=r"pins\.toml: gpio\.columns must be a list"):
        Pinout.from_file(bad)
    bad.write_text("gpio = 3\n")
    with pytest.raises(ConfigError, match=r"pins\.toml: gpio must be a table"):
        Pinout.from_file(bad)


@pytest.mark.slow
def test_a_frame_of_45_points_on_both_chips(xiangqi_factory: WiredMockFactory, clock: FakeClock) -> None:
    """Half the board lit at once goes out through mock SPI to both chips (speed: bench hw)."""
    clock.t = 1000.0
    with _board(xiangqi_factory, clock) as board:
        board.show([LedIntent(s, Code.ENGINE_MOVE) for s in range(0, 90, 2)])
        chip = xiangqi_factory.max7219
        assert chip is not None and chip.lit == G.mask(range(0, 90, 2))
        assert chip.chip_registers[1][1] == 0b10101010  # points 64, 66, 68, 70: segments DP, B, D, F


def test_open_board_takes_the_games_pin_map_by_default(xiangqi_factory: WiredMockFactory) -> None:
    from boardctl.hw.pinout import DEFAULT_PATH, default_pinout

    assert default_pinout(XIANGQI_9X10) == XIANGQI_PATH and default_pinout(CHESS_8X8) == DEFAULT_PATH
    with open_board("gpio", pin_factory=xiangqi_factory, geometry=XIANGQI_9X10) as board:
        assert isinstance(board, GpioBoard) and board.pinout.size == "10x9"
