"""How long to think on a clock: a move's share of the time left, then, iteration by iteration,
whether to deepen again.

A fixed share wastes time at blitz: most moves are settled after a few iterations, while a few
need every one the clock allows. As the strong engines do (Stockfish's best-move instability and
falling-score factors), the share shrinks while the best move holds and the score holds, and
stretches while the best move keeps changing or the score falls. The time not spent stays on the
clock, and the next moves' shares grow with it. Pure: the searcher passes in the elapsed time.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

DEFAULT_MOVES_TO_GO = 20  # moves the time left is shared over when `go` gives no movestogo
INC_SHARE = 0.75  # of the increment, added to a move's share
MAX_SHARE = 0.5  # of the time left, the most one move's share may be
HARD_FACTOR = 3.0  # the search is stopped mid-iteration at this multiple of the share...
HARD_SHARE = 0.75  # ...or at this share of the time left, whichever is sooner
ITERATION_SHARE = 0.6  # no new iteration once this much of the (scaled) share is gone: it would not finish
STABLE_FACTOR = 0.7  # scale on the share while the best move has held for several iterations
CHANGE_WEIGHT = 0.8  # added to the scale per recent change of the best move
CHANGE_DECAY = 0.5  # a change counts half as much after each later iteration
MAX_INSTABILITY = 2.0
FALL_CP = 200  # a score fall of this many centipawns doubles the scale (within the bounds below)
MIN_FALLING, MAX_FALLING = 0.85, 1.4


@dataclass(frozen=True)
class Budget:
    """Seconds for one move: ``soft`` is its share, ``hard`` stops the search mid-iteration.

    ``is_scalable``: whether the share may shrink or stretch with the search (a clock's may; a
    fixed ``movetime`` is the caller's choice, so only its plain share stops deepening).
    """

    soft: float
    hard: float
    is_scalable: bool = True

    @classmethod
    def from_clock(cls, left_ms: int, inc_ms: int, *, moves_to_go: int | None, overhead_ms: int) -> Budget:
        """The share of ``left_ms`` (after the overhead) for this move, plus most of the increment."""
        left = max(left_ms - overhead_ms, 5)
        soft = min(left / (moves_to_go or DEFAULT_MOVES_TO_GO) + inc_ms * INC_SHARE, left * MAX_SHARE)
        hard = min(soft * HARD_FACTOR, left * HARD_SHARE)
        return cls(soft / 1000, hard / 1000)

    @classmethod
    def from_movetime(cls, movetime_ms: int, *, overhead_ms: int) -> Budget:
        """A fixed time per move: all of it, no more."""
        t = max(movetime_ms - overhead_ms, 5) / 1000
        return cls(t, t, is_scalable=False)


@dataclass
class Deepening:
    """Decides after each finished iteration whether to start another, from its best move and score."""

    budget: Budget
    instability: float = 0.0  # recent changes of the best move, each decaying by CHANGE_DECAY an iteration
    _best: Any = None
    _scores: list[int] = field(default_factory=list)

    def scale(self, best: Any, score: int) -> float:
        """Record an iteration's result and return the factor on the share it implies."""
        if self._best is not None:
            self.instability = self.instability * CHANGE_DECAY + (best != self._best)
        self._best = best
        falling = 1.0
        if self._scores:
            recent = self._scores[-2:]
            drop = sum(recent) / len(recent) - score
            falling = min(MAX_FALLING, max(MIN_FALLING, 1 + drop / FALL_CP))
        self._scores.append(score)
        return min(MAX_INSTABILITY, STABLE_FACTOR + CHANGE_WEIGHT * self.instability) * falling

    def should_stop(self, elapsed: float, best: Any, score: int) -> bool:
        """Whether, ``elapsed`` seconds into the move, the next iteration should not start."""
        scale = self.scale(best, score) if self.budget.is_scalable else 1.0
        return elapsed > self.budget.soft * ITERATION_SHARE * scale
