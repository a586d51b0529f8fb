# mypy: disable-error-code="no-any-return"
"""Chess's part of the search: its hooks, numbers and flags for the one search of both games
(engine/search_core.py), the static exchange evaluation, and ``search`` for the Python driver.

Contract of ``search`` (engine/search_core.py): the score of the position for the side to move,
exact strictly inside (alpha, beta), a bound outside; depth <= 0 is quiescence. Chess's policy:
legal move generation (no legal move: mate or stalemate), the fifty-move rule and repetitions,
SEE ordering and pruning, internal iterative reduction, the TT score refining the static one,
history with gravity and a malus, late-move pruning after 3 + depth^2 quiet moves.
"""

from __future__ import annotations

import numpy as np

from engine.bits import U0, U1, kernel, lsb
from engine.evaluate import VALUE_MG
from engine.evaluate import evaluate as evaluate_position
from engine.movegen import (
    BISHOP,
    F_CASTLE,
    F_EP,
    HALF,
    HP,
    KING_T,
    KNIGHT_T,
    MAXMOVES,
    PAWN,
    QUEEN,
    ROOK,
    SIDE,
    attackers,
    bishop_att,
    gen_moves,
    in_check,
    make_move,
    make_null,
    piece_colour,
    piece_type,
    rook_att,
    unmake_move,
    unmake_null,
)
from engine.search_core import V_DRAW, V_NONE, layout, specialise

# The search's scratch space ``ws`` (engine/search_core.py's layout); history by [piece * 64 + to].
_W = layout(MAXMOVES, 12 * 64)
W_MOVES, W_SCORES, W_PV, W_PVL = _W["W_MOVES"], _W["W_SCORES"], _W["W_PV"], _W["W_PVL"]
W_KILLERS, W_HISTORY, W_CTL, W_SIZE = _W["W_KILLERS"], _W["W_HISTORY"], _W["W_CTL"], _W["W_SIZE"]

# ---- tunables -------------------------------------------------------------------------
RFP_MARGIN = 120  # reverse futility per ply of depth
RFP_MAX_DEPTH = 3
FUTILITY_MARGIN = (0, 120, 220, 320)  # by depth, for quiet moves
DELTA_MARGIN = 200  # quiescence delta pruning
NULL_MIN_DEPTH = 3
IIR_MIN_DEPTH = 4  # internal iterative reduction: one ply less from here when there is no TT move
LMR_MIN_DEPTH = 3
LMR_MIN_MOVE = 3
SEE_PRUNE_DEPTH = 5  # static-exchange pruning in the main search, to this depth
SEE_CAPTURE_MARGIN = 100  # a capture is pruned below -this * depth by exchange
SEE_QUIET_MARGIN = 40  # a quiet move below -this * depth^2
LMP_BASE, LMP_SCALE = 3, 1  # late-move pruning: quiet moves after 3 + depth^2 near the horizon
BAD_CAPTURE = 1 << 29  # subtracted from a losing capture's ordering score
HISTORY_MAX = 16384  # quiet history saturates at +-this ("gravity": h += b - h * |b| / MAX)
HISTORY_BONUS_MAX = 1600  # the bonus (or malus) of one cutoff: 16 * depth^2, capped here
SEE_VALUE = (100, 320, 330, 500, 900, 20000)  # static exchange values by piece type (fixed, not tuned)
# ---------------------------------------------------------------------------------------


@kernel()
def see_ge(tb: np.ndarray, bb: np.ndarray, mb: np.ndarray, m: int, threshold: int) -> bool:
    """Whether the exchange that ``m`` starts on its target square wins at least ``threshold``.

    The swap algorithm over all attackers, x-rays included (each step recomputes the
    attackers through the shrinking occupancy); pins are ignored. Castling and promotions
    count as balanced.
    """
    fr = m & 63
    to = (m >> 6) & 63
    flag = (m >> 16) & 3
    if flag == F_CASTLE or ((m >> 12) & 15) != 0:
        return threshold <= 0
    occ = bb[6] | bb[7]
    if flag == F_EP:
        swap = SEE_VALUE[PAWN] - threshold
        cap_sq = to - 8 if piece_colour(mb[fr]) == 0 else to + 8
        occ ^= U1 << np.uint64(cap_sq)
    else:
        victim = mb[to]
        swap = (SEE_VALUE[piece_type(victim)] if victim >= 0 else 0) - threshold
    if swap < 0:
        return False
    swap = SEE_VALUE[piece_type(mb[fr])] - swap
    if swap <= 0:
        return True
    occ ^= (U1 << np.uint64(fr)) | (U1 << np.uint64(to))
    stm = piece_colour(mb[fr])
    # attackers once; a piece leaving can uncover only sliders on its own kind of line
    atk = attackers(tb, bb, to, occ, 0) | attackers(tb, bb, to, occ, 1)
    bq = bb[BISHOP] | bb[QUEEN]
    rq = bb[ROOK] | bb[QUEEN]
    res = 1
    while True:
        stm = 1 - stm
        atk &= occ
        mine = atk & bb[6 + stm]
        if mine == U0:
            break
        res ^= 1
        pt = PAWN
        while pt < KING_T and (mine & bb[pt]) == U0:
            pt += 1
        if pt == KING_T:
            # the king may take only if the other side has nothing left to take back
            return (res ^ 1) != 0 if (atk & bb[6 + 1 - stm]) != U0 else res != 0
        swap = SEE_VALUE[pt] - swap
        if swap < res:
            break
        occ ^= U1 << np.uint64(lsb(mine & bb[pt]))
        if pt != KNIGHT_T and pt != ROOK:  # a pawn, bishop or queen leaves a diagonal
            atk |= bishop_att(tb, to, occ) & bq
        if pt >= ROOK:  # a rook or queen (the king returned above) leaves a rank or file
            atk |= rook_att(tb, to, occ) & rq
    return res != 0


