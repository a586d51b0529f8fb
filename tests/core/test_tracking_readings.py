"""The tracker's readings on their own: the log, its brushes, blinks and knocks (issue 31 split)."""

from __future__ import annotations

import pytest

from boardctl.core.tracking.outputs import DEFAULT_TIMING
from boardctl.core.tracking.readings import BIT, Readings, lsb

BRUSH = DEFAULT_TIMING.brush


def _log(changes: list[tuple[float, int, bool]]) -> Readings:
    """``changes`` recorded as the tracker records them: a brush cancels, a blink is kept."""
    readings = Readings(0, DEFAULT_TIMING)
    for t, square, occupied in changes:
        cancelled = readings.cancel_brush(t, square, BRUSH)
        if cancelled is None:
            readings.append(t, square, occupied)
        elif occupied and not cancelled[0].occupied:
            readings.blinks.append(cancelled[0])
    return readings


@pytest.mark.parametrize(
    ("changes", "logged", "blinked"),
    [
        ([(0.0, 12, False), (0.5, 28, True)], [(12, False), (28, True)], 0),
        ([(0.0, 12, False), (0.05, 12, True)], [], BIT[12]),  # a brush of an occupied square: a blink
        ([(0.0, 20, True), (0.05, 20, False)], [], 0),  # a slid piece passing over an empty square
        ([(0.0, 12, False), (0.3, 12, True)], [(12, False), (12, True)], 0),  # too long for a brush
        ([(0.0, 12, False), (0.05, 28, True), (0.08, 12, True)], [(28, True)], BIT[12]),
    ],
)
def test_brushes_cancel_and_blinks_are_kept(
    changes: list[tuple[float, int, bool]], logged: list[tuple[int, bool]], blinked: int
) -> None:
    readings = _log(changes)
    assert [(c.square, c.occupied) for c in readings.log] == logged
    assert readings.blinked_since(0.0) == blinked
    assert readings.placed == sum({BIT[sq] for sq, occupied in logged if occupied})


def test_the_index_follows_the_log() -> None:
    readings = _log([(0.0, 12, False), (0.2, 12, True), (0.4, 12, False), (0.6, 28, True)])
    first, last = readings.first_lift(12), readings.last_event(12)
    assert first is not None and first.t == 0.0 and last is not None and last.t == 0.4
    assert readings.lift_t(12) == 0.4 and readings.lift_t(5) == float("-inf")
    assert readings.placed_after(28, 0.5) and not readings.placed_after(12, 0.0)
    assert readings.first_lift_t(BIT[12] | BIT[28]) == 0.0 and readings.first_lift_t(BIT[28]) == float("inf")
    del readings.log[0]
    readings.reindex()
    again = readings.first_lift(12)
    assert again is not None and again.t == 0.4


@pytest.mark.parametrize(
    ("lifts", "knocked", "knocked_off"),
    [
        ([(0.0, 1), (0.03, 2)], [True, True], BIT[1] | BIT[2]),  # two pieces within Timing.knock: nobody's touch
        ([(0.0, 1), (0.5, 2)], [False, False], 0),
        ([(0.0, 1), (0.5, 2), (0.53, 3)], [False, True, True], BIT[2] | BIT[3]),  # a move, then a knock
    ],
)
def test_knocks(lifts: list[tuple[float, int]], knocked: list[bool], knocked_off: int) -> None:
    readings = Readings(0, DEFAULT_TIMING)
    for t, square in lifts:
        readings.append(t, square, False)
    assert [readings.is_knocked(index) for index in range(len(lifts))] == knocked
    assert readings.knocked_off(sum(BIT[square] for _, square in lifts)) == knocked_off
    assert readings.knocked_off(BIT[lifts[0][1]]) == 0  # one square off is a move, never a knock


def test_lsb() -> None:
    assert [lsb(mask) for mask in (1, 0b1000, 0b1010, BIT[89])] == [0, 3, 1, 89]
