# mypy: disable-error-code="no-any-return"
"""Xiangqi's part of the search: its hooks, numbers and flags for the one search of both games
(engine/search_core.py), and ``search`` for the Python driver.

Same contract as chess's (engine/search_core.py); the transposition-table format and the ``ctl``
slots are shared, so the Python driver (engine/searcher.py) runs both. Xiangqi's policy: pseudo-legal
moves, each tested for exposing the general when made; a side without a legal move has lost
(stalemate too); a repeated position is scored by engine/xq_rules.py: under the AXF rules as
Fairy-Stockfish applies them (perpetual check loses for the checker, perpetual chase for the chaser,
anything else draws), or under the Chinese rules' 第26条 as far as the tree follows them (a forbidden
cycle, 长将, 长捉 or 一将一捉, loses against an allowed one; both forbidden draw); 120 plies without a
capture draw. No SEE, no internal iterative reduction, the plain static score, history by depth^2
halved when it grows large, late-move pruning after 4 + 4 depth^2 quiet moves.
"""

from __future__ import annotations

import numpy as np

from engine.bits import kernel
from engine.search_core import V_DRAW, V_LOSS, V_NONE, V_WIN, layout, specialise
from engine.xq_evaluate import VALUE
from engine.xq_evaluate import evaluate as evaluate_position
from engine.xq_movegen import (
    FILE,
    HALF,
    HP,
    KEY,
    KING,
    KSQ,
    MAXMOVES,
    NMOVE_PLIES,
    NULLP,
    PAWN,
    PL,
    RANK,
    SIDE,
    U_CHECK,
    attacked,
    gen_any,
    in_check,
    make_move,
    make_null,
    piece_type,
    unmake_move,
    unmake_null,
)
from engine.xq_rules import R_DRAW, R_LOSS, R_NONE, R_WIN, SCRATCH, game_end

if (R_NONE, R_DRAW, R_WIN, R_LOSS) != (V_NONE, V_DRAW, V_WIN, V_LOSS):
    raise ImportError("engine.xq_rules' verdicts must be engine.search_core's (the hook passes them on)")

# The search's scratch space ``ws`` (engine/search_core.py's layout; history by [piece * 90 + to]),
# then the repetition judge's scratch.
_W = layout(MAXMOVES, 14 * 90)
W_MOVES, W_SCORES, W_PV, W_PVL = _W["W_MOVES"], _W["W_SCORES"], _W["W_PV"], _W["W_PVL"]
W_KILLERS, W_HISTORY, W_CTL = _W["W_KILLERS"], _W["W_HISTORY"], _W["W_CTL"]
W_RULES = _W["W_SIZE"]  # scratch for the repetition judge
W_SIZE = W_RULES + SCRATCH

# ---- tunables -------------------------------------------------------------------------
RFP_MARGIN = 120
RFP_MAX_DEPTH = 3
FUTILITY_MARGIN = (0, 130, 240, 350)
DELTA_MARGIN = 200
NULL_MIN_DEPTH = 3
LMR_MIN_DEPTH = 3
LMR_MIN_MOVE = 3
LMP_BASE, LMP_SCALE = 4, 4  # late-move pruning: quiet moves after 4 + 4 depth^2 near the horizon
HISTORY_HALVE_AT = 1 << 26  # every history entry is halved when one passes this
# ---------------------------------------------------------------------------------------


# ---- the hooks of engine/search_core.py: ``pos`` is (tb, mb, st) -----------------------------
@kernel(inline=True)
def _node_in_check(pos: tuple[np.ndarray, ...], undo: np.ndarray) -> bool:
    """In check, noted in ``undo`` for the repetition judge (perpetual check)."""
    tb, mb, st = pos
    checked = in_check(tb, mb, st)
    undo[st[HP], U_CHECK] = 1 if checked else 0
    return checked


@kernel(inline=True)
def _in_check(pos: tuple[np.ndarray, ...]) -> bool:
    tb, mb, st = pos
    return in_check(tb, mb, st)