# ---- the hooks of engine/search_core.py: ``pos`` is (tb, ev, bb, mb, st) ----------------------
@kernel(inline=True)
def _node_in_check(pos: tuple[np.ndarray, ...], undo: np.ndarray) -> bool:
    tb, _ev, bb, _mb, st = pos
    return in_check(tb, bb, st)


@kernel(inline=True)
def _in_check(pos: tuple[np.ndarray, ...]) -> bool:
    tb, _ev, bb, _mb, st = pos
    return in_check(tb, bb, st)


@kernel(inline=True)
def _verdict(pos: tuple[np.ndarray, ...], hist: np.ndarray, undo: np.ndarray, ws: np.ndarray, ply: int,
             checked: bool) -> int:
    """Draws by the fifty-move rule or by repetition (one repetition is enough in search)."""
    _tb, _ev, bb, _mb, st = pos
    if st[HALF] >= 100 and not checked:
        return V_DRAW
    hp = st[HP]
    key = bb[8]
    i = hp - 2
    lo = max(0, hp - st[HALF])
    while i >= lo:
        if hist[i] == key:
            return V_DRAW
        i -= 2
    return V_NONE


@kernel(inline=True)
def _evaluate(pos: tuple[np.ndarray, ...]) -> int:
    tb, ev, bb, mb, st = pos
    return evaluate_position(tb, ev, bb, mb, st)


@kernel(inline=True)
def _tt_key(pos: tuple[np.ndarray, ...]) -> np.int64:
    _tb, _ev, bb, _mb, _st = pos
    return np.int64(bb[8])  # the key's bits as int64


@kernel(inline=True)
def _null_ok(pos: tuple[np.ndarray, ...]) -> bool:
    """A piece besides pawns and the king (zugzwang is rare then)."""
    _tb, _ev, bb, _mb, st = pos
    return (bb[6 + st[SIDE]] & ~bb[PAWN] & ~bb[KING_T]) != U0


@kernel(inline=True)
def _make_null(pos: tuple[np.ndarray, ...], hist: np.ndarray, undo: np.ndarray) -> None:
    tb, _ev, bb, _mb, st = pos
    make_null(tb, bb, st, hist, undo)


@kernel(inline=True)
def _unmake_null(pos: tuple[np.ndarray, ...], hist: np.ndarray, undo: np.ndarray) -> None:
    _tb, _ev, bb, _mb, st = pos
    unmake_null(bb, st, hist, undo)


@kernel(inline=True)
def _gen(pos: tuple[np.ndarray, ...], moves: np.ndarray, qnode: bool, checked: bool, yes: bool) -> int:
    tb, _ev, bb, _mb, st = pos
    return gen_moves(tb, bb, st, moves, qnode)


@kernel(inline=True)
def _tactical(pos: tuple[np.ndarray, ...], m: int) -> bool:
    """A capture, en passant or a promotion."""
    _tb, _ev, _bb, mb, _st = pos
    return mb[(m >> 6) & 63] >= 0 or ((m >> 16) & 3) == F_EP or ((m >> 12) & 15) != 0


@kernel(inline=True)
def _capture_order(pos: tuple[np.ndarray, ...], m: int) -> int:
    """MVV-LVA; a capture of a cheaper piece that loses by exchange goes after the quiet moves."""
    tb, _ev, bb, mb, _st = pos
    fr = m & 63
    to = (m >> 6) & 63
    promo = (m >> 12) & 15
    victim = mb[to]
    v = VALUE_MG[piece_type(victim)] if victim >= 0 else (VALUE_MG[PAWN] if not promo else 0)
    if promo:
        v += VALUE_MG[promo]
    s = (1 << 28) + v * 8 - piece_type(mb[fr])
    if (victim >= 0 and not promo and SEE_VALUE[piece_type(victim)] < SEE_VALUE[piece_type(mb[fr])]
            and not see_ge(tb, bb, mb, m, 0)):
        s -= BAD_CAPTURE
    return s


