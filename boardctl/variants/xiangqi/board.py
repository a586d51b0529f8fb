"""Xiangqi rules: a position with its move stack, shaped like python-chess's ``Board``.

Points are ``a0``..``i9`` (files a-i from Red's left, ranks 0-9 from Red's side); a point is
the int ``rank * 9 + file``, as in :data:`boardctl.core.geometry.XIANGQI_9X10`. Red is
``True`` (it moves first), Black ``False``. Moves are engine coordinates (``h2e2``).

The position is a mailbox of 90 small ints plus a bitboard per side; every piece's moves
come from tables built once at import, so generating the legal moves of one side (what the
tracker does on every settle, usually restricted by ``from_mask``/``to_mask``) costs tens of
microseconds. A move is legal when it leaves its own general neither attacked nor facing the
other general on an open file. A side with no legal move loses (checkmated or stalemated).

Game ends beyond that are ruled by ``rules``: the Chinese competition rules' 棋例
(:mod:`.chinese_rules`, the default) or the Asian rules as pyffish rules them (:mod:`.judge`);
either is consulted only when a position has recurred or the capture-free count nears the
move limit (``move_limit``, 60 moves a side by default).
``san`` writes WXF (``C2.5``); :mod:`.notation` also writes ICCS and Chinese.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Self

from boardctl.core.geometry import XIANGQI_9X10, Square, squares_of
from boardctl.core.rules import Color, Move, Notice, Outcome, PlainMoves
from boardctl.errors import BoardctlError, PositionError

if TYPE_CHECKING:
    from boardctl.variants.xiangqi.chinese_rules import CycleRuling

FILES = 9
RANKS = 10
POINTS = FILES * RANKS
ALL = (1 << POINTS) - 1
NAMES = XIANGQI_9X10.names

RED: Color = True
BLACK: Color = False

#: The rule sets that rule repetitions: the Chinese 棋例 (the default) and the Asian (pyffish).
RULES = ("chinese", "asian")

STARTING_FEN = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"

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
_FEN_LETTERS = {
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


def _sq(file: int, rank: int) -> Square:
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
            kind = _FEN_LETTERS[symbol.lower()]
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
                ray.append(_sq(nf, nr))
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
                    moves.append((_sq(lf, lr), _sq(tf, tr)))
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
            yield _sq(f + df, r + dr)


def _advisor_targets(color: Color, s: Square) -> Iterator[Square]:
    f, r = s % FILES, s // FILES
    for df in (-1, 1):
        for dr in (-1, 1):
            if _on(f + df, r + dr) and _in_palace(color, f + df, r + dr):
                yield _sq(f + df, r + dr)


def _pawn_targets(color: Color, s: Square) -> Iterator[Square]:
    f, r = s % FILES, s // FILES
    forward = 1 if color else -1
    if _on(f, r + forward):
        yield _sq(f, r + forward)
    if not _own_half(color, r):
        for df in (-1, 1):
            if _on(f + df, r):
                yield _sq(f + df, r)


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
                    moves.append((_sq(f + df, r + dr), _sq(tf, tr)))
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
        _sq(s % FILES + df, s // FILES + dr)
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
        _sq(f, r) for f in range(3, 6) for r in range(10) if _in_palace(_c, f, r)
    )
    PLACES[(ADVISOR, _c)] = XIANGQI_9X10.mask(
        _sq(f, r)
        for f in range(3, 6)
        for r in range(10)
        if _in_palace(_c, f, r) and (f + r - (0 if _c else 7)) % 2 == 1
    )
    PLACES[(ELEPHANT, _c)] = XIANGQI_9X10.mask(
        _sq(f, r)
        for f in range(0, 9, 2)
        for r in _home
        if (r - (0 if _c else 5)) in (0, 2, 4) and (f // 2 + (r - (0 if _c else 5)) // 2) % 2 == 1
    )
    _pawn_home = (3, 4) if _c else (5, 6)
    _enemy = range(5, 10) if _c else range(0, 5)
    PLACES[(PAWN, _c)] = XIANGQI_9X10.mask(
        [_sq(f, r) for f in range(0, 9, 2) for r in _pawn_home]
        + [_sq(f, r) for f in range(9) for r in _enemy]
    )
    for _t in (HORSE, ROOK, CANNON):
        PLACES[(_t, _c)] = ALL

_rng = random.Random(0x5851)
_ZOBRIST = tuple(tuple(_rng.getrandbits(64) for _ in range(POINTS)) for _ in range(16))
_ZOBRIST_BLACK = _rng.getrandbits(64)


# ---- the board -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Undo:
    move: XiangqiMove
    captured: int
    halfmove_clock: int
    key: int


class LegalMoveGenerator:
    """``board.legal_moves``: iterable, sized, and answers ``move in`` (as python-chess's)."""

    __slots__ = ("_board",)

    def __init__(self, board: XiangqiBoard) -> None:
        self._board = board

    def __iter__(self) -> Iterator[XiangqiMove]:
        return self._board.generate_legal_moves()

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def count(self) -> int:
        return len(self)

    def __bool__(self) -> bool:
        return any(True for _ in self)

    def __contains__(self, move: object) -> bool:
        return isinstance(move, XiangqiMove) and self._board.is_legal(move)

    def __repr__(self) -> str:
        return f"<LegalMoveGenerator ({', '.join(m.uci() for m in self)})>"


class XiangqiBoard(PlainMoves):
    """A xiangqi position and the moves that led to it (implements ``core.rules.GameBoard``).

    Every xiangqi move is one piece from one point to another, so the tracker's hooks for
    castling, en passant and promotion are :class:`~boardctl.core.rules.PlainMoves`' answers.
    """

    geometry = XIANGQI_9X10
    uci_variant = "xiangqi"
    starting_fen = STARTING_FEN

    def __init__(
        self, fen: str | None = STARTING_FEN, *, rules: str = "chinese", move_limit: int = 60
    ) -> None:
        if rules not in RULES:
            raise ValueError(f"xiangqi rules are {' or '.join(RULES)}, got {rules!r:.20}")
        if not 1 <= move_limit <= 60:
            raise ValueError(f"the xiangqi move limit is 1 to 60 moves a side, got {move_limit!r:.20}")
        #: ``chinese`` (the 棋例, :mod:`.chinese_rules`) or ``asian`` (pyffish, :mod:`.judge`).
        self.rules = rules
        #: Moves by each side without a capture that draw (自然限着, at most 60).
        self.move_limit = move_limit
        self._b: list[int] = [0] * POINTS
        #: ``occupied_co[BLACK]``, ``occupied_co[RED]`` as in python-chess.
        self.occupied_co: list[int] = [0, 0]
        self._kings: list[Square] = [-1, -1]
        self.turn: Color = RED
        self.halfmove_clock = 0
        self.fullmove_number = 1
        self.move_stack: list[XiangqiMove] = []
        self._undo: list[_Undo] = []
        self._key = 0
        self._keys: list[int] = []  # the key of every earlier position of the stack
        self._root_fen = ""
        if fen is None:
            self._root_fen = self.fen()
        else:
            self.set_fen(fen)

    # ---- set-up and FEN ------------------------------------------------------------------

    def clear(self) -> None:
        """Remove every piece, Red to move, and forget the moves."""
        self._b = [0] * POINTS
        self.occupied_co = [0, 0]
        self._kings = [-1, -1]
        self.turn = RED
        self.halfmove_clock, self.fullmove_number = 0, 1
        self.clear_stack()

    def clear_stack(self) -> None:
        self.move_stack = []
        self._undo = []
        self._keys = []
        self._key = self._compute_key()
        self._root_fen = self.fen()

    def set_fen(self, fen: str) -> None:
        """Set the position from a xiangqi FEN (``w`` or ``r`` for Red to move, ``b`` for Black).

        Raises :class:`PositionError` (a ValueError) naming what is wrong: the field, the rank,
        the piece and point that cannot be there, or a side not to move left in check.
        """
        if not isinstance(fen, str):
            raise PositionError(f"a xiangqi FEN is text, got {type(fen).__name__}")
        fields = fen.split()
        shown = fen if len(fen) <= 100 else fen[:100] + "..."
        if not 1 <= len(fields) <= 6:
            raise PositionError(f"xiangqi FEN {shown!r}: expected 1 to 6 fields, got {len(fields)}")
        board = [0] * POINTS
        rows = fields[0].split("/")
        if len(rows) != RANKS:
            raise PositionError(
                f"xiangqi FEN {shown!r}: expected 10 ranks separated by '/', got {len(rows)}"
            )
        for i, row in enumerate(rows):
            rank = RANKS - 1 - i
            file = 0
            for ch in row:
                if ch in "123456789":
                    file += int(ch)
                    continue
                kind = _FEN_LETTERS.get(ch.lower())
                if kind is None or not ch.isascii():
                    raise PositionError(
                        f"xiangqi FEN {shown!r}: {ch!r} in rank {rank} is not a piece letter (KABNRCP, lower-case for Black)"
                    )
                if file >= FILES:
                    raise PositionError(
                        f"xiangqi FEN {shown!r}: rank {rank} ({row!r}) has more than 9 points"
                    )
                board[_sq(file, rank)] = kind if ch.isupper() else kind | BLACK_BIT
                file += 1
            if file != FILES:
                raise PositionError(
                    f"xiangqi FEN {shown!r}: rank {rank} ({row!r}) has {file} points, not 9"
                )
        turn = RED
        if len(fields) > 1:
            side = fields[1]
            if side not in ("w", "r", "b"):
                raise PositionError(
                    f"xiangqi FEN {shown!r}: side to move is 'w' (or 'r') for Red or 'b' for Black, got {side!r:.20}"
                )
            turn = side != "b"
        for i, name in ((2, "castling"), (3, "en passant")):
            if len(fields) > i and fields[i] != "-":
                raise PositionError(
                    f"xiangqi FEN {shown!r}: the {name} field must be '-', got {fields[i]!r:.20}"
                )
        numbers = [0, 1]
        for i, name in ((4, "halfmove clock"), (5, "move number")):
            if len(fields) > i:
                text = fields[i]
                if not text.isdigit() or not text.isascii() or len(text) > 6:
                    raise PositionError(
                        f"xiangqi FEN {shown!r}: the {name} must be a number, got {text!r:.20}"
                    )
                numbers[i - 4] = int(text)
        if numbers[1] < 1:
            numbers[1] = 1
        self._check_placement(board, shown)
        self._b = board
        self.occupied_co = [0, 0]
        self._kings = [-1, -1]
        for s, p in enumerate(board):
            if p:
                red = p < BLACK_BIT
                self.occupied_co[red] |= 1 << s
                if p & 7 == KING:
                    self._kings[red] = s
        self.turn = turn
        self.halfmove_clock, self.fullmove_number = numbers
        if self._attacked(self._kings[not turn], turn):
            side = "Black" if turn else "Red"
            raise PositionError(
                f"xiangqi FEN {shown!r}: {side} is not to move but is in check (or the generals face each other)"
            )
        self.clear_stack()

    @staticmethod
    def _check_placement(board: list[int], shown: str) -> None:
        counts: dict[int, int] = {}
        for s, p in enumerate(board):
            if not p:
                continue
            kind, red = p & 7, p < BLACK_BIT
            counts[p] = counts.get(p, 0) + 1
            if not PLACES[(kind, red)] >> s & 1:
                side = "Red" if red else "Black"
                raise PositionError(
                    f"xiangqi FEN {shown!r}: a {side} {PIECE_NAMES[kind]} cannot stand on {NAMES[s]}"
                )
        for red in (True, False):
            side = "Red" if red else "Black"
            for kind in PIECE_TYPES:
                n = counts.get(kind if red else kind | BLACK_BIT, 0)
                if n > MAX_COUNT[kind]:
                    raise PositionError(
                        f"xiangqi FEN {shown!r}: {side} has {n} {PIECE_NAMES[kind]}s, at most {MAX_COUNT[kind]}"
                    )
            if counts.get(KING if red else KING | BLACK_BIT, 0) != 1:
                raise PositionError(f"xiangqi FEN {shown!r}: {side} has no general")

    def board_fen(self) -> str:
        rows = []
        for rank in range(RANKS - 1, -1, -1):
            row, empty = "", 0
            for file in range(FILES):
                p = self._b[_sq(file, rank)]
                if not p:
                    empty += 1
                    continue
                if empty:
                    row += str(empty)
                    empty = 0
                s = PIECE_SYMBOLS[p & 7]
                row += s.upper() if p < BLACK_BIT else s
            rows.append(row + (str(empty) if empty else ""))
        return "/".join(rows)

    def fen(self) -> str:
        """The standard xiangqi FEN, ``w`` for Red to move (as Fairy-Stockfish and Pikafish)."""
        side = "w" if self.turn else "b"
        return f"{self.board_fen()} {side} - - {self.halfmove_clock} {self.fullmove_number}"

    def epd(self) -> str:
        return f"{self.board_fen()} {'w' if self.turn else 'b'} - -"

    def _compute_key(self) -> int:
        key = 0 if self.turn else _ZOBRIST_BLACK
        for s, p in enumerate(self._b):
            if p:
                key ^= _ZOBRIST[p][s]
        return key

    def copy(self, *, stack: bool = True) -> Self:
        """A copy; with ``stack=False`` its move stack starts empty at this position."""
        other = type(self).__new__(type(self))
        other._b = self._b.copy()
        other.occupied_co = self.occupied_co.copy()
        other._kings = self._kings.copy()
        other.turn = self.turn
        other.rules, other.move_limit = self.rules, self.move_limit
        other.halfmove_clock = self.halfmove_clock
        other.fullmove_number = self.fullmove_number
        other._key = self._key
        if stack:
            other.move_stack = self.move_stack.copy()
            other._undo = self._undo.copy()
            other._keys = self._keys.copy()
            other._root_fen = self._root_fen
        else:
            other.move_stack, other._undo, other._keys = [], [], []
            other._root_fen = self.fen()
        return other

    def __copy__(self) -> Self:
        return self.copy()

    def root(self) -> Self:
        """The position before the first move of the stack (its stack empty)."""
        return type(self)(self._root_fen, rules=self.rules, move_limit=self.move_limit)

    def root_fen(self) -> str:
        return self._root_fen

    def ply(self) -> int:
        """Plies played since the start of the game (from the FEN's move number)."""
        return 2 * (self.fullmove_number - 1) + (not self.turn)

    # ---- pieces ------------------------------------------------------------------------

    @property
    def occupied(self) -> int:
        return self.occupied_co[0] | self.occupied_co[1]

    def occupied_by(self, color: Color) -> int:
        return self.occupied_co[color]

    def piece_at(self, square: Square) -> Piece | None:
        p = self._b[square]
        return Piece(p & 7, p < BLACK_BIT) if p else None

    def piece_name(self, square: Square) -> str | None:
        """``general``, ``advisor``, ``elephant``, ``horse``, ``chariot``, ``cannon``, ``soldier``."""
        p = self._b[square]
        return PIECE_NAMES[p & 7] if p else None

    def piece_type_at(self, square: Square) -> int | None:
        p = self._b[square]
        return p & 7 if p else None

    def color_at(self, square: Square) -> Color | None:
        p = self._b[square]
        return p < BLACK_BIT if p else None

    def piece_map(self) -> dict[Square, Piece]:
        return {s: Piece(p & 7, p < BLACK_BIT) for s, p in enumerate(self._b) if p}

    def pieces_mask(self, piece_type: int, color: Color) -> int:
        code = piece_type if color else piece_type | BLACK_BIT
        return XIANGQI_9X10.mask(s for s, p in enumerate(self._b) if p == code)

    def king(self, color: Color) -> Square | None:
        s = self._kings[color]
        return s if s >= 0 else None

    @property
    def kings(self) -> int:
        return sum(1 << s for s in self._kings if s >= 0)

    # ---- attacks -----------------------------------------------------------------------

    def _attacked(self, square: Square, by: Color) -> bool:
        """Whether ``by`` attacks ``square`` as a general's point: rook, cannon, horse, pawn, or
        the other general on an open file (advisors and elephants never reach a palace of the
        other side)."""
        if square < 0:
            return False
        b = self._b
        off = 0 if by else BLACK_BIT
        rook, cannon, king = ROOK | off, CANNON | off, KING | off
        for ray in RAYS[square]:
            screened = False
            for s in ray:
                p = b[s]
                if p:
                    if screened:
                        if p == cannon:
                            return True
                        break
                    if p in (rook, king):
                        return True
                    screened = True
        horse = HORSE | off
        for leg, f in HORSE_ATTACKS[square]:
            if b[f] == horse and not b[leg]:
                return True
        pawn = PAWN | off
        for f in PAWN_ATTACKS[by][square]:  # noqa: SIM110 (a plain loop: the hottest path)
            if b[f] == pawn:
                return True
        return False

    def is_check(self) -> bool:
        return self._attacked(self._kings[self.turn], not self.turn)

    def gives_check(self, move: Move) -> bool:
        self.push(move)
        try:
            return self.is_check()
        finally:
            self.pop()

    def attacks_mask(self, square: Square) -> int:
        """The points the piece on ``square`` attacks (moves to, own pieces included)."""
        p = self._b[square]
        if not p:
            return 0
        return XIANGQI_9X10.mask(self._targets(square, p, include_own=True))

    def attackers_mask(self, color: Color, square: Square) -> int:
        """The pieces of ``color`` that attack ``square`` (whatever stands there)."""
        out = 0
        for s in squares_of(self.occupied_co[color]):
            if square in self._targets(s, self._b[s], include_own=True):
                out |= 1 << s
        return out

    def is_attacked_by(self, color: Color, square: Square) -> bool:
        return bool(self.attackers_mask(color, square))

    def checkers_mask(self) -> int:
        k = self._kings[self.turn]
        return self.attackers_mask(not self.turn, k) if k >= 0 else 0

    # ---- move generation ---------------------------------------------------------------

    def _targets(self, s: Square, p: int, *, include_own: bool = False) -> list[Square]:
        """Pseudo-legal destinations of the piece ``p`` on ``s`` (own pieces excluded unless
        ``include_own``)."""
        b = self._b
        red = p < BLACK_BIT
        kind = p & 7
        own = -1 if include_own else (self.occupied_co[red])
        out: list[Square] = []
        if kind == ROOK:
            for ray in RAYS[s]:
                for t in ray:
                    if b[t]:
                        if include_own or (b[t] < BLACK_BIT) != red:
                            out.append(t)
                        break
                    out.append(t)
        elif kind == CANNON:
            for ray in RAYS[s]:
                screened = False
                for t in ray:
                    if not screened:
                        if b[t]:
                            screened = True
                        else:
                            out.append(t)
                    elif b[t]:
                        if include_own or (b[t] < BLACK_BIT) != red:
                            out.append(t)
                        break
        elif kind == HORSE:
            for leg, t in HORSE_MOVES[s]:
                if not b[leg]:
                    out.append(t)
        elif kind == PAWN:
            out.extend(PAWN_MOVES[red][s])
        elif kind == ELEPHANT:
            for eye, t in ELEPHANT_MOVES[red][s]:
                if not b[eye]:
                    out.append(t)
        elif kind == ADVISOR:
            out.extend(ADVISOR_MOVES[red][s])
        else:
            out.extend(KING_MOVES[red][s])
        if include_own or kind in (ROOK, CANNON):
            return out
        return [t for t in out if not own >> t & 1]

    def generate_pseudo_legal_moves(
        self, from_mask: int = ALL, to_mask: int = ALL
    ) -> Iterator[XiangqiMove]:
        b = self._b
        for f in squares_of(self.occupied_co[self.turn] & from_mask):
            base = f * POINTS
            for t in self._targets(f, b[f]):
                if to_mask >> t & 1:
                    yield MOVES[base + t]

    def _leaves_king_safe(self, f: Square, t: Square) -> bool:
        b = self._b
        p, captured = b[f], b[t]
        red = self.turn
        b[t], b[f] = p, 0
        king = t if p & 7 == KING else self._kings[red]
        safe = not self._attacked(king, not red)
        b[f], b[t] = p, captured
        return safe

    def generate_legal_moves(
        self, from_mask: int = ALL, to_mask: int = ALL
    ) -> Iterator[XiangqiMove]:
        """The legal moves of the side to move from points of ``from_mask`` to points of
        ``to_mask`` (both bitboards, bit ``rank * 9 + file``).

        A move is tried on the board only if it could expose the general: when the general
        is in check or moves, when the piece leaves the general's file or rank or a point
        diagonally next to it (a horse's leg), or lands on its file or rank (a cannon screen).
        """
        b = self._b
        safe = self._leaves_king_safe
        king = self._kings[self.turn]
        if king < 0 or self._attacked(king, not self.turn):
            risky_from = risky_to = ALL
        else:
            risky_from, risky_to = LINES[king] | DIAGONALS[king], LINES[king]
        for f in squares_of(self.occupied_co[self.turn] & from_mask):
            base = f * POINTS
            p = b[f]
            test_all = p & 7 == KING or risky_from >> f & 1
            for t in self._targets(f, p):
                if to_mask >> t & 1 and (not (test_all or risky_to >> t & 1) or safe(f, t)):
                    yield MOVES[base + t]

    def generate_legal_captures(
        self, from_mask: int = ALL, to_mask: int = ALL
    ) -> Iterator[XiangqiMove]:
        return self.generate_legal_moves(from_mask, to_mask & self.occupied_co[not self.turn])

    @property
    def legal_moves(self) -> LegalMoveGenerator:
        return LegalMoveGenerator(self)

    def is_pseudo_legal(self, move: Move) -> bool:
        f, t = move.from_square, move.to_square
        if not (0 <= f < POINTS and 0 <= t < POINTS):
            return False
        p = self._b[f]
        if not p or (p < BLACK_BIT) != self.turn:
            return False
        return t in self._targets(f, p)

    def is_legal(self, move: Move) -> bool:
        return self.is_pseudo_legal(move) and self._leaves_king_safe(
            move.from_square, move.to_square
        )

    def is_capture(self, move: Move) -> bool:
        return bool(self._b[move.to_square])

    def is_zeroing(self, move: Move) -> bool:
        """A capture resets the 60-move count."""
        return self.is_capture(move)

    def has_legal_moves(self) -> bool:
        return any(True for _ in self.generate_legal_moves())

    # ---- the stack ---------------------------------------------------------------------

    def push(self, move: Move) -> None:
        """Play ``move`` (not checked for legality, as python-chess's push)."""
        b = self._b
        move = own_move(move)
        f, t = move.from_square, move.to_square
        p, captured = b[f], b[t]
        if not p:
            raise IllegalMoveError(f"no piece on {NAMES[f]} to play {move.uci()} in {self.fen()}")
        self._undo.append(_Undo(move, captured, self.halfmove_clock, self._key))
        self._keys.append(self._key)
        self.move_stack.append(move)
        red = p < BLACK_BIT
        occ = self.occupied_co
        occ[red] ^= (1 << f) | (1 << t)
        key = self._key ^ _ZOBRIST[p][f] ^ _ZOBRIST[p][t] ^ _ZOBRIST_BLACK
        if captured:
            occ[captured < BLACK_BIT] ^= 1 << t
            key ^= _ZOBRIST[captured][t]
            if captured & 7 == KING:
                self._kings[captured < BLACK_BIT] = -1
            self.halfmove_clock = 0
        else:
            self.halfmove_clock += 1
        if p & 7 == KING:
            self._kings[red] = t
        b[t], b[f] = p, 0
        self._key = key
        if not self.turn:
            self.fullmove_number += 1
        self.turn = not self.turn

    def pop(self) -> XiangqiMove:
        """Take back the last move; IndexError if there is none."""
        undo = self._undo.pop()
        self.move_stack.pop()
        self._keys.pop()
        move = undo.move
        f, t = move.from_square, move.to_square
        b = self._b
        p = b[t]
        red = p < BLACK_BIT
        self.occupied_co[red] ^= (1 << f) | (1 << t)
        b[f], b[t] = p, undo.captured
        if undo.captured:
            self.occupied_co[undo.captured < BLACK_BIT] |= 1 << t
            if undo.captured & 7 == KING:
                self._kings[undo.captured < BLACK_BIT] = t
        if p & 7 == KING:
            self._kings[red] = f
        self.turn = not self.turn
        if not self.turn:
            self.fullmove_number -= 1
        self.halfmove_clock = undo.halfmove_clock
        self._key = undo.key
        return move

    def peek(self) -> XiangqiMove:
        """The last move played; IndexError if there is none."""
        return self.move_stack[-1]

    def parse_uci(self, uci: str) -> XiangqiMove:
        """The legal move ``uci`` (``h2e2``); IllegalMoveError (a ValueError) says why not."""
        move = XiangqiMove.from_uci(uci)
        if not self.is_legal(move):
            p = self._b[move.from_square]
            if not p:
                why = f"no piece on {NAMES[move.from_square]}"
            elif (p < BLACK_BIT) != self.turn:
                why = f"the piece on {NAMES[move.from_square]} is not {'Red' if self.turn else 'Black'}'s"
            elif not self.is_pseudo_legal(move):
                why = f"a {PIECE_NAMES[p & 7]} cannot go from {NAMES[move.from_square]} to {NAMES[move.to_square]}"
            else:
                why = "it would leave the general in check or facing the other general"
            raise IllegalMoveError(f"illegal move {uci} in {self.fen()}: {why}")
        return move

    def push_uci(self, uci: str) -> XiangqiMove:
        move = self.parse_uci(uci)
        self.push(move)
        return move

    # ---- notation ----------------------------------------------------------------------

    def san(self, move: Move) -> str:
        """WXF notation (``C2.5``), the usual short form in Western xiangqi books."""
        from boardctl.variants.xiangqi.notation import wxf

        return wxf(self, own_move(move))

    def parse_san(self, text: str) -> XiangqiMove:
        """A legal move written in WXF, ICCS (``H2-E2``), Chinese (``炮二平五``) or coordinates."""
        from boardctl.variants.xiangqi.notation import parse_move

        return parse_move(self, text)

    def push_san(self, text: str) -> XiangqiMove:
        move = self.parse_san(text)
        self.push(move)
        return move

    def san_and_push(self, move: Move) -> str:
        text = self.san(move)
        self.push(move)
        return text

    def variation_san(self, moves: Iterable[Move]) -> str:
        """Moves from this position in WXF, numbered (``1. C2.5 H8+7``)."""
        board = self.copy(stack=False)
        out: list[str] = []
        for move in moves:
            if not board.is_legal(move):
                raise IllegalMoveError(f"illegal move {move.uci()} in variation from {self.fen()}")
            number = (
                f"{board.fullmove_number}. "
                if board.turn
                else (f"{board.fullmove_number}... " if not out else "")
            )
            out.append(number + board.san_and_push(move))
        return " ".join(out)

    # ---- game end ----------------------------------------------------------------------

    def is_valid(self) -> bool:
        """Whether the position would be accepted as a set-up (see :meth:`set_fen`)."""
        try:
            type(self)(self.fen())
        except PositionError:
            return False
        return True

    def is_checkmate(self) -> bool:
        return self.is_check() and not self.has_legal_moves()

    def is_stalemate(self) -> bool:
        """No legal move and not in check: in xiangqi that loses."""
        return not self.is_check() and not self.has_legal_moves()

    def is_repetition(self, count: int = 3) -> bool:
        """Whether the position has occurred ``count`` times (this time included)."""
        return self._keys.count(self._key) + 1 >= count

    def has_insufficient_material(self, color: Color) -> bool:
        """Whether ``color`` has nothing that can cross the river (only general, advisors and
        elephants), as pyffish's ``has_insufficient_material`` says for xiangqi."""
        off = 0 if color else BLACK_BIT
        return not any(
            p and (p < BLACK_BIT) == color and p - off in (HORSE, ROOK, CANNON, PAWN)
            for p in self._b
        )

    def needs_judge(self) -> bool:
        """Whether a repetition or the move limit could end the game now (the rulings, and
        pyffish under the Asian rules, are asked only then)."""
        return self.halfmove_clock >= min(100, 2 * self.move_limit) or self._key in self._keys

    def outcome(self, *, claim_draw: bool = False) -> Outcome | None:
        """How the game has ended, or None.

        ``checkmate``/``stalemate``: no legal move, the side to move loses (困毙 too).
        ``insufficient_material``: neither side has a piece that can cross the river.
        Then by :attr:`rules`: ``chinese`` (:meth:`_chinese_outcome`: a forbidden cycle that goes
        on after its warning loses, the move limit draws; a cycle of allowed moves is a draw
        only when claimed, ``claim_draw``) or ``asian`` (:meth:`_asian_outcome`, pyffish).
        """
        if not self.has_legal_moves():
            return Outcome("checkmate" if self.is_check() else "stalemate", not self.turn)
        if (
            self.occupied.bit_count() <= 10
            and self.has_insufficient_material(RED)
            and self.has_insufficient_material(BLACK)
        ):
            return Outcome("insufficient_material", None)
        if not self.needs_judge():
            return None
        if self.rules == "asian":
            return self._asian_outcome()
        return self._chinese_outcome(claim_draw=claim_draw)

    def _limit_reached(self) -> bool:
        return self.halfmove_clock >= 2 * self.move_limit

    def _limit_outcome(self) -> Outcome:
        from boardctl.variants.xiangqi.chinese_rules import Ruling

        n = self.move_limit
        return Ruling(
            "sixty_moves" if n == 60 else "move_limit", None,
            "自然限着作和" if n == 60 else f"{n}回合自然限着作和",
        )

    def earlier_occurrences(self) -> list[int]:
        """The plies (indexes into ``move_stack``) at which the current position stood before."""
        return [i for i, key in enumerate(self._keys) if key == self._key]

    def cycle_ruling(self, start: int, end: int | None = None) -> CycleRuling:
        """第26条 on the moves ``move_stack[start:end]`` (a cycle: the position at ``end``
        is the one at ``start``), by :mod:`.chinese_rules`."""
        from boardctl.variants.xiangqi.chinese_rules import rule_cycle

        end = len(self.move_stack) if end is None else end
        board = self.copy()
        while len(board.move_stack) > start:
            board.pop()
        return rule_cycle(board, [m.uci() for m in self.move_stack[start:end]])

    def _rulings(self) -> tuple[CycleRuling | None, CycleRuling | None]:
        """The rulings of the last cycle and the one before it (None where there is none)."""
        occ = self.earlier_occurrences()
        last = self.cycle_ruling(occ[-1]) if occ else None
        before = self.cycle_ruling(occ[-2], occ[-1]) if len(occ) >= 2 else None
        return last, before

    def _chinese_outcome(self, *, claim_draw: bool) -> Outcome | None:
        """The 棋例: the offender of a forbidden cycle loses when the position comes a third
        time and both cycles were its (it was warned at the second); allowed cycles and
        cycles forbidden to both sides draw only when claimed; the move limit draws."""
        from boardctl.variants.xiangqi.chinese_rules import Ruling

        last, before = self._rulings()
        if last is not None and before is not None:
            if last.loser is not None and before.loser == last.loser:
                verdict = last.verdict(last.loser)
                return Ruling(verdict.kind, not last.loser, f"{verdict.chinese}判负")
            if claim_draw and last.loser is None:
                return Ruling("repetition", None, "双方不变作和")
        if self._limit_reached():
            return self._limit_outcome()
        return None

    def _asian_outcome(self) -> Outcome | None:
        """The Asian rules as pyffish rules them (they apply by themselves)."""
        if self.move_limit < 60 and self._limit_reached():
            return self._limit_outcome()
        from boardctl.variants.xiangqi.judge import optional_end

        result = optional_end(self._root_fen, [m.uci() for m in self.move_stack])
        if result is None:
            return None
        repeated = self._key in self._keys
        if result == 0:
            return Outcome("repetition" if repeated else "sixty_moves", None)
        loser = self.turn if result < 0 else not self.turn
        if not repeated:
            return Outcome("sixty_moves", not loser)
        return Outcome(
            "perpetual_check" if self._checked_throughout(loser) else "perpetual_chase", not loser
        )

    def _checked_throughout(self, side: Color) -> bool:
        """Whether every move of ``side`` since the current position last occurred gave check."""
        start = len(self._keys) - 1 - self._keys[::-1].index(self._key)
        board = self.copy()
        for _ in range(len(self._keys) - start):
            if board.turn != side and not board.is_check():
                return False
            board.pop()
        return True

    def claimable_draw(self) -> str | None:
        """Under the Chinese rules, the draw of a cycle kept by both sides (不变作和): the
        position's third occurrence, no side having to vary. The Asian rules rule by themselves."""
        if self.rules != "chinese" or len(self.earlier_occurrences()) < 2:
            return None
        last, _ = self._rulings()
        return "repetition (双方不变作和)" if last is not None and last.loser is None else None

    def notice(self) -> Notice | None:
        """Under the Chinese rules, what a repetition calls for while the game goes on: the side
        that must vary (必须变着), or the draw either player may claim."""
        if self.rules != "chinese" or self._key not in self._keys:
            return None
        last, _ = self._rulings()
        if last is None:
            return None
        if last.loser is not None:
            name = "Red" if last.loser else "Black"
            verdict = last.verdict(last.loser)
            return Notice(
                f"{name} must vary (必须变着): {verdict.kind.replace('_', ' ')} ({verdict.chinese}) "
                f"loses if the cycle goes on",
                last.loser,
            )
        if len(self.earlier_occurrences()) >= 2:
            return Notice("draw by repetition: claim or agree it (双方不变作和), or vary to play on")
        return None

    def is_game_over(self, *, claim_draw: bool = False) -> bool:
        return self.outcome(claim_draw=claim_draw) is not None

    def result(self, *, claim_draw: bool = False) -> str:
        outcome = self.outcome(claim_draw=claim_draw)
        return outcome.result() if outcome else "*"

    # ---- display -----------------------------------------------------------------------

    def __str__(self) -> str:
        lines = []
        for rank in range(RANKS - 1, -1, -1):
            cells = []
            for file in range(FILES):
                p = self._b[_sq(file, rank)]
                s = PIECE_SYMBOLS[p & 7] if p else "."
                cells.append(s.upper() if p and p < BLACK_BIT else s)
            lines.append(" ".join(cells))
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.fen()!r})"

    def __eq__(self, other: object) -> bool:
        """Same position, side to move and counters (as python-chess, the stacks are ignored)."""
        return isinstance(other, XiangqiBoard) and self.fen() == other.fen()

    __hash__ = None  # type: ignore[assignment]


def perft(board: XiangqiBoard, depth: int) -> int:
    """Leaf count of the legal move tree (bulk-counted at the last ply)."""
    if depth <= 1:
        return sum(1 for _ in board.generate_legal_moves()) if depth == 1 else 1
    total = 0
    for move in list(board.generate_legal_moves()):
        board.push(move)
        total += perft(board, depth - 1)
        board.pop()
    return total


def from_moves(moves: Sequence[str], fen: str = STARTING_FEN, *, rules: str = "chinese") -> XiangqiBoard:
    """The board after playing the ``moves`` (coordinates) from ``fen`` under ``rules``;
    IllegalMoveError names the first that is not legal and its number."""
    board = XiangqiBoard(fen, rules=rules)
    for i, uci in enumerate(moves):
        try:
            board.push_uci(uci)
        except IllegalMoveError as exc:
            raise IllegalMoveError(f"move {i + 1}: {exc}") from None
    return board
