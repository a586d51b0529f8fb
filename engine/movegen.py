# mypy: disable-error-code="no-any-return"
"""Legal move generation, make/unmake and perft over plain arrays.

Position state (all numpy arrays, mutated in place by the kernels):

- ``bb``   uint64[9]: bitboards by piece type (pawn..king, 0-5), white (6), black (7), Zobrist key (8)
- ``mb``   int64[64]: mailbox, ``colour * 6 + type`` or -1 for an empty square
- ``st``   int64[8]: side to move, castling rights (1 K, 2 Q, 4 k, 8 q), en-passant square or -1,
  halfmove clock, history pointer, fullmove number
- ``hist`` uint64[HMAX]: keys of earlier positions (for repetition), ``hist[st[HP]]`` is the next free
- ``undo`` int64[HMAX, 4]: captured piece, castling, en-passant and halfmove before each move

A move is an int: ``from | to << 6 | promotion type << 12 | flag << 16``.
"""

from __future__ import annotations

import numpy as np

from engine.bits import ALL, U0, U1, kernel, lsb, popcount
from engine.tables import (
    B_MAGIC,
    B_MASK,
    B_OFF,
    B_SHIFT,
    BETWEEN,
    CASTLE_KEEP,
    KING,
    KNIGHT,
    LINE,
    PAWN_ATT,
    R_MAGIC,
    R_MASK,
    R_OFF,
    R_SHIFT,
    SQ,
    Z_CASTLE,
    Z_EP,
    Z_PIECE,
    Z_SIDE,
)

PAWN, KNIGHT_T, BISHOP, ROOK, QUEEN, KING_T = 0, 1, 2, 3, 4, 5
WHITE, BLACK = 0, 1
SIDE, CASTLE, EP, HALF, HP, FULL = 0, 1, 2, 3, 4, 5
F_NONE, F_EP, F_CASTLE, F_DOUBLE = 0, 1, 2, 3
HMAX = 1024
MAXMOVES = 256
MAXPLY = 100


@kernel(inline=True)
def piece_type(pc: int) -> int:
    """``pc % 6`` for a piece code 0..11, without the sign fix-up of Python's modulo."""
    return pc - 6 if pc >= 6 else pc


@kernel(inline=True)
def piece_colour(pc: int) -> int:
    """``pc // 6`` for a piece code 0..11."""
    return 1 if pc >= 6 else 0


@kernel()
def rook_att(tb: np.ndarray, sq: int, occ: np.uint64) -> np.uint64:
    idx = ((occ & tb[R_MASK + sq]) * tb[R_MAGIC + sq]) >> tb[R_SHIFT + sq]
    return tb[np.int64(tb[R_OFF + sq]) + np.int64(idx)]


@kernel()
def bishop_att(tb: np.ndarray, sq: int, occ: np.uint64) -> np.uint64:
    idx = ((occ & tb[B_MASK + sq]) * tb[B_MAGIC + sq]) >> tb[B_SHIFT + sq]
    return tb[np.int64(tb[B_OFF + sq]) + np.int64(idx)]


@kernel()
def attackers(tb: np.ndarray, bb: np.ndarray, sq: int, occ: np.uint64, by: int) -> np.uint64:
    """Pieces of colour ``by`` attacking ``sq`` with occupancy ``occ``."""
    them = bb[6 + by]
    rq = (bb[ROOK] | bb[QUEEN]) & them
    bq = (bb[BISHOP] | bb[QUEEN]) & them
    return (
        (tb[PAWN_ATT + (1 - by) * 64 + sq] & bb[PAWN] & them)
        | (tb[KNIGHT + sq] & bb[KNIGHT_T] & them)
        | (tb[KING + sq] & bb[KING_T] & them)
        | (rook_att(tb, sq, occ) & rq)
        | (bishop_att(tb, sq, occ) & bq)
    ) & occ


@kernel(inline=True)
def in_check(tb: np.ndarray, bb: np.ndarray, st: np.ndarray) -> bool:
    us = st[SIDE]
    ksq = lsb(bb[KING_T] & bb[6 + us])
    return attackers(tb, bb, ksq, bb[6] | bb[7], 1 - us) != U0


