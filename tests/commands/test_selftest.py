"""The selftest run by a simulated person who looks at the LEDs and moves pieces, on sim and gpio boards."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import chess
import pytest
from gpiozero import Device

from boardctl.cli import main
from boardctl.commands.selftest import SelfTest
from boardctl.core.geometry import XIANGQI_9X10, Geometry
from boardctl.events import Button
from boardctl.hw.gpio import GpioBoard
from boardctl.hw.mockwiring import WiredMockFactory
from boardctl.hw.pinout import XIANGQI_PATH, Pinout
from boardctl.hw.sim import SimBoard


class Person:
    """Reads each prompt, finds the lit square by looking at the LEDs, and does what is asked."""

    def __init__(self, lit: Callable[[], int], lift: Callable[[chess.Square], None],
                 place: Callable[[chess.Square], None], press: Callable[[Button], None],
                 occupied: Callable[[chess.Square], bool]) -> None:
        self.lit, self.lift, self.place, self.press, self.occupied = lit, lift, place, press, occupied
        self.prompts: list[str] = []
        self.stuck = 0  # LEDs seen lit while all were off: ignored afterwards, as a person would

    def __call__(self, text: str) -> None:
        self.prompts.append(text)
        if text.startswith("all LEDs are off"):
            self.stuck = self.lit()
            for square in chess.SquareSet(self.stuck):  # lit although everything should be dark
                first, then = (self.lift, self.place) if self.occupied(square) else (self.place, self.lift)
                first(square)
                then(square)
            self.press(Button.HINT)
            return
        if "lift" not in text and "place" not in text:
            return
        lit = self.lit() & ~self.stuck
        if lit == 0:
            self.press(Button.HINT)  # "the square is not lit": go by the prompt's square name
            square = chess.parse_square(text.split(":")[0])
        else:
            assert chess.popcount(lit) == 1
            square = chess.lsb(lit)
        if "place" in text:
            self.place(square)
        else:
            self.lift(square)


@pytest.mark.slow
def test_selftest_on_the_sim_finds_every_kind_of_fault() -> None:
    start = chess.Board().occupied
    board = SimBoard(start, dead_switches=[chess.A3], stuck_switches=[chess.H5], dead_leds=[chess.D4],
                     stuck_leds=[chess.B7])
    person = Person(
        lambda: board.lit_now(t=0.0),
        lambda sq: board.lift(sq) and None,
        lambda sq: board.place(sq) and None,
        lambda b: board.press(b),
        lambda sq: bool(board.pieces >> sq & 1),
    )
    squares = [chess.E2, chess.A3, chess.D4, chess.H5, chess.C6]
    report = SelfTest(board, squares=squares, timeout=0.3, prompt=person).run()
    assert report.tested == squares
    assert report.dead_switches == [chess.A3]
    assert report.stuck_switches == [chess.H5]
    assert report.dead_leds == [chess.D4]
    assert report.stuck_leds == [chess.B7]
    assert report.crossed == {}
    assert not report.is_ok
    assert "dead switches:  a3" in report.format()
    # e2 was lifted, placed and lifted again; the piece put on dead a3 was never asked back
    assert board.pieces == start & ~chess.BB_E2 | chess.BB_A3
    assert board.intents == frozenset()  # LEDs off at the end


@pytest.fixture
def factory() -> Iterator[WiredMockFactory]:
    saved = Device.pin_factory
    f = WiredMockFactory(Pinout.from_file())
    Device.pin_factory = f
    yield f
    Device.pin_factory = saved
    f.close()


@pytest.mark.slow
def test_selftest_on_gpio_scans_real_pins_and_reads_the_max7219(factory: WiredMockFactory) -> None:
    chip = factory.max7219
    assert chip is not None
    factory.matrix.dead = chess.BB_B2
    swapped = {chess.C3: chess.C4}  # a wiring mistake: c3's switch is wired to c4's crossing

    def lit() -> int:
        deadline = time.monotonic() + 0.3  # the blink pattern has one dark step: look twice
        while chip.lit == 0 and time.monotonic() < deadline:
            time.sleep(0.005)
        return chip.lit

    person = Person(
        lit,
        lambda sq: factory.matrix.open(swapped.get(sq, sq)),
        lambda sq: factory.matrix.close(swapped.get(sq, sq)),
        factory.press,
        lambda sq: bool(factory.matrix.closed >> sq & 1),
    )
    with GpioBoard(factory.pinout, pin_factory=factory, debounce=0.005) as board:
        report = SelfTest(board, squares=[chess.A1, chess.B2, chess.C3, chess.H8], timeout=1.5, prompt=person).run()
    assert report.dead_switches == [chess.B2, chess.C3]
    assert report.crossed == {chess.C3: [chess.C4]}
    assert report.stuck_switches == [] and report.dead_leds == [] and report.stuck_leds == []


def test_selftest_command_reports_on_the_sim(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO(""))  # nobody at the terminal: the square times out
    monkeypatch.setenv("XDG_CONFIG_HOME", "/nonexistent")
    code = main(["selftest", "--board", "sim", "--squares", "e4", "--timeout", "0.2", "--dark-timeout", "0.1"])
    out = capsys.readouterr().out
    assert code == 1
    assert "e4: place a piece" in out and "dead switches:  e4" in out


# --- the 90-point xiangqi board ----------------------------------------------------------------------

XQ = XIANGQI_9X10
XQ_START = XQ.mask(
    [XQ.square(f, 0) for f in range(9)] + [XQ.square(f, 9) for f in range(9)]
    + [XQ.parse(n) for n in ("b2", "h2", "b7", "h7")]
    + [XQ.square(f, r) for f in (0, 2, 4, 6, 8) for r in (3, 6)]
)


class PointPerson(Person):
    """The same person on any board: finds the lit point, or goes by the prompt's point name."""

    def __init__(self, geometry: Geometry, *args: Callable[..., object]) -> None:
        super().__init__(*args)  # type: ignore[arg-type]
        self.geometry = geometry

    def __call__(self, text: str) -> None:
        self.prompts.append(text)
        g = self.geometry
        if text.startswith("all LEDs are off"):
            self.stuck = self.lit()
            for square in g.squares_in(self.stuck):
                first, then = (self.lift, self.place) if self.occupied(square) else (self.place, self.lift)
                first(square)
                then(square)
            self.press(Button.HINT)
            return
        if "lift" not in text and "place" not in text:
            return
        lit = self.lit() & ~self.stuck
        if lit == 0:
            square = g.parse(text.split(":")[0])
            if not self.stuck >> square & 1:  # a stuck LED is lit all the same: no complaint
                self.press(Button.HINT)
        else:
            assert lit & lit - 1 == 0, g.square_name(lit.bit_length() - 1)
            square = lit.bit_length() - 1
        if "place" in text:
            self.place(square)
        else:
            self.lift(square)