@kernel(inline=True)
def _verdict(pos: tuple[np.ndarray, ...], hist: np.ndarray, undo: np.ndarray, ws: np.ndarray, ply: int,
             checked: bool) -> int:
    """Repetitions (one repetition inside the tree is enough; tb[RULES] says whose rules) and 60 moves;
    game_end has nothing to say before four quiet plies (most nodes: skip the call)."""
    tb, mb, st = pos
    half = st[HALF]
    if half >= NMOVE_PLIES or (half >= 4 and st[NULLP] >= 4 and st[HP] >= 4):
        return game_end(tb, mb, st, hist, undo, ws[W_RULES:W_SIZE], ply)
    return V_NONE


@kernel(inline=True)
def _evaluate(pos: tuple[np.ndarray, ...]) -> int:
    tb, mb, st = pos
    return evaluate_position(tb, mb, st)


@kernel(inline=True)
def _tt_key(pos: tuple[np.ndarray, ...]) -> int:
    _tb, _mb, st = pos
    return st[KEY]


@kernel(inline=True)
def _null_ok(pos: tuple[np.ndarray, ...]) -> bool:
    """Null move is unsafe with soldiers and guards alone (zugzwang is real there)."""
    _tb, mb, st = pos
    us = st[SIDE]
    lo = us * 7
    for slot in range(us * 16, us * 16 + 16):
        sq = st[PL + slot]
        if sq >= 0:
            p = mb[sq]
            if p >= lo + 3 and p <= lo + 5:  # horse, rook, cannon
                return True
    return False


@kernel(inline=True)
def _make_null(pos: tuple[np.ndarray, ...], hist: np.ndarray, undo: np.ndarray) -> None:
    tb, _mb, st = pos
    make_null(tb, st, hist, undo)


@kernel(inline=True)
def _unmake_null(pos: tuple[np.ndarray, ...], hist: np.ndarray, undo: np.ndarray) -> None:
    _tb, _mb, st = pos
    unmake_null(st, hist, undo)


@kernel(inline=True)
def _gen(pos: tuple[np.ndarray, ...], moves: np.ndarray, qnode: bool, checked: bool, yes: bool) -> int:
    """Pseudo-legal moves: each is tested when made (``_make_legal``)."""
    tb, mb, st = pos
    return gen_any(tb, mb, st, moves, qnode, yes, checked)


@kernel(inline=True)
def _tactical(pos: tuple[np.ndarray, ...], m: int) -> bool:
    _tb, mb, _st = pos
    return mb[(m >> 7) & 127] >= 0


@kernel(inline=True)
def _capture_order(pos: tuple[np.ndarray, ...], m: int) -> int:
    """MVV-LVA."""
    _tb, mb, _st = pos
    return (1 << 28) + VALUE[piece_type(mb[(m >> 7) & 127])] * 8 - piece_type(mb[m & 127])


@kernel(inline=True)
def _history_index(pos: tuple[np.ndarray, ...], m: int) -> int:
    _tb, mb, _st = pos
    return mb[m & 127] * 90 + ((m >> 7) & 127)


@kernel(inline=True)
def _qs_futile(pos: tuple[np.ndarray, ...], m: int, static: int, alpha: int) -> bool:
    _tb, mb, _st = pos
    victim = mb[(m >> 7) & 127]
    gain = VALUE[piece_type(victim)] if victim >= 0 else 0
    if piece_type(victim) == PAWN:
        gain = 100
    return static + gain + DELTA_MARGIN <= alpha


@kernel(inline=True)
def _see_ge(pos: tuple[np.ndarray, ...], m: int, threshold: int) -> bool:
    return True  # not used: no SEE_PRUNING


@kernel(inline=True)
def _legality_info(pos: tuple[np.ndarray, ...]) -> tuple[int, int, int]:
    """The side to move and its general's file and rank."""
    tb, _mb, st = pos
    us = st[SIDE]
    ksq = st[KSQ + us]
    return us, tb[FILE + ksq], tb[RANK + ksq]