@kernel()
def _add_pawn_moves(out: np.ndarray, n: int, fr: int, to: int, promo_rank: bool, qonly: bool) -> int:
    if promo_rank:
        out[n] = fr | (to << 6) | (QUEEN << 12)
        n += 1
        if not qonly:
            for p in (KNIGHT_T, ROOK, BISHOP):
                out[n] = fr | (to << 6) | (p << 12)
                n += 1
    else:
        out[n] = fr | (to << 6)
        n += 1
    return n


@kernel()
def gen_moves(tb: np.ndarray, bb: np.ndarray, st: np.ndarray, out: np.ndarray, qonly: bool) -> int:
    """Write the legal moves into ``out``; return how many.

    With ``qonly`` and not in check, only captures and queen promotions (for quiescence);
    in check, every evasion is generated regardless.
    """
    us = st[SIDE]
    them = 1 - us
    own = bb[6 + us]
    opp = bb[6 + them]
    occ = own | opp
    ksq = lsb(bb[KING_T] & own)
    checkers = attackers(tb, bb, ksq, occ, them)
    n = 0
    if checkers != U0:
        qonly = False
    # king moves: the king itself must not block the ray it steps along
    occ_nk = occ ^ tb[SQ + ksq]
    t = tb[KING + ksq] & ~own
    if qonly:
        t &= opp
    while t != U0:
        to = lsb(t)
        t &= t - U1
        if attackers(tb, bb, to, occ_nk, them) == U0:
            out[n] = ksq | (to << 6)
            n += 1
    nchk = popcount(checkers)
    if nchk > 1:
        return n
    if nchk == 1:
        target = tb[BETWEEN + ksq * 64 + lsb(checkers)] | checkers
    else:
        target = opp if qonly else ~own
    # pinned pieces
    pinned = U0
    snipers = (rook_att(tb, ksq, U0) & (bb[ROOK] | bb[QUEEN]) & opp) | (
        bishop_att(tb, ksq, U0) & (bb[BISHOP] | bb[QUEEN]) & opp
    )
    while snipers != U0:
        s = lsb(snipers)
        snipers &= snipers - U1
        b = tb[BETWEEN + ksq * 64 + s] & occ
        if b != U0 and (b & (b - U1)) == U0 and (b & own) != U0:
            pinned |= b
    # knights (a pinned knight never moves)
    p = bb[KNIGHT_T] & own & ~pinned
    while p != U0:
        fr = lsb(p)
        p &= p - U1
        t = tb[KNIGHT + fr] & target
        while t != U0:
            to = lsb(t)
            t &= t - U1
            out[n] = fr | (to << 6)
            n += 1
    # sliders
    p = (bb[BISHOP] | bb[ROOK] | bb[QUEEN]) & own
    while p != U0:
        fr = lsb(p)
        p &= p - U1
        frb = tb[SQ + fr]
        t = U0
        if frb & (bb[BISHOP] | bb[QUEEN]):
            t |= bishop_att(tb, fr, occ)
        if frb & (bb[ROOK] | bb[QUEEN]):
            t |= rook_att(tb, fr, occ)
        t &= target
        if frb & pinned:
            t &= tb[LINE + ksq * 64 + fr]
        while t != U0:
            to = lsb(t)
            t &= t - U1
            out[n] = fr | (to << 6)
            n += 1
    # pawns
    p = bb[PAWN] & own
    up = 8 if us == WHITE else -8
    start_lo = 8 if us == WHITE else 48
    promo_lo = 56 if us == WHITE else 0
    while p != U0:
        fr = lsb(p)
        p &= p - U1
        restrict = ALL
        if tb[SQ + fr] & pinned:
            restrict = tb[LINE + ksq * 64 + fr]
        t = tb[PAWN_ATT + us * 64 + fr] & opp & target & restrict
        while t != U0:
            to = lsb(t)
            t &= t - U1
            n = _add_pawn_moves(out, n, fr, to, promo_lo <= to < promo_lo + 8, qonly)
        one = fr + up
        if occ & tb[SQ + one] == U0:
            is_promo = promo_lo <= one < promo_lo + 8
            if tb[SQ + one] & target & restrict and (is_promo or not qonly):
                n = _add_pawn_moves(out, n, fr, one, is_promo, qonly)
            if not qonly and start_lo <= fr < start_lo + 8:
                two = one + up
                if occ & tb[SQ + two] == U0 and tb[SQ + two] & target & restrict:
                    out[n] = fr | (two << 6) | (F_DOUBLE << 16)
                    n += 1
    # en passant: verify by recomputing attacks on the king with both pawns gone
    ep = st[EP]
    if ep >= 0:
        cap = ep - up
        p = tb[PAWN_ATT + them * 64 + ep] & bb[PAWN] & own
        while p != U0:
            fr = lsb(p)
            p &= p - U1
            occ2 = (occ ^ tb[SQ + fr] ^ tb[SQ + cap]) | tb[SQ + ep]
            if attackers(tb, bb, ksq, occ2, them) & ~tb[SQ + cap] == U0:
                out[n] = fr | (ep << 6) | (F_EP << 16)
                n += 1
    # castling (standard chess: king on e1/e8, rooks in the corners while rights remain)
    if checkers == U0 and not qonly:
        rights = st[CASTLE]
        base = 0 if us == WHITE else 56
        kbit = 1 if us == WHITE else 4
        ub = np.uint64(base)
        if (
            rights & kbit
            and occ & (np.uint64(0x60) << ub) == U0
            and attackers(tb, bb, base + 5, occ, them) == U0
            and attackers(tb, bb, base + 6, occ, them) == U0
        ):
            out[n] = (base + 4) | ((base + 6) << 6) | (F_CASTLE << 16)
            n += 1
        if (
            rights & (kbit * 2)
            and occ & (np.uint64(0x0E) << ub) == U0
            and attackers(tb, bb, base + 3, occ, them) == U0
            and attackers(tb, bb, base + 2, occ, them) == U0
        ):
            out[n] = (base + 4) | ((base + 2) << 6) | (F_CASTLE << 16)
            n += 1
    return n


