"""Static exchange evaluation (engine.search.see_ge) on exchanges worked out by hand."""

from __future__ import annotations

import chess
import numpy as np
import pytest

from engine.kernels import gen_moves
from engine.movegen import MAXMOVES
from engine.position import Position, move_to_chess, tables
from engine.search import see_ge

# (fen, move, exact exchange value with SEE_VALUE 100/320/330/500/900)
CASES = [
    ("1k1r4/1pp4p/p7/4p3/8/P5P1/1PP4P/2K1R3 w - - 0 1", "e1e5", 100),  # an undefended pawn
    ("1k1r3q/1ppn3p/p4b2/4p3/8/P2N2P1/1PP1R1BP/2K1Q3 w - - 0 1", "d3e5", -220),  # x-rays on both sides
    ("3rk3/3r4/8/3p4/8/8/3R4/3RK3 w - - 0 1", "d2d5", -400),  # doubled rooks against doubled rooks
    ("4k3/8/3n4/4P3/8/8/8/4K3 w - - 0 1", "e5d6", 320),  # pawn takes knight
    ("4k3/3p4/4p3/8/8/8/8/4QK2 w - - 0 1", "e1e6", -800),  # queen takes a defended pawn
    ("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "e5d6", 100),  # en passant
    ("4k3/8/8/8/8/2n5/3P4/4K3 w - - 0 1", "d2c3", 320),
    ("4k3/8/8/8/3p4/2n5/3P4/4K3 w - - 0 1", "d2c3", 220),  # pawn takes knight, pawn takes back
    ("4k3/8/8/8/8/3p4/4K3/8 w - - 0 1", "e2d3", 100),  # the king takes what nothing defends
    ("4k3/8/8/8/8/8/3q4/3RK3 w - - 0 1", "d1d2", 900),  # an undefended queen
]


def _engine_move(board: chess.Board, uci: str) -> int:
    pos = Position.from_board(board)
    out = np.zeros(MAXMOVES, dtype=np.int64)
    n = gen_moves(tables(), pos.bb, pos.st, out, False)
    for m in out[:n]:
        if move_to_chess(int(m)).uci() == uci:
            return int(m)
    raise AssertionError(f"{uci} not generated in {board.fen()}")


@pytest.mark.parametrize(("fen", "uci", "value"), CASES)
def test_see_threshold_is_the_exchange_value(fen: str, uci: str, value: int) -> None:
    board = chess.Board(fen)
    m = _engine_move(board, uci)
    pos = Position.from_board(board)
    assert see_ge(tables(), pos.bb, pos.mb, m, value)
    assert not see_ge(tables(), pos.bb, pos.mb, m, value + 1)


def test_castling_and_promotions_count_as_even() -> None:
    board = chess.Board("r3k3/1P6/8/8/8/8/8/4K2R w K - 0 1")
    pos = Position.from_board(board)
    for uci in ("e1g1", "b7b8q", "b7a8q"):
        m = _engine_move(board, uci)
        assert see_ge(tables(), pos.bb, pos.mb, m, 0)
        assert not see_ge(tables(), pos.bb, pos.mb, m, 1)
