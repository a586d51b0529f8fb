"""Playing styles as evaluation changes, for the UCI options of engine/uci.py.

Like Rodent IV's personalities, a style is a set of percentages of the normal evaluation
weights (material, mobility, pawn structure) plus a contempt, and a repertoire used as the book
(:class:`Repertoire`). King attack and king safety are the two sides of one term, and a style
scales them apart, as Rodent's ``OwnAttack`` and ``OppAttack`` do: ``Style KingAttack`` is the
danger the engine sees for the *enemy* king, ``Style KingSafety`` the danger it sees for its *own*
king plus its own pawn shield (and above 100% ``Style KingAttack`` also rewards own pieces close to
the enemy king: :func:`tropism`), "own" being the side to move at the root (as for contempt). Raising
only the attack no longer makes the engine fear attacks on its own king as much.
:func:`style_tables` gives the evaluation table array the search kernel reads (``Searcher.ev``);
nothing here runs per node.

Contempt is what Rodent and Stockfish mean by it: how much worse than equality the engine rates
a draw. The search scores every draw it sees (repetition, fifty moves, stalemate) ``-contempt``
for the side to move at the root and ``+contempt`` for the other (``engine.search_common.CONTEMPT``), so
an attacker steers away from repetitions and a defender towards them, as in Stockfish. At the
root :func:`contempt_choice` also settles draws that can be claimed there: with contempt above 0
the engine does not repeat or stalemate its way into a draw while another move keeps it within
``contempt`` of equality; below 0 it takes a draw on offer unless it is better by more than
``-contempt``. Contempt 0, the default, scores draws 0.
"""

from __future__ import annotations

import functools
import random
import re
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import chess
import numpy as np

#: Option name -> the evaluation weight groups it scales for both colours (percent; 100 is the
#: engine's own evaluation). The two king options scale no group: they are per colour (SIDE_OPTIONS).
SCALE_OPTIONS: Mapping[str, tuple[str, ...]] = {
    "Style Material": ("material",),
    "Style KingAttack": (),
    "Style Mobility": ("mobility",),
    "Style PawnStructure": ("pawn_structure", "passed_pawns"),
    "Style KingSafety": (),
}
#: The per-colour options: the danger of the enemy king, and the danger and shield of the own king.
SIDE_OPTIONS = ("Style KingAttack", "Style KingSafety")
SCALE_RANGES: Mapping[str, tuple[int, int]] = {
    "Style Material": (25, 400),
    "Style KingAttack": (0, 400),
    "Style Mobility": (0, 400),
    "Style PawnStructure": (0, 400),
    "Style KingSafety": (0, 400),
}
CONTEMPT_RANGE = (-200, 200)
MAX_BOOK_CHARS = 60_000
MAX_BOOK_PLIES = 60
#: The nodes each alternative to a drawing move is searched with, when contempt asks for one.
CONTEMPT_NODES = 400
CONTEMPT_MAX_MOVES = 40


class StyleError(ValueError):
    """A style value the engine cannot use; the message names it."""


@dataclass(frozen=True)
class Style:
    """Percent scales by option name, and the contempt in centipawns."""

    scales: tuple[tuple[str, int], ...] = ()
    contempt: int = 0

    @property
    def is_neutral(self) -> bool:
        return all(v == 100 for _, v in self.scales)

    @property
    def is_sided(self) -> bool:
        """Whether its evaluation depends on which colour the engine plays (king attack or safety set)."""
        return any(v != 100 for name, v in self.scales if name in SIDE_OPTIONS)


def supported_options() -> frozenset[str]:
    """The scale options this build's evaluation applies at run time (all of them once the
    evaluation's weights are a runtime array with ``scaled_tables``; only material before)."""
    from engine import evaluate

    if getattr(evaluate, "scaled_tables", None) is None:
        return frozenset({"Style Material"})
    return frozenset(SCALE_OPTIONS)


def tropism(attack: int) -> int:
    """The middlegame bonus (centipawns) for each own knight, bishop, rook or queen within two
    squares of the enemy king, at ``Style KingAttack`` = ``attack``: an attacker brings its pieces
    close, not only its long-range attacks (Rodent's king tropism), and a style that cares little
    for the attack keeps them home. 1 cp per 3% away from 100% (0 at 100%, +66 at 300%, -20 at 40%)."""
    return (attack - 100) // 3 if attack >= 100 else -((100 - attack) // 3)


