# mypy: disable-error-code="no-any-return"
# ruff: noqa: SIM108, SIM109, SIM110  (numba kernels: plain comparisons and loops, computed flags)
"""The Asian (AXF) game-end rules as Fairy-Stockfish applies them, as numba kernels.

``game_end`` is called at every search node (and by the Python side for a game's ruling):

- **60-move rule**: 120 plies without a capture draw, unless the side to move is
  checkmated; as in Fairy-Stockfish with AXF chasing, checks beyond ten by one side extend
  the count by two plies each.
- **Repetition**: a position repeated once inside the search tree, or twice in all
  otherwise, ends the game. If one side checked with every move of the cycle and the other
  did not, the checker loses; else if one side chased (``chased``) the same piece with every
  move and the other did not, the chaser loses; anything else is a draw.

``chased`` follows Fairy-Stockfish's definition of a chase: a new attack, made by the move
directly or by discovery, on a piece that is not a king or an uncrossed soldier, which is
either worth more than the attacker (horse or cannon on a rook; advisor or elephant on a
rook, cannon or horse) or has no real protector, excluding mutual attacks between pieces
of one kind unless one of them is pinned; plus defenders newly pinned and attacks
uncovered by a discovered check. pyffish is the judge (tests/data/xiangqi_repetitions.json
holds the sequences the tests compare); this is its reimplementation for the search.

Square sets are rows of 90 flags in the scratch array ``sc`` (layout ``S_*``): this code
only runs when a position repeats, so clarity beats bitboards here.
"""

from __future__ import annotations

import numpy as np

from engine.bits import kernel
from engine.xq_movegen import (
    ADVISOR,
    CANNON,
    ELEPHANT,
    HALF,
    HORSE,
    HP,
    KEY,
    KING,
    KSQ,
    MAXMOVES,
    NMOVE_PLIES,
    NULLP,
    PAWN,
    PAWN_N,
    PAWN_T,
    RAY,
    RAY_N,
    ROOK,
    SIDE,
    U_CHECK,
    U_MOVE,
    gen_moves,
    make_move,
    make_null,
    unmake_move,
    unmake_null,
)

R_NONE, R_DRAW, R_WIN, R_LOSS = 0, 1, 2, 3  # for the side to move
MAXCYC = NMOVE_PLIES + 4
S_OCC = 0  # occupancy used by the attack helpers
S_ATT = S_OCC + 90  # scratch attack set
S_ATT2 = S_ATT + 90
S_B = S_ATT2 + 90  # the chased set being built
S_PINS = S_B + 90
S_BLK_OLD = S_PINS + 90  # blockers for the victim's king before the move
S_BLK_NEW = S_BLK_OLD + 90
S_BLK_MOVER = S_BLK_NEW + 90  # blockers for the mover's king after the move
S_CAND = S_BLK_MOVER + 90
S_SNIPE = S_CAND + 90
S_OCC2 = S_SNIPE + 90
S_T1 = S_OCC2 + 90
S_KATT = S_T1 + 90  # the victim king's steps
S_MOVES = S_KATT + 90  # moves unmade by the judge, newest first
S_LEGAL = S_MOVES + MAXCYC  # move list for the 60-move rule's mate test
S_CH = S_LEGAL + MAXMOVES  # chased sets [x * 90 + sq] of the move into position hp - x
SCRATCH = S_CH + MAXCYC * 90


@kernel(inline=True)
def _ptype(pc: int) -> int:
    return pc - 7 if pc >= 7 else pc


@kernel(inline=True)
def _colour_of(pc: int) -> int:
    return 1 if pc >= 7 else 0


@kernel()
def _clear(sc: np.ndarray, row: int) -> None:
    for s in range(90):
        sc[row + s] = 0


@kernel()
def _load_occ(mb: np.ndarray, sc: np.ndarray, row: int) -> None:
    for s in range(90):
        sc[row + s] = 1 if mb[s] >= 0 else 0


@kernel()
def _any(sc: np.ndarray, row: int) -> bool:
    for s in range(90):
        if sc[row + s] != 0:
            return True
    return False


