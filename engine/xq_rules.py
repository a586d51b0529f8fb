# mypy: disable-error-code="no-any-return"
# ruff: noqa: SIM108, SIM109, SIM110  (numba kernels: plain comparisons and loops, computed flags)
"""The game-end rules of the search tree, as numba kernels: the Asian (AXF) rules as
Fairy-Stockfish applies them, or the Chinese rules' 棋例 as the search can afford them, by the
tables' ``RULES`` slot (``ASIAN`` in the shared tables, ``CHINESE`` in an ``XqSearcher``'s copy;
no kernel signature carries the choice).

``game_end`` is called at every search node (and by the Python side for a game's ruling):

- **60-move rule**: 120 plies without a capture draw, unless the side to move is
  checkmated; as in Fairy-Stockfish with AXF chasing, checks beyond ten by one side extend
  the count by two plies each (not under the Chinese rules, whose count takes every move).
- **Repetition**: a position repeated once inside the search tree, or twice in all
  otherwise, ends the game. Asian rules: if one side checked with every move of the cycle and
  the other did not, the checker loses; else if one side chased (``chased``) the same piece with
  every move and the other did not, the chaser loses; anything else is a draw. Chinese rules
  (第26条, ``_chinese``): a side's moves are forbidden when each is a check or a chase (of any
  piece: 长将, 长捉, 一将一捉); one-sided perpetual check loses; one side forbidden, the other not:
  the forbidden side loses; both forbidden or both allowed: a draw. A pawn's own chase counts
  only for a side facing a forbidden cycle (互打).

``chased`` follows Fairy-Stockfish's definition of a chase: a new attack, made by the move
directly or by discovery, on a piece that is not a king or an uncrossed soldier, which is
either worth more than the attacker (horse or cannon on a rook; advisor or elephant on a
rook, cannon or horse) or has no real protector, excluding mutual attacks between pieces
of one kind unless one of them is pinned; plus defenders newly pinned and attacks
uncovered by a discovered check. pyffish is the judge (tests/data/xiangqi_repetitions.json
holds the sequences the tests compare); this is its reimplementation for the search.

Under the Chinese rules ``chased`` follows boardctl.variants.xiangqi.chinese_rules where it is
cheap: a mutual attack of one kind is judged like any other (细则5); a piece the mover already
chased before the move is not chased anew (细则6, ``_stood``); a piece freed from a pin chases
what it attacks; a newly pinned protector makes a chase only where no other protector stands; generals, advisors and elephants keep to their palace and side of the river,
and a general may not take back into check; a pawn's and the general's own attacks stay idle.
Left to the root guard (engine/xq_searcher.py): mate threats (长杀, 一将一杀, 一杀一捉 rank as idle
here), formal chases that would be mated (细则7), the defensive key point, and protection judged
by the exchange on the point (here a protected piece is not chased unless worth more than its
attacker, whatever the number of attackers).

Square sets are rows of 90 flags in the scratch array ``sc`` (layout ``S_*``): this code
only runs when a position repeats, so clarity beats bitboards here.
"""

from __future__ import annotations

import numpy as np

