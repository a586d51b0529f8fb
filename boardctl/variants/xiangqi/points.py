"""The xiangqi board's vocabulary: points, pieces and moves, and the tables built from them once at
import (where each piece may go from each point, where it may stand, the Zobrist keys).

Points are ``a0``..``i9`` (files a-i from Red's left, ranks 0-9 from Red's side); a point is
the int ``rank * 9 + file``, as in :data:`boardctl.core.geometry.XIANGQI_9X10`. Red is
``True`` (it moves first), Black ``False``. Every part of the board (:mod:`.movegen`, :mod:`.fen`,
:mod:`.endings`, :mod:`.board`) reads these; none of them holds state.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from boardctl.core.geometry import XIANGQI_9X10, Square
from boardctl.core.rules import Color, Move
from boardctl.errors import BoardctlError

FILES = 9
RANKS = 10
POINTS = FILES * RANKS
ALL = (1 << POINTS) - 1
NAMES = XIANGQI_9X10.names

RED: Color = True
BLACK: Color = False

#: Piece types, numbered like python-chess's (1..7); a point holds ``type`` for Red and
#: ``type | 8`` for Black (0 = empty).
KING, ADVISOR, ELEPHANT, HORSE, ROOK, CANNON, PAWN = 1, 2, 3, 4, 5, 6, 7
PIECE_TYPES = (KING, ADVISOR, ELEPHANT, HORSE, ROOK, CANNON, PAWN)
PIECE_SYMBOLS = "?kabnrcp"  # by type; Red upper-case, as in the FEN
#: The pieces' English names (WXF's, with general, chariot and soldier as most books write).
PIECE_NAMES = ("", "general", "advisor", "elephant", "horse", "chariot", "cannon", "soldier")
BLACK_BIT = 8
#: How many of each piece a side may have.
MAX_COUNT = {KING: 1, ADVISOR: 2, ELEPHANT: 2, HORSE: 2, ROOK: 2, CANNON: 2, PAWN: 5}
#: FEN letters read (``h``/``e`` are common aliases of ``n``/``b``).
FEN_LETTERS = {
    "k": KING,
    "a": ADVISOR,
    "b": ELEPHANT,
    "e": ELEPHANT,
    "n": HORSE,
    "h": HORSE,
    "r": ROOK,
    "c": CANNON,
    "p": PAWN,
}


class IllegalMoveError(BoardctlError, ValueError):
    """A move that is malformed or not legal in the position; the message names which."""


def sq(file: int, rank: int) -> Square:
    """The point on ``file`` (0-8, a-i) and ``rank`` (0-9)."""
    return rank * FILES + file


def _on(file: int, rank: int) -> bool:
    return 0 <= file < FILES and 0 <= rank < RANKS


def _own_half(color: Color, rank: int) -> bool:
    return rank <= 4 if color else rank >= 5


def _in_palace(color: Color, file: int, rank: int) -> bool:
    return 3 <= file <= 5 and (rank <= 2 if color else rank >= 7)


@dataclass(frozen=True, slots=True)
class Piece:
    """A piece type and its colour; ``symbol()`` is its FEN letter (Red upper-case)."""

    piece_type: int
    color: Color

    def symbol(self) -> str:
        s = PIECE_SYMBOLS[self.piece_type]
        return s.upper() if self.color else s

    @classmethod
    def from_symbol(cls, symbol: str) -> Piece:
        try:
            kind = FEN_LETTERS[symbol.lower()]
        except KeyError:
            raise ValueError(f"not a xiangqi piece letter: {symbol!r:.20}") from None
        return cls(kind, symbol.isupper())

    def __str__(self) -> str:
        return self.symbol()


@dataclass(frozen=True, slots=True)
class XiangqiMove:
    """A move from one point to another; ``uci()`` is the engine's coordinates (``h2e2``)."""

    from_square: Square
    to_square: Square

    def uci(self) -> str:
        return NAMES[self.from_square] + NAMES[self.to_square]

    def __str__(self) -> str:
        return self.uci()

    def __bool__(self) -> bool:
        return True

    @property
    def promotion(self) -> int | None:
        """Always None: xiangqi has no promotion (kept for code written for python-chess)."""
        return None

    @classmethod
    def from_uci(cls, uci: str) -> XiangqiMove:
        """``h2e2`` -> the move; ValueError (IllegalMoveError) says what is malformed."""
        if not isinstance(uci, str) or len(uci) != 4:
            raise IllegalMoveError(
                f"a xiangqi move is two points like h2e2 (files a-i, ranks 0-9), got {uci!r:.40}"
            )
        a, b = uci[:2], uci[2:]
        for part in (a, b):
            if part not in _INDEX:
                raise IllegalMoveError(
                    f"bad point {part!r} in move {uci!r}: points are a0..i9 (files a-i, ranks 0-9)"
                )
        if a == b:
            raise IllegalMoveError(f"move {uci!r} goes nowhere")
        return MOVES[_INDEX[a] * POINTS + _INDEX[b]]


