"""The selftest run by a simulated person who looks at the LEDs and moves pieces, on sim and gpio boards."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import chess
import pytest
from gpiozero import Device

from boardctl.cli import main
from boardctl.events import Button
from boardctl.hw.gpio import GpioBoard
from boardctl.hw.mockwiring import WiredMockFactory
from boardctl.hw.pinout import Pinout
from boardctl.hw.sim import SimBoard
from boardctl.selftest import SelfTest


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
