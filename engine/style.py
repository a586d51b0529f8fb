"""Playing styles as evaluation changes, for the UCI options of engine/uci.py.

Like Rodent IV's personalities, a style is a set of percentages of the normal evaluation
weights (material, king attack, mobility, pawn structure) plus a contempt, and a repertoire
used as the book (:class:`Repertoire`). :func:`style_tables` gives the evaluation table array the
search kernel reads (``Searcher.ev``); nothing here runs per node.

Contempt is what Rodent and Stockfish mean by it: how much worse than a draw the engine rates
a draw. It is added to the king's square values of the side the engine plays (the side to move
at the root), so every position that is not a draw is worth ``contempt`` more to it than the
draw scores (0) of repetition and the fifty-move rule: above 0 it avoids draws it is not losing,
below 0 it heads for them.
"""

from __future__ import annotations

import functools
import random
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

import chess
import numpy as np

#: Option name -> evaluation weight group it scales (percent; 100 is the engine's own evaluation).
SCALE_OPTIONS: Mapping[str, str] = {
    "Style Material": "material",
    "Style KingAttack": "king_attack",
    "Style Mobility": "mobility",
    "Style PawnStructure": "pawn_structure",
}
SCALE_RANGES: Mapping[str, tuple[int, int]] = {
    "Style Material": (25, 400),
    "Style KingAttack": (0, 400),
    "Style Mobility": (0, 400),
    "Style PawnStructure": (0, 400),
}
CONTEMPT_RANGE = (-200, 200)
MAX_BOOK_CHARS = 60_000
MAX_BOOK_PLIES = 60


class StyleError(ValueError):
    """A style value the engine cannot use; the message names it."""


@dataclass(frozen=True)
class Style:
    """Percent scales by weight group, and the contempt in centipawns."""

    scales: tuple[tuple[str, int], ...] = ()
    contempt: int = 0

    @property
    def is_neutral(self) -> bool:
        return self.contempt == 0 and all(v == 100 for _, v in self.scales)


def supported_groups() -> frozenset[str]:
    """The weight groups this build's evaluation can scale at run time."""
    from engine import evaluate

    groups = getattr(evaluate, "WEIGHT_GROUPS", None)
    if groups is None:
        return frozenset({"material"})
    return frozenset({"material", *groups})


@functools.lru_cache(maxsize=16)
def style_tables(style: Style, *, white: bool) -> np.ndarray:
    """The evaluation array for ``style`` played by White (``white``) or Black."""
    from engine import evaluate
    from engine.movegen import KING_T

    scales = dict(style.scales)
    scaled = getattr(evaluate, "scaled_tables", None)
    if scaled is not None:
        ev = np.array(scaled({group: pct / 100 for group, pct in scales.items()}), dtype=np.int64)
    else:
        ev = np.array(evaluate.eval_tables(), dtype=np.int64)
        material = scales.get("material", 100)
        if material != 100:
            for colour in range(2):
                for ptype in range(5):
                    for base, values in ((evaluate.PST_MG, evaluate.VALUE_MG), (evaluate.PST_EG, evaluate.VALUE_EG)):
                        start = base + (colour * 6 + ptype) * 64
                        ev[start:start + 64] += values[ptype] * (material - 100) // 100
    if style.contempt:
        colour = 0 if white else 1
        for base in (evaluate.PST_MG, evaluate.PST_EG):
            start = base + (colour * 6 + KING_T) * 64
            ev[start:start + 64] += style.contempt if white else -style.contempt
    ev.flags.writeable = False
    return ev


_MOVE_NUMBER = re.compile(r"[0-9]{1,3}\.(\.\.)?")


def _moves(text: str, *, where: str) -> list[chess.Move]:
    """The moves of SAN movetext from the start (``1. e4 e5 2. Nf3``), strictly: any token that is
    neither a move number nor a legal move in its place is a StyleError naming it."""
    board = chess.Board()
    out: list[chess.Move] = []
    for token in text.split():
        if _MOVE_NUMBER.fullmatch(token):
            continue
        if len(out) >= MAX_BOOK_PLIES:
            raise StyleError(f"{where}: longer than {MAX_BOOK_PLIES} plies")
        try:
            move = board.parse_san(token)
        except ValueError:
            raise StyleError(f"{where}: {token[:20]!r} is not a legal move after {len(out)} plies") from None
        board.push(move)
        out.append(move)
    return out


class Repertoire:
    """Opening lines (PGN movetext) as a book: in a position one of the lines reaches, the
    moves those lines continue with, weighted by how many lines do; transpositions count."""

    def __init__(self, moves_by_position: Mapping[str, Counter[str]], *, lines: int) -> None:
        self._moves = moves_by_position
        self.lines = lines

    @classmethod
    def from_text(cls, text: str) -> Repertoire:
        """``"1. e4 e5 2. Nf3;1. d4 d5"``: lines separated by ``;``; StyleError names a bad one."""
        if len(text) > MAX_BOOK_CHARS:
            raise StyleError(f"book lines longer than {MAX_BOOK_CHARS} characters")
        moves: dict[str, Counter[str]] = {}
        count = 0
        for number, line in enumerate(part.strip() for part in text.split(";")):
            if not line or line == "<empty>":
                continue
            shown = line if len(line) <= 40 else line[:40] + "..."
            plies = _moves(line, where=f"book line {number + 1} {shown!r}")
            board = chess.Board()
            if not plies or len(plies) > MAX_BOOK_PLIES:
                raise StyleError(f"book line {number + 1} {shown!r} needs 1 to {MAX_BOOK_PLIES} moves")
            for move in plies:
                moves.setdefault(board.epd(), Counter())[move.uci()] += 1
                board.push(move)
            count += 1
        return cls(moves, lines=count)

    def pick(self, board: chess.Board, rng: random.Random) -> chess.Move | None:
        """A repertoire move here, or None when no line reaches this position."""
        if board.is_variant_end() or board.chess960:
            return None
        found = self._moves.get(board.epd())
        if not found:
            return None
        names = sorted(found)
        move = chess.Move.from_uci(rng.choices(names, weights=[found[n] for n in names])[0])
        return move if move in board.legal_moves else None