def own_move(move: Move) -> XiangqiMove:
    """Any move object (``from_square``/``to_square``) as this module's :class:`XiangqiMove`."""
    if type(move) is XiangqiMove:
        return move
    f, t = move.from_square, move.to_square
    if not (isinstance(f, int) and isinstance(t, int) and 0 <= f < POINTS and 0 <= t < POINTS):
        raise IllegalMoveError(f"not a move on the xiangqi board: {move!r:.60}")
    return MOVES[f * POINTS + t]


_INDEX = {name: i for i, name in enumerate(NAMES)}
#: Every (from, to) pair's move, so generating moves creates no objects.
MOVES: tuple[XiangqiMove, ...] = tuple(
    XiangqiMove(f, t) for f in range(POINTS) for t in range(POINTS)
)


# ---- tables --------------------------------------------------------------------------------

_ORTHO = ((0, 1), (0, -1), (1, 0), (-1, 0))


def _rays() -> tuple[tuple[tuple[Square, ...], ...], ...]:
    out = []
    for s in range(POINTS):
        f, r = s % FILES, s // FILES
        rays = []
        for df, dr in _ORTHO:
            ray = []
            nf, nr = f + df, r + dr
            while _on(nf, nr):
                ray.append(sq(nf, nr))
                nf, nr = nf + df, nr + dr
            rays.append(tuple(ray))
        out.append(tuple(rays))
    return tuple(out)


def _horse_moves() -> tuple[tuple[tuple[Square, Square], ...], ...]:
    """Per point: (leg, destination) for each horse move."""
    out = []
    for s in range(POINTS):
        f, r = s % FILES, s // FILES
        moves = []
        for df, dr in _ORTHO:
            lf, lr = f + df, r + dr
            if not _on(lf, lr):
                continue
            for side in (-1, 1):
                tf, tr = lf + df + (side if df == 0 else 0), lr + dr + (side if dr == 0 else 0)
                if _on(tf, tr):
                    moves.append((sq(lf, lr), sq(tf, tr)))
        out.append(tuple(moves))
    return tuple(out)


def _per_color(
    build: Callable[[Color, Square], Iterable[Square]],
) -> tuple[tuple[tuple[Square, ...], ...], tuple[tuple[Square, ...], ...]]:
    return (
        tuple(tuple(build(BLACK, s)) for s in range(POINTS)),
        tuple(tuple(build(RED, s)) for s in range(POINTS)),
    )


def _king_targets(color: Color, s: Square) -> Iterator[Square]:
    f, r = s % FILES, s // FILES
    for df, dr in _ORTHO:
        if _on(f + df, r + dr) and _in_palace(color, f + df, r + dr):
            yield sq(f + df, r + dr)


def _advisor_targets(color: Color, s: Square) -> Iterator[Square]:
    f, r = s % FILES, s // FILES
    for df in (-1, 1):
        for dr in (-1, 1):
            if _on(f + df, r + dr) and _in_palace(color, f + df, r + dr):
                yield sq(f + df, r + dr)


def _pawn_targets(color: Color, s: Square) -> Iterator[Square]:
    f, r = s % FILES, s // FILES
    forward = 1 if color else -1
    if _on(f, r + forward):
        yield sq(f, r + forward)
    if not _own_half(color, r):
        for df in (-1, 1):
            if _on(f + df, r):
                yield sq(f + df, r)