def is_near_enemy_king(board: chess.Board, move: chess.Move) -> bool:
    """Whether ``move`` brings a piece (not the king) within two squares of the enemy king: what a
    style's king attack favours (``pick_weight``) and what the characters' bench counts."""
    king = board.king(not board.turn)
    piece = board.piece_type_at(move.from_square)
    return king is not None and piece not in (None, chess.KING) and chess.square_distance(move.to_square, king) <= 2


def pick_weight(style: Style) -> Callable[[chess.Board, chess.Move], float] | None:
    """The factor ``style`` puts on a move's chance in a weakened engine's random pick among its
    near-best moves (``Searcher.pick_weight``), so that a character below full strength errs in
    character: a move bringing a piece (not the king) within two squares of the enemy king is
    ``Style KingAttack``/100 times as likely as at 100% (an attacker at 340% 3.4 times, a defender
    at 40% 0.4 times; never below 0.1), every other move as likely. Measured, the king attack in
    the evaluation alone is drowned there by the pick's randomness (docs/learning.md). None when
    the style changes nothing."""
    attack = dict(style.scales).get("Style KingAttack", 100)
    if attack == 100:
        return None
    factor = max(attack, 10) / 100

    def weight(board: chess.Board, move: chess.Move) -> float:
        return factor if is_near_enemy_king(board, move) else 1.0

    return weight


@functools.lru_cache(maxsize=16)
def style_tables(style: Style, side: int = 0) -> np.ndarray:
    """The evaluation array the kernel reads for ``style``'s weights, when the engine plays
    ``side`` (0 White, 1 Black; it matters only for a sided style)."""
    from engine import evaluate

    scales = dict(style.scales)
    scaled = getattr(evaluate, "scaled_tables", None)
    if scaled is not None:
        groups = {group: pct / 100 for name, pct in scales.items() for group in SCALE_OPTIONS[name]}
        ev = np.asarray(scaled(groups))
        if not style.is_sided:
            return ev
        attack, safety = scales.get("Style KingAttack", 100), scales.get("Style KingSafety", 100)
        danger = (safety, attack) if side == 0 else (attack, safety)
        shield = (safety, 100) if side == 0 else (100, safety)
        near = tropism(attack)
        trop = (near, 0) if side == 0 else (0, near)
        return np.asarray(evaluate.sided_tables(ev, danger=danger, shield=shield, tropism=trop))
    # Before the evaluation's weights were a runtime array: piece values sit inside the square tables.
    ev = np.array(evaluate.eval_tables(), dtype=np.int64)
    material = scales.get("Style Material", 100)
    if material != 100:
        for colour in range(2):
            for ptype in range(5):
                for base, values in ((evaluate.PST_MG, evaluate.VALUE_MG), (evaluate.PST_EG, evaluate.VALUE_EG)):
                    start = base + (colour * 6 + ptype) * 64
                    ev[start:start + 64] += values[ptype] * (material - 100) // 100
    ev.flags.writeable = False
    return ev


def is_drawing(board: chess.Board, move: chess.Move) -> bool:
    """Whether ``move`` ends the game drawn or lets it be claimed drawn (repetition, fifty moves)."""
    board.push(move)
    try:
        return (board.is_stalemate() or board.is_insufficient_material() or board.is_repetition(3)
                or board.halfmove_clock >= 100)
    finally:
        board.pop()


def contempt_choice(board: chess.Board, best: chess.Move, score: int | None, contempt: int,
                    child_score: Callable[[chess.Board], int | None]) -> chess.Move:
    """The move to play once contempt has its say over ``best`` (scored ``score`` centipawns).

    Contempt is how much worse than a draw the engine rates a draw. Above 0, a drawing ``best``
    is replaced by the best other move when that scores at least ``-contempt`` (each searched
    by ``child_score``, which returns the score for the side to move after the move); below 0, a
    drawing move is taken instead of ``best`` while ``best`` scores less than ``-contempt``.
    """
    if contempt == 0 or score is None:
        return best
    if contempt > 0 and is_drawing(board, best):
        others = [m for m in board.legal_moves if m != best and not is_drawing(board, m)]
        if not others or len(others) > CONTEMPT_MAX_MOVES:
            return best
        scored: list[tuple[int, chess.Move]] = []
        for move in others:
            board.push(move)
            try:
                theirs = child_score(board)
            finally:
                board.pop()
            if theirs is not None:
                scored.append((-theirs, move))
        if scored:
            top, move = max(scored, key=lambda pair: pair[0])
            if top >= -contempt:
                return move
        return best
    if contempt < 0 and score < -contempt and not is_drawing(board, best):
        drawing = [m for m in board.legal_moves if is_drawing(board, m)]
        if drawing:
            return drawing[0]
    return best


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