@kernel()
def _toggle(tb: np.ndarray, bb: np.ndarray, mb: np.ndarray, pc: int, sq: int, put: bool) -> None:
    b = tb[SQ + sq]
    bb[piece_type(pc)] ^= b
    bb[6 + piece_colour(pc)] ^= b
    bb[8] ^= tb[Z_PIECE + pc * 64 + sq]
    mb[sq] = pc if put else -1


@kernel(inline=True)
def make_move(tb: np.ndarray, bb: np.ndarray, mb: np.ndarray, st: np.ndarray,
              hist: np.ndarray, undo: np.ndarray, m: int) -> None:
    us = st[SIDE]
    them = 1 - us
    fr = m & 63
    to = (m >> 6) & 63
    promo = (m >> 12) & 15
    flag = (m >> 16) & 3
    pc = mb[fr]
    cap = mb[to]
    hp = st[HP]
    hist[hp] = bb[8]
    undo[hp, 0] = cap
    undo[hp, 1] = st[CASTLE]
    undo[hp, 2] = st[EP]
    undo[hp, 3] = st[HALF]
    st[HP] = hp + 1
    if st[EP] >= 0:
        bb[8] ^= tb[Z_EP + (st[EP] & 7)]
        st[EP] = -1
    if flag == F_EP:
        _toggle(tb, bb, mb, them * 6 + PAWN, to - 8 if us == WHITE else to + 8, False)
    elif cap >= 0:
        _toggle(tb, bb, mb, cap, to, False)
    _toggle(tb, bb, mb, pc, fr, False)
    if promo:
        _toggle(tb, bb, mb, us * 6 + promo, to, True)
    else:
        _toggle(tb, bb, mb, pc, to, True)
    if flag == F_CASTLE:
        if to == 6:
            rf, rt = 7, 5
        elif to == 2:
            rf, rt = 0, 3
        elif to == 62:
            rf, rt = 63, 61
        else:
            rf, rt = 56, 59
        _toggle(tb, bb, mb, us * 6 + ROOK, rf, False)
        _toggle(tb, bb, mb, us * 6 + ROOK, rt, True)
    old = st[CASTLE]
    new = old & np.int64(tb[CASTLE_KEEP + fr]) & np.int64(tb[CASTLE_KEEP + to])
    if new != old:
        bb[8] ^= tb[Z_CASTLE + old] ^ tb[Z_CASTLE + new]
        st[CASTLE] = new
    if flag == F_DOUBLE:
        e = (fr + to) >> 1
        if tb[PAWN_ATT + us * 64 + e] & bb[PAWN] & bb[6 + them]:
            st[EP] = e
            bb[8] ^= tb[Z_EP + (e & 7)]
    if piece_type(pc) == PAWN or cap >= 0:
        st[HALF] = 0
    else:
        st[HALF] += 1
    if us == BLACK:
        st[FULL] += 1
    st[SIDE] = them
    bb[8] ^= tb[Z_SIDE]


