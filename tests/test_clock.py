from __future__ import annotations

import chess
import pytest
from hypothesis import given
from hypothesis import strategies as st

from boardctl.clock import Clock, TimeControl


def test_time_control_parsing() -> None:
    assert TimeControl.from_string("15+10") == TimeControl(900.0, 10.0)
    assert TimeControl.from_string("0.5+0") == TimeControl(30.0, 0.0)
    assert TimeControl.from_string("") is None
    assert TimeControl(900, 10).pgn() == "900+10"
    for bad in ("15", "15+", "+10", "0+5", "a+b"):
        with pytest.raises(ValueError):
            TimeControl.from_string(bad)


def test_running_side_loses_time_and_gains_increment() -> None:
    clock = Clock(TimeControl(60, 5))
    clock.start(chess.WHITE, 10.0)
    assert clock.remaining(chess.WHITE, 25.0) == 45.0
    assert clock.remaining(chess.BLACK, 25.0) == 60.0
    assert clock.moved(chess.WHITE, 25.0) == 50.0
    clock.start(chess.BLACK, 25.0)
    assert clock.remaining(chess.WHITE, 100.0) == 50.0
    assert clock.remaining(chess.BLACK, 30.0) == 55.0
    assert clock.flagged(84.9) is None
    assert clock.flagged(85.0) == chess.BLACK
    assert clock.remaining(chess.BLACK, 1000.0) == 0.0


def test_json_round_trip_gives_a_stopped_clock() -> None:
    clock = Clock(TimeControl(60, 0))
    clock.start(chess.BLACK, 0.0)
    data = clock.to_json(12.5)
    assert data == {"white": 60.0, "black": 47.5, "running": "black"}
    again = Clock.from_json(TimeControl(60, 0), data)
    assert again.running is None
    assert again.remaining(chess.BLACK, 99.0) == 47.5


@given(st.text(max_size=12))
def test_time_control_text_is_accepted_or_refused_clearly(text: str) -> None:
    try:
        control = TimeControl.from_string(text)
    except ValueError as exc:
        assert "15+10" in str(exc) or "minutes" in str(exc)
        return
    if control is None:
        assert text == ""
    else:
        assert control.initial > 0 and control.increment >= 0
        minutes, increment = text.split("+")
        assert control == TimeControl(float(minutes) * 60, float(increment))


@given(st.lists(st.tuples(st.booleans(), st.floats(0, 100)), max_size=30), st.integers(0, 60))
def test_clock_never_goes_negative_and_only_one_side_runs(steps: list[tuple[bool, float]], increment: int) -> None:
    clock = Clock(TimeControl(60, increment))
    t = 0.0
    for white, dt in steps:
        t += dt
        color = chess.WHITE if white else chess.BLACK
        clock.moved(color, t)
        clock.start(not color, t)
        assert clock.running == (not color)
        assert clock.remaining(color, t + 1000) == clock.remaining(color, t)  # the stopped side keeps its time
        assert all(clock.remaining(c, t) >= 0 for c in chess.COLORS)
