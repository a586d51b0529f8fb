"""The xiangqi opening list (engine/data/xiangqi_openings.tsv) as lines for matches and as a book.

Each (position, move) pair weighs as many listed lines as pass through it, so the main lines
come up more often, and the pick is random by weight so games vary.
"""

from __future__ import annotations

import functools
import random
from dataclasses import dataclass
from importlib import resources

from engine.xq_position import START_FEN, XqBoard, XqMove, parse_move


@dataclass(frozen=True)
class Opening:
    name: str
    chinese: str
    moves: tuple[str, ...]


def openings() -> list[Opening]:
    """The listed openings, in file order."""
    text = resources.files("engine").joinpath("data/xiangqi_openings.tsv").read_text(encoding="utf-8")
    out = []
    for line in text.splitlines():
        if not line.strip() or line.startswith("#") or line.startswith("name\t"):
            continue
        name, chinese, moves = line.split("\t")
        out.append(Opening(name, chinese, tuple(moves.split())))
    return out


def _key(board: XqBoard) -> str:
    return " ".join(board.fen().split()[:2])


@functools.cache
def book() -> dict[str, dict[int, int]]:
    """Position (placement and side) -> {move: weight}; every line is checked for legality."""
    table: dict[str, dict[int, int]] = {}
    for opening in openings():
        board = XqBoard(START_FEN)
        for text in opening.moves:
            m = parse_move(text)
            entry = table.setdefault(_key(board), {})
            entry[m] = entry.get(m, 0) + 1
            board.push(m)  # raises on an illegal line
    return table


def pick(board: XqBoard, rng: random.Random) -> XqMove | None:
    """A book move for ``board`` chosen at random by weight, or None out of book."""
    entry = book().get(_key(board))
    if not entry:
        return None
    moves = list(entry)
    legal = set(board.legal_moves())
    moves = [m for m in moves if m in legal]
    if not moves:
        return None
    return XqMove(rng.choices(moves, weights=[entry[m] for m in moves])[0])
