"""The set-wise pawn-structure kernel against a square-by-square reference, under each weight set."""

from __future__ import annotations

import random

import numpy as np
import pytest

from engine.evaluate import (
    DOUBLED_AT,
    ISOLATED_AT,
    PASSED_EG_AT,
    PASSED_MG_AT,
    default_weights,
    eval_tables,
    pawn_structure,
)


def _reference(ev: np.ndarray, own: set[int], enemy: set[int], c: int) -> tuple[int, int]:
    """One pawn and one file at a time, as the rules read."""
    mg = eg = 0
    for f in range(8):
        n = sum(1 for s in own if s % 8 == f)
        if n > 1:
            mg += int(ev[DOUBLED_AT]) * (n - 1)
            eg += int(ev[DOUBLED_AT + 1]) * (n - 1)
    for s in own:
        f, r = s % 8, s // 8
        if not any(t % 8 in (f - 1, f + 1) for t in own):
            mg += int(ev[ISOLATED_AT])
            eg += int(ev[ISOLATED_AT + 1])

        def ahead(t: int, r: int = r) -> bool:
            return t // 8 > r if c == 0 else t // 8 < r

        blocked = any(abs(t % 8 - f) <= 1 and ahead(t) for t in enemy)
        behind_own = any(t % 8 == f and ahead(t) for t in own)
        if not blocked and not behind_own:
            rr = r if c == 0 else 7 - r
            mg += int(ev[PASSED_MG_AT + rr])
            eg += int(ev[PASSED_EG_AT + rr])
    return mg, eg


def _bits(squares: set[int]) -> np.uint64:
    return np.uint64(sum(1 << s for s in squares))


@pytest.mark.parametrize("weights", ["hand-set", "file"])
def test_pawn_structure_matches_reference_on_random_pawns(weights: str) -> None:
    ev = default_weights() if weights == "hand-set" else eval_tables()
    rng = random.Random(7)
    for _ in range(3000):
        density = rng.choice((0.05, 0.15, 0.3))
        white: set[int] = set()
        black: set[int] = set()
        for s in range(8, 56):
            x = rng.random()
            if x < density:
                white.add(s)
            elif x < 2 * density:
                black.add(s)
        for c, own, enemy in ((0, white, black), (1, black, white)):
            got = pawn_structure(ev, _bits(own), _bits(enemy), c)
            assert tuple(got) == _reference(ev, own, enemy, c), (sorted(white), sorted(black), c)
