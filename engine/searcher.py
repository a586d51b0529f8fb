"""Iterative deepening, time management and strength limiting around the search kernel.

The kernel does one fixed-depth search per call; this layer decides the depths, sets the
stop flag from a timer (or from ``stop()``), reports each finished iteration and, at
reduced strength, picks among near-best root moves.
"""

from __future__ import annotations

import logging
import math
import random
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

import chess
import numpy as np

from engine.evaluate import eval_tables
from engine.kernels import gen_moves, make_move, search, unmake_move
from engine.levels import SKILL_MAX, skill_params
from engine.movegen import MAXMOVES, MAXPLY
from engine.position import Position, move_to_chess, tables
from engine.search import (
    W_CTL,
    W_HISTORY,
    W_KILLERS,
    W_PV,
    W_PVL,
    W_SIZE,
)
from engine.search_common import (
    CAN_STOP,
    CONTEMPT,
    INF,
    MATE,
    MATE_BOUND,
    NODE_LIMIT,
    NODES,
    SELDEPTH,
    STOP,
)
from engine.timeman import Budget, Deepening

log = logging.getLogger(__name__)

MOVE_OVERHEAD_MS = 30  # default; UCI `Move Overhead` changes it per searcher


@dataclass(frozen=True, kw_only=True)
class Limits:
    """What ``go`` asked for; times in milliseconds, None when absent."""

    depth: int | None = None
    nodes: int | None = None
    movetime: int | None = None
    wtime: int | None = None
    btime: int | None = None
    winc: int | None = None
    binc: int | None = None
    movestogo: int | None = None
    infinite: bool = False


@dataclass(frozen=True, kw_only=True)
class Strength:
    """How much to hold back: depth/node caps plus a random pick among near-best moves.

    ``margin`` is how many centipawns below the best a move may be and still be chosen;
    ``temperature`` spreads the choice within that margin (0 = always the best).
    """

    max_depth: int = MAXPLY - 1
    max_nodes: int | None = None
    margin: int = 0
    temperature: float = 0.0

    @property
    def is_full(self) -> bool:
        return self.margin == 0 and self.max_nodes is None and self.max_depth >= MAXPLY - 1

    @classmethod
    def from_skill(cls, skill: int) -> Strength:
        """The strength of a skill level 0-20 (engine/levels.py ``skill_params``); 20 is full."""
        if skill >= SKILL_MAX:
            return cls()
        p = skill_params(skill)
        return cls(max_depth=p.max_depth, max_nodes=p.max_nodes, margin=p.margin, temperature=p.temperature)


FULL_STRENGTH = Strength()


class UciMove(Protocol):
    """A move as the UCI layer prints it (chess.Move, or a xiangqi move)."""

    def uci(self) -> str: ...


@dataclass(frozen=True)
class Info:
    """One finished iteration, as UCI ``info`` reports it."""

    depth: int
    seldepth: int
    score_cp: int | None
    score_mate: int | None
    nodes: int
    time_ms: int
    pv: list[UciMove] = field(default_factory=list)

    @property
    def nps(self) -> int:
        return int(self.nodes * 1000 / max(self.time_ms, 1))


@dataclass(frozen=True)
class Result:
    best: UciMove | None
    ponder: UciMove | None
    info: Info | None