def test_selftest_checks_each_of_the_90_points_and_names_faults_the_xiangqi_way() -> None:
    board = SimBoard(XQ_START, geometry=XQ, dead_switches=[XQ.parse("i9")], stuck_switches=[XQ.parse("e4")],
                     dead_leds=[XQ.parse("a0")], stuck_leds=[XQ.parse("h5")])
    person = PointPerson(
        XQ,
        lambda: board.lit_now(t=0.0),
        lambda sq: board.lift(sq) and None,
        lambda sq: board.place(sq) and None,
        lambda b: board.press(b),
        lambda sq: bool(board.pieces >> sq & 1),
    )
    report = SelfTest(board, timeout=0.2, prompt=person).run()
    assert report.tested == list(range(90))  # every switch and LED, a0 to i9
    assert report.dead_switches == [XQ.parse("i9")]
    assert report.stuck_switches == [XQ.parse("e4")]
    assert report.dead_leds == [XQ.parse("a0")]
    assert report.stuck_leds == [XQ.parse("h5")]
    assert report.crossed == {}
    text = report.format()
    assert "points tested: 90" in text and "dead switches:  i9" in text and "stuck switches: e4" in text
    assert "dead LEDs:      a0" in text and "stuck LEDs:     h5" in text and "FAULTS FOUND" in text
    prompted = {p.split(":")[0] for p in person.prompts if ": " in p and not p.startswith("all LEDs")}
    assert prompted == set(XQ.names)


