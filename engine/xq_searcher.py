"""The shared search driver (engine/searcher.py) over the xiangqi kernels."""

from __future__ import annotations

from typing import Any

import numpy as np

from engine.kernels import xq_gen_moves, xq_make_move, xq_search, xq_unmake_move
from engine.searcher import Searcher, UciMove
from engine.xq_movegen import MAXMOVES
from engine.xq_position import XqBoard, XqMove, tables
from engine.xq_search import W_CTL, W_HISTORY, W_KILLERS, W_PV, W_PVL, W_SIZE


class XqSearcher(Searcher):
    """Iterative deepening, time management and weakened play for xiangqi."""

    LAYOUT = (W_PV, W_PVL, W_KILLERS, W_HISTORY, W_CTL, W_SIZE)
    MAX_MOVES = MAXMOVES

    def _tables(self) -> np.ndarray:
        return tables()

    def _board(self, fen: str | None = None) -> XqBoard:
        return XqBoard(fen) if fen else XqBoard()

    def _position(self, board: Any) -> Any:
        return board.pos.copy()

    def _legal(self, board: Any) -> list[UciMove]:
        return [XqMove(m) for m in board.legal_moves()]

    def _first_to_move(self, board: Any) -> bool:
        return bool(board.turn == 0)

    def _move(self, m: int) -> UciMove:
        return XqMove(m)

    def _call(self, pos: Any, depth: int, alpha: int, beta: int, ply: int = 0) -> int:
        return int(xq_search(self.tb, pos.mb, pos.st, pos.hist, pos.undo, self.tt, self.ws,
                             depth, alpha, beta, ply, True))

    def _gen(self, pos: Any, out: np.ndarray) -> int:
        return int(xq_gen_moves(self.tb, pos.mb, pos.st, out, False))

    def _make(self, pos: Any, m: int) -> None:
        xq_make_move(self.tb, pos.mb, pos.st, pos.hist, pos.undo, m)

    def _unmake(self, pos: Any, m: int) -> None:
        xq_unmake_move(self.tb, pos.mb, pos.st, pos.hist, pos.undo, m)
