"""Playing styles for xiangqi: the chess styles' options (engine/style.py) applied to the xiangqi
evaluation (engine/xq_evaluate.py), and a repertoire of xiangqi lines as the book.

The same UCI options mean the nearest xiangqi thing:

- ``Style Material``: the value of every piece (a soldier across the river counts as its base).
- ``Style Mobility``: the activity of the horses, chariots and cannons: horse mobility and where
  those pieces stand (centre, advance).
- ``Style PawnStructure``: where the soldiers stand (their advance past the river, the centre).
- ``Style KingAttack``: the danger seen for the enemy general (missing guards against the attackers
  across the river, a chariot on its open file); ``Style KingSafety`` the same for the own general,
  plus keeping it at home. "Own" is the side to move at the root, as in chess.

Contempt scores the search's draws (repetitions allowed by the rules, 60 moves) as in chess:
``engine.search_common.CONTEMPT``. Nothing here runs per node: the tables are made once a style.
"""

from __future__ import annotations

import functools
import random
import re
from collections import Counter
from collections.abc import Mapping

import numpy as np

from engine.style import MAX_BOOK_CHARS, MAX_BOOK_PLIES, Style, StyleError
from engine.xq_evaluate import (
    NEUTRAL_WEIGHTS,
    W_GUARDS,
    W_HORSE_MOB,
    W_OPEN_FILE,
    fill_eval_tables,
)
from engine.xq_movegen import CANNON, HORSE, KING, PAWN, ROOK
from engine.xq_position import START_FEN, XiangqiError, XqBoard, XqMove, parse_move, tables

_ACTIVE = (HORSE, ROOK, CANNON)


@functools.lru_cache(maxsize=16)
def xq_style_tables(style: Style, side: int = 0) -> np.ndarray:
    """The xiangqi kernel tables with ``style``'s evaluation, when the engine plays ``side``
    (0 Red, 1 Black; it matters only for a sided style). Read-only, like :func:`tables`."""
    scales = {name: pct / 100 for name, pct in style.scales}
    material = scales.get("Style Material", 1.0)
    mobility = scales.get("Style Mobility", 1.0)
    soldiers = scales.get("Style PawnStructure", 1.0)
    attack = scales.get("Style KingAttack", 1.0)
    safety = scales.get("Style KingSafety", 1.0)
    own = side if style.is_sided else 0

    def scale(colour: int, ptype: int, value: int, place: int) -> int:
        factor = 1.0
        if ptype in _ACTIVE:
            factor = mobility
        elif ptype == PAWN:
            factor = soldiers
        elif ptype == KING and style.is_sided:
            factor = safety if colour == own else 1.0
        return round(value * material + place * factor)

    weights = dict(NEUTRAL_WEIGHTS)
    weights[W_HORSE_MOB] = round(weights[W_HORSE_MOB] * mobility)
    if style.is_sided:
        for colour in (0, 1):
            factor = safety if colour == own else attack
            weights[W_GUARDS + colour] = round(weights[W_GUARDS + colour] * factor)
            weights[W_OPEN_FILE + colour] = round(weights[W_OPEN_FILE + colour] * factor)
    tb = np.array(tables())
    fill_eval_tables(tb, scale, tuple(weights.items()))
    tb.flags.writeable = False
    return tb


_MOVE = re.compile(r"[a-i][0-9][a-i][0-9]")


class XqRepertoire:
    """Xiangqi lines (UCCI coordinates, ``h2e2 h9g7; c3c4 g6g5``) as a book: in a position one of
    the lines reaches, the moves they continue with, weighted by how many lines do."""

    def __init__(self, moves_by_position: Mapping[str, Counter[int]], *, lines: int) -> None:
        self._moves = moves_by_position
        self.lines = lines

    @classmethod
    def from_text(cls, text: str) -> XqRepertoire:
        """Lines separated by ``;``, each of moves from the start position; StyleError names a bad one."""
        if len(text) > MAX_BOOK_CHARS:
            raise StyleError(f"book lines longer than {MAX_BOOK_CHARS} characters")
        moves: dict[str, Counter[int]] = {}
        count = 0
        for number, line in enumerate(part.strip() for part in text.split(";")):
            if not line or line == "<empty>":
                continue
            shown = line if len(line) <= 40 else line[:40] + "..."
            tokens = line.split()
            if len(tokens) > MAX_BOOK_PLIES:
                raise StyleError(f"book line {number + 1} {shown!r} needs 1 to {MAX_BOOK_PLIES} moves")
            board = XqBoard(START_FEN)
            for ply, token in enumerate(tokens):
                if not _MOVE.fullmatch(token):
                    raise StyleError(f"book line {number + 1} {shown!r}: {token[:20]!r} is not a xiangqi move")
                m = parse_move(token)
                if m not in board.legal_moves():
                    raise StyleError(f"book line {number + 1} {shown!r}: {token!r} is not legal after {ply} plies")
                moves.setdefault(_key(board), Counter())[m] += 1
                board.push(m)
            count += 1
        return cls(moves, lines=count)

    def pick(self, board: XqBoard, rng: random.Random) -> XqMove | None:
        """A repertoire move here, or None when no line reaches this position."""
        found = self._moves.get(_key(board))
        if not found:
            return None
        choices = sorted(found)
        m = rng.choices(choices, weights=[found[c] for c in choices])[0]
        try:
            legal = m in board.legal_moves()
        except XiangqiError:
            return None
        return XqMove(m) if legal else None


def _key(board: XqBoard) -> str:
    return " ".join(board.fen().split()[:2])