def test_selftest_passes_a_good_xiangqi_board() -> None:
    board = SimBoard(XQ_START, geometry=XQ)
    person = PointPerson(XQ, lambda: board.lit_now(t=0.0), lambda sq: board.lift(sq) and None,
                         lambda sq: board.place(sq) and None, lambda b: board.press(b),
                         lambda sq: bool(board.pieces >> sq & 1))
    report = SelfTest(board, timeout=0.2, prompt=person).run()
    assert report.is_ok and len(report.tested) == 90 and "result: OK" in report.format()
    assert board.pieces == 0  # each piece lifted and the point tested (an empty point: placed, lifted)


@pytest.fixture
def xiangqi_factory() -> Iterator[WiredMockFactory]:
    saved = Device.pin_factory
    f = WiredMockFactory(Pinout.from_file(XIANGQI_PATH))
    Device.pin_factory = f
    yield f
    Device.pin_factory = saved
    f.close()


@pytest.mark.slow
def test_selftest_on_the_90_point_gpio_board_reads_every_switch_and_led(xiangqi_factory: WiredMockFactory) -> None:
    """All 90 points through the real scanner and the two chained MAX7219s; faults on the second chip's points."""
    factory = xiangqi_factory
    chip = factory.max7219
    assert chip is not None and chip.chips == 2
    factory.matrix.dead = 1 << XQ.parse("h9")
    swapped = {XQ.parse("c8"): XQ.parse("d8")}  # c8's switch wired to d8's crossing

    def lit() -> int:
        deadline = time.monotonic() + 0.3
        while chip.lit == 0 and time.monotonic() < deadline:
            time.sleep(0.002)
        return chip.lit

    person = PointPerson(
        XQ,
        lit,
        lambda sq: factory.matrix.open(swapped.get(sq, sq)),
        lambda sq: factory.matrix.close(swapped.get(sq, sq)),
        factory.press,
        lambda sq: bool(factory.matrix.closed >> sq & 1),
    )
    with GpioBoard(factory.pinout, pin_factory=factory, debounce=0.005, geometry=XQ) as board:
        report = SelfTest(board, timeout=1.0, dark_timeout=1.0, prompt=person).run()
    assert report.tested == list(range(90))
    assert report.dead_switches == [XQ.parse("c8"), XQ.parse("h9")]
    assert report.crossed == {XQ.parse("c8"): [XQ.parse("d8")]}
    assert report.stuck_switches == [] and report.dead_leds == [] and report.stuck_leds == []


def test_selftest_command_on_a_xiangqi_sim(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    monkeypatch.setenv("XDG_CONFIG_HOME", "/nonexistent")
    code = main(["selftest", "--board", "sim", "--variant", "xiangqi", "--squares", "e0,i9", "--timeout", "0.1",
                 "--dark-timeout", "0.1"])
    out = capsys.readouterr().out
    assert code == 1
    assert "e0: place a piece" in out and "i9: place a piece" in out and "dead switches:  e0 i9" in out
    assert "points tested: 2" in out
    assert main(["selftest", "--board", "sim", "--variant", "xiangqi", "--squares", "e0,a10"]) == 2
    err = capsys.readouterr().err
    assert "--squares: expected xiangqi point names a0..i9" in err and "Traceback" not in err


@pytest.mark.slow
def test_selftest_command_takes_the_board_from_the_gpio_pin_map(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    from gpiozero.pins.mock import MockFactory, MockPWMPin

    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    monkeypatch.setenv("XDG_CONFIG_HOME", "/nonexistent")
    monkeypatch.setattr(Device, "pin_factory", MockFactory(pin_class=MockPWMPin))
    code = main(["selftest", "--board", "gpio", "--pinout", str(XIANGQI_PATH), "--squares", "i9", "--timeout", "0.1",
                 "--dark-timeout", "0.1"])
    captured = capsys.readouterr()
    out = captured.out
    assert code == 1 and "points tested: 1" in out and "dead switches:  i9" in out, captured.err
    Device.pin_factory.close()
