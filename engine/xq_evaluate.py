# mypy: disable-error-code="no-any-return"
# ruff: noqa: SIM109  (numba kernels: plain comparisons and loops, computed flags)
"""Xiangqi evaluation: material and piece-square tables kept incrementally by make/unmake,
plus a scan for what depends on the whole board (horse mobility behind blocked legs, king
safety in the palace, the cannon/horse shift between middlegame and endgame).

Every tunable number sits in the block below. Scores are centipawns for the side to move.
The tables are hand-set from a few shape rules, not tuned from data.

A playing style (engine/xq_style.py, the UCI ``Style *`` options) scales these numbers as the
chess styles do: the piece values and placements are in the ``PST`` table, and the whole-board
weights the kernel reads are in the ``EVW`` row of the same table (``W_*``), one per general for
king safety, so that a style can fear for its own general less than it presses the other's.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from engine.bits import kernel
from engine.xq_movegen import (
    ADVISOR,
    CANNON,
    ELEPHANT,
    EVW,
    HORSE,
    HORSE_LEG,
    HORSE_N,
    HORSE_T,
    KING,
    KSQ,
    NSQ,
    PAWN,
    PHASE_W,
    PL,
    PSQ,
    PST,
    ROOK,
    SIDE,
)

# ---- tunables -------------------------------------------------------------------------
VALUE = (30, 120, 120, 280, 600, 290, 0)  # pawn (before the river), advisor, elephant, horse, rook, cannon, king
PAWN_ACROSS = (70, 90, 100, 95, 45)  # a soldier past the river, by ranks 5..9 from its side
PAWN_CENTRE = 15  # extra for a crossed soldier on files d-f (near the palace)
HORSE_CENTRE = 6  # per step towards the centre files
HORSE_ADVANCE = (0, 0, 5, 10, 15, 20, 25, 25, 10, 0)  # by rank from its side
HORSE_EDGE = -20  # on file a or i
ROOK_ADVANCE = (0, 5, 5, 10, 15, 20, 25, 20, 15, 10)
CANNON_CENTRE = 15  # on the central file
CANNON_HOME_RANKS = (5, 5, 10, 5, 0, 0, 0, 5, 0, 0)
KING_OFF_HOME = -10  # per step off the back rank / central file
HORSE_MOB = 5  # per reachable square (unblocked leg, not our piece), relative to 4
ENDGAME_HORSE = 30  # horse gains this much (x8 - phase / 8) as pieces come off
ENDGAME_CANNON = -40  # cannon loses this much
GUARD_MISSING = 25  # per missing advisor/elephant, times the enemy's attackers across the river
OPEN_KING_FILE = 40  # enemy rook or cannon on our king's file with no defender between
TEMPO = 10
MAX_PHASE = 2 * (2 * 4 + 2 * 2 + 2 * 2)  # rooks 4, horses 2, cannons 2 each side
PHASE_WEIGHT = (0, 0, 0, 2, 4, 2, 0)
# ---------------------------------------------------------------------------------------

# The EVW row: whole-board weights, each as the block above sets it unless a style scales it.
W_HORSE_MOB = 0  # horse mobility
W_GUARDS = 1  # [1 + colour]: missing guards x enemy attackers across the river, against colour's general
W_OPEN_FILE = 3  # [3 + colour]: an enemy chariot facing colour's general along an open file
W_ENDGAME_HORSE = 5
W_ENDGAME_CANNON = 6
#: The weights with no style: (slot, value).
NEUTRAL_WEIGHTS = ((W_HORSE_MOB, HORSE_MOB), (W_GUARDS, GUARD_MISSING), (W_GUARDS + 1, GUARD_MISSING),
                   (W_OPEN_FILE, OPEN_KING_FILE), (W_OPEN_FILE + 1, OPEN_KING_FILE),
                   (W_ENDGAME_HORSE, ENDGAME_HORSE), (W_ENDGAME_CANNON, ENDGAME_CANNON))


def piece_terms(colour: int, ptype: int, sq: int) -> tuple[int, int]:
    """(material, placement) of one piece, from its own side's view: what a style scales apart.
    A soldier across the river is worth more as material; its advance and centre are placement."""
    f, r = sq % 9, sq // 9
    rr = r if colour == 0 else 9 - r  # ranks from the piece's own side
    centre = 4 - abs(f - 4)
    v = VALUE[ptype]
    place = 0
    if ptype == PAWN:
        if rr >= 5:
            v = PAWN_ACROSS[0]
            place = PAWN_ACROSS[rr - 5] - PAWN_ACROSS[0] + (PAWN_CENTRE if 3 <= f <= 5 and rr <= 8 else 0)
        elif f == 4 and rr == 3:
            place = 5
    elif ptype == HORSE:
        place = HORSE_CENTRE * min(centre, 3) + HORSE_ADVANCE[rr] + (HORSE_EDGE if f in (0, 8) else 0)
    elif ptype == ROOK:
        place = ROOK_ADVANCE[rr] + 3 * min(centre, 3)
    elif ptype == CANNON:
        place = (CANNON_CENTRE if f == 4 else 0) + CANNON_HOME_RANKS[rr]
    elif ptype == KING:
        place = KING_OFF_HOME * (rr + abs(f - 4))
    elif ptype == ADVISOR:
        place = 5 if (f == 4 and rr == 1) else 0
    elif ptype == ELEPHANT:
        place = 5 if (f == 4 and rr == 2) else 0
    return v, place


def piece_square(colour: int, ptype: int, sq: int) -> int:
    """Material plus placement of one piece, from its own side's view (positive)."""
    material, place = piece_terms(colour, ptype, sq)
    return material + place