@kernel()
def _put(tb: np.ndarray, bb: np.ndarray, mb: np.ndarray, pc: int, sq: int, put: bool) -> None:
    b = tb[SQ + sq]
    bb[piece_type(pc)] ^= b
    bb[6 + piece_colour(pc)] ^= b
    mb[sq] = pc if put else -1


@kernel(inline=True)
def unmake_move(tb: np.ndarray, bb: np.ndarray, mb: np.ndarray, st: np.ndarray,
                hist: np.ndarray, undo: np.ndarray, m: int) -> None:
    them = st[SIDE]
    us = 1 - them
    fr = m & 63
    to = (m >> 6) & 63
    promo = (m >> 12) & 15
    flag = (m >> 16) & 3
    hp = st[HP] - 1
    st[HP] = hp
    cap = undo[hp, 0]
    st[CASTLE] = undo[hp, 1]
    st[EP] = undo[hp, 2]
    st[HALF] = undo[hp, 3]
    bb[8] = hist[hp]
    st[SIDE] = us
    if us == BLACK:
        st[FULL] -= 1
    pc = mb[to]
    _put(tb, bb, mb, pc, to, False)
    _put(tb, bb, mb, us * 6 + PAWN if promo else pc, fr, True)
    if flag == F_EP:
        _put(tb, bb, mb, them * 6 + PAWN, to - 8 if us == WHITE else to + 8, True)
    elif cap >= 0:
        _put(tb, bb, mb, cap, to, True)
    if flag == F_CASTLE:
        if to == 6:
            rf, rt = 7, 5
        elif to == 2:
            rf, rt = 0, 3
        elif to == 62:
            rf, rt = 63, 61
        else:
            rf, rt = 56, 59
        _put(tb, bb, mb, us * 6 + ROOK, rt, False)
        _put(tb, bb, mb, us * 6 + ROOK, rf, True)


@kernel()
def make_null(tb: np.ndarray, bb: np.ndarray, st: np.ndarray, hist: np.ndarray, undo: np.ndarray) -> None:
    hp = st[HP]
    hist[hp] = bb[8]
    undo[hp, 0] = -1
    undo[hp, 1] = st[CASTLE]
    undo[hp, 2] = st[EP]
    undo[hp, 3] = st[HALF]
    st[HP] = hp + 1
    if st[EP] >= 0:
        bb[8] ^= tb[Z_EP + (st[EP] & 7)]
        st[EP] = -1
    st[HALF] += 1
    st[SIDE] = 1 - st[SIDE]
    bb[8] ^= tb[Z_SIDE]


@kernel()
def unmake_null(bb: np.ndarray, st: np.ndarray, hist: np.ndarray, undo: np.ndarray) -> None:
    hp = st[HP] - 1
    st[HP] = hp
    st[EP] = undo[hp, 2]
    st[HALF] = undo[hp, 3]
    bb[8] = hist[hp]
    st[SIDE] = 1 - st[SIDE]


@kernel(nogil=True)
def perft_kernel(tb: np.ndarray, bb: np.ndarray, mb: np.ndarray, st: np.ndarray, hist: np.ndarray,
           undo: np.ndarray, mv: np.ndarray, depth: int, ply: int, bulk: bool) -> int:
    """Leaf count below the current position; ``mv[ply:]`` is scratch space.

    Called only from Python: a call to a cached recursive kernel with a literal argument
    segfaults when numba loads it from the cache (numba 0.68 here); see docs/engine.md.
    """
    if depth == 0:
        return 1
    n = gen_moves(tb, bb, st, mv[ply], False)
    if depth == 1 and bulk:
        return n
    total = 0
    for i in range(n):
        m = mv[ply, i]
        make_move(tb, bb, mb, st, hist, undo, m)
        total += perft_kernel(tb, bb, mb, st, hist, undo, mv, depth - 1, ply + 1, bulk)
        unmake_move(tb, bb, mb, st, hist, undo, m)
    return total
