"""Helpers for the xiangqi engine tests: Fairy-Stockfish as a subprocess, seeded random games."""

from __future__ import annotations

import random
import shutil
import subprocess

import pytest

from engine.xq_position import START_FEN, XqBoard, move_name

FAIRY = shutil.which("fairy-stockfish") or shutil.which("/usr/games/fairy-stockfish")
needs_fairy = pytest.mark.skipif(
    FAIRY is None, reason="fairy-stockfish not installed (make system, or apt-get install fairy-stockfish)"
)


def fairy_perft(fen: str, depth: int) -> int:
    """Fairy-Stockfish 11.1's ``go perft`` count for a xiangqi FEN."""
    assert FAIRY is not None
    script = f"uci\nsetoption name UCI_Variant value xiangqi\nposition fen {fen}\ngo perft {depth}\nquit\n"
    out = subprocess.run([FAIRY], input=script, capture_output=True, text=True, timeout=300, check=True).stdout
    line = next(ln for ln in out.splitlines() if ln.startswith("Nodes searched"))
    return int(line.split(":")[1])


def random_boards(count: int, *, seed: int, max_plies: int = 160) -> list[XqBoard]:
    """Positions along seeded random games (every position counts, so openings and endgames appear)."""
    rng = random.Random(seed)
    out: list[XqBoard] = []
    while len(out) < count:
        board = XqBoard(START_FEN)
        for _ in range(rng.randint(10, max_plies)):
            moves = board.legal_moves()
            if not moves or len(out) >= count:
                break
            board.push(rng.choice(moves))
            out.append(board.copy())
    return out


def names(moves: list[int]) -> list[str]:
    return sorted(move_name(m) for m in moves)
