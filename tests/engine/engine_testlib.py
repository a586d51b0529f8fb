"""Helpers shared by the engine tests: the shared data directory and positions from seeded random games."""

from __future__ import annotations

import random
from pathlib import Path

import chess
import pytest

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
if not DATA.exists():  # the repository may be checked out elsewhere
    DATA = Path("/work/shared/data")


def random_positions(count: int, *, seed: int) -> list[chess.Board]:
    """Positions reached by random legal games; lengths vary so openings and endgames both appear."""
    rng = random.Random(seed)
    out: list[chess.Board] = []
    while len(out) < count:
        board = chess.Board()
        for _ in range(rng.randint(2, 200)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        if not board.is_game_over():
            out.append(board)
    return out


def data_dir() -> Path:
    if not DATA.exists():
        pytest.skip(f"shared data not found at {DATA}")
    return DATA
