# mypy: disable-error-code="no-any-return"
"""Xiangqi alpha-beta kernel: the chess kernel's search (engine/search.py) over the xiangqi
move generator, with the repetition rules of the tables' ``RULES`` slot at every node.

Same contract as ``engine.search.search``: a score strictly inside (alpha, beta) is exact,
<= alpha an upper bound, >= beta a lower bound; depth <= 0 is quiescence; mate scores are
``MATE - plies``; ``ctl[STOP]`` voids the result. The transposition-table format, the
scratch layout (``W_*``) and the ``ctl`` slots are the chess kernel's, so the Python driver
(engine/searcher.py) runs both. numba cannot pass a move generator to a shared kernel
without costing every node an indirect call, so the ~200 lines of search are per variant.

Differences from chess: a side without a legal move has lost (stalemate too); a repeated
position is scored by engine/xq_rules.py: under the AXF rules as Fairy-Stockfish applies them
(perpetual check loses for the checker, perpetual chase for the chaser, anything else draws), or
under the Chinese rules' 第26条 as far as the tree follows them (a forbidden cycle, 长将, 长捉 or
一将一捉, loses against an allowed one; both forbidden draw); 120 plies without a capture draw.
"""

from __future__ import annotations

import numpy as np

from engine.bits import kernel
from engine.search_common import (
    BOUND_EXACT,
    BOUND_LOWER,
    BOUND_UPPER,
    CAN_STOP,
    CONTEMPT,
    INF,
    MATE,
    MATE_BOUND,
    NODE_LIMIT,
    NODES,
    SELDEPTH,
    STOP,
    tt_pack,
)
from engine.xq_evaluate import VALUE, evaluate
from engine.xq_movegen import (
    FILE,
    HALF,
    HP,
    KEY,
    KING,
    KSQ,
    MAXMOVES,
    MAXPLY,
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

W_MOVES = 0
W_SCORES = W_MOVES + (MAXPLY + 1) * MAXMOVES
W_PV = W_SCORES + (MAXPLY + 1) * MAXMOVES
W_PVL = W_PV + (MAXPLY + 1) * (MAXPLY + 1)
W_KILLERS = W_PVL + MAXPLY + 1
W_HISTORY = W_KILLERS + (MAXPLY + 1) * 2  # [piece * 90 + to]
W_CTL = W_HISTORY + 14 * 90
W_RULES = W_CTL + 8  # scratch for the repetition judge
W_SIZE = W_RULES + SCRATCH

# ---- tunables -------------------------------------------------------------------------
RFP_MARGIN = 120
RFP_MAX_DEPTH = 3
FUTILITY_MARGIN = (0, 130, 240, 350)
DELTA_MARGIN = 200
NULL_MIN_DEPTH = 3
LMR_MIN_DEPTH = 3
LMR_MIN_MOVE = 3
# ---------------------------------------------------------------------------------------


@kernel(nogil=True)
def search(tb: np.ndarray, mb: np.ndarray, st: np.ndarray, hist: np.ndarray, undo: np.ndarray,
           tt: np.ndarray, ws: np.ndarray, depth: int, alpha: int, beta: int, ply: int, do_null: bool) -> int:
    yes = ply >= 0
    no = ply < 0
    ctl = ws[W_CTL:W_RULES]
    pvl = ws[W_PVL:W_KILLERS]
    hh = ws[W_HISTORY:W_CTL]
    kil = W_KILLERS + 2 * ply
    pvl[ply] = 0
    ctl[NODES] += 1
    if ply > ctl[SELDEPTH]:
        ctl[SELDEPTH] = ply
    if ctl[CAN_STOP] != 0 and (ctl[STOP] != 0 or ctl[NODES] >= ctl[NODE_LIMIT]):
        ctl[STOP] = 1
        return 0
    checked = in_check(tb, mb, st)
    undo[st[HP], U_CHECK] = 1 if checked else 0
    if ply > 0:
        # repetitions (one repetition inside the tree is enough; tb[RULES] says whose rules) and 60 moves;
        # game_end has nothing to say before four quiet plies (most nodes: skip the call)
        verdict = R_NONE
        half = st[HALF]
        if half >= NMOVE_PLIES or (half >= 4 and st[NULLP] >= 4 and st[HP] >= 4):
            verdict = game_end(tb, mb, st, hist, undo, ws[W_RULES:W_SIZE], ply)
        if verdict == R_DRAW:
            return ctl[CONTEMPT] if ply & 1 else -ctl[CONTEMPT]  # a draw's worth to the side to move here
        if verdict == R_WIN:
            return MATE - ply
        if verdict == R_LOSS:
            return -MATE + ply
        alpha = max(alpha, -MATE + ply)
        beta = min(beta, MATE - ply - 1)
        if alpha >= beta:
            return alpha
    if ply >= MAXPLY - 2:
        return evaluate(tb, mb, st)
    if checked and depth < 1:
        depth = 1
    elif checked and ply > 0:
        depth += 1
    qnode = depth <= 0
    pv_node = beta - alpha > 1
    key = st[KEY]
    slot = 2 * (key & ((tt.shape[0] >> 1) - 1))
    tt_move = 0
    if not qnode and tt[slot] == key:
        data = tt[slot + 1]
        tt_move = data & 0x3FFFF
        tdepth = ((data >> 34) & 255) - 1
        tscore = ((data >> 18) & 0xFFFF) - 32768
        tbound = (data >> 42) & 3
        if tscore > MATE_BOUND:
            tscore -= ply
        elif tscore < -MATE_BOUND:
            tscore += ply
        if (
            not pv_node
            and ply > 0
            and tdepth >= depth
            and (
                tbound == BOUND_EXACT
                or (tbound == BOUND_LOWER and tscore >= beta)
                or (tbound == BOUND_UPPER and tscore <= alpha)
            )
        ):
            return tscore
    static = -INF
    if not checked:
        static = evaluate(tb, mb, st)
        if qnode:
            if static >= beta:
                return static
            if static > alpha:
                alpha = static
        elif not pv_node:
            if depth <= RFP_MAX_DEPTH and static - RFP_MARGIN * depth >= beta and abs(beta) < MATE_BOUND:
                return static
            us = st[SIDE]
            if do_null and depth >= NULL_MIN_DEPTH and static >= beta and _has_big_piece(mb, st, us):
                r = 3 + depth // 4
                make_null(tb, st, hist, undo)
                score = -search(tb, mb, st, hist, undo, tt, ws, depth - 1 - r, -beta, -beta + 1, ply + 1, no)
                unmake_null(st, hist, undo)
                if ctl[STOP] != 0:
                    return 0
                if score >= beta:
                    return beta if score >= MATE_BOUND else score
    moves = ws[W_MOVES + ply * MAXMOVES:W_MOVES + (ply + 1) * MAXMOVES]
    scores = ws[W_SCORES + ply * MAXMOVES:W_SCORES + (ply + 1) * MAXMOVES]
    n = gen_any(tb, mb, st, moves, qnode, yes, checked)  # pseudo-legal: each move is tested when made
    for i in range(n):
        m = moves[i]
        fr = m & 127
        to = (m >> 7) & 127
        victim = mb[to]
        if m == tt_move:
            s = 1 << 30
        elif victim >= 0:
            s = (1 << 28) + VALUE[piece_type(victim)] * 8 - piece_type(mb[fr])
        elif m == ws[kil]:
            s = (1 << 27) + 1
        elif m == ws[kil + 1]:
            s = 1 << 27
        else:
            s = hh[mb[fr] * 90 + to]
        scores[i] = s
    best = -INF if not qnode else static
    best_move = 0
    old_alpha = alpha
    searched = 0
    legal = 0
    us = st[SIDE]
    ksq = st[KSQ + us]
    kf = tb[FILE + ksq]
    kr = tb[RANK + ksq]
    for i in range(n):
        bi = i
        for j in range(i + 1, n):
            if scores[j] > scores[bi]:
                bi = j
        if bi != i:
            moves[i], moves[bi] = moves[bi], moves[i]
            scores[i], scores[bi] = scores[bi], scores[i]
        m = moves[i]
        to = (m >> 7) & 127
        fr = m & 127
        victim = mb[to]
        is_tactical = victim >= 0
        prunable = False
        if qnode and not checked:
            gain = VALUE[piece_type(victim)] if victim >= 0 else 0
            if piece_type(victim) == PAWN:
                gain = 100
            prunable = static + gain + DELTA_MARGIN <= alpha
        elif (
            not qnode
            and not pv_node
            and not checked
            and not is_tactical
            and searched > 0
            and abs(alpha) < MATE_BOUND
            and depth <= 3
        ):
            prunable = static + FUTILITY_MARGIN[depth] <= alpha or searched >= 4 + 4 * depth * depth
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
            continue
        legal += 1
        may_reduce = (
            not qnode
            and searched > 0
            and depth >= LMR_MIN_DEPTH
            and ply > 0
            and searched + 1 > LMR_MIN_MOVE
            and not is_tactical
            and not checked
        )
        gives_check = (prunable or may_reduce) and in_check(tb, mb, st)
        if prunable and not gives_check:
            unmake_move(tb, mb, st, hist, undo, m)
            continue
        searched += 1
        if qnode:
            score = -search(tb, mb, st, hist, undo, tt, ws, depth - 1, -beta, -alpha, ply + 1, no)
        elif searched == 1:
            score = -search(tb, mb, st, hist, undo, tt, ws, depth - 1, -beta, -alpha, ply + 1, yes)
        else:
            r = 0
            if may_reduce and not gives_check:
                r = int(0.5 + np.log(depth) * np.log(searched) / 2.0)
                if pv_node:
                    r -= 1
                if m == ws[kil] or m == ws[kil + 1]:
                    r -= 1
                r = max(0, min(r, depth - 2))
            score = -search(tb, mb, st, hist, undo, tt, ws, depth - 1 - r, -alpha - 1, -alpha, ply + 1, yes)
            if score > alpha and r > 0:
                score = -search(tb, mb, st, hist, undo, tt, ws, depth - 1, -alpha - 1, -alpha, ply + 1, yes)
            if score > alpha and score < beta:
                score = -search(tb, mb, st, hist, undo, tt, ws, depth - 1, -beta, -alpha, ply + 1, yes)
        unmake_move(tb, mb, st, hist, undo, m)
        if ctl[STOP] != 0:
            return 0
        if score > best:
            best = score
            best_move = m
            if score > alpha:
                alpha = score
                row = W_PV + ply * (MAXPLY + 1)
                ws[row] = m
                k = pvl[ply + 1]
                for j in range(k):
                    ws[row + 1 + j] = ws[row + MAXPLY + 1 + j]
                pvl[ply] = k + 1
                if alpha >= beta:
                    if not is_tactical and not qnode:
                        if ws[kil] != m:
                            ws[kil + 1] = ws[kil]
                            ws[kil] = m
                        h = hh[piece * 90 + to] + depth * depth
                        hh[piece * 90 + to] = h
                        if h > (1 << 26):
                            for j in range(hh.shape[0]):
                                hh[j] >>= 1
                    break
    if legal == 0 and (checked or not qnode):
        return -MATE + ply  # no legal move loses, in check or not
    if qnode:
        return best
    if searched == 0:
        return static if static > -INF else alpha
    bound = BOUND_LOWER if best >= beta else (BOUND_EXACT if best > old_alpha else BOUND_UPPER)
    stored = best
    if stored > MATE_BOUND:
        stored += ply
    elif stored < -MATE_BOUND:
        stored -= ply
    tt[slot] = key
    tt[slot + 1] = tt_pack(best_move if bound != BOUND_UPPER else tt_move, stored, depth, bound)
    return best


@kernel(inline=True)
def _has_big_piece(mb: np.ndarray, st: np.ndarray, us: int) -> bool:
    """Null move is unsafe with soldiers and guards alone (zugzwang is real there)."""
    lo = us * 7
    for slot in range(us * 16, us * 16 + 16):
        sq = st[PL + slot]
        if sq >= 0:
            p = mb[sq]
            if p >= lo + 3 and p <= lo + 5:  # horse, rook, cannon
                return True
    return False