@kernel(inline=True)
def _make_legal(pos: tuple[np.ndarray, ...], hist: np.ndarray, undo: np.ndarray, m: int, checked: bool,
                info: tuple[int, int, int]) -> bool:
    """Make ``m``, or leave it unmade if it exposes the own general."""
    tb, mb, st = pos
    us, kf, kr = info
    fr = m & 127
    to = (m >> 7) & 127
    piece = mb[fr]
    # only a king move, or a piece leaving or entering the king's file or rank or leaving a
    # horse-leg square of the king (diagonally next to it), can expose the king (as gen_any)
    ff = tb[FILE + fr]
    fr_r = tb[RANK + fr]
    exposes = (
        checked
        or piece == us * 7 + KING
        or ff == kf
        or fr_r == kr
        or ((ff - kf) * (ff - kf) == 1 and (fr_r - kr) * (fr_r - kr) == 1)
        or tb[FILE + to] == kf
        or tb[RANK + to] == kr
    )
    make_move(tb, mb, st, hist, undo, m)
    if exposes and attacked(tb, mb, st[KSQ + us], 1 - us):
        unmake_move(tb, mb, st, hist, undo, m)
        return False
    return True


@kernel(inline=True)
def _unmake(pos: tuple[np.ndarray, ...], hist: np.ndarray, undo: np.ndarray, m: int) -> None:
    tb, mb, st = pos
    unmake_move(tb, mb, st, hist, undo, m)


search_xiangqi = specialise("search_xiangqi", {
    "PSEUDO_LEGAL": True, "REFINE_STATIC_WITH_TT": False, "IIR": False, "SEE_PRUNING": False,
    "HISTORY_GRAVITY": False,
    "MAXMOVES": MAXMOVES, "W_MOVES": W_MOVES, "W_SCORES": W_SCORES, "W_PV": W_PV, "W_PVL": W_PVL,
    "W_KILLERS": W_KILLERS, "W_HISTORY": W_HISTORY, "W_CTL": W_CTL,
    "RFP_MARGIN": RFP_MARGIN, "RFP_MAX_DEPTH": RFP_MAX_DEPTH, "NULL_MIN_DEPTH": NULL_MIN_DEPTH,
    "IIR_MIN_DEPTH": 0, "LMR_MIN_DEPTH": LMR_MIN_DEPTH, "LMR_MIN_MOVE": LMR_MIN_MOVE,
    "FUTILITY_MARGIN": FUTILITY_MARGIN, "LMP_BASE": LMP_BASE, "LMP_SCALE": LMP_SCALE,
    "SEE_PRUNE_DEPTH": 0, "SEE_CAPTURE_MARGIN": 0, "SEE_QUIET_MARGIN": 0,  # no SEE_PRUNING
    "HISTORY_MAX": 1, "HISTORY_BONUS_MAX": 0, "HISTORY_HALVE_AT": HISTORY_HALVE_AT,  # no HISTORY_GRAVITY
    "node_in_check": _node_in_check, "in_check": _in_check, "verdict": _verdict, "evaluate": _evaluate,
    "tt_key": _tt_key, "null_ok": _null_ok, "make_null": _make_null, "unmake_null": _unmake_null, "gen": _gen,
    "tactical": _tactical, "capture_order": _capture_order, "history_index": _history_index,
    "qs_futile": _qs_futile, "see_ge": _see_ge, "legality_info": _legality_info, "make_legal": _make_legal,
    "unmake": _unmake,
})


@kernel(nogil=True)
def search(tb: np.ndarray, mb: np.ndarray, st: np.ndarray, hist: np.ndarray, undo: np.ndarray,
           tt: np.ndarray, ws: np.ndarray, depth: int, alpha: int, beta: int, ply: int, do_null: bool) -> int:
    """The search (engine/search_core.py) of a xiangqi position, as the Python driver calls it."""
    return search_xiangqi((tb, mb, st), hist, undo, tt, ws, depth, alpha, beta, ply, do_null)
