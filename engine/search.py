# mypy: disable-error-code="no-any-return"
"""Alpha-beta search kernel: PVS with a transposition table and quiescence in one function.

Contract of ``search``: it returns the score of the position (side to move) when that
score lies strictly inside (alpha, beta); a score <= alpha is an upper bound and a score
>= beta a lower bound. Depth <= 0 means quiescence (captures only, unless in check).
Mate scores are ``MATE - plies to mate``. When ``ctl[STOP]`` is set the returned value is
meaningless and the caller discards the iteration.

Quiescence lives inside ``search`` so there is one recursive kernel, entered only from
Python: a call to a cached recursive kernel with a literal argument segfaults when numba
loads it from the cache (numba 0.68 here); see docs/engine.md.
"""

from __future__ import annotations

import numpy as np

from engine.bits import U0, U1, kernel, lsb
from engine.evaluate import VALUE_MG, evaluate
from engine.movegen import (
    BISHOP,
    F_CASTLE,
    F_EP,
    HALF,
    HP,
    KING_T,
    KNIGHT_T,
    MAXMOVES,
    MAXPLY,
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

# The search's scratch space is one flat int64 array ``ws`` and the transposition table one
# more: a recursive call copies every array argument's descriptor, so fewer arrays is faster.
W_MOVES = 0  # [ply * MAXMOVES + i]: move lists
W_SCORES = W_MOVES + (MAXPLY + 1) * MAXMOVES  # [ply * MAXMOVES + i]: their ordering scores
W_PV = W_SCORES + (MAXPLY + 1) * MAXMOVES  # [ply * (MAXPLY + 1) + i]: principal variations
W_PVL = W_PV + (MAXPLY + 1) * (MAXPLY + 1)  # [ply]: their lengths
W_KILLERS = W_PVL + MAXPLY + 1  # [ply * 2 + k]
W_HISTORY = W_KILLERS + (MAXPLY + 1) * 2  # [piece * 64 + to]
W_CTL = W_HISTORY + 12 * 64  # the ctl slots above
W_SIZE = W_CTL + 8

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


@kernel(nogil=True)
def search(tb: np.ndarray, ev: np.ndarray, bb: np.ndarray, mb: np.ndarray, st: np.ndarray,
           hist: np.ndarray, undo: np.ndarray, tt: np.ndarray, ws: np.ndarray,
           depth: int, alpha: int, beta: int, ply: int, do_null: bool) -> int:
    # Recursive calls must not pass literal constants: numba types them as literals and
    # the cached specialisation then segfaults on load. These two are computed instead.
    yes = ply >= 0
    no = ply < 0
    ctl = ws[W_CTL:W_SIZE]
    pvl = ws[W_PVL:W_KILLERS]
    hh = ws[W_HISTORY:W_CTL]
    kil = W_KILLERS + 2 * ply  # this ply's two killers: ws[kil], ws[kil + 1]
    pvl[ply] = 0
    ctl[NODES] += 1
    if ply > ctl[SELDEPTH]:
        ctl[SELDEPTH] = ply
    if ctl[CAN_STOP] != 0 and (ctl[STOP] != 0 or ctl[NODES] >= ctl[NODE_LIMIT]):
        ctl[STOP] = 1
        return 0
    checked = in_check(tb, bb, st)
    draw = ctl[CONTEMPT] if ply & 1 else -ctl[CONTEMPT]  # a draw's worth to the side to move here
    if ply > 0:
        # draws by the fifty-move rule or by repetition (one repetition is enough in search)
        if st[HALF] >= 100 and not checked:
            return draw
        hp = st[HP]
        key = bb[8]
        i = hp - 2
        lo = max(0, hp - st[HALF])
        while i >= lo:
            if hist[i] == key:
                return draw
            i -= 2
        # mate distance pruning
        alpha = max(alpha, -MATE + ply)
        beta = min(beta, MATE - ply - 1)
        if alpha >= beta:
            return alpha
    if ply >= MAXPLY - 2:
        return evaluate(tb, ev, bb, mb, st)
    if checked and depth < 1:
        depth = 1  # evade checks at the horizon instead of standing pat
    elif checked and ply > 0:
        depth += 1
    qnode = depth <= 0
    pv_node = beta - alpha > 1
    key = bb[8]
    # entry i: key (its bits as int64) at tt[2 * i], packed data at tt[2 * i + 1]
    tkey = np.int64(key)
    slot = 2 * np.int64(key & np.uint64((tt.shape[0] >> 1) - 1))
    tt_move = 0
    tt_hit = False
    tscore = 0
    tbound = 0
    if not qnode and tt[slot] == tkey:
        tt_hit = True
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
        static = evaluate(tb, ev, bb, mb, st)
        # a table score whose bound says it is nearer the truth stands in for the static score
        if tt_hit and abs(tscore) < MATE_BOUND and (
                tbound == BOUND_EXACT or (tbound == BOUND_LOWER and tscore > static)
                or (tbound == BOUND_UPPER and tscore < static)):
            static = tscore
        if qnode:
            if static >= beta:
                return static
            if static > alpha:
                alpha = static
        elif not pv_node:
            # reverse futility pruning
            if depth <= RFP_MAX_DEPTH and static - RFP_MARGIN * depth >= beta and abs(beta) < MATE_BOUND:
                return static
            # null move pruning
            us = st[SIDE]
            if (
                do_null
                and depth >= NULL_MIN_DEPTH
                and static >= beta
                and (bb[6 + us] & ~bb[PAWN] & ~bb[KING_T]) != U0
            ):
                r = 3 + depth // 4
                make_null(tb, bb, st, hist, undo)
                score = -search(tb, ev, bb, mb, st, hist, undo, tt, ws,
                                depth - 1 - r, -beta, -beta + 1, ply + 1, no)
                unmake_null(bb, st, hist, undo)
                if ctl[STOP] != 0:
                    return 0
                if score >= beta:
                    return beta if score >= MATE_BOUND else score
    if not qnode and depth >= IIR_MIN_DEPTH and tt_move == 0:
        depth -= 1  # no TT move: likely a node not seen before, not worth a full-depth search first
    moves = ws[W_MOVES + ply * MAXMOVES:W_MOVES + (ply + 1) * MAXMOVES]
    scores = ws[W_SCORES + ply * MAXMOVES:W_SCORES + (ply + 1) * MAXMOVES]
    n = gen_moves(tb, bb, st, moves, qnode)
    if n == 0:
        if checked:
            return -MATE + ply
        if qnode:
            return static
        return draw  # stalemate
    # order: TT move, captures by MVV-LVA, killers, history, captures that lose material
    for i in range(n):
        m = moves[i]
        fr = m & 63
        to = (m >> 6) & 63
        promo = (m >> 12) & 15
        victim = mb[to]
        if m == tt_move:
            s = 1 << 30
        elif victim >= 0 or ((m >> 16) & 3) == F_EP or promo:
            v = VALUE_MG[piece_type(victim)] if victim >= 0 else (VALUE_MG[PAWN] if not promo else 0)
            if promo:
                v += VALUE_MG[promo]
            s = (1 << 28) + v * 8 - piece_type(mb[fr])
            if (victim >= 0 and not promo and SEE_VALUE[piece_type(victim)] < SEE_VALUE[piece_type(mb[fr])]
                    and not see_ge(tb, bb, mb, m, 0)):
                s -= BAD_CAPTURE  # losing captures go after the quiet moves
        elif m == ws[kil]:
            s = (1 << 27) + 1
        elif m == ws[kil + 1]:
            s = 1 << 27
        else:
            s = hh[mb[fr] * 64 + to]
        scores[i] = s
    best = -INF if not qnode else static
    best_move = 0
    old_alpha = alpha
    searched = 0
    for i in range(n):
        # selection sort step
        bi = i
        for j in range(i + 1, n):
            if scores[j] > scores[bi]:
                bi = j
        if bi != i:
            moves[i], moves[bi] = moves[bi], moves[i]
            scores[i], scores[bi] = scores[bi], scores[i]
        m = moves[i]
        to = (m >> 6) & 63
        fr = m & 63
        victim = mb[to]
        is_tactical = victim >= 0 or ((m >> 16) & 3) == F_EP or ((m >> 12) & 15) != 0
        prunable = False
        if qnode and not checked:
            if scores[i] < 0:
                continue  # a losing capture (static exchange evaluation below zero)
            # delta pruning: even winning this piece cannot lift alpha
            gain = VALUE_MG[piece_type(victim)] if victim >= 0 else VALUE_MG[PAWN]
            prunable = ((m >> 12) & 15) == 0 and static + gain + DELTA_MARGIN <= alpha
        elif not qnode and not pv_node and not checked and searched > 0 and abs(alpha) < MATE_BOUND:
            if is_tactical:
                # a capture that loses more than SEE_CAPTURE_MARGIN a ply of depth by exchange
                if scores[i] < 0 and depth <= SEE_PRUNE_DEPTH and not see_ge(tb, bb, mb, m, -SEE_CAPTURE_MARGIN * depth):
                    continue
            elif depth <= 3 and (static + FUTILITY_MARGIN[depth] <= alpha or searched >= 3 + depth * depth):
                prunable = True  # futility and late-move pruning of quiet moves near the horizon
            elif depth <= SEE_PRUNE_DEPTH and not see_ge(tb, bb, mb, m, -SEE_QUIET_MARGIN * depth * depth):
                prunable = True  # a quiet move that hangs material by exchange
        piece = mb[fr]
        make_move(tb, bb, mb, st, hist, undo, m)
        # whether the move checks is needed only to exempt it from pruning or reduction
        may_reduce = (
            not qnode
            and searched > 0
            and depth >= LMR_MIN_DEPTH
            and ply > 0
            and searched + 1 > LMR_MIN_MOVE
            and not is_tactical
            and not checked
        )
        gives_check = (prunable or may_reduce) and in_check(tb, bb, st)
        if prunable and not gives_check:
            unmake_move(tb, bb, mb, st, hist, undo, m)
            continue
        searched += 1
        if qnode:
            score = -search(tb, ev, bb, mb, st, hist, undo, tt, ws,
                            depth - 1, -beta, -alpha, ply + 1, no)
        elif searched == 1:
            score = -search(tb, ev, bb, mb, st, hist, undo, tt, ws,
                            depth - 1, -beta, -alpha, ply + 1, yes)
        else:
            r = 0
            if may_reduce and not gives_check:
                r = int(0.5 + np.log(depth) * np.log(searched) / 2.0)
                if pv_node:
                    r -= 1
                if m == ws[kil] or m == ws[kil + 1]:
                    r -= 1
                r = max(0, min(r, depth - 2))
            score = -search(tb, ev, bb, mb, st, hist, undo, tt, ws,
                            depth - 1 - r, -alpha - 1, -alpha, ply + 1, yes)
            if score > alpha and r > 0:
                score = -search(tb, ev, bb, mb, st, hist, undo, tt, ws,
                                depth - 1, -alpha - 1, -alpha, ply + 1, yes)
            if score > alpha and score < beta:
                score = -search(tb, ev, bb, mb, st, hist, undo, tt, ws,
                                depth - 1, -beta, -alpha, ply + 1, yes)
        unmake_move(tb, bb, mb, st, hist, undo, m)
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
                        bonus = min(16 * depth * depth, HISTORY_BONUS_MAX)
                        k = piece * 64 + to
                        hh[k] += bonus - hh[k] * bonus // HISTORY_MAX
                        # malus: the quiet moves tried before this one failed to cut
                        for j in range(i):
                            q = moves[j]
                            qto = (q >> 6) & 63
                            if mb[qto] < 0 and ((q >> 16) & 3) != F_EP and ((q >> 12) & 15) == 0:
                                k = mb[q & 63] * 64 + qto
                                hh[k] -= bonus + hh[k] * bonus // HISTORY_MAX
                    break
    if qnode:
        return best
    if searched == 0:
        return static if static > -INF else alpha  # everything was pruned
    bound = BOUND_LOWER if best >= beta else (BOUND_EXACT if best > old_alpha else BOUND_UPPER)
    stored = best
    if stored > MATE_BOUND:
        stored += ply
    elif stored < -MATE_BOUND:
        stored -= ply
    tt[slot] = tkey
    tt[slot + 1] = tt_pack(best_move if bound != BOUND_UPPER else tt_move, stored, depth, bound)
    return best

