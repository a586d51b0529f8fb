"""The shared search driver (engine/searcher.py) over the xiangqi kernels.

``rules`` (UCI ``XiangqiRules``) is ``chinese`` (the competition rules' 棋例) or ``asian``. It is
written into this searcher's own copy of the kernel tables (the slot ``RULES``), so the search
tree rules repeated positions by it (engine/xq_rules.py: under the Chinese rules 一将一捉 is
forbidden, both sides forbidden draw, a pawn's or the general's own attack is idle).

The tree approximates the 棋例 (no mate threats, chases by the kernel's cheap test), so under
the Chinese rules the chosen move is also checked at the root by the game's own judge
(``boardctl.variants.xiangqi.chinese_rules``, the one the daemon and replay ask): a move that
brings a position back in a cycle whose moves are forbidden for the engine's side (长杀, 一将一杀,
a chase the tree does not see ...) is replaced by the best root move that does not, if there is one.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from typing import Any

import numpy as np

from engine.kernels import xq_gen_moves, xq_make_move, xq_search, xq_unmake_move
from engine.search_common import CAN_STOP, INF, NODE_LIMIT, NODES, STOP
from engine.searcher import (
    FULL_STRENGTH,
    Info,
    Limits,
    Result,
    Searcher,
    Strength,
    UciMove,
    score_fields,
)
from engine.style import Style
from engine.xq_evaluate import psq_total
from engine.xq_movegen import MAXMOVES, PSQ, RULES
from engine.xq_position import (
    RULE_CODES,
    XiangqiError,
    XqBoard,
    XqMove,
    move_name,
    tables,
    tables_with_rules,
)
from engine.xq_search import W_CTL, W_HISTORY, W_KILLERS, W_PV, W_PVL, W_SIZE
from engine.xq_style import xq_style_tables

log = logging.getLogger(__name__)


class XqSearcher(Searcher):
    """Iterative deepening, time management and weakened play for xiangqi."""

    LAYOUT = (W_PV, W_PVL, W_KILLERS, W_HISTORY, W_CTL, W_SIZE)
    MAX_MOVES = MAXMOVES

    _rules = "chinese"
    #: Whether ``tb`` holds a style's evaluation (set_style), so positions need their score recomputed.
    _styled = False

    @property
    def rules(self) -> str:
        """``chinese`` (the tree's 棋例 and the root guard above) or ``asian`` (the AXF rules)."""
        return self._rules

    @rules.setter
    def rules(self, value: str) -> None:
        if value not in RULE_CODES:
            raise XiangqiError(f"unknown xiangqi rules {value!r}: want one of {', '.join(RULE_CODES)}")
        if value != self._rules:
            self._rules = value
            self.clear()  # the hash table's scores were found under the other rules
        self._stamp_rules()

    def _stamp_rules(self) -> None:
        """Write ``rules`` into this searcher's tables (a copy), also after something replaced them."""
        if self.tb[RULES] != RULE_CODES[self._rules]:
            self.tb = tables_with_rules(self.tb, self._rules)

    def search(self, board: Any, limits: Limits, *, strength: Strength = FULL_STRENGTH,
               on_info: Callable[[Info], None] | None = None) -> Result:
        self._stamp_rules()
        result = super().search(board, limits, strength=strength, on_info=on_info)
        if self.rules != "chinese" or result.best is None or not board.moves:
            return result
        return self._vary(board, result)

    def _vary(self, board: XqBoard, result: Result) -> Result:
        """``result``, or the best root move that walks into no forbidden cycle of ours."""
        from boardctl.variants.xiangqi.board import XiangqiBoard

        game = XiangqiBoard(board.start_fen)
        for m in board.moves:
            game.push_uci(move_name(m))
        us = board.turn == 0

        def forbidden(uci: str) -> bool:
            game.push_uci(uci)
            try:
                occurrences = game.earlier_occurrences()
                return bool(occurrences) and game.cycle_ruling(occurrences[-1]).loser == us
            finally:
                game.pop()

        assert result.best is not None
        if not forbidden(result.best.uci()):
            return result
        depth = max(1, result.info.depth - 1) if result.info is not None else 1
        budget = max(4 * (result.info.nodes if result.info is not None else 0), 20_000)
        scored = self._root_scores(board, depth, budget)
        allowed = [(s, m) for s, m in scored if not forbidden(move_name(m))]
        if not allowed:
            return result  # every move repeats a forbidden cycle (or no time to look): keep it
        score, m = max(allowed)
        log.info("%s repeats a forbidden cycle (棋例); playing %s instead", result.best.uci(), move_name(m))
        cp, mate = score_fields(score)
        info = result.info
        if info is not None:
            info = dataclasses.replace(info, score_cp=cp, score_mate=mate, pv=[XqMove(m)])
        return Result(XqMove(m), None, info)

    def _root_scores(self, board: XqBoard, depth: int, budget: int) -> list[tuple[int, int]]:
        """(score, move) of every root move searched ``depth`` plies deeper, within ``budget``
        nodes; a move whose search ran out of nodes is left out."""
        ctl = self.ctl
        pos = self._position(board)
        root = np.zeros(self.MAX_MOVES, dtype=np.int64)
        n = self._gen(pos, root)
        out: list[tuple[int, int]] = []
        for i in range(n):
            ctl[STOP] = 0
            ctl[NODES] = 0
            ctl[NODE_LIMIT] = budget
            ctl[CAN_STOP] = 1
            m = int(root[i])
            self._make(pos, m)
            s = -self._call(pos, depth - 1, -INF, INF, 1)
            self._unmake(pos, m)
            if not ctl[STOP]:
                out.append((s, m))
        ctl[STOP] = 0
        return out

    def _tables(self) -> np.ndarray:
        return tables_with_rules(tables(), "chinese")

    def set_style(self, style: Style, side: int) -> None:
        """Search with ``style``'s evaluation (engine/xq_style.py) for the engine playing ``side``."""
        self.tb = tables() if style.is_neutral else xq_style_tables(style, side)
        self._styled = not style.is_neutral
        self._stamp_rules()

    def _board(self, fen: str | None = None) -> XqBoard:
        return XqBoard(fen) if fen else XqBoard()

    def _position(self, board: Any) -> Any:
        pos = board.pos.copy()
        if self._styled:  # a style's tables: the incremental score is of its values
            pos.st[PSQ] = psq_total(self.tb, pos.mb)
        return pos

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