@kernel(inline=True)
def _history_index(pos: tuple[np.ndarray, ...], m: int) -> int:
    _tb, _ev, _bb, mb, _st = pos
    return mb[m & 63] * 64 + ((m >> 6) & 63)


@kernel(inline=True)
def _qs_futile(pos: tuple[np.ndarray, ...], m: int, static: int, alpha: int) -> bool:
    _tb, _ev, _bb, mb, _st = pos
    victim = mb[(m >> 6) & 63]
    gain = VALUE_MG[piece_type(victim)] if victim >= 0 else VALUE_MG[PAWN]
    return ((m >> 12) & 15) == 0 and static + gain + DELTA_MARGIN <= alpha


@kernel(inline=True)
def _see_ge(pos: tuple[np.ndarray, ...], m: int, threshold: int) -> bool:
    tb, _ev, bb, mb, _st = pos
    return see_ge(tb, bb, mb, m, threshold)


@kernel(inline=True)
def _legality_info(pos: tuple[np.ndarray, ...]) -> int:
    return 0  # the moves are legal already


@kernel(inline=True)
def _make_legal(pos: tuple[np.ndarray, ...], hist: np.ndarray, undo: np.ndarray, m: int, checked: bool,
                info: int) -> bool:
    tb, _ev, bb, mb, st = pos
    make_move(tb, bb, mb, st, hist, undo, m)
    return True


@kernel(inline=True)
def _unmake(pos: tuple[np.ndarray, ...], hist: np.ndarray, undo: np.ndarray, m: int) -> None:
    tb, _ev, bb, mb, st = pos
    unmake_move(tb, bb, mb, st, hist, undo, m)


search_chess = specialise("search_chess", {
    "PSEUDO_LEGAL": False, "REFINE_STATIC_WITH_TT": True, "IIR": True, "SEE_PRUNING": True,
    "HISTORY_GRAVITY": True,
    "MAXMOVES": MAXMOVES, "W_MOVES": W_MOVES, "W_SCORES": W_SCORES, "W_PV": W_PV, "W_PVL": W_PVL,
    "W_KILLERS": W_KILLERS, "W_HISTORY": W_HISTORY, "W_CTL": W_CTL,
    "RFP_MARGIN": RFP_MARGIN, "RFP_MAX_DEPTH": RFP_MAX_DEPTH, "NULL_MIN_DEPTH": NULL_MIN_DEPTH,
    "IIR_MIN_DEPTH": IIR_MIN_DEPTH, "LMR_MIN_DEPTH": LMR_MIN_DEPTH, "LMR_MIN_MOVE": LMR_MIN_MOVE,
    "FUTILITY_MARGIN": FUTILITY_MARGIN, "LMP_BASE": LMP_BASE, "LMP_SCALE": LMP_SCALE,
    "SEE_PRUNE_DEPTH": SEE_PRUNE_DEPTH, "SEE_CAPTURE_MARGIN": SEE_CAPTURE_MARGIN,
    "SEE_QUIET_MARGIN": SEE_QUIET_MARGIN, "HISTORY_MAX": HISTORY_MAX, "HISTORY_BONUS_MAX": HISTORY_BONUS_MAX,
    "HISTORY_HALVE_AT": HISTORY_MAX,  # not used: HISTORY_GRAVITY
    "node_in_check": _node_in_check, "in_check": _in_check, "verdict": _verdict, "evaluate": _evaluate,
    "tt_key": _tt_key, "null_ok": _null_ok, "make_null": _make_null, "unmake_null": _unmake_null, "gen": _gen,
    "tactical": _tactical, "capture_order": _capture_order, "history_index": _history_index,
    "qs_futile": _qs_futile, "see_ge": _see_ge, "legality_info": _legality_info, "make_legal": _make_legal,
    "unmake": _unmake,
})


@kernel(nogil=True)
def search(tb: np.ndarray, ev: np.ndarray, bb: np.ndarray, mb: np.ndarray, st: np.ndarray,
           hist: np.ndarray, undo: np.ndarray, tt: np.ndarray, ws: np.ndarray,
           depth: int, alpha: int, beta: int, ply: int, do_null: bool) -> int:
    """The search (engine/search_core.py) of a chess position, as the Python driver calls it."""
    return search_chess((tb, ev, bb, mb, st), hist, undo, tt, ws, depth, alpha, beta, ply, do_null)
