"""XiangqiBoard under the tracker: random xiangqi games made by a human-like hand (both policies,
captures in both orders, slides, brushes) are read back move for move."""

from __future__ import annotations

import random

import pytest

from boardctl.events import Tick
from boardctl.gestures import Hand, events_for_game, random_game
from boardctl.tracker import MoveMade, Policy, Tracker
from boardctl.variants import get_variant

XIANGQI = get_variant("xiangqi")


@pytest.mark.parametrize("seed", range(8))
def test_random_games_are_read_exactly(seed: int) -> None:
    rng = random.Random(seed)
    policy = Policy.STRICT if seed % 2 else Policy.CASUAL
    moves = random_game(rng, max_plies=100, variant=XIANGQI)
    events = events_for_game(moves, Hand(rng, policy=policy), variant=XIANGQI)
    events.append(Tick(events[-1].t + 10.0))  # let the last move settle
    tracker = Tracker(policy=policy, variant=XIANGQI)
    made = [
        o.move.uci() for e in events for o in tracker.feed(e).outputs if isinstance(o, MoveMade)
    ]
    assert made == [m.uci() for m in moves]
