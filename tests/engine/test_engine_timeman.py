"""Time management: a move's share of the clock, and when to stop deepening (engine/timeman.py)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import timeman
from engine.timeman import Budget, Deepening

MS = 1000


@pytest.mark.parametrize(
    ("left_ms", "inc_ms", "moves_to_go", "overhead_ms", "soft", "hard"),
    [
        # 10+0.1 from the start: a twentieth of the clock plus three quarters of the increment
        (10_000, 100, None, 100, 9_900 / 20 + 75, (9_900 / 20 + 75) * 3),
        # no increment
        (60_000, 0, None, 30, 59_970 / 20, 59_970 / 20 * 3),
        # movestogo shares the clock over the moves left before the control
        (60_000, 0, 10, 0, 6_000, 18_000),
        # the last move before the control: at most half the clock, hard stop at three quarters
        (2_000, 0, 1, 0, 1_000, 1_500),
        # a clock nearly gone: the increment is most of the share, the hard stop keeps a quarter back
        (300, 1_000, None, 100, 100, 150),
        # less than the overhead left: a floor of 5 ms, never a negative budget
        (50, 0, None, 100, 5 / 20, 5 / 20 * 3),
    ],
)
def test_a_clock_gives_a_share_and_a_hard_stop(left_ms: int, inc_ms: int, moves_to_go: int | None,
                                                overhead_ms: int, soft: float, hard: float) -> None:
    budget = Budget.from_clock(left_ms, inc_ms, moves_to_go=moves_to_go, overhead_ms=overhead_ms)
    assert budget.soft == pytest.approx(soft / MS)
    assert budget.hard == pytest.approx(hard / MS)


@given(st.integers(0, 10**7), st.integers(0, 10**5), st.one_of(st.none(), st.integers(1, 100)),
       st.integers(0, 5_000))
def test_a_budget_never_spends_the_clock(left_ms: int, inc_ms: int, moves_to_go: int | None,
                                         overhead_ms: int) -> None:
    budget = Budget.from_clock(left_ms, inc_ms, moves_to_go=moves_to_go, overhead_ms=overhead_ms)
    usable = max(left_ms - overhead_ms, 5) / MS
    assert 0 < budget.soft <= budget.hard <= usable * timeman.HARD_SHARE + 1e-9
    assert budget.soft <= usable * timeman.MAX_SHARE + 1e-9


@given(st.integers(0, 10**6), st.integers(1, 10**6), st.integers(0, 10**4))
def test_more_time_left_never_gives_a_smaller_share(left_ms: int, more_ms: int, inc_ms: int) -> None:
    less = Budget.from_clock(left_ms, inc_ms, moves_to_go=None, overhead_ms=30)
    more = Budget.from_clock(left_ms + more_ms, inc_ms, moves_to_go=None, overhead_ms=30)
    assert more.soft >= less.soft and more.hard >= less.hard


@pytest.mark.parametrize(("movetime_ms", "overhead_ms", "seconds"),
                         [(1_000, 30, 0.97), (100, 0, 0.1), (20, 30, 0.005)])
def test_a_fixed_move_time_is_all_spent_and_no_more(movetime_ms: int, overhead_ms: int, seconds: float) -> None:
    budget = Budget.from_movetime(movetime_ms, overhead_ms=overhead_ms)
    assert budget.soft == pytest.approx(seconds) and budget.hard == pytest.approx(seconds)


@pytest.mark.parametrize(
    "history", [[("e2e4", 30)] * 6, [("e2e4", 30), ("d2d4", 30)] * 3, [("e2e4", 30)] * 3 + [("e2e4", -900)]])
def test_a_fixed_move_time_stops_deepening_at_its_plain_share(history: list[tuple[str, int]]) -> None:
    """`go movetime` keeps the share it always had (WAC and the only-move suite are run so)."""
    deepening = Deepening(Budget.from_movetime(1_000, overhead_ms=0))
    for best, score in history[:-1]:
        deepening.scale(best, score)
    threshold = timeman.ITERATION_SHARE
    assert not deepening.should_stop(threshold - 0.01, *history[-1])
    assert deepening.should_stop(threshold + 0.01, *history[-1])


def _scales(history: list[tuple[str, int]]) -> list[float]:
    deepening = Deepening(Budget(1.0, 3.0))
    return [deepening.scale(best, score) for best, score in history]


def test_a_best_move_that_holds_at_a_steady_score_shrinks_the_share() -> None:
    scales = _scales([("e2e4", 30)] * 8)
    assert scales[-1] == pytest.approx(timeman.STABLE_FACTOR)
    assert all(s < 1 for s in scales)


@pytest.mark.parametrize(
    ("history", "more_than"),
    [
        # the best move changed on the last iteration
        ([("e2e4", 30)] * 4 + [("d2d4", 30)], 1.0),
        # it keeps changing: the share stretches to its cap
        ([("e2e4", 30), ("d2d4", 30)] * 4, timeman.MAX_INSTABILITY * 0.99),
    ],
)
def test_a_best_move_that_changes_stretches_the_share(history: list[tuple[str, int]], more_than: float) -> None:
    assert _scales(history)[-1] > more_than


def test_a_change_counts_less_with_every_iteration_after_it() -> None:
    scales = _scales([("e2e4", 30)] * 3 + [("d2d4", 30)] + [("d2d4", 30)] * 6)
    after = scales[3:]
    assert all(a > b for a, b in itertools.pairwise(after) if b > timeman.STABLE_FACTOR + 1e-6)
    assert after[-1] == pytest.approx(timeman.STABLE_FACTOR, abs=0.02)


@pytest.mark.parametrize(
    ("scores", "factor"),
    [
        ([30, 30, 30], 1.0),  # steady
        ([30, 30, 30 - timeman.FALL_CP // 4], 1.25),  # a fall of a quarter of FALL_CP: a quarter more
        ([30, 30, -1_000], timeman.MAX_FALLING),  # a collapse: capped
        ([30, 30, 1_000], timeman.MIN_FALLING),  # a rise: a little less, no lower than the floor
    ],
)
def test_a_falling_score_stretches_the_share_and_a_rising_one_shrinks_it(scores: list[int], factor: float) -> None:
    steady = _scales([("e2e4", 30)] * len(scores))[-1]
    assert _scales([("e2e4", s) for s in scores])[-1] == pytest.approx(steady * factor)


@pytest.mark.parametrize(
    ("elapsed", "history", "stops"),
    [
        (0.01, [("e2e4", 30)], False),  # early on: deepen
        (0.9, [("e2e4", 30)], True),  # past the share: a new iteration would not finish
        (0.5, [("e2e4", 30)] * 6, True),  # a settled move stops sooner...
        (0.5, [("e2e4", 30), ("d2d4", 30)] * 3, False),  # ...an unsettled one goes on
        (0.55, [("e2e4", 30)] * 4, True),  # a steady score stops here...
        (0.55, [("e2e4", 30)] * 3 + [("e2e4", -200)], False),  # ...a collapsing one goes on
    ],
)
def test_whether_to_deepen(elapsed: float, history: list[tuple[str, int]], stops: bool) -> None:
    deepening = Deepening(Budget(1.0, 3.0))
    for best, score in history[:-1]:
        deepening.scale(best, score)
    assert deepening.should_stop(elapsed, *history[-1]) is stops
