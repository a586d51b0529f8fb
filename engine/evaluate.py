# mypy: disable-error-code="no-any-return"
"""Static evaluation: tapered piece-square tables, mobility, pawn structure and king safety.

All tunable numbers sit in the block below. Scores are centipawns from the side to move.
Piece-square tables are built from a few shape rules (centralisation, advancement, king
shelter) rather than typed out square by square.
"""

from __future__ import annotations

import functools

import numpy as np

from engine.bits import (
    FILE_A,
    FILE_H,
    RANK_1,
    U0,
    U1,
    U7,
    U8,
    U9,
    U16,
    U32,
    kernel,
    lsb,
    popcount,
)
from engine.movegen import (
    BISHOP,
    KING_T,
    KNIGHT_T,
    PAWN,
    QUEEN,
    ROOK,
    SIDE,
    bishop_att,
    piece_type,
    rook_att,
)
from engine.tables import FILE, KING, KNIGHT, SHIELD, SQ

# ---- tunables -------------------------------------------------------------------------
VALUE_MG = (100, 320, 335, 480, 960, 0)
VALUE_EG = (120, 300, 320, 540, 1000, 0)
PHASE_W = (0, 1, 1, 2, 4, 0)  # full middlegame = 24
MOB_MG = (0, 4, 5, 3, 2, 0)  # per attacked square not covered by enemy pawns
MOB_EG = (0, 4, 5, 5, 3, 0)
MOB_BASE = (0, 4, 6, 6, 12, 0)  # typical mobility, subtracted so piece values stay honest
PASSED_MG = (0, 5, 10, 15, 25, 40, 60, 0)  # by relative rank
PASSED_EG = (0, 10, 15, 25, 45, 70, 110, 0)
DOUBLED = (10, 20)  # mg, eg penalty per extra pawn on a file
ISOLATED = (10, 15)
BISHOP_PAIR = (30, 50)
ROOK_OPEN = (25, 10)
ROOK_SEMI = (12, 6)
SHIELD_MG = 12  # per pawn in front of the king
KING_ATTACK_W = (0, 2, 2, 3, 5, 0)  # attack units per square of the king zone hit
TEMPO = 10
# ---------------------------------------------------------------------------------------

PST_MG = 0
PST_EG = 768
EV_SIZE = 1536


def _pst_value(ptype: int, sq: int) -> tuple[int, int]:
    f, r = sq % 8, sq // 8
    md = abs(2 * f - 7) + abs(2 * r - 7)  # 2 (centre) .. 14 (corner)
    centre = 14 - md
    if ptype == PAWN:
        mg = (0, 0, 2, 6, 14, 25, 45, 0)[r] + (8 if f in (3, 4) and r in (3, 4) else 0)
        mg -= 8 if f in (3, 4) and r == 1 else 0
        eg = (0, 0, 5, 12, 25, 45, 75, 0)[r]
    elif ptype == KNIGHT_T:
        mg = centre * 3 - 18
        eg = centre * 3 - 18
    elif ptype == BISHOP:
        mg = centre * 2 - 10 + (6 if f == r or f + r == 7 else 0)
        eg = centre * 2 - 10
    elif ptype == ROOK:
        mg = (20 if r == 6 else 0) + (6 if f in (3, 4) and r == 0 else 0)
        eg = 10 if r == 6 else 0
    elif ptype == QUEEN:
        mg = centre - 6 - (8 if r >= 5 else 0)
        eg = centre * 2 - 12
    else:
        mg = (20 if f in (1, 2, 6) else 0) if r == 0 else (-10 if r == 1 else -30 - 10 * r)
        eg = centre * 4 - 28
    return VALUE_MG[ptype] + mg, VALUE_EG[ptype] + eg


@functools.cache
def eval_tables() -> np.ndarray:
    """Piece-square values (material included) for every piece code and square."""
    ev = np.zeros(EV_SIZE, dtype=np.int64)
    for colour in range(2):
        for ptype in range(6):
            for sq in range(64):
                own_sq = sq if colour == 0 else sq ^ 56  # mirror ranks for black
                mg, eg = _pst_value(ptype, own_sq)
                ev[PST_MG + (colour * 6 + ptype) * 64 + sq] = mg
                ev[PST_EG + (colour * 6 + ptype) * 64 + sq] = eg
    ev.flags.writeable = False
    return ev


@kernel()
def _pawn_attacks(pawns: np.uint64, colour: int) -> np.uint64:
    if colour == 0:
        return ((pawns & ~FILE_A) << U7) | ((pawns & ~FILE_H) << U9)
    return ((pawns & ~FILE_A) >> U9) | ((pawns & ~FILE_H) >> U7)


@kernel()
def _files(b: np.uint64) -> np.uint64:
    """Bit f set when file f holds a square of ``b``."""
    b |= b >> U32
    b |= b >> U16
    b |= b >> U8
    return b & RANK_1


@kernel()
def _behind(b: np.uint64, c: int) -> np.uint64:
    """Squares on the files of ``b`` strictly behind its squares as colour ``c`` moves.

    For white (``c`` = 0) that is below them; a pawn there has to move towards them.
    """
    if c == 0:
        b >>= U8
        b |= b >> U8
        b |= b >> U16
        return b | (b >> U32)
    b <<= U8
    b |= b << U8
    b |= b << U16
    return b | (b << U32)