def fill_eval_tables(tb: np.ndarray, scale: Callable[[int, int, int, int], int] | None = None,
                     weights: tuple[tuple[int, int], ...] = NEUTRAL_WEIGHTS) -> None:
    """Write the piece-square tables (Red's view: Black's pieces count negative) and the whole-board
    weights into ``tb``. ``scale(colour, ptype, material, placement)``, when given, is a style's
    value of a piece on a square (engine/xq_style.py); ``weights`` are the EVW row's (slot, value)."""
    for colour in (0, 1):
        for ptype in range(7):
            pc = colour * 7 + ptype
            tb[PHASE_W + pc] = PHASE_WEIGHT[ptype]
            for sq in range(NSQ):
                material, place = piece_terms(colour, ptype, sq)
                v = material + place if scale is None else scale(colour, ptype, material, place)
                tb[PST + pc * 90 + sq] = v if colour == 0 else -v
    for slot, value in weights:
        tb[EVW + slot] = value


def psq_total(tb: np.ndarray, mb: np.ndarray) -> int:
    """The incremental score ``st[PSQ]`` from scratch (for setting up a position)."""
    return int(sum(int(tb[PST + int(p) * 90 + sq]) for sq, p in enumerate(mb) if p >= 0))


@kernel()
def evaluate(tb: np.ndarray, mb: np.ndarray, st: np.ndarray) -> int:
    """Static score for the side to move."""
    phase = 0
    h0 = 0
    h1 = 0
    c0 = 0
    c1 = 0
    mob = 0
    guards0 = 0
    guards1 = 0
    att0 = 0  # Red's attackers across the river
    att1 = 0
    for slot in range(32):
        sq = st[PL + slot]
        if sq < 0:
            continue
        p = mb[sq]
        phase += tb[PHASE_W + p]
        if p == HORSE or p == 7 + HORSE:
            c = 0 if p == HORSE else 1
            own = c * 7
            k = 0
            for j in range(tb[HORSE_N + sq]):
                if mb[tb[HORSE_LEG + sq * 8 + j]] < 0:
                    q = mb[tb[HORSE_T + sq * 8 + j]]
                    if q < own or q >= own + 7:
                        k += 1
            if c == 0:
                h0 += 1
                mob += (k - 4) * tb[EVW + W_HORSE_MOB]
                if sq >= 45:
                    att0 += 1
            else:
                h1 += 1
                mob -= (k - 4) * tb[EVW + W_HORSE_MOB]
                if sq < 45:
                    att1 += 1
        elif p == CANNON:
            c0 += 1
            if sq >= 45:
                att0 += 1
        elif p == 7 + CANNON:
            c1 += 1
            if sq < 45:
                att1 += 1
        elif p == ROOK:
            if sq >= 45:
                att0 += 1
        elif p == 7 + ROOK:
            if sq < 45:
                att1 += 1
        elif p == ADVISOR or p == ELEPHANT:
            guards0 += 1
        elif p == 7 + ADVISOR or p == 7 + ELEPHANT:
            guards1 += 1
    if phase > MAX_PHASE:
        phase = MAX_PHASE
    eg = MAX_PHASE - phase  # 0 in the opening, MAX_PHASE with no major pieces left
    score = st[PSQ] + mob
    score += (tb[EVW + W_ENDGAME_HORSE] * (h0 - h1) + tb[EVW + W_ENDGAME_CANNON] * (c0 - c1)) * eg // MAX_PHASE
    # king safety: missing guards count against the attackers already across the river
    score -= tb[EVW + W_GUARDS] * (4 - guards0) * att1 // 2
    score += tb[EVW + W_GUARDS + 1] * (4 - guards1) * att0 // 2
    score += tb[EVW + W_OPEN_FILE] * _open_file(mb, st[KSQ], 1) - tb[EVW + W_OPEN_FILE + 1] * _open_file(mb, st[KSQ + 1], 0)
    if st[SIDE] == 0:
        return score + TEMPO
    return -score + TEMPO


@kernel(inline=True)
def _open_file(mb: np.ndarray, ksq: int, by: int) -> int:
    """-1 when a rook of ``by`` faces the king on ``ksq`` along its file (times its weight), else 0."""
    step = 9 if by == 1 else -9
    s = ksq + step
    while 0 <= s < NSQ:
        p = mb[s]
        if p >= 0:
            if p == by * 7 + ROOK:
                return -1
            return 0
        s += step
    return 0
