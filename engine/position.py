"""Python side of the board: python-chess boards in, kernel arrays out, kernel moves back.

python-chess parses FEN and checks legality of incoming moves; the kernels only ever see
positions it accepted.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import chess
import numpy as np

from engine.kernels import gen_moves, make_move, unmake_move
from engine.kernels import perft as perft_kernel
from engine.movegen import CASTLE as CASTLE_IDX
from engine.movegen import (
    EP,
    FULL,
    HALF,
    HMAX,
    HP,
    MAXMOVES,
    MAXPLY,
    SIDE,
)
from engine.tables import PAWN_ATT, Z_CASTLE, Z_EP, Z_PIECE, Z_SIDE, build_tables


@functools.cache
def tables() -> np.ndarray:
    """The shared, read-only kernel tables (built once per process)."""
    tb = build_tables()
    tb.flags.writeable = False
    return tb


def move_to_chess(m: int) -> chess.Move:
    promo = (m >> 12) & 15
    return chess.Move(m & 63, (m >> 6) & 63, promo + 1 if promo else None)


@dataclass
class Position:
    """Kernel arrays for one position plus the key history of the game that led to it."""

    bb: np.ndarray
    mb: np.ndarray
    st: np.ndarray
    hist: np.ndarray
    undo: np.ndarray

    @classmethod
    def from_board(cls, board: chess.Board) -> Position:
        """Arrays for ``board``; its move stack feeds repetition detection."""
        tb = tables()
        history: list[chess.Board] = []
        b = board.copy(stack=True)
        # only positions since the last irreversible move can repeat
        while b.move_stack and len(history) < HMAX // 2:
            move = b.pop()
            history.append(b.copy(stack=False))
            if b.is_zeroing(move):
                break
        history.reverse()
        pos = cls._from_single(board, tb)
        keys = [cls._from_single(h, tb).bb[8] for h in history]
        for i, k in enumerate(keys):
            pos.hist[i] = k
        pos.st[HP] = len(keys)
        return pos

    @classmethod
    def from_fen(cls, fen: str) -> Position:
        return cls.from_board(chess.Board(fen))

    @classmethod
    def _from_single(cls, board: chess.Board, tb: np.ndarray) -> Position:
        bb = np.zeros(9, dtype=np.uint64)
        mb = np.full(64, -1, dtype=np.int64)
        st = np.zeros(8, dtype=np.int64)
        key = 0
        for sq, piece in board.piece_map().items():
            colour = 0 if piece.color == chess.WHITE else 1
            pc = colour * 6 + piece.piece_type - 1
            mb[sq] = pc
            bb[piece.piece_type - 1] |= np.uint64(1 << sq)
            bb[6 + colour] |= np.uint64(1 << sq)
            key ^= int(tb[Z_PIECE + pc * 64 + sq])
        st[SIDE] = 0 if board.turn == chess.WHITE else 1
        rights = 0
        for bit, sq in ((1, chess.H1), (2, chess.A1), (4, chess.H8), (8, chess.A8)):
            if board.castling_rights & chess.BB_SQUARES[sq]:
                rights |= bit
        st[CASTLE_IDX] = rights
        key ^= int(tb[Z_CASTLE + rights])
        st[EP] = -1
        if board.ep_square is not None:
            us = st[SIDE]
            if int(tb[PAWN_ATT + (1 - us) * 64 + board.ep_square]) & board.pieces_mask(
                chess.PAWN, board.turn
            ):
                st[EP] = board.ep_square
                key ^= int(tb[Z_EP + (board.ep_square & 7)])
        st[HALF] = board.halfmove_clock
        st[FULL] = board.fullmove_number
        if board.turn == chess.BLACK:
            key ^= int(tb[Z_SIDE])
        bb[8] = np.uint64(key)
        return cls(bb, mb, st, np.zeros(HMAX, dtype=np.uint64), np.zeros((HMAX, 4), dtype=np.int64))

    def copy(self) -> Position:
        return Position(self.bb.copy(), self.mb.copy(), self.st.copy(), self.hist.copy(), self.undo.copy())

    @property
    def key(self) -> int:
        return int(self.bb[8])


def perft(board: chess.Board, depth: int, *, bulk: bool = True) -> int:
    """Leaf nodes at ``depth`` from ``board`` (bulk counting at the last ply by default)."""
    return sum(divide(board, depth, bulk=bulk).values()) if depth > 0 else 1


def divide(board: chess.Board, depth: int, *, bulk: bool = True) -> dict[chess.Move, int]:
    """Leaf count below each legal move (depth >= 1)."""
    pos = Position.from_board(board)
    tb = tables()
    mv = np.zeros((MAXPLY, MAXMOVES), dtype=np.int64)
    n = gen_moves(tb, pos.bb, pos.st, mv[0], False)
    out: dict[chess.Move, int] = {}
    for i in range(n):
        m = int(mv[0, i])
        if depth == 1 and bulk:
            count = 1
        else:
            make_move(tb, pos.bb, pos.mb, pos.st, pos.hist, pos.undo, m)
            count = perft_kernel(tb, pos.bb, pos.mb, pos.st, pos.hist, pos.undo, mv, depth - 1, 1, bulk)
            unmake_move(tb, pos.bb, pos.mb, pos.st, pos.hist, pos.undo, m)
        out[move_to_chess(m)] = count
    return out


def legal_moves(board: chess.Board) -> list[chess.Move]:
    """The kernel's legal moves, for cross-checking and for the UCI layer."""
    return list(divide(board, 1).keys())
