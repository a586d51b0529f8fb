"""Xiangqi FEN: reading a set-up into a mailbox (every fault named) and writing the placement.

The board (:class:`~.board.XiangqiBoard`) takes what :func:`parse_fen` returns as its position;
this module keeps no state.
"""

from __future__ import annotations

from dataclasses import dataclass

from boardctl.core.geometry import Square
from boardctl.core.rules import Color
from boardctl.errors import PositionError
from boardctl.variants.xiangqi.points import (
    BLACK_BIT,
    FEN_LETTERS,
    FILES,
    KING,
    MAX_COUNT,
    NAMES,
    PIECE_NAMES,
    PIECE_SYMBOLS,
    PIECE_TYPES,
    PLACES,
    POINTS,
    RANKS,
    RED,
    sq,
)


@dataclass(frozen=True, slots=True)
class Setup:
    """A FEN read: the mailbox, each side's bitboard and general (-1: none), the counters."""

    board: list[int]
    occupied_co: list[int]
    kings: list[Square]
    turn: Color
    halfmove_clock: int
    fullmove_number: int


def shown(fen: str) -> str:
    """``fen`` as an error message quotes it (cut at 100 characters)."""
    return fen if len(fen) <= 100 else fen[:100] + "..."


def parse_fen(fen: str) -> Setup:
    """Read a xiangqi FEN (``w`` or ``r`` for Red to move, ``b`` for Black).

    Raises :class:`PositionError` (a ValueError) naming what is wrong: the field, the rank, or
    the piece and point that cannot be there. Whether the side not to move is in check is the
    board's to ask (:meth:`~.board.XiangqiBoard.set_fen`).
    """
    if not isinstance(fen, str):
        raise PositionError(f"a xiangqi FEN is text, got {type(fen).__name__}")
    fields = fen.split()
    cut = shown(fen)
    if not 1 <= len(fields) <= 6:
        raise PositionError(f"xiangqi FEN {cut!r}: expected 1 to 6 fields, got {len(fields)}")
    board = [0] * POINTS
    rows = fields[0].split("/")
    if len(rows) != RANKS:
        raise PositionError(
            f"xiangqi FEN {cut!r}: expected 10 ranks separated by '/', got {len(rows)}"
        )
    for i, row in enumerate(rows):
        rank = RANKS - 1 - i
        file = 0
        for ch in row:
            if ch in "123456789":
                file += int(ch)
                continue
            kind = FEN_LETTERS.get(ch.lower())
            if kind is None or not ch.isascii():
                raise PositionError(
                    f"xiangqi FEN {cut!r}: {ch!r} in rank {rank} is not a piece letter (KABNRCP, lower-case for Black)"
                )
            if file >= FILES:
                raise PositionError(
                    f"xiangqi FEN {cut!r}: rank {rank} ({row!r}) has more than 9 points"
                )
            board[sq(file, rank)] = kind if ch.isupper() else kind | BLACK_BIT
            file += 1
        if file != FILES:
            raise PositionError(
                f"xiangqi FEN {cut!r}: rank {rank} ({row!r}) has {file} points, not 9"
            )
    turn = RED
    if len(fields) > 1:
        side = fields[1]
        if side not in ("w", "r", "b"):
            raise PositionError(
                f"xiangqi FEN {cut!r}: side to move is 'w' (or 'r') for Red or 'b' for Black, got {side!r:.20}"
            )
        turn = side != "b"
    for i, name in ((2, "castling"), (3, "en passant")):
        if len(fields) > i and fields[i] != "-":
            raise PositionError(
                f"xiangqi FEN {cut!r}: the {name} field must be '-', got {fields[i]!r:.20}"
            )
    numbers = [0, 1]
    for i, name in ((4, "halfmove clock"), (5, "move number")):
        if len(fields) > i:
            text = fields[i]
            if not text.isdigit() or not text.isascii() or len(text) > 6:
                raise PositionError(
                    f"xiangqi FEN {cut!r}: the {name} must be a number, got {text!r:.20}"
                )
            numbers[i - 4] = int(text)
    if numbers[1] < 1:
        numbers[1] = 1
    check_placement(board, cut)
    occupied_co, kings = [0, 0], [-1, -1]
    for s, p in enumerate(board):
        if p:
            red = p < BLACK_BIT
            occupied_co[red] |= 1 << s
            if p & 7 == KING:
                kings[red] = s
    return Setup(board, occupied_co, kings, turn, numbers[0], numbers[1])


def check_placement(board: list[int], shown: str) -> None:
    """PositionError if a piece stands where it never can, or a side has too many of a piece
    or no general; ``shown`` is the FEN as the message quotes it."""
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


def board_fen(b: list[int]) -> str:
    """The FEN's placement field of the mailbox ``b`` (Red upper-case)."""
    rows = []
    for rank in range(RANKS - 1, -1, -1):
        row, empty = "", 0
        for file in range(FILES):
            p = b[sq(file, rank)]
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


def diagram(b: list[int]) -> str:
    """The mailbox ``b`` as ten lines of letters, Black's side on top (``.`` for an empty point)."""
    lines = []
    for rank in range(RANKS - 1, -1, -1):
        cells = []
        for file in range(FILES):
            p = b[sq(file, rank)]
            s = PIECE_SYMBOLS[p & 7] if p else "."
            cells.append(s.upper() if p and p < BLACK_BIT else s)
        lines.append(" ".join(cells))
    return "\n".join(lines)
