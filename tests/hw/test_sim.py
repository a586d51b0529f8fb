from __future__ import annotations

import io

import chess
import pytest

from boardctl.errors import ConfigError
from boardctl.events import Button, ButtonPressed, Code, LedIntent, Snapshot, SquareChanged, Tick
from boardctl.hw import EventQueue, open_board
from boardctl.hw.leds import SIGNALS, STEP
from boardctl.hw.sim import SimBoard, occupancy_for_setup, run_terminal

from .conftest import FakeClock

START = chess.Board().occupied


def test_setups() -> None:
    assert occupancy_for_setup("expected", expected=chess.BB_E4) == chess.BB_E4
    assert occupancy_for_setup("start", expected=0) == START
    assert occupancy_for_setup("empty", expected=START) == 0
    fen = "8/8/8/4k3/8/8/8/4K3 w - - 0 1"
    assert occupancy_for_setup(fen, expected=0) == chess.BB_E5 | chess.BB_E1
    assert occupancy_for_setup("8/8/8/4k3/8/8/8/4K3", expected=0) == chess.BB_E5 | chess.BB_E1
    with pytest.raises(ConfigError, match="sim-setup"):
        occupancy_for_setup("rubbish", expected=0)


def test_holds_pieces_like_wood(clock: FakeClock) -> None:
    q = EventQueue()
    with open_board("sim", occupancy=START, clock=clock) as board:
        assert isinstance(board, SimBoard)
        board.start(q)
        assert q.drain() == [Snapshot(clock.t, START)]
        assert board.lift(chess.E2)
        clock.t += 1
        assert board.place(chess.E4)
        assert not board.place(chess.E4)  # already occupied: impossible, nothing emitted
        board.press(Button.HINT)
        assert q.drain() == [
            SquareChanged(clock.t - 1, chess.E2, False),
            SquareChanged(clock.t, chess.E4, True),
            ButtonPressed(clock.t, Button.HINT),
        ]
        assert board.occupancy == START ^ chess.BB_E2 ^ chess.BB_E4


def test_inject_applies_script_events(clock: FakeClock) -> None:
    q = EventQueue()
    clock.t = 0.0  # a script in virtual time: the board's clock starts with it
    board = SimBoard(START, clock=clock)
    board.start(q)
    q.drain()
    assert board.inject(SquareChanged(5.0, chess.G1, False))
    assert not board.inject(SquareChanged(5.5, chess.G1, False))  # empty square cannot be lifted
    assert board.inject(Tick(6.0))
    assert board.inject(Snapshot(7.0, chess.BB_E1))
    assert q.drain() == [SquareChanged(5.0, chess.G1, False), Tick(6.0), Snapshot(7.0, chess.BB_E1)]
    assert board.pieces == chess.BB_E1


def test_faulty_switches_hide_or_invent_pieces(clock: FakeClock) -> None:
    q = EventQueue()
    board = SimBoard(0, clock=clock, dead_switches=[chess.A1], stuck_switches=[chess.H8])
    board.start(q)
    assert q.drain() == [Snapshot(clock.t, chess.BB_H8)]
    board.place(chess.A1)
    board.place(chess.B1)
    assert q.drain() == [SquareChanged(clock.t, chess.B1, True)]
    assert board.pieces == chess.BB_A1 | chess.BB_B1


def test_leds_and_render(clock: FakeClock) -> None:
    board = SimBoard(START, clock=clock, dead_leds=[chess.E4])
    board.show([LedIntent(chess.E2, Code.ENGINE_MOVE), LedIntent(chess.E4, Code.ENGINE_MOVE)])
    assert board.lit_now() == chess.BB_E2
    board.show([LedIntent(chess.E2, Code.HINT)])
    clock.t = 10.0 + 12 * STEP  # HINT is off in the second half second
    assert SIGNALS[Code.HINT].pattern[12] == "."
    assert board.lit_now() == 0
    text = board.render()
    assert "[o]" in text and "lit: e2=hint" in text
    assert text.splitlines()[6].startswith("2 ")
    board.play(Code.RESULT)
    board.play(Code.LIFTED)
    assert board.tones == ["result"]


def test_terminal_view_makes_events(clock: FakeClock) -> None:
    q = EventQueue()
    board = SimBoard(START, clock=clock)
    board.start(q)
    q.drain()
    out = io.StringIO()
    run_terminal(board, io.StringIO("e2e4\ng8\n!hint\nzz9\n?\n"), out)
    events = q.drain()
    assert events[:3] == [
        SquareChanged(clock.t, chess.E2, False),
        SquareChanged(clock.t, chess.E4, True),
        SquareChanged(clock.t, chess.G8, False),
    ]
    assert events[3] == ButtonPressed(clock.t, Button.HINT)
    assert isinstance(events[4], Snapshot)
    assert "? " in out.getvalue()


def test_event_times_never_decrease(clock: FakeClock) -> None:
    q = EventQueue()
    board = SimBoard(START, clock=clock)
    board.start(q)
    board.lift(chess.A2, t=200.0)
    board.place(chess.A3, t=150.0)  # a late stamp is clamped, never reordered
    assert [e.t for e in q.drain()] == [clock.t, 200.0, 200.0]


def test_a_callback_may_act_on_the_board_again(clock: FakeClock) -> None:
    board = SimBoard(START, clock=clock)
    seen: list[object] = []

    def callback(event: object) -> None:  # e.g. a daemon asking for a resync while handling an event
        seen.append(event)
        if isinstance(event, SquareChanged):
            board.request_snapshot()

    board.start(callback)
    board.lift(chess.D2)
    assert [type(e).__name__ for e in seen] == ["Snapshot", "SquareChanged", "Snapshot"]


@pytest.mark.parametrize(("line", "words"), [
    ("hi", "'hi' is not a square"),
    ("zz9", "'zz9' is not a square"),
    ("i9i8", "'i9i8' is not a square"),
    ("!fly", "there is no button 'fly'"),
])
def test_selftest_terminal_mistakes_are_plain_words(clock: FakeClock, line: str, words: str) -> None:
    board = SimBoard(START, clock=clock)
    board.start(EventQueue())
    out = io.StringIO()
    run_terminal(board, io.StringIO(line + "\n"), out)
    assert words in out.getvalue() and "not in list" not in out.getvalue()
