"""pyffish (Fairy-Stockfish 0.0.90) as the judge of xiangqi game ends: Asian repetition rules,
the 60-move rule, no legal move. The engine process never imports this module.

pyffish's moves number the ranks 1-10; ours (UCCI) 0-9: :func:`to_ffish` and
:func:`from_ffish` convert. The variant ``xiangqi60`` is Fairy-Stockfish's xiangqi with
``nMoveRule = 60`` (its built-in xiangqi draws after 50 moves).
"""

from __future__ import annotations

import functools
import random
import re
from dataclasses import dataclass
from enum import Enum
from typing import Any

VARIANT = "xiangqi60"
CONFIG = f"[{VARIANT}:xiangqi]\nnMoveRule = 60\n"
_SQ = re.compile(r"([a-i])(\d+)")


class Ending(Enum):
    """How a xiangqi game stands, from the side to move's view."""

    ONGOING = "ongoing"
    WIN = "win"
    LOSS = "loss"
    DRAW = "draw"


@dataclass(frozen=True)
class Ruling:
    ending: Ending
    optional: bool  # a repetition or the 60-move rule, as opposed to no legal move


@functools.cache
def ffish() -> Any:
    """pyffish with the 60-move variant loaded."""
    import pyffish

    pyffish.load_variant_config(CONFIG)
    return pyffish


def to_ffish(move: str) -> str:
    """``h2e2`` -> ``h3e3``."""
    return _SQ.sub(lambda m: f"{m.group(1)}{int(m.group(2)) + 1}", move)


def from_ffish(move: str) -> str:
    """``h3e3`` -> ``h2e2`` (also ``a10a9`` -> ``a9a8``)."""
    return _SQ.sub(lambda m: f"{m.group(1)}{int(m.group(2)) - 1}", move)


def legal_moves(fen: str, moves: list[str]) -> list[str]:
    """pyffish's legal moves after ``moves`` from ``fen``, in our coordinates."""
    return [from_ffish(m) for m in ffish().legal_moves(VARIANT, fen, [to_ffish(m) for m in moves])]


def ruling(fen: str, moves: list[str]) -> Ruling:
    """pyffish's verdict on the position after ``moves`` (side to move's view)."""
    sf = ffish()
    fm = [to_ffish(m) for m in moves]
    if not sf.legal_moves(VARIANT, fen, fm):
        result = sf.game_result(VARIANT, fen, fm)
        return Ruling(Ending.WIN if result > 0 else Ending.LOSS if result < 0 else Ending.DRAW, False)
    ended, result = sf.is_optional_game_end(VARIANT, fen, fm)
    if not ended:
        return Ruling(Ending.ONGOING, False)
    return Ruling(Ending.WIN if result > 0 else Ending.LOSS if result < 0 else Ending.DRAW, True)


# ---- sampling repetition cycles (the data file's builder and the tests) ------------------

def reverse(move: str) -> str:
    return move[2:] + move[:2]


def cycles_from(fen: str, rng: random.Random) -> list[list[str]]:
    """Every four-ply cycle of quiet moves from ``fen`` (both sides move and move back), shuffled.

    Our own move generator finds them (fast); pyffish rules on the ones kept.
    """
    from engine.xq_position import XqBoard, move_name

    board = XqBoard(fen)
    found = []
    for a in board.legal_moves():
        if board.pos.mb[(a >> 7) & 127] >= 0:
            continue
        after_a = board.copy()
        after_a.push(a)
        for b in after_a.legal_moves():
            if after_a.pos.mb[(b >> 7) & 127] >= 0:
                continue
            seq = [move_name(a), move_name(b)]
            seq += [reverse(seq[0]), reverse(seq[1])]
            try:
                XqBoard.from_moves(fen, seq)
            except ValueError:
                continue
            found.append(seq)
    rng.shuffle(found)
    return found


def placement_fen(pieces: dict[tuple[int, int], str]) -> str:
    """A Red-to-move FEN of ``pieces`` (``(file, rank)`` -> FEN letter, rank 0 on Red's side)."""
    rows = []
    for r in range(9, -1, -1):
        row, empty = "", 0
        for f in range(9):
            ch = pieces.get((f, r))
            if ch is None:
                empty += 1
                continue
            row += (str(empty) if empty else "") + ch
            empty = 0
        rows.append(row + (str(empty) if empty else ""))
    return "/".join(rows) + " w - - 0 1"


def sparse_position(rng: random.Random) -> str | None:
    """Two kings in their palaces and a few rooks, cannons, horses and crossed soldiers:
    with few pieces, chases and checks that can go on for ever are common."""
    board: dict[tuple[int, int], str] = {}
    board[(rng.randint(3, 5), rng.randint(0, 2))] = "K"
    board[(rng.randint(3, 5), rng.randint(7, 9))] = "k"
    for colour in (0, 1):
        for _ in range(rng.randint(1, 3)):
            kind = rng.choice("RRCCNP")
            f, r = rng.randrange(9), rng.randrange(10)
            if kind == "P" and (r < 5 if colour == 0 else r > 4):
                continue
            if (f, r) not in board:
                board[(f, r)] = kind if colour == 0 else kind.lower()
    fen = placement_fen(board)
    sf = ffish()
    if sf.validate_fen(fen, VARIANT) != 1:
        return None
    from engine.xq_position import XiangqiError, XqBoard

    try:
        XqBoard(fen)  # refuses a position whose side not to move is in check
    except XiangqiError:
        return None
    if not sf.legal_moves(VARIANT, fen, []):
        return None
    return fen