def _elephant_moves(color: Color) -> tuple[tuple[tuple[Square, Square], ...], ...]:
    """Per point: (eye, destination) for each elephant move that stays on its own half."""
    out = []
    for s in range(POINTS):
        f, r = s % FILES, s // FILES
        moves = []
        for df in (-1, 1):
            for dr in (-1, 1):
                tf, tr = f + 2 * df, r + 2 * dr
                if _on(tf, tr) and _own_half(color, tr):
                    moves.append((sq(f + df, r + dr), sq(tf, tr)))
        out.append(tuple(moves))
    return tuple(out)


RAYS = _rays()
HORSE_MOVES = _horse_moves()
#: Per target point: (leg, horse point) for each horse that could jump onto it.
HORSE_ATTACKS: tuple[tuple[tuple[Square, Square], ...], ...] = tuple(
    tuple((leg, f) for f in range(POINTS) for leg, t in HORSE_MOVES[f] if t == s)
    for s in range(POINTS)
)
KING_MOVES = _per_color(_king_targets)
ADVISOR_MOVES = _per_color(_advisor_targets)
PAWN_MOVES = _per_color(_pawn_targets)
ELEPHANT_MOVES = (_elephant_moves(BLACK), _elephant_moves(RED))
#: ``PAWN_ATTACKS[color][s]``: the points from which a pawn of ``color`` attacks ``s``.
PAWN_ATTACKS = tuple(
    tuple(tuple(f for f in range(POINTS) if s in PAWN_MOVES[c][f]) for s in range(POINTS))
    for c in (0, 1)
)
#: The file and rank through each point (itself excluded) and its diagonal neighbours.
LINES = tuple(XIANGQI_9X10.mask(x for ray in RAYS[s] for x in ray) for s in range(POINTS))
DIAGONALS = tuple(
    XIANGQI_9X10.mask(
        sq(s % FILES + df, s // FILES + dr)
        for df in (-1, 1)
        for dr in (-1, 1)
        if _on(s % FILES + df, s // FILES + dr)
    )
    for s in range(POINTS)
)
#: Points each piece may legally stand on (a set-up FEN is checked against them).
PLACES: dict[tuple[int, Color], int] = {}
for _c in (BLACK, RED):
    _home = range(0, 5) if _c else range(5, 10)
    PLACES[(KING, _c)] = XIANGQI_9X10.mask(
        sq(f, r) for f in range(3, 6) for r in range(10) if _in_palace(_c, f, r)
    )
    PLACES[(ADVISOR, _c)] = XIANGQI_9X10.mask(
        sq(f, r)
        for f in range(3, 6)
        for r in range(10)
        if _in_palace(_c, f, r) and (f + r - (0 if _c else 7)) % 2 == 1
    )
    PLACES[(ELEPHANT, _c)] = XIANGQI_9X10.mask(
        sq(f, r)
        for f in range(0, 9, 2)
        for r in _home
        if (r - (0 if _c else 5)) in (0, 2, 4) and (f // 2 + (r - (0 if _c else 5)) // 2) % 2 == 1
    )
    _pawn_home = (3, 4) if _c else (5, 6)
    _enemy = range(5, 10) if _c else range(0, 5)
    PLACES[(PAWN, _c)] = XIANGQI_9X10.mask(
        [sq(f, r) for f in range(0, 9, 2) for r in _pawn_home]
        + [sq(f, r) for f in range(9) for r in _enemy]
    )
    for _t in (HORSE, ROOK, CANNON):
        PLACES[(_t, _c)] = ALL

#: Zobrist keys, ``ZOBRIST[piece code][point]``, and the one for Black to move (fixed seed: a
#: position's key is the same in every process).
_rng = random.Random(0x5851)
ZOBRIST = tuple(tuple(_rng.getrandbits(64) for _ in range(POINTS)) for _ in range(16))
ZOBRIST_BLACK = _rng.getrandbits(64)


def position_key(b: list[int], turn: Color) -> int:
    """The Zobrist key of the mailbox ``b`` with ``turn`` to move (what repetitions compare)."""
    key = 0 if turn else ZOBRIST_BLACK
    for s, p in enumerate(b):
        if p:
            key ^= ZOBRIST[p][s]
    return key