from engine.bits import kernel
from engine.xq_movegen import (
    ADVISOR,
    CANNON,
    CHINESE,
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
    RULES,
    SIDE,
    U_CHECK,
    U_MOVE,
    attacked,
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
S_MPIN = S_KATT + 90  # the mover's pieces that could not take before the move (Chinese rules only)
S_MPIN_NOW = S_MPIN + 90  # and after it
S_MOVES = S_MPIN_NOW + 90  # moves unmade by the judge, newest first
S_LEGAL = S_MOVES + MAXCYC  # move list for the 60-move rule's mate test
S_CH = S_LEGAL + MAXMOVES  # chased sets [x * 90 + sq] of the move into position hp - x
S_PAWN = S_CH + MAXCYC * 90  # [x]: whether the move into position hp - x is a pawn's own chase
SCRATCH = S_PAWN + MAXCYC


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

    Like Fairy-Stockfish's ``attacks_bb``: no palace or river limits except the soldier's; under
    the Chinese rules (which ask whether the piece can take) the general and advisors stay in
    their palace and elephants on their side of the river.
    """
    _clear(sc, out)
    f = sq % 9
    r = sq // 9
    bounded = tb[RULES] == CHINESE
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
            if bounded and ((tr > 4) if colour == 0 else (tr < 5)):
                continue  # across the river
            if 0 <= tf < 9 and 0 <= tr < 10 and sc[occ + (r + dr) * 9 + f + df] == 0:
                sc[out + tr * 9 + tf] = 1
    elif ptype == ADVISOR or ptype == KING:
        for df, dr in ((1, 1), (1, -1), (-1, 1), (-1, -1), (0, 1), (0, -1), (1, 0), (-1, 0)):
            if (df != 0 and dr != 0) != (ptype == ADVISOR):
                continue
            tf = f + df
            tr = r + dr
            if bounded and (tf < 3 or tf > 5 or ((tr > 2) if colour == 0 else (tr < 7))):
                continue  # out of the palace
            if 0 <= tf < 9 and 0 <= tr < 10:
                sc[out + tr * 9 + tf] = 1
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
        if atype == PAWN and (t == ROOK or t == CANNON or t == HORSE or ((asq < 45) if stm == 1 else (asq >= 45))):
            sc[S_B + s] = 1  # a pawn, worth 1 across the river, 0 before: only _pawn_chases asks
    _load_occ(mb, sc, S_OCC)
    af = asq % 9
    ar = asq // 9
    diag_blocked = False
    for df, dr in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
        if 0 <= af + df < 9 and 0 <= ar + dr < 10 and mb[(ar + dr) * 9 + af + df] >= 0:
            diag_blocked = True
    # the Asian rules pass over a mutual attack of two pieces of one kind; the Chinese rules
    # judge it by value like any other attack (a chase that offers an exchange is a chase, 细则5)
    if tb[RULES] == CHINESE:
        pass
    elif atype == HORSE and diag_blocked:
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
            elif tb[RULES] == CHINESE and _attacked_by(tb, mb, sc, S_OCC, s, 1 - stm, asq, -1) > 0:
                sc[S_B + s] = 1  # nor may it take back into check
    _load_occ(mb, sc, S_OCC)


@kernel()
def _pinned(tb: np.ndarray, mb: np.ndarray, st: np.ndarray, sc: np.ndarray, us: int, out: int) -> None:
    """Row ``out`` := ``us``'s pieces that cannot take: its blockers (``_blockers``), and a lone
    piece between the generals."""
    _blockers(tb, mb, sc, us, out)
    mk = st[KSQ + us]
    vk = st[KSQ + 1 - us]
    if mk % 9 == vk % 9:
        cnt = 0
        last = -1
        step = 9 if vk > mk else -9
        s = mk + step
        while s != vk:
            if mb[s] >= 0:
                cnt += 1
                last = s
            s += step
        if cnt == 1 and _colour_of(mb[last]) == us:
            sc[out + last] = 1


@kernel(inline=True)
def _worth(ptype: int, sq: int, colour: int) -> int:
    """子力 as the Chinese rules count it (boardctl's chinese_rules.VALUES): a pawn only across the river."""
    if ptype == ROOK:
        return 4
    if ptype == HORSE or ptype == CANNON:
        return 2
    if ptype == ADVISOR or ptype == ELEPHANT:
        return 1
    if ptype == PAWN:
        return 1 if ((sq >= 45) if colour == 0 else (sq < 45)) else 0
    return 0


@kernel()
def _took_before(tb: np.ndarray, mb: np.ndarray, st: np.ndarray, src: int, s: int, mover: int, fr: int, to: int,
                 captured: int) -> bool:
    """Whether, before the move ``fr``-``to``, the mover's piece on ``src`` could legally take on ``s``."""
    piece = mb[to]
    mb[fr] = piece
    mb[to] = captured
    p = mb[src]
    q = mb[s]
    mb[s] = p
    mb[src] = -1
    ksq = fr if _ptype(piece) == KING else st[KSQ + mover]
    ok = not attacked(tb, mb, ksq, 1 - mover)
    mb[src] = p
    mb[s] = q
    mb[to] = piece
    mb[fr] = -1
    return ok


@kernel()
def _covered(tb: np.ndarray, mb: np.ndarray, sc: np.ndarray, s: int, mover: int, x: int, fr: int, to: int) -> bool:
    """Whether a piece of the mover other than the one on ``x`` attacks ``s`` before the move
    ``fr``-``to`` (occupancy row S_OCC2)."""
    for y in range(90):
        p = mb[y]
        if y == x or p < 0 or _colour_of(p) != mover:
            continue
        _attacks(tb, sc, S_OCC2, mover, _ptype(p), fr if y == to else y, S_ATT2)
        if sc[S_ATT2 + s] != 0:
            return True
    return False


@kernel()
def _stood(tb: np.ndarray, mb: np.ndarray, st: np.ndarray, sc: np.ndarray, s: int, mover: int, fr: int, to: int,
           captured: int, pawns: bool) -> bool:
    """Whether the mover already chased the piece on ``s`` before its move ``fr``-``to`` (细则6: a
    piece chased before is not chased anew): a piece other than its general could legally take
    it, and it was worth more than that piece or had no protector once that piece was gone (the
    victim's pinned pieces, S_BLK_OLD, excepted). A pawn's attack counts only with ``pawns`` (its
    own attack is no chase unless both sides attack, 第27条)."""
    _load_occ(mb, sc, S_OCC2)
    sc[S_OCC2 + fr] = 1
    if captured < 0:
        sc[S_OCC2 + to] = 0
    worth = _worth(_ptype(mb[s]), s, 1 - mover)
    for x in range(90):
        p = mb[x]
        if p < 0 or _colour_of(p) != mover:
            continue
        t = _ptype(p)
        at = fr if x == to else x
        if t == KING or (t == PAWN and not pawns):
            continue
        _attacks(tb, sc, S_OCC2, mover, t, at, S_ATT2)
        if sc[S_ATT2 + s] == 0 or not _took_before(tb, mb, st, at, s, mover, fr, to, captured):
            continue
        if _worth(t, at, mover) < worth:
            return True
        sc[S_OCC2 + at] = 0  # a protector behind the attacker protects
        roots = _attacked_by(tb, mb, sc, S_OCC2, s, 1 - mover, -1, S_BLK_OLD)
        if roots == 1:  # the general alone, and it may not take back into check
            vk = st[KSQ + 1 - mover]
            sc[S_OCC2 + vk] = 0
            if _covered(tb, mb, sc, s, mover, x, fr, to):
                roots = 0
            sc[S_OCC2 + vk] = 1
        sc[S_OCC2 + at] = 1
        if roots == 0:
            return True
    return False


@kernel()
def _drop_standing(tb: np.ndarray, mb: np.ndarray, st: np.ndarray, sc: np.ndarray, row: int, mover: int, fr: int, to: int,
                   captured: int, pawns: bool) -> None:
    """Under the Chinese rules, clear from ``row`` the pieces the mover attacked before (``_stood``)."""
    if tb[RULES] != CHINESE:
        return
    for s in range(90):
        if sc[row + s] != 0 and _stood(tb, mb, st, sc, s, mover, fr, to, captured, pawns):
            sc[row + s] = 0


@kernel()
def chased(tb: np.ndarray, mb: np.ndarray, st: np.ndarray, sc: np.ndarray, m: int, captured: int,
           out: int) -> None:
    """Row ``out`` := the pieces of the side to move that the last move ``m`` chases.

    Expects S_BLK_OLD to hold the blockers for the side to move's king before the move, and
    under the Chinese rules S_MPIN the mover's pieces that could not take before it (``_pinned``).
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
        _drop_standing(tb, mb, st, sc, S_ATT, mover, fr, to, captured, False)
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
        # (the moved piece's own new attacks are the direct ones above; the Chinese rules do not
        # count again what it attacked before, 细则6)
        line = (t == CANNON or t == ROOK) and (sf == ff or sr == fr_r) and s != fr
        if s == to and tb[RULES] == CHINESE:
            line = False
        screen = t == CANNON and (sf == to % 9 or sr == to // 9) and s != to
        if leg or eye or line or screen:
            sc[S_CAND + s] = 1
    if tb[RULES] == CHINESE:
        # a piece the move frees to take (no longer pinned): all it attacks is new
        _pinned(tb, mb, st, sc, mover, S_MPIN_NOW)
        for s in range(90):
            p = mb[s]
            if (sc[S_MPIN + s] != 0 and sc[S_MPIN_NOW + s] == 0 and s != to and p >= 0
                    and _colour_of(p) == mover and _ptype(p) != KING):
                sc[S_CAND + s] = 2
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
        if sc[S_CAND + s] == 2:
            _clear(sc, S_ATT2)
        for x in range(90):
            p = mb[x]
            keep = sc[S_ATT + x] != 0 and sc[S_ATT2 + x] == 0 and p >= 0 and _colour_of(p) == stm
            sc[S_T1 + x] = 1 if keep else 0
        _load_occ(mb, sc, S_OCC)
        for x in range(90):
            sc[S_ATT + x] = sc[S_T1 + x]
        _drop_standing(tb, mb, st, sc, S_ATT, mover, fr, to, captured, False)
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
                if tb[RULES] == CHINESE and (_attacked_by(tb, mb, sc, S_OCC, s2, stm, -1, S_BLK_NEW) > 0
                                             or _stood(tb, mb, st, sc, s2, mover, fr, to, captured, False)):
                    continue  # another protector stands, or it was chased before
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
                if tb[RULES] == CHINESE and (_worth(_ptype(q), s2, stm) == 0
                                             or _stood(tb, mb, st, sc, s2, mover, fr, to, captured, False)):
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
def _pawn_chases(tb: np.ndarray, mb: np.ndarray, st: np.ndarray, sc: np.ndarray, m: int, captured: int) -> int:
    """1 when the last move ``m`` is a pawn's and its own attack chases (as ``chased`` judges a
    piece's, a pawn on a chariot, horse or cannon chasing it protected or not), else 0.

    ``chased`` leaves a pawn's own attack out (idle by both rules); the Chinese rules count it
    in a mutual perpetual attack (互打, 第27条). Expects ``chased`` to have just run (S_PINS).
    """
    to = (m >> 7) & 127
    if _ptype(mb[to]) != PAWN:
        return 0
    stm = st[SIDE]
    _clear(sc, S_B)
    _load_occ(mb, sc, S_OCC)
    _attacks(tb, sc, S_OCC, 1 - stm, PAWN, to, S_ATT)
    for s in range(90):
        p = mb[s]
        if sc[S_ATT + s] != 0 and (p < 0 or _colour_of(p) != stm):
            sc[S_ATT + s] = 0
    _drop_standing(tb, mb, st, sc, S_ATT, 1 - stm, m & 127, to, captured, True)
    _add_chased(tb, mb, sc, stm, to, PAWN, S_ATT)
    return 1 if _any(sc, S_B) else 0


@kernel()
def _side_verdict(st: np.ndarray, undo: np.ndarray, sc: np.ndarray, i: int, first: int, pawns: bool) -> int:
    """The Chinese rules on one side's moves of the cycle (moves ``first``, ``first`` + 2, ...
    back from the current position): 0 allowed (an idle move among them), 1 forbidden (every
    move a check or a chase), 2 perpetual check (every move a check)."""
    hp = st[HP]
    all_check = True
    forbidden = True
    j = first
    while j < i:
        check = undo[hp - j, U_CHECK] != 0
        if not check:
            all_check = False
            if not _any(sc, S_CH + j * 90) and not (pawns and sc[S_PAWN + j] != 0):
                forbidden = False
        j += 2
    if all_check:
        return 2
    return 1 if forbidden else 0


@kernel()
def _chinese(st: np.ndarray, undo: np.ndarray, sc: np.ndarray, i: int) -> int:
    """第26条 on the cycle of the last ``i`` moves, from the side to move's view: one-sided
    perpetual check loses; one side forbidden, the other allowed: the forbidden side loses;
    both allowed or both forbidden: a draw. A pawn's own chases count only for a side facing a
    forbidden cycle (互打)."""
    them = _side_verdict(st, undo, sc, i, 0, False)
    us = _side_verdict(st, undo, sc, i, 1, False)
    if them == 0 and us != 0:
        them = _side_verdict(st, undo, sc, i, 0, True)
    elif us == 0 and them != 0:
        us = _side_verdict(st, undo, sc, i, 1, True)
    if (them == 2) != (us == 2):
        return R_WIN if them == 2 else R_LOSS
    if them != 0 and us == 0:
        return R_WIN
    if us != 0 and them == 0:
        return R_LOSS
    return R_DRAW


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
    """Ruling on the cycle that repeats the position ``i`` plies back (R_DRAW/R_WIN/R_LOSS), by
    the rules ``tb[RULES]`` names."""
    hp = st[HP]
    chinese = tb[RULES] == CHINESE
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
        if chinese:
            _pinned(tb, mb, st, sc, st[SIDE], S_MPIN)
        cap = mb[(m >> 7) & 127]
        make_move(tb, mb, st, hist, undo, m)
        if j <= i + 1:
            chased(tb, mb, st, sc, m, cap, S_CH + j * 90)
            if chinese and j < i:
                sc[S_PAWN + j] = _pawn_chases(tb, mb, st, sc, m, cap)
    if chinese:
        return _chinese(st, undo, sc, i)
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
            if pfn >= 20 and tb[RULES] != CHINESE:  # the Chinese count takes no extension
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
