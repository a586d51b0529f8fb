"""The board's move list against the server's: a table of cases and properties (nothing twice)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from boardctl.online.sync import Plan, plan

CASES = [
    # local, server, mine, over, expected
    ([], [], False, False, Plan()),
    (["e2e4"], ["e2e4"], True, False, Plan()),
    (["e2e4"], [], True, False, Plan(send="e2e4")),  # our move, not on the server yet
    (["e2e4"], [], True, True, Plan(take_back=1)),  # the game ended first: it never counted
    (["e2e4"], [], False, False, Plan(take_back=1)),  # not ours: the server withdrew it
    ([], ["e2e4"], False, False, Plan(show=("e2e4",))),  # the opponent's first move
    (["e2e4"], ["e2e4", "e7e5"], True, False, Plan(show=("e7e5",))),
    (["e2e4", "e7e5"], ["e2e4"], False, False, Plan(take_back=1)),  # a takeback of one ply
    (["e2e4", "e7e5", "g1f3"], ["e2e4"], True, False, Plan(take_back=2)),  # two plies
    (["e2e4", "e7e5"], ["d2d4", "d7d5"], False, False, Plan(take_back=2, show=("d2d4", "d7d5"))),
    (["e2e4", "e7e5", "g1f3"], ["e2e4", "e7e5"], True, False, Plan(send="g1f3")),
    (["e2e4", "e7e5", "g1f3"], ["e2e4", "e7e5", "g1f3"], True, False, Plan()),  # sent and echoed
    # a stream back after a drop, the opponent having answered meanwhile
    (["e2e4", "e7e5", "g1f3"], ["e2e4", "e7e5", "g1f3", "b8c6"], True, False, Plan(show=("b8c6",))),
]


@pytest.mark.parametrize(("local", "server", "mine", "over", "expected"), CASES)
def test_plan(local: list[str], server: list[str], mine: bool, over: bool, expected: Plan) -> None:
    assert plan(local, server, mine=mine, over=over) == expected


moves = st.lists(st.sampled_from(["e2e4", "e7e5", "g1f3", "b8c6", "d2d4", "d7d5"]), max_size=8)


@given(moves, moves, st.booleans())
def test_following_the_plan_makes_the_lists_equal_and_a_second_plan_is_empty(
    local: list[str], server: list[str], mine: bool
) -> None:
    step = plan(local, server, mine=mine)
    after = local[: len(local) - step.take_back] + list(step.show)
    sent = list(server) + ([step.send] if step.send else [])
    assert after == sent  # the board then has exactly the server's moves (plus ours in flight)
    again = plan(after, sent, mine=mine)
    assert again.is_empty()  # applying the same server list again changes nothing