def score_fields(score: int) -> tuple[int | None, int | None]:
    """(cp, mate) for a kernel score; mate counts moves, negative when being mated."""
    if score > MATE_BOUND:
        return None, (MATE - score + 1) // 2
    if score < -MATE_BOUND:
        return None, -((MATE + score) // 2)
    return score, None


class Searcher:
    """Owns the kernel's working arrays (transposition table included) between searches.

    The driver is shared by the variants: a subclass (engine/xq_searcher.py for xiangqi)
    overrides the hooks at the end (board in, kernel arrays, moves out, the kernel calls)
    and ``LAYOUT``, the kernel's scratch layout.
    """

    LAYOUT = (W_PV, W_PVL, W_KILLERS, W_HISTORY, W_CTL, W_SIZE)
    MAX_MOVES = MAXMOVES

    def __init__(self, *, hash_mb: int = 16, seed: int | None = None) -> None:
        self.tb = self._tables()
        self.ev = eval_tables()
        w_pv, w_pvl, w_killers, w_history, w_ctl, w_size = self.LAYOUT
        # the kernel's scratch space; the attributes below are views into it
        self.ws = np.zeros(w_size, dtype=np.int64)
        self.pv = self.ws[w_pv:w_pvl].reshape(MAXPLY + 1, MAXPLY + 1)
        self.pvl = self.ws[w_pvl:w_killers]
        self.kil = self.ws[w_killers:w_history]
        self.hh = self.ws[w_history:w_ctl]
        self.ctl = self.ws[w_ctl:w_ctl + 8]
        self.rng = random.Random(seed)
        self._halted = False  # stop() or the move timer, as opposed to a node cap
        self.move_overhead_ms = MOVE_OVERHEAD_MS  # time kept back per move for the GUI and pipes
        self.contempt = 0  # centipawns a draw is worse than equal for the side to move at the root
        #: The style's preference among the near-best moves of the weakened pick: a factor on each
        #: move's chance (engine/style.py ``pick_weight``); None: all alike.
        self.pick_weight: Callable[[Any, Any], float] | None = None  # (board, move) of the variant
        #: What the evaluation was last set up for (the UCI layer's style, side and contempt).
        self.style_key: tuple[Any, ...] | None = None
        self.set_hash(hash_mb)

    def set_hash(self, hash_mb: int) -> None:
        entries = max(1, hash_mb) * 1024 * 1024 // 16
        size = 1 << (entries.bit_length() - 1)
        self.tt = np.zeros(2 * size, dtype=np.int64)  # key and data of an entry side by side

    def clear(self) -> None:
        # fresh zeroed arrays rather than writing zeros: untouched pages cost no memory
        self.tt = np.zeros(self.tt.shape[0], dtype=np.int64)
        self.hh[:] = 0
        self.kil[:] = 0

    def stop(self) -> None:
        """Ask a running search to return; safe from any thread."""
        self._halted = True
        self.ctl[STOP] = 1

    # -- the variant's hooks (chess here) ------------------------------------------------
    def _tables(self) -> np.ndarray:
        return tables()

    def _board(self, fen: str | None = None) -> Any:
        """A board of this variant (the start position without ``fen``)."""
        return chess.Board(fen) if fen else chess.Board()

    def _position(self, board: Any) -> Any:
        return Position.from_board(board)

    def _legal(self, board: Any) -> list[UciMove]:
        return list(board.legal_moves)

    def _first_to_move(self, board: Any) -> bool:
        """Whether the side to move uses the wtime/winc clock (White, or Red)."""
        return bool(board.turn == chess.WHITE)

    def _move(self, m: int) -> UciMove:
        return move_to_chess(m)

    def _call(self, pos: Any, depth: int, alpha: int, beta: int, ply: int = 0) -> int:
        return int(
            search(self.tb, self.ev, pos.bb, pos.mb, pos.st, pos.hist, pos.undo, self.tt, self.ws,
                   depth, alpha, beta, ply, True)
        )

    def _gen(self, pos: Any, out: np.ndarray) -> int:
        return int(gen_moves(self.tb, pos.bb, pos.st, out, False))

    def _make(self, pos: Any, m: int) -> None:
        make_move(self.tb, pos.bb, pos.mb, pos.st, pos.hist, pos.undo, m)

    def _unmake(self, pos: Any, m: int) -> None:
        unmake_move(self.tb, pos.bb, pos.mb, pos.st, pos.hist, pos.undo, m)

    # -- the shared driver ------------------------------------------------------------------
    def warm(self) -> None:
        """Compile or load every kernel by running a tiny search."""
        self.search(self._board(), Limits(depth=2))

    def bench(self, fens: Iterable[str], depth: int) -> tuple[int, float]:
        """Nodes and seconds to search each of ``fens`` to ``depth`` from a clear table: the bench figure."""
        nodes = 0
        start = time.perf_counter()
        for fen in fens:
            self.clear()
            result = self.search(self._board(fen), Limits(depth=depth))
            nodes += result.info.nodes if result.info else 0
        return nodes, time.perf_counter() - start

    def _budget(self, board: Any, limits: Limits) -> Budget | None:
        """The move's time budget, or None when the search is not on a clock."""
        if limits.infinite:
            return None
        if limits.movetime is not None:
            return Budget.from_movetime(limits.movetime, overhead_ms=self.move_overhead_ms)
        first = self._first_to_move(board)
        left = limits.wtime if first else limits.btime
        if left is None:
            return None
        return Budget.from_clock(left, (limits.winc if first else limits.binc) or 0,
                                 moves_to_go=limits.movestogo, overhead_ms=self.move_overhead_ms)

    def search(self, board: Any, limits: Limits, *, strength: Strength = FULL_STRENGTH,
               on_info: Callable[[Info], None] | None = None) -> Result:
        """Best move for ``board`` within ``limits``; ``stop()`` ends it early."""
        start = time.monotonic()
        ctl = self.ctl
        ctl[:] = 0
        ctl[CONTEMPT] = self.contempt
        self._halted = False
        node_cap = limits.nodes if limits.nodes is not None else strength.max_nodes
        if limits.nodes is not None and strength.max_nodes is not None:
            node_cap = min(limits.nodes, strength.max_nodes)
        ctl[NODE_LIMIT] = node_cap if node_cap is not None else 2**62
        max_depth = min(limits.depth or MAXPLY - 1, strength.max_depth, MAXPLY - 1)
        budget = self._budget(board, limits)
        deepening = Deepening(budget) if budget is not None else None
        timer: threading.Timer | None = None
        if budget is not None:
            timer = threading.Timer(budget.hard, self.stop)
            timer.daemon = True
            timer.start()
        pos = self._position(board)
        self.kil[:] = 0
        legal = self._legal(board)
        if not legal:
            if timer:
                timer.cancel()
            return Result(None, None, None)
        best: UciMove = legal[0]
        ponder: UciMove | None = None
        last: Info | None = None
        score = 0
        depth_done = 0
        try:
            for depth in range(1, max_depth + 1):
                if depth == 2:
                    ctl[CAN_STOP] = 1  # depth 1 always completes so there is a move to play
                ctl[SELDEPTH] = 0
                if depth >= 5 and abs(score) < MATE_BOUND:
                    delta = 30
                    alpha, beta = score - delta, score + delta
                    while True:
                        s = self._call(pos, depth, alpha, beta)
                        if ctl[STOP]:
                            break
                        if s <= alpha:
                            alpha = max(alpha - delta * 3, -INF)
                        elif s >= beta:
                            beta = min(beta + delta * 3, INF)
                        else:
                            break
                        delta *= 3
                    new_score = s
                else:
                    new_score = self._call(pos, depth, -INF, INF)
                if ctl[STOP]:
                    break
                score = new_score
                depth_done = depth
                n = int(self.pvl[0])
                pv = [self._move(int(self.pv[0, i])) for i in range(n)]
                if pv:
                    best = pv[0]
                    ponder = pv[1] if len(pv) > 1 else None
                elapsed = time.monotonic() - start
                cp, mate = score_fields(score)
                last = Info(depth, int(ctl[SELDEPTH]), cp, mate, int(ctl[NODES]), int(elapsed * 1000), pv)
                if on_info is not None:
                    on_info(last)
                if deepening is not None and deepening.should_stop(elapsed, best, score):
                    break
                if mate is not None and depth > 2 * abs(mate) + 2 and not limits.infinite:
                    break
            if not strength.is_full and strength.margin > 0 and depth_done >= 1 and len(legal) > 1:
                nodes_budget = max(4 * (last.nodes if last else 0), 5000)
                weak = self._weakened_choice(board, pos, max(1, depth_done), strength, nodes_budget)
                if weak is not None:
                    best, ponder = weak, None
        finally:
            if timer:
                timer.cancel()
        if limits.infinite:
            # UCI: with `go infinite` the move is sent only after `stop`
            while not self._halted:
                time.sleep(0.005)
        return Result(best, ponder, last)

    def _weakened_choice(self, board: Any, pos: Any, depth: int, strength: Strength, budget: int) -> UciMove | None:
        """Score every root move with a full window and pick one near the best at random, each
        move's chance scaled by the style's ``pick_weight``: a weakened character errs in character.

        Bounded by ``budget`` nodes and by the running move timer; None if either ran out
        (the caller then keeps the searched best move).
        """
        ctl = self.ctl
        if self._halted:
            return None
        ctl[STOP] = 0
        ctl[NODES] = 0
        ctl[NODE_LIMIT] = budget
        ctl[CAN_STOP] = 1
        root = np.zeros(self.MAX_MOVES, dtype=np.int64)
        n = self._gen(pos, root)
        scored: list[tuple[int, int]] = []
        for i in range(n):
            m = int(root[i])
            self._make(pos, m)
            s = -self._call(pos, depth - 1, -INF, INF, 1)
            self._unmake(pos, m)
            if ctl[STOP]:
                ctl[STOP] = int(self._halted)
                return None
            scored.append((s, m))
        top = max(s for s, _ in scored)
        near = [(s, m) for s, m in scored if s >= top - strength.margin]
        if strength.temperature <= 0:
            choice = max(near)[1]
        else:
            weights = [math.exp((s - top) / strength.temperature) for s, _ in near]
            if self.pick_weight is not None:
                weights = [w * self.pick_weight(board, self._move(m)) for w, (_, m) in zip(weights, near, strict=True)]
            choice = self.rng.choices([m for _, m in near], weights=weights)[0]
        log.debug("weakened pick among %d of %d moves", len(near), n)
        return self._move(choice)