@kernel()
def _beside(b: np.uint64) -> np.uint64:
    """``b`` plus its squares shifted one file either way."""
    return b | ((b & ~FILE_H) << U1) | ((b & ~FILE_A) >> U1)


@kernel()
def pawn_structure(pawns: np.uint64, enemy_pawns: np.uint64, c: int) -> tuple[int, int]:
    """(mg, eg) of colour ``c``'s isolated, doubled and passed pawns.

    Set-wise: the same sums as a loop over pawns and files, without the loops.
    """
    files = _files(pawns)
    isolated = popcount(pawns & ((files & ~((files << U1) | (files >> U1))) * FILE_A))
    doubled = popcount(pawns) - popcount(files)  # sum over files of (pawns on it - 1)
    mg = -ISOLATED[0] * isolated - DOUBLED[0] * doubled
    eg = -ISOLATED[1] * isolated - DOUBLED[1] * doubled
    # passed: no enemy pawn ahead on this or an adjacent file, no own pawn ahead on this file
    passed = pawns & ~_behind(pawns, c) & ~_beside(_behind(enemy_pawns, c))
    while passed != U0:
        s = lsb(passed)
        passed &= passed - U1
        rr = s // 8 if c == 0 else 7 - s // 8
        mg += PASSED_MG[rr]
        eg += PASSED_EG[rr]
    return mg, eg


@kernel(inline=True)
def _side_terms(tb: np.ndarray, ev: np.ndarray, bb: np.ndarray, mb: np.ndarray, c: int,
                occ: np.uint64, their_pawn_att: np.uint64, own_ksq: int,
                their_ksq: int) -> tuple[int, int, int, int, int]:
    """(mg, eg, phase, king attack units, king attackers) of colour ``c``'s pieces."""
    own = bb[6 + c]
    them = 1 - c
    zone = tb[KING + their_ksq] | tb[SQ + their_ksq]
    safe = ~own & ~their_pawn_att
    mg = 0
    eg = 0
    phase = 0
    units = 0
    nattackers = 0
    p = own & ~bb[PAWN]
    while p != U0:
        s = lsb(p)
        p &= p - U1
        pc = mb[s]
        pt = piece_type(pc)
        mg += ev[PST_MG + pc * 64 + s]
        eg += ev[PST_EG + pc * 64 + s]
        phase += PHASE_W[pt]
        if pt == KING_T:
            continue
        if pt == KNIGHT_T:
            a = tb[KNIGHT + s]
        elif pt == BISHOP:
            a = bishop_att(tb, s, occ)
        elif pt == ROOK:
            a = rook_att(tb, s, occ)
            f = s & 7
            if tb[FILE + f] & bb[PAWN] == U0:
                mg += ROOK_OPEN[0]
                eg += ROOK_OPEN[1]
            elif tb[FILE + f] & bb[PAWN] & own == U0:
                mg += ROOK_SEMI[0]
                eg += ROOK_SEMI[1]
        else:
            a = bishop_att(tb, s, occ) | rook_att(tb, s, occ)
        mob = popcount(a & safe) - MOB_BASE[pt]
        mg += MOB_MG[pt] * mob
        eg += MOB_EG[pt] * mob
        hits = a & zone
        if hits != U0:
            units += KING_ATTACK_W[pt] * popcount(hits)
            nattackers += 1
    if popcount(bb[BISHOP] & own) >= 2:
        mg += BISHOP_PAIR[0]
        eg += BISHOP_PAIR[1]
    pawns = bb[PAWN] & own
    p = pawns
    while p != U0:
        s = lsb(p)
        p &= p - U1
        pc = mb[s]
        mg += ev[PST_MG + pc * 64 + s]
        eg += ev[PST_EG + pc * 64 + s]
    smg, seg = pawn_structure(pawns, bb[PAWN] & bb[6 + them], c)
    mg += smg
    eg += seg
    shield = popcount(tb[SHIELD + c * 64 + own_ksq] & pawns)
    mg += SHIELD_MG * min(shield, 3)
    return mg, eg, phase, units, nattackers


@kernel()
def evaluate(tb: np.ndarray, ev: np.ndarray, bb: np.ndarray, mb: np.ndarray, st: np.ndarray) -> int:
    """Static score in centipawns for the side to move."""
    occ = bb[6] | bb[7]
    wp = bb[PAWN] & bb[6]
    bp = bb[PAWN] & bb[7]
    wk = lsb(bb[KING_T] & bb[6])
    bk = lsb(bb[KING_T] & bb[7])
    mg0, eg0, ph0, u0, a0 = _side_terms(tb, ev, bb, mb, 0, occ, _pawn_attacks(bp, 1), wk, bk)
    mg1, eg1, ph1, u1, a1 = _side_terms(tb, ev, bb, mb, 1, occ, _pawn_attacks(wp, 0), bk, wk)
    if a0 >= 2:  # white attacks the black king
        mg1 -= min(u0 * u0, 500)
    if a1 >= 2:
        mg0 -= min(u1 * u1, 500)
    phase = min(ph0 + ph1, 24)
    score = ((mg0 - mg1) * phase + (eg0 - eg1) * (24 - phase)) // 24
    if bb[PAWN] == U0 and phase <= 1 and (bb[ROOK] | bb[QUEEN]) == U0:
        return 0  # a lone minor piece cannot win
    if st[SIDE] == 1:
        score = -score
    return score + TEMPO