@kernel()
def _attacks(tb: np.ndarray, sc: np.ndarray, occ: int, colour: int, ptype: int, sq: int, out: int) -> None:
    """Row ``out`` := squares a ``colour`` piece of ``ptype`` on ``sq`` attacks, with occupancy row ``occ``.

    Like Fairy-Stockfish's ``attacks_bb``: no palace or river limits except the soldier's.
    """
    _clear(sc, out)
    f = sq % 9
    r = sq // 9
    if ptype == ROOK or ptype == CANNON:
        for d in range(4):
            base = RAY + (sq * 4 + d) * 10
            n = tb[RAY_N + sq * 4 + d]
            k = 0
            screen = False
            while k < n:
                t = tb[base + k]
                k += 1
                if ptype == ROOK:
                    sc[out + t] = 1
                    if sc[occ + t] != 0:
                        break
                elif sc[occ + t] != 0:
                    if screen:
                        sc[out + t] = 1
                        break
                    screen = True
    elif ptype == HORSE:
        for df, dr in ((1, 2), (-1, 2), (1, -2), (-1, -2), (2, 1), (2, -1), (-2, 1), (-2, -1)):
            tf = f + df
            tr = r + dr
            if 0 <= tf < 9 and 0 <= tr < 10:
                if dr == 2 or dr == -2:
                    leg = (r + dr // 2) * 9 + f
                else:
                    leg = r * 9 + f + df // 2
                if sc[occ + leg] == 0:
                    sc[out + tr * 9 + tf] = 1
    elif ptype == ELEPHANT:
        for df, dr in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
            tf = f + 2 * df
            tr = r + 2 * dr
            if 0 <= tf < 9 and 0 <= tr < 10 and sc[occ + (r + dr) * 9 + f + df] == 0:
                sc[out + tr * 9 + tf] = 1
    elif ptype == ADVISOR:
        for df, dr in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
            if 0 <= f + df < 9 and 0 <= r + dr < 10:
                sc[out + (r + dr) * 9 + f + df] = 1
    elif ptype == KING:
        for df, dr in ((0, 1), (0, -1), (1, 0), (-1, 0)):
            if 0 <= f + df < 9 and 0 <= r + dr < 10:
                sc[out + (r + dr) * 9 + f + df] = 1
    else:
        for j in range(tb[PAWN_N + colour * 90 + sq]):
            sc[out + tb[PAWN_T + colour * 270 + sq * 3 + j]] = 1


@kernel()
def _attacked_by(tb: np.ndarray, mb: np.ndarray, sc: np.ndarray, occ: int, s: int, c: int, skip: int,
                 except_row: int) -> int:
    """Pieces of colour ``c`` (not on ``skip``, nor flagged in ``except_row`` when >= 0) that
    attack ``s`` with occupancy row ``occ``: 0 for none, 1 for the king alone, more otherwise."""
    count = 0
    for x in range(90):
        p = mb[x]
        if p < 0 or _colour_of(p) != c or x == skip:
            continue
        if except_row >= 0 and sc[except_row + x] != 0:
            continue
        _attacks(tb, sc, occ, c, _ptype(p), x, S_ATT2)
        if sc[S_ATT2 + s] != 0:
            count += 1
            if _ptype(p) != KING:
                count += 1000  # a non-king root
    return count


@kernel()
def _blockers(tb: np.ndarray, mb: np.ndarray, sc: np.ndarray, c: int, out: int) -> None:
    """Row ``out`` := pieces of either colour whose removal would expose ``c``'s king to a
    rook, a cannon (two screens) or a horse (its leg) of the other colour."""
    _clear(sc, out)
    a = 1 - c
    ksq = -1
    for x in range(90):
        if mb[x] == c * 7 + KING:
            ksq = x
    if ksq < 0:
        return
    kf = ksq % 9
    kr = ksq // 9
    _clear(sc, S_SNIPE)
    _load_occ(mb, sc, S_OCC2)
    # rook and cannon snipers on the king's lines, not attacking it now
    for d in range(4):
        base = RAY + (ksq * 4 + d) * 10
        n = tb[RAY_N + ksq * 4 + d]
        between = 0
        for k in range(n):
            t = tb[base + k]
            p = mb[t]
            if p < 0:
                continue
            if p == a * 7 + ROOK and between > 0:
                sc[S_SNIPE + t] = 1
            elif p == a * 7 + CANNON and between != 1:
                sc[S_SNIPE + t] = 2
            between += 1
    # horse snipers: a horse's step away, its leg blocked
    for df, dr in ((1, 2), (-1, 2), (1, -2), (-1, -2), (2, 1), (2, -1), (-2, 1), (-2, -1)):
        sf = kf + df
        sr = kr + dr
        if 0 <= sf < 9 and 0 <= sr < 10 and mb[sr * 9 + sf] == a * 7 + HORSE:
            if dr == 2 or dr == -2:
                leg = (sr - dr // 2) * 9 + sf
            else:
                leg = sr * 9 + sf - df // 2
            if mb[leg] >= 0:
                sc[S_SNIPE + sr * 9 + sf] = 3
    # sliding snipers (rooks, horses) leave the occupancy used for the rook lines
    for x in range(90):
        if sc[S_SNIPE + x] == 1 or sc[S_SNIPE + x] == 3:
            sc[S_OCC2 + x] = 0
    for x in range(90):
        kind = sc[S_SNIPE + x]
        if kind == 0:
            continue
        if kind == 3:
            df = x % 9 - kf
            dr = x // 9 - kr
            if dr == 2 or dr == -2:
                leg = x - (dr // 2) * 9
            else:
                leg = x - df // 2
            if sc[S_OCC2 + leg] != 0:
                sc[out + leg] = 1
            continue
        # squares strictly between the king and x on their line
        step = 0
        if x % 9 == kf:
            step = 9 if x > ksq else -9
        else:
            step = 1 if x > ksq else -1
        cnt = 0
        first = -1
        second = -1
        s = ksq + step
        while s != x:
            occupied = (mb[s] >= 0) if kind == 2 else (sc[S_OCC2 + s] != 0)
            if occupied:
                cnt += 1
                if first < 0:
                    first = s
                else:
                    second = s
            s += step
        if cnt == 1:
            sc[out + first] = 1
        elif cnt == 2 and kind == 2:
            sc[out + first] = 1
            sc[out + second] = 1


@kernel()
def _add_chased(tb: np.ndarray, mb: np.ndarray, sc: np.ndarray, stm: int, asq: int, atype: int,
                att: int) -> None:
    """Fairy-Stockfish's ``addChased``: add to S_B the pieces of ``stm`` in row ``att``
    (attacked by the mover's ``atype`` on ``asq``) that count as chased."""
    fresh = False
    for s in range(90):
        if sc[att + s] != 0 and sc[S_B + s] == 0:
            fresh = True
            break
    if not fresh:
        return
    lo = stm * 7
    for s in range(90):
        if sc[att + s] == 0:
            continue
        p = mb[s]
        # only the victim's pieces; never the king nor a soldier still on its own side
        if p < lo or p >= lo + 7:
            sc[att + s] = 0
            continue
        t = p - lo
        if t == KING or (t == PAWN and ((s < 45) if stm == 0 else (s >= 45))):
            sc[att + s] = 0
            continue
        if (atype == HORSE or atype == CANNON) and t == ROOK:
            sc[S_B + s] = 1
        if (atype == ELEPHANT or atype == ADVISOR) and (t == ROOK or t == CANNON or t == HORSE):
            sc[S_B + s] = 1
    _load_occ(mb, sc, S_OCC)
    af = asq % 9
    ar = asq // 9
    diag_blocked = False
    for df, dr in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
        if 0 <= af + df < 9 and 0 <= ar + dr < 10 and mb[(ar + dr) * 9 + af + df] >= 0:
            diag_blocked = True
    if atype == HORSE and diag_blocked:
        for s in range(90):
            if sc[att + s] != 0 and mb[s] == lo + HORSE:
                _attacks(tb, sc, S_OCC, stm, HORSE, s, S_ATT2)
                if sc[S_ATT2 + asq] != 0:
                    sc[att + s] = 0
    else:
        for s in range(90):
            if sc[att + s] != 0 and mb[s] == lo + atype and sc[S_PINS + s] == 0:
                sc[att + s] = 0
    # unprotected: no real root once the attacker is gone
    sc[S_OCC + asq] = 0
    mover_king = -1
    for x in range(90):
        if mb[x] == (1 - stm) * 7 + KING:
            mover_king = x
    for s in range(90):
        if sc[att + s] == 0:
            continue
        roots = _attacked_by(tb, mb, sc, S_OCC, s, stm, -1, S_PINS)
        if roots == 0:
            sc[S_B + s] = 1
        elif roots == 1 and mover_king >= 0:
            # the king alone defends s, but taking back would face the other king
            _attacks(tb, sc, S_OCC, 1 - stm, ROOK, mover_king, S_ATT2)
            if sc[S_ATT2 + s] != 0:
                sc[S_B + s] = 1
    _load_occ(mb, sc, S_OCC)


@kernel()
def chased(tb: np.ndarray, mb: np.ndarray, st: np.ndarray, sc: np.ndarray, m: int, captured: int,
           out: int) -> None:
    """Row ``out`` := the pieces of the side to move that the last move ``m`` chases.

    Expects S_BLK_OLD to hold the blockers for the side to move's king before the move.
    """
    stm = st[SIDE]
    mover = 1 - stm
    fr = m & 127
    to = (m >> 7) & 127
    _clear(sc, S_B)
    _blockers(tb, mb, sc, stm, S_BLK_NEW)
    _blockers(tb, mb, sc, mover, S_BLK_MOVER)
    # pins: the victim's blockers, and its lone piece between the two kings on one file
    for s in range(90):
        sc[S_PINS + s] = sc[S_BLK_NEW + s]
    mk = st[KSQ + mover]
    vk = st[KSQ + stm]
    if mk % 9 == vk % 9:
        cnt = 0
        last = -1
        s = mk % 9
        while s < 90:
            p = mb[s]
            if p >= 0 and _colour_of(p) == stm and _ptype(p) != KING:
                cnt += 1
                last = s
            s += 9
        if cnt == 1:
            sc[S_PINS + last] = 1
    _load_occ(mb, sc, S_OCC)
    # direct attacks by the moved piece (for rooks and cannons only off the line it moved on)
    mtype = _ptype(mb[to])
    if mtype != KING and mtype != PAWN:
        _attacks(tb, sc, S_OCC, mover, mtype, to, S_ATT)
        for s in range(90):
            p = mb[s]
            if sc[S_ATT + s] != 0 and (p < 0 or _colour_of(p) != stm):
                sc[S_ATT + s] = 0
        if mtype == ROOK or mtype == CANNON:
            ff = fr % 9
            fr_r = fr // 9
            vertical = ff == to % 9
            for s in range(90):
                if (vertical and s % 9 == ff) or (not vertical and s // 9 == fr_r):
                    sc[S_ATT + s] = 0
        _add_chased(tb, mb, sc, stm, to, mtype, S_ATT)
    # discovered attacks: pieces whose leg, eye, line or screen the move changed
    _clear(sc, S_CAND)
    ff = fr % 9
    fr_r = fr // 9
    for s in range(90):
        p = mb[s]
        if p < 0 or _colour_of(p) != mover:
            continue
        t = _ptype(p)
        sf = s % 9
        sr = s // 9
        leg = t == HORSE and abs(sf - ff) + abs(sr - fr_r) == 1
        eye = t == ELEPHANT and abs(sf - ff) == 1 and abs(sr - fr_r) == 1
        line = (t == CANNON or t == ROOK) and (sf == ff or sr == fr_r) and s != fr
        screen = t == CANNON and (sf == to % 9 or sr == to // 9) and s != to
        if leg or eye or line or screen:
            sc[S_CAND + s] = 1
    for s in range(90):
        if sc[S_CAND + s] == 0:
            continue
        t = _ptype(mb[s])
        _load_occ(mb, sc, S_OCC)
        _attacks(tb, sc, S_OCC, mover, t, s, S_ATT)
        # occupancy before the move
        sc[S_OCC + fr] = 1
        if captured < 0:
            sc[S_OCC + to] = 0
        _attacks(tb, sc, S_OCC, mover, t, s, S_ATT2)
        for x in range(90):
            p = mb[x]
            keep = sc[S_ATT + x] != 0 and sc[S_ATT2 + x] == 0 and p >= 0 and _colour_of(p) == stm
            sc[S_T1 + x] = 1 if keep else 0
        _load_occ(mb, sc, S_OCC)
        for x in range(90):
            sc[S_ATT + x] = sc[S_T1 + x]
        _add_chased(tb, mb, sc, stm, s, t, S_ATT)
    # Fairy-Stockfish does the rest only after a real move (pliesFromNull > 0): always here
    if mover >= 0:
        _load_occ(mb, sc, S_OCC)
        # fake roots: a newly pinned piece no longer protects what it guarded
        for s in range(90):
            p = mb[s]
            if sc[S_BLK_NEW + s] == 0 or sc[S_BLK_OLD + s] != 0 or p < 0 or _colour_of(p) != stm:
                continue
            _attacks(tb, sc, S_OCC, stm, _ptype(p), s, S_ATT)
            for s2 in range(90):
                q = mb[s2]
                if sc[S_ATT + s2] == 0 or q < 0 or _colour_of(q) != stm:
                    continue
                tq = _ptype(q)
                if tq == KING or (tq == PAWN and ((s2 < 45) if stm == 0 else (s2 >= 45))):
                    continue
                if _attacked_by(tb, mb, sc, S_OCC, s2, mover, -1, S_BLK_MOVER) > 0:
                    sc[S_B + s2] = 1
        # discovered checks: what the uncovered pieces attack
        for s in range(90):
            p = mb[s]
            if sc[S_BLK_NEW + s] == 0 or sc[S_BLK_OLD + s] != 0 or p < 0 or _colour_of(p) != mover:
                continue
            _attacks(tb, sc, S_OCC, mover, _ptype(p), s, S_ATT)
            _attacks(tb, sc, S_OCC, stm, KING, vk, S_KATT)
            for s2 in range(90):
                q = mb[s2]
                if sc[S_ATT + s2] == 0 or q < 0 or _colour_of(q) != stm:
                    continue
                if sc[S_KATT + s2] == 0:
                    sc[S_B + s2] = 1
                else:
                    sc[S_OCC + s] = 0
                    sc[S_OCC + vk] = 0
                    if _attacked_by(tb, mb, sc, S_OCC, s2, mover, s, -1) > 0:
                        sc[S_B + s2] = 1
                    sc[S_OCC + s] = 1
                    sc[S_OCC + vk] = 1
    for s in range(90):
        sc[out + s] = sc[S_B + s]


@kernel()
def _undo_board(sc: np.ndarray, row: int, m: int) -> None:
    """Fairy-Stockfish's ``undo_move_board``: a set of squares before move ``m``."""
    fr = m & 127
    to = (m >> 7) & 127
    if sc[row + to] != 0:
        sc[row + to] = 0
        sc[row + fr] = 1


@kernel()
def _and(sc: np.ndarray, row: int, other: int) -> None:
    for s in range(90):
        if sc[other + s] == 0:
            sc[row + s] = 0


@kernel()
def judge(tb: np.ndarray, mb: np.ndarray, st: np.ndarray, hist: np.ndarray, undo: np.ndarray,
          sc: np.ndarray, i: int, end: int) -> int:
    """Ruling on the cycle that repeats the position ``i`` plies back (R_DRAW/R_WIN/R_LOSS)."""
    hp = st[HP]
    back = min(i + 2, hp)
    # Replaying the cycle may reach back past a null move of the search (move 0): it is
    # undone and redone as a null move, whose chased set is empty. (Taken for a move a0a0
    # it once emptied the square a0 of the search's board: an illegal bestmove.)
    for j in range(back):
        m = undo[hp - 1 - j, U_MOVE]
        sc[S_MOVES + j] = m
        if m == 0:
            unmake_null(st, hist, undo)
        else:
            unmake_move(tb, mb, st, hist, undo, m)
    for x in range(back, i + 2):
        _clear(sc, S_CH + x * 90)
    for j in range(back - 1, -1, -1):
        m = sc[S_MOVES + j]
        if m == 0:
            make_null(tb, st, hist, undo)
            _clear(sc, S_CH + j * 90)
            continue
        victim = 1 - st[SIDE]
        _blockers(tb, mb, sc, victim, S_BLK_OLD)
        cap = mb[(m >> 7) & 127]
        make_move(tb, mb, st, hist, undo, m)
        if j <= i + 1:
            chased(tb, mb, st, sc, m, cap, S_CH + j * 90)
    # the oldest position's own chase set is unknown (no move before the history): empty
    if back <= i + 1:
        _clear(sc, S_CH + back * 90)
    # Fairy-Stockfish's loop over the cycle
    chk0 = undo[hp, U_CHECK] != 0
    them = chk0 and undo[hp - 2, U_CHECK] != 0
    us = undo[hp - 1, U_CHECK] != 0 and undo[hp - 3, U_CHECK] != 0
    CT = S_ATT
    CU = S_T1
    for s in range(90):
        sc[CT + s] = sc[S_CH + s]
        sc[CU + s] = sc[S_CH + 90 + s]
    _undo_board(sc, CT, undo[hp - 2, U_MOVE])
    _and(sc, CT, S_CH + 2 * 90)
    _undo_board(sc, CU, undo[hp - 3, U_MOVE])
    _and(sc, CU, S_CH + 3 * 90)
    k = 4
    while k <= i:
        if k != st[NULLP]:  # no chase into the start position or one after a null move
            _undo_board(sc, CT, undo[hp - k, U_MOVE])  # the move into position hp - (k - 1)
            _and(sc, CT, S_CH + k * 90)
        them = them and undo[hp - k, U_CHECK] != 0
        if k == i:
            break
        if k + 1 <= end:
            us = us and undo[hp - k - 1, U_CHECK] != 0
            _undo_board(sc, CU, undo[hp - k - 1, U_MOVE])
            _and(sc, CU, S_CH + (k + 1) * 90)
        k += 2
    if them or us:
        if not us:
            return R_WIN
        if not them:
            return R_LOSS
        return R_DRAW
    ct = _any(sc, CT)
    cu = _any(sc, CU)
    if ct or cu:
        if not cu:
            return R_WIN
        if not ct:
            return R_LOSS
    return R_DRAW


@kernel()
def game_end(tb: np.ndarray, mb: np.ndarray, st: np.ndarray, hist: np.ndarray, undo: np.ndarray,
             sc: np.ndarray, ply: int) -> int:
    """R_NONE, or how the game ends here by the 60-move rule or a repetition (side to move's view).

    ``ply`` is the distance from the search root: inside the tree one repetition is enough;
    with ``ply`` 0 (a game's ruling) the position must have occurred three times.
    Expects ``undo[st[HP], U_CHECK]`` to say whether the side to move is in check.
    """
    hp = st[HP]
    half = st[HALF]
    pfn = st[NULLP]  # plies since the start or the last null move
    end = min(half, pfn, hp)
    if half >= NMOVE_PLIES:
        live = undo[hp, U_CHECK] == 0
        if not live:
            live = gen_moves(tb, mb, st, sc[S_LEGAL:S_LEGAL + MAXMOVES], False) > 0
        if live:
            offset = 0
            if pfn >= 20:
                e2 = min(half, pfn, hp - 1)
                ct = 1 if undo[hp, U_CHECK] != 0 else 0
                cu = 1 if undo[hp - 1, U_CHECK] != 0 else 0
                x = 2
                while x < e2:
                    ct += 1 if undo[hp - x, U_CHECK] != 0 else 0
                    cu += 1 if undo[hp - x - 1, U_CHECK] != 0 else 0
                    x += 2
                offset = 2 * max(max(ct, cu) - 10, 0)
            if half - offset >= NMOVE_PLIES:
                return R_DRAW
    if end < 4:
        return R_NONE
    key = st[KEY]
    cnt = 0
    i = 4
    while i <= end:
        if hist[hp - i] == key:
            cnt += 1
            if cnt + 1 == (2 if ply > i else 3):
                return judge(tb, mb, st, hist, undo, sc, i, end)
        i += 2
    return R_NONE
