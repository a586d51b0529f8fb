"""Python side of xiangqi: FEN and coordinate moves in, kernel arrays out.

``XqBoard`` is the game as the UCI layer keeps it: the kernel arrays of the current
position plus the whole move history (keys, moves, checks), which the search needs for the
repetition rules. FEN is the standard xiangqi FEN (``w`` Red, ``b`` Black, ``r`` read
as Red); moves are UCCI coordinates, files a-i and ranks 0-9 from Red's side (``h2e2``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from engine.kernels import xq_gen_moves as gen_moves
from engine.kernels import xq_in_check_of as in_check_of
from engine.kernels import xq_make_move as make_move
from engine.kernels import xq_perft as perft_kernel
from engine.kernels import xq_unmake_move as unmake_move
from engine.xq_evaluate import fill_eval_tables, psq_total
from engine.xq_movegen import (
    ASIAN,
    CHINESE,
    HALF,
    HMAX,
    HP,
    KEY,
    KING,
    KSQ,
    MAXMOVES,
    MAXPLY,
    NSQ,
    NULLP,
    PIECE_CHARS,
    PL,
    PLY0,
    PSQ,
    RULES,
    SIDE,
    SLOT,
    ST_SIZE,
    U_CHECK,
    U_SIZE,
    Z_SIDE,
    Z,
    build_move_tables,
    in_palace,
)

START_FEN = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
_FEN_PIECES = {c: i for i, c in enumerate(PIECE_CHARS)} | {"E": 2, "H": 3}
_MAX_COUNT = (5, 2, 2, 2, 2, 2, 1)  # of each piece type per side
REBASE_AT = HMAX - 2 * MAXPLY - 16  # keep room on the history stack for a search


class XiangqiError(ValueError):
    """A FEN, move or position the xiangqi rules reject; the message names what and where."""


@functools.cache
def tables() -> np.ndarray:
    """The shared, read-only xiangqi kernel tables (built once per process; Asian rules)."""
    tb = build_move_tables()
    fill_eval_tables(tb)
    tb.flags.writeable = False
    return tb


#: The repetition rules by name (UCI ``XiangqiRules``) and their codes in the tables' ``RULES`` slot.
RULE_CODES = {"chinese": CHINESE, "asian": ASIAN}


def tables_with_rules(tb: np.ndarray, rules: str) -> np.ndarray:
    """A read-only copy of the kernel tables ``tb`` whose kernels rule repetitions by ``rules``
    (a searcher keeps its own copy: the kernels' signatures carry no rules argument)."""
    if rules not in RULE_CODES:
        raise XiangqiError(f"unknown xiangqi rules {rules!r}: want one of {', '.join(RULE_CODES)}")
    out = tb.copy()
    out[RULES] = RULE_CODES[rules]
    out.flags.writeable = False  # read-only, as the kernels (and the ahead-of-time build) take them
    return out


def square_name(sq: int) -> str:
    return "abcdefghi"[sq % 9] + str(sq // 9)


def move_name(m: int) -> str:
    return square_name(m & 127) + square_name((m >> 7) & 127)


def parse_square(text: str) -> int:
    if len(text) != 2 or text[0] not in "abcdefghi" or text[1] not in "0123456789":
        raise XiangqiError(f"bad square {text!r}: want a file a-i and a rank 0-9")
    return int(text[1]) * 9 + "abcdefghi".index(text[0])


def parse_move(text: str) -> int:
    """Coordinates ``h2e2`` -> kernel move (not checked for legality)."""
    if len(text) != 4:
        raise XiangqiError(f"bad move {text!r}: want four characters such as h2e2")
    return parse_square(text[:2]) | (parse_square(text[2:]) << 7)


def parse_fen(fen: str) -> tuple[list[int], int, int, int]:
    """(mailbox, side, halfmove clock, fullmove number) of a xiangqi FEN; raises XiangqiError."""
    fields = fen.split()
    if not fields:
        raise XiangqiError("empty FEN")
    rows = fields[0].split("/")
    if len(rows) != 10:
        raise XiangqiError(f"FEN {fen!r} has {len(rows)} ranks, want 10")
    mb = [-1] * NSQ
    for i, row in enumerate(rows):
        rank = 9 - i
        f = 0
        for ch in row:
            if ch.isdigit():
                f += int(ch)
            elif ch.upper() in _FEN_PIECES:
                if f >= 9:  # a tenth point: refused, never cut off (that would be another position)
                    raise XiangqiError(f"FEN {fen!r}: rank {rank} ({row!r}) has more than 9 files")
                colour = 0 if ch.isupper() else 1
                mb[rank * 9 + f] = colour * 7 + _FEN_PIECES[ch.upper()]
                f += 1
            else:
                raise XiangqiError(f"FEN {fen!r}: unknown piece {ch!r} on rank {rank}")
        if f != 9:
            raise XiangqiError(f"FEN {fen!r}: rank {rank} ({row!r}) does not have 9 files")
    side_field = fields[1] if len(fields) > 1 else "w"
    if side_field not in ("w", "r", "b"):
        raise XiangqiError(f"FEN {fen!r}: side to move must be w (or r) or b, got {side_field!r}")
    side = 1 if side_field == "b" else 0
    nums = [x for x in fields[2:] if x.isdigit()]
    half = int(nums[0]) if len(nums) >= 1 else 0
    full = int(nums[1]) if len(nums) >= 2 else 1
    for colour, name in ((0, "Red"), (1, "Black")):
        for t in range(7):
            count = sum(1 for p in mb if p == colour * 7 + t)
            if t == KING and count != 1:
                raise XiangqiError(f"FEN {fen!r}: {name} has {count} kings, want 1")
            if count > _MAX_COUNT[t]:
                raise XiangqiError(f"FEN {fen!r}: {name} has {count} of {PIECE_CHARS[t]!r}, at most {_MAX_COUNT[t]}")
        ksq = mb.index(colour * 7 + KING)
        if not in_palace(colour, ksq % 9, ksq // 9):
            raise XiangqiError(f"FEN {fen!r}: {name}'s king on {square_name(ksq)} is outside its palace")
    return mb, side, half, full


def make_fen(mb: np.ndarray | list[int], side: int, half: int, full: int) -> str:
    rows = []
    for rank in range(9, -1, -1):
        row = ""
        empty = 0
        for f in range(9):
            p = int(mb[rank * 9 + f])
            if p < 0:
                empty += 1
                continue
            if empty:
                row += str(empty)
                empty = 0
            ch = PIECE_CHARS[p % 7]
            row += ch if p < 7 else ch.lower()
        rows.append(row + (str(empty) if empty else ""))
    return f"{'/'.join(rows)} {'b' if side else 'w'} - - {half} {full}"


@dataclass
class Position:
    """Kernel arrays for one position plus the history of the game that led to it."""

    mb: np.ndarray
    st: np.ndarray
    hist: np.ndarray
    undo: np.ndarray

    @classmethod
    def from_fen(cls, fen: str, *, plies_before: int = 0) -> Position:
        mb_list, side, half, _full = parse_fen(fen)
        tb = tables()
        mb = np.array(mb_list, dtype=np.int64)
        st = np.zeros(ST_SIZE, dtype=np.int64)
        st[SIDE] = side
        st[HALF] = half
        st[KSQ] = mb_list.index(KING)
        st[KSQ + 1] = mb_list.index(7 + KING)
        key = 0
        for sq, p in enumerate(mb_list):
            if p >= 0:
                key ^= int(tb[Z + p * 90 + sq])
        if side:
            key ^= int(tb[Z_SIDE])
        st[KEY] = key
        st[PLY0] = plies_before
        st[NULLP] = plies_before
        st[PSQ] = psq_total(tb, mb)
        st[PL : PL + 32] = -1
        st[SLOT : SLOT + NSQ] = -1
        counts = [0, 0]
        for sq, p in enumerate(mb_list):
            if p >= 0:
                slot = (p // 7) * 16 + counts[p // 7]
                counts[p // 7] += 1
                st[PL + slot] = sq
                st[SLOT + sq] = slot
        pos = cls(mb, st, np.zeros(HMAX, dtype=np.int64), np.zeros((HMAX, U_SIZE), dtype=np.int64))
        if in_check_of(tb, pos.mb, pos.st, 1 - side):
            raise XiangqiError(f"FEN {fen!r}: the side not to move is in check")
        pos.undo[0, U_CHECK] = int(in_check_of(tb, pos.mb, pos.st, side))
        return pos

    def copy(self) -> Position:
        return Position(self.mb.copy(), self.st.copy(), self.hist.copy(), self.undo.copy())

    @property
    def key(self) -> int:
        return int(self.st[KEY])

    @property
    def side(self) -> int:
        return int(self.st[SIDE])

    def legal(self) -> list[int]:
        out = np.zeros(MAXMOVES, dtype=np.int64)
        n = gen_moves(tables(), self.mb, self.st, out, False)
        return [int(x) for x in out[:n]]

    def push(self, m: int) -> None:
        """Play a move known to be legal, recording whether it checks."""
        tb = tables()
        make_move(tb, self.mb, self.st, self.hist, self.undo, m)
        self.undo[int(self.st[HP]), U_CHECK] = int(in_check_of(tb, self.mb, self.st, int(self.st[SIDE])))


class XqBoard:
    """A xiangqi game from a FEN: current position, full history, legality of incoming moves."""

    def __init__(self, fen: str = START_FEN) -> None:
        parse_fen(fen)  # raises on a bad FEN before anything is built
        self.start_fen = fen
        self.pos = Position.from_fen(fen)
        _, _, _, self._full0 = parse_fen(fen)
        self.moves: list[int] = []

    @classmethod
    def from_moves(cls, fen: str, moves: list[str]) -> XqBoard:
        board = cls(fen)
        for text in moves:
            board.push_uci(text)
        return board

    def copy(self) -> XqBoard:
        other = XqBoard.__new__(XqBoard)
        other.start_fen = self.start_fen
        other.pos = self.pos.copy()
        other._full0 = self._full0
        other.moves = list(self.moves)
        return other

    @property
    def turn(self) -> int:
        """0 when Red is to move, 1 for Black."""
        return self.pos.side

    @property
    def halfmove_clock(self) -> int:
        return int(self.pos.st[HALF])

    def legal_moves(self) -> list[int]:
        return self.pos.legal()

    def is_check(self) -> bool:
        return bool(in_check_of(tables(), self.pos.mb, self.pos.st, self.turn))

    def fen(self) -> str:
        plies = len(self.moves) + (1 if self.start_fen.split()[1:2] == ["b"] else 0)
        return make_fen(self.pos.mb, self.turn, self.halfmove_clock, self._full0 + plies // 2)

    def push(self, m: int) -> None:
        if m not in self.legal_moves():
            raise XiangqiError(f"illegal move {move_name(m)} in position {self.fen()}")
        if int(self.pos.st[HP]) >= REBASE_AT:
            # keep room for a search: restart the history from the current position
            self.pos = Position.from_fen(self.fen(), plies_before=int(self.pos.st[PLY0]) + int(self.pos.st[HP]))
        self.pos.push(m)
        self.moves.append(m)

    def push_uci(self, text: str) -> None:
        self.push(parse_move(text))


def divide(board: XqBoard, depth: int, *, bulk: bool = True) -> dict[str, int]:
    """Leaf count below each legal move (depth >= 1)."""
    pos = board.pos.copy()
    tb = tables()
    mv = np.zeros((MAXPLY, MAXMOVES), dtype=np.int64)
    n = gen_moves(tb, pos.mb, pos.st, mv[0], False)
    out: dict[str, int] = {}
    for i in range(n):
        m = int(mv[0, i])
        if depth == 1 and bulk:
            count = 1
        else:
            make_move(tb, pos.mb, pos.st, pos.hist, pos.undo, m)
            count = perft_kernel(tb, pos.mb, pos.st, pos.hist, pos.undo, mv, depth - 1, 1, bulk)
            unmake_move(tb, pos.mb, pos.st, pos.hist, pos.undo, m)
        out[move_name(m)] = int(count)
    return out


def perft(board: XqBoard, depth: int, *, bulk: bool = True) -> int:
    """Leaf nodes at ``depth`` (bulk counting at the last ply by default)."""
    return sum(divide(board, depth, bulk=bulk).values()) if depth > 0 else 1


@dataclass(frozen=True)
class XqMove:
    """A kernel move with the ``uci()`` the UCI layer prints."""

    value: int

    def uci(self) -> str:
        return move_name(self.value)


ONGOING, WIN, LOSS, DRAW = "ongoing", "win", "loss", "draw"


def ruling(board: XqBoard, rules: str = "asian") -> tuple[str, bool]:
    """How the game stands for the side to move, by the engine's own rules kernel (the one the
    search uses) under ``rules``: (ongoing|win|loss|draw, whether by repetition or the 60-move
    rule). The kernel's Chinese rules are the search's approximation of the 棋例 (engine/xq_rules.py)."""
    from engine.kernels import xq_game_end
    from engine.xq_rules import R_DRAW, R_LOSS, R_WIN, SCRATCH

    if not board.legal_moves():
        return LOSS, False
    pos = board.pos.copy()
    tb = tables() if rules == "asian" else tables_with_rules(tables(), rules)
    verdict = int(xq_game_end(tb, pos.mb, pos.st, pos.hist, pos.undo, np.zeros(SCRATCH, dtype=np.int64), 0))
    return {R_DRAW: DRAW, R_WIN: WIN, R_LOSS: LOSS}.get(verdict, ONGOING), verdict != 0
