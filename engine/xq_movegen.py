# mypy: disable-error-code="no-any-return"
# ruff: noqa: SIM109, SIM220  (numba kernels: plain comparisons and loops, computed flags)
"""Xiangqi: tables, legal move generation, make/unmake and perft over a 90-square mailbox.

Squares are ``rank * 9 + file`` with files a-i from Red's left and ranks 0-9 from Red's
side, exactly as UCI/UCCI coordinates number them (``h2e2`` is from 2*9+7 to 2*9+4).

Position state (numpy int64 arrays, mutated in place by the kernels):

- ``mb``   [90]: mailbox, ``colour * 7 + type`` or -1 (colour 0 Red, 1 Black)
- ``st``   [131]: side to move, halfmove clock (plies since a capture), history pointer,
  Red and Black king squares, Zobrist key, plies played before the history starts,
  the incremental material + piece-square score from Red's side, plies since the
  start or the last null move; then the piece lists: ``st[PL + slot]`` is the square of
  piece ``slot`` (Red 0-15, Black 16-31; -1 once captured) and ``st[SLOT + sq]`` the slot
  of the piece on ``sq`` (-1 when empty), so move generation and evaluation visit the
  pieces instead of the 90 points
- ``hist`` [HMAX]: keys of earlier positions; ``hist[st[HP]]`` is the next free
- ``undo`` [HMAX, 6]: captured piece, halfmove clock and move before each move, whether
  the side to move was in check in that position (for the Asian rules), the plies
  since a null move before a null move, and the captured piece's slot

A move is ``from | to << 7``. The tables live in one int64 array ``tb`` (offsets below are
compile-time constants for numba); its piece-square part comes from engine/xq_evaluate.py.
"""

from __future__ import annotations

import numpy as np

from engine.bits import kernel

PAWN, ADVISOR, ELEPHANT, HORSE, ROOK, CANNON, KING = 0, 1, 2, 3, 4, 5, 6
RED, BLACK = 0, 1
SIDE, HALF, HP, KSQ, KSQ_B, KEY, PLY0, PSQ, NULLP = 0, 1, 2, 3, 4, 5, 6, 7, 8
PL = 9  # [slot]: square of each piece, -1 when captured; slots 0-15 Red, 16-31 Black
SLOT = PL + 32  # [sq]: slot of the piece on sq, -1 when empty
ST_SIZE = SLOT + 90
U_CAP, U_HALF, U_MOVE, U_CHECK, U_NULLP, U_CSLOT = 0, 1, 2, 3, 4, 5
U_SIZE = 6
HMAX = 1024
MAXMOVES = 160
MAXPLY = 100
NSQ = 90
NMOVE_PLIES = 120  # 60 moves by each side without a capture
PIECE_CHARS = "PABNRCK"


def _layout() -> dict[str, int]:
    sizes = [
        ("KING_T", 2 * 90 * 4),  # [colour * 360 + sq * 4 + k]: king steps inside its palace
        ("KING_N", 2 * 90),
        ("ADV_T", 2 * 90 * 4),  # advisor steps inside its palace
        ("ADV_N", 2 * 90),
        ("ELE_T", 2 * 90 * 4),  # elephant targets on its own side of the river
        ("ELE_EYE", 2 * 90 * 4),  # the square that blocks each of them
        ("ELE_N", 2 * 90),
        ("HORSE_T", 90 * 8),  # [sq * 8 + k]: horse targets
        ("HORSE_LEG", 90 * 8),  # the square that blocks each of them
        ("HORSE_N", 90),
        ("HATK_S", 90 * 8),  # [sq * 8 + k]: squares a horse attacks sq from
        ("HATK_LEG", 90 * 8),  # the leg of that horse
        ("HATK_N", 90),
        ("RAY", 90 * 4 * 10),  # [(sq * 4 + dir) * 10 + k]: squares outward (up, down, right, left)
        ("RAY_N", 90 * 4),
        ("PAWN_T", 2 * 90 * 3),  # [colour * 270 + sq * 3 + k]: soldier steps
        ("PAWN_N", 2 * 90),
        ("PATK", 2 * 90 * 3),  # [colour * 270 + sq * 3 + k]: squares a soldier of colour attacks sq from
        ("PATK_N", 2 * 90),
        ("Z", 14 * 90),  # Zobrist keys [piece * 90 + sq]
        ("Z_SIDE", 1),
        ("PST", 14 * 90),  # piece-square values incl. material, Red's view (engine/xq_evaluate.py)
        ("PHASE_W", 14),  # game-phase weight of each piece code
        ("FILE", 90),
        ("RANK", 90),
        ("EVW", 8),  # the evaluation's whole-board weights, scaled by a style (engine/xq_evaluate.py W_*)
        ("RULES", 1),  # repetition rules of the search tree: 0 Asian, 1 Chinese (engine/xq_rules.py)
    ]
    out: dict[str, int] = {}
    pos = 0
    for name, size in sizes:
        out[name] = pos
        pos += size
    out["SIZE"] = pos
    return out


_L = _layout()
KING_T, KING_N, ADV_T, ADV_N = _L["KING_T"], _L["KING_N"], _L["ADV_T"], _L["ADV_N"]
ELE_T, ELE_EYE, ELE_N = _L["ELE_T"], _L["ELE_EYE"], _L["ELE_N"]
HORSE_T, HORSE_LEG, HORSE_N = _L["HORSE_T"], _L["HORSE_LEG"], _L["HORSE_N"]
HATK_S, HATK_LEG, HATK_N = _L["HATK_S"], _L["HATK_LEG"], _L["HATK_N"]
RAY, RAY_N, PAWN_T, PAWN_N, PATK, PATK_N = _L["RAY"], _L["RAY_N"], _L["PAWN_T"], _L["PAWN_N"], _L["PATK"], _L["PATK_N"]
Z, Z_SIDE, PST, PHASE_W = _L["Z"], _L["Z_SIDE"], _L["PST"], _L["PHASE_W"]
FILE, RANK, EVW = _L["FILE"], _L["RANK"], _L["EVW"]
RULES = _L["RULES"]
ASIAN, CHINESE = 0, 1  # tb[RULES]: the shared tables say Asian; a searcher's own copy may say Chinese
TB_SIZE = _L["SIZE"]


# ---- tables (plain Python, built once per process) -----------------------------------

def sq_of(file: int, rank: int) -> int:
    return rank * 9 + file


def in_palace(colour: int, file: int, rank: int) -> bool:
    return 3 <= file <= 5 and (rank <= 2 if colour == RED else rank >= 7)


def own_half(colour: int, rank: int) -> bool:
    return rank <= 4 if colour == RED else rank >= 5


def on_board(file: int, rank: int) -> bool:
    return 0 <= file < 9 and 0 <= rank < 10


def build_move_tables(seed: int = 20261201) -> np.ndarray:
    """Every geometric table and the Zobrist keys; PST/PHASE_W are left zero for the evaluator."""
    tb = np.zeros(TB_SIZE, dtype=np.int64)
    orth = ((0, 1), (0, -1), (1, 0), (-1, 0))
    diag = ((1, 1), (1, -1), (-1, 1), (-1, -1))
    for sq in range(NSQ):
        f, r = sq % 9, sq // 9
        tb[FILE + sq] = f
        tb[RANK + sq] = r
        for c in (RED, BLACK):
            n = 0
            for df, dr in orth:
                if on_board(f + df, r + dr) and in_palace(c, f + df, r + dr):
                    tb[KING_T + c * 360 + sq * 4 + n] = sq_of(f + df, r + dr)
                    n += 1
            tb[KING_N + c * 90 + sq] = n
            n = 0
            for df, dr in diag:
                if on_board(f + df, r + dr) and in_palace(c, f + df, r + dr):
                    tb[ADV_T + c * 360 + sq * 4 + n] = sq_of(f + df, r + dr)
                    n += 1
            tb[ADV_N + c * 90 + sq] = n
            n = 0
            for df, dr in diag:
                tf, tr = f + 2 * df, r + 2 * dr
                if on_board(tf, tr) and own_half(c, tr):
                    tb[ELE_T + c * 360 + sq * 4 + n] = sq_of(tf, tr)
                    tb[ELE_EYE + c * 360 + sq * 4 + n] = sq_of(f + df, r + dr)
                    n += 1
            tb[ELE_N + c * 90 + sq] = n
            # soldiers: forward, and sideways once across the river
            fwd = 1 if c == RED else -1
            n = 0
            steps = [(0, fwd)]
            if not own_half(c, r):
                steps += [(1, 0), (-1, 0)]
            for df, dr in steps:
                if on_board(f + df, r + dr):
                    tb[PAWN_T + c * 270 + sq * 3 + n] = sq_of(f + df, r + dr)
                    n += 1
            tb[PAWN_N + c * 90 + sq] = n
            # squares from which a soldier of colour c attacks sq
            n = 0
            if on_board(f, r - fwd):
                tb[PATK + c * 270 + sq * 3 + n] = sq_of(f, r - fwd)
                n += 1
            if not own_half(c, r):
                for df in (1, -1):
                    if on_board(f + df, r):
                        tb[PATK + c * 270 + sq * 3 + n] = sq_of(f + df, r)
                        n += 1
            tb[PATK_N + c * 90 + sq] = n
        n = 0
        m = 0
        for df, dr in ((1, 2), (-1, 2), (1, -2), (-1, -2), (2, 1), (2, -1), (-2, 1), (-2, -1)):
            # leg: the orthogonal neighbour in the long direction
            lf, lr = (f, r + dr // 2) if abs(dr) == 2 else (f + df // 2, r)
            if on_board(f + df, r + dr):
                tb[HORSE_T + sq * 8 + n] = sq_of(f + df, r + dr)
                tb[HORSE_LEG + sq * 8 + n] = sq_of(lf, lr)
                n += 1
                # a horse on (f+df, r+dr) reaches sq through its own leg
                sf, sr = f + df, r + dr
                blf, blr = (sf, sr - dr // 2) if abs(dr) == 2 else (sf - df // 2, sr)
                tb[HATK_S + sq * 8 + m] = sq_of(sf, sr)
                tb[HATK_LEG + sq * 8 + m] = sq_of(blf, blr)
                m += 1
        tb[HORSE_N + sq] = n
        tb[HATK_N + sq] = m
        for d, (df, dr) in enumerate(orth):
            k = 0
            tf, tr = f + df, r + dr
            while on_board(tf, tr):
                tb[RAY + (sq * 4 + d) * 10 + k] = sq_of(tf, tr)
                k += 1
                tf, tr = tf + df, tr + dr
            tb[RAY_N + sq * 4 + d] = k
    rng = np.random.default_rng(seed)
    keys = rng.integers(-(2**63), 2**63 - 1, size=14 * 90 + 1, dtype=np.int64)
    tb[Z : Z + 14 * 90] = keys[: 14 * 90]
    tb[Z_SIDE] = keys[14 * 90]
    return tb


# ---- kernels --------------------------------------------------------------------------

@kernel(inline=True)
def piece_type(pc: int) -> int:
    """``pc % 7`` for a piece code 0..13, without the sign fix-up of Python's modulo."""
    return pc - 7 if pc >= 7 else pc


@kernel(inline=True)
def piece_colour(pc: int) -> int:
    return 1 if pc >= 7 else 0


@kernel()
def attacked(tb: np.ndarray, mb: np.ndarray, sq: int, by: int) -> bool:
    """Whether colour ``by`` attacks ``sq`` (a king's square): rooks, cannons, horses, soldiers
    and the facing king on an open file (flying generals)."""
    rook = by * 7 + ROOK
    cannon = by * 7 + CANNON
    king = by * 7 + KING
    for d in range(4):
        base = RAY + (sq * 4 + d) * 10
        n = tb[RAY_N + sq * 4 + d]
        k = 0
        while k < n:
            p = mb[tb[base + k]]
            k += 1
            if p >= 0:
                if p == rook or (p == king and d < 2):
                    return True
                while k < n:
                    p = mb[tb[base + k]]
                    k += 1
                    if p >= 0:
                        if p == cannon:
                            return True
                        break
                break
    horse = by * 7 + HORSE
    for j in range(tb[HATK_N + sq]):
        if mb[tb[HATK_S + sq * 8 + j]] == horse and mb[tb[HATK_LEG + sq * 8 + j]] < 0:
            return True
    pawn = by * 7 + PAWN
    for j in range(tb[PATK_N + by * 90 + sq]):
        if mb[tb[PATK + by * 270 + sq * 3 + j]] == pawn:
            return True
    return False


@kernel(inline=True)
def in_check(tb: np.ndarray, mb: np.ndarray, st: np.ndarray) -> bool:
    us = st[SIDE]
    return attacked(tb, mb, st[KSQ + us], 1 - us)


@kernel(inline=True)
def _try(tb: np.ndarray, mb: np.ndarray, out: np.ndarray, n: int, fr: int, to: int, ksq: int, us: int,
         test: bool) -> int:
    """Append ``fr -> to`` if it leaves our king (on ``ksq`` after the move) unattacked.

    Without ``test`` (not in check, neither square on the king's lines nor a horse leg of
    the king) the move cannot expose the king and is appended unchecked.
    """
    if not test:
        out[n] = fr | (to << 7)
        return n + 1
    pc = mb[fr]
    cap = mb[to]
    mb[to] = pc
    mb[fr] = -1
    bad = attacked(tb, mb, ksq, 1 - us)
    mb[fr] = pc
    mb[to] = cap
    if not bad:
        out[n] = fr | (to << 7)
        n += 1
    return n


@kernel()
def gen_moves(tb: np.ndarray, mb: np.ndarray, st: np.ndarray, out: np.ndarray, qonly: bool) -> int:
    """Write the legal moves into ``out``; return how many.

    With ``qonly`` and not in check, only captures (for quiescence); in check every evasion.
    """
    us = st[SIDE]
    return gen_any(tb, mb, st, out, qonly, qonly and not qonly, attacked(tb, mb, st[KSQ + us], 1 - us))


@kernel()
def gen_any(tb: np.ndarray, mb: np.ndarray, st: np.ndarray, out: np.ndarray, qonly: bool, pseudo: bool,
            checked: bool) -> int:
    """``gen_moves``, or with ``pseudo`` the pseudo-legal moves (the search tests each one it
    makes: most are never made, thanks to cut-offs). ``checked``: whether the side to move is
    in check (the caller knows it already)."""
    us = st[SIDE]
    ksq = st[KSQ + us]
    if checked:
        qonly = False
    if pseudo:
        checked = False
    kf = tb[FILE + ksq]
    kr = tb[RANK + ksq]
    lo = us * 7
    hi = lo + 7
    n = 0
    for slot in range(us * 16, us * 16 + 16):
        fr = st[PL + slot]
        if fr < 0:
            continue
        pc = mb[fr]
        t = pc - lo
        ff = tb[FILE + fr]
        fr_r = tb[RANK + fr]
        tfr = checked or ff == kf or fr_r == kr or ((ff - kf) * (ff - kf) == 1 and (fr_r - kr) * (fr_r - kr) == 1)
        if pseudo:
            tfr = False
            kf = -1
            kr = -1
        if t == ROOK or t == CANNON:
            for d in range(4):
                base = RAY + (fr * 4 + d) * 10
                nr = tb[RAY_N + fr * 4 + d]
                k = 0
                while k < nr:
                    to = tb[base + k]
                    k += 1
                    p = mb[to]
                    if p < 0:
                        if not qonly:
                            n = _try(tb, mb, out, n, fr, to, ksq, us, tfr or tb[FILE + to] == kf or tb[RANK + to] == kr)
                        continue
                    if t == ROOK:
                        if p < lo or p >= hi:
                            n = _try(tb, mb, out, n, fr, to, ksq, us, tfr or tb[FILE + to] == kf or tb[RANK + to] == kr)
                    else:
                        while k < nr:
                            to = tb[base + k]
                            k += 1
                            p = mb[to]
                            if p >= 0:
                                if p < lo or p >= hi:
                                    n = _try(tb, mb, out, n, fr, to, ksq, us, tfr or tb[FILE + to] == kf or tb[RANK + to] == kr)
                                break
                    break
        elif t == HORSE:
            for j in range(tb[HORSE_N + fr]):
                if mb[tb[HORSE_LEG + fr * 8 + j]] >= 0:
                    continue
                to = tb[HORSE_T + fr * 8 + j]
                p = mb[to]
                if (p < 0 and not qonly) or (p >= 0 and (p < lo or p >= hi)):
                    n = _try(tb, mb, out, n, fr, to, ksq, us, tfr or tb[FILE + to] == kf or tb[RANK + to] == kr)
        elif t == PAWN:
            for j in range(tb[PAWN_N + us * 90 + fr]):
                to = tb[PAWN_T + us * 270 + fr * 3 + j]
                p = mb[to]
                if (p < 0 and not qonly) or (p >= 0 and (p < lo or p >= hi)):
                    n = _try(tb, mb, out, n, fr, to, ksq, us, tfr or tb[FILE + to] == kf or tb[RANK + to] == kr)
        elif t == ELEPHANT:
            for j in range(tb[ELE_N + us * 90 + fr]):
                if mb[tb[ELE_EYE + us * 360 + fr * 4 + j]] >= 0:
                    continue
                to = tb[ELE_T + us * 360 + fr * 4 + j]
                p = mb[to]
                if (p < 0 and not qonly) or (p >= 0 and (p < lo or p >= hi)):
                    n = _try(tb, mb, out, n, fr, to, ksq, us, tfr or tb[FILE + to] == kf or tb[RANK + to] == kr)
        elif t == ADVISOR:
            for j in range(tb[ADV_N + us * 90 + fr]):
                to = tb[ADV_T + us * 360 + fr * 4 + j]
                p = mb[to]
                if (p < 0 and not qonly) or (p >= 0 and (p < lo or p >= hi)):
                    n = _try(tb, mb, out, n, fr, to, ksq, us, tfr or tb[FILE + to] == kf or tb[RANK + to] == kr)
        else:  # king
            for j in range(tb[KING_N + us * 90 + fr]):
                to = tb[KING_T + us * 360 + fr * 4 + j]
                p = mb[to]
                if (p < 0 and not qonly) or (p >= 0 and (p < lo or p >= hi)):
                    n = _try(tb, mb, out, n, fr, to, to, us, not pseudo)
    return n


@kernel(inline=True)
def make_move(tb: np.ndarray, mb: np.ndarray, st: np.ndarray, hist: np.ndarray, undo: np.ndarray, m: int) -> None:
    us = st[SIDE]
    fr = m & 127
    to = (m >> 7) & 127
    pc = mb[fr]
    cap = mb[to]
    hp = st[HP]
    hist[hp] = st[KEY]
    undo[hp, U_CAP] = cap
    undo[hp, U_HALF] = st[HALF]
    undo[hp, U_MOVE] = m
    st[HP] = hp + 1
    key = st[KEY] ^ tb[Z + pc * 90 + fr] ^ tb[Z + pc * 90 + to] ^ tb[Z_SIDE]
    psq = st[PSQ] + tb[PST + pc * 90 + to] - tb[PST + pc * 90 + fr]
    if cap >= 0:
        key ^= tb[Z + cap * 90 + to]
        psq -= tb[PST + cap * 90 + to]
        st[HALF] = 0
    else:
        st[HALF] += 1
    st[KEY] = key
    st[PSQ] = psq
    st[NULLP] += 1
    slot = st[SLOT + fr]
    if cap >= 0:
        cs = st[SLOT + to]
        st[PL + cs] = -1
        undo[hp, U_CSLOT] = cs
    st[PL + slot] = to
    st[SLOT + to] = slot
    st[SLOT + fr] = -1
    mb[to] = pc
    mb[fr] = -1
    if pc == us * 7 + KING:
        st[KSQ + us] = to
    st[SIDE] = 1 - us


@kernel(inline=True)
def unmake_move(tb: np.ndarray, mb: np.ndarray, st: np.ndarray, hist: np.ndarray, undo: np.ndarray, m: int) -> None:
    us = 1 - st[SIDE]
    fr = m & 127
    to = (m >> 7) & 127
    hp = st[HP] - 1
    st[HP] = hp
    cap = undo[hp, U_CAP]
    st[HALF] = undo[hp, U_HALF]
    st[KEY] = hist[hp]
    pc = mb[to]
    psq = st[PSQ] - tb[PST + pc * 90 + to] + tb[PST + pc * 90 + fr]
    if cap >= 0:
        psq += tb[PST + cap * 90 + to]
    st[PSQ] = psq
    st[NULLP] -= 1
    slot = st[SLOT + to]
    st[PL + slot] = fr
    st[SLOT + fr] = slot
    if cap >= 0:
        cs = undo[hp, U_CSLOT]
        st[PL + cs] = to
        st[SLOT + to] = cs
    else:
        st[SLOT + to] = -1
    mb[fr] = pc
    mb[to] = cap
    if pc == us * 7 + KING:
        st[KSQ + us] = fr
    st[SIDE] = us


@kernel()
def make_null(tb: np.ndarray, st: np.ndarray, hist: np.ndarray, undo: np.ndarray) -> None:
    hp = st[HP]
    hist[hp] = st[KEY]
    undo[hp, U_CAP] = -1
    undo[hp, U_HALF] = st[HALF]
    undo[hp, U_MOVE] = 0
    undo[hp, U_NULLP] = st[NULLP]
    st[NULLP] = 0
    st[HP] = hp + 1
    st[HALF] += 1
    st[KEY] ^= tb[Z_SIDE]
    st[SIDE] = 1 - st[SIDE]


@kernel()
def unmake_null(st: np.ndarray, hist: np.ndarray, undo: np.ndarray) -> None:
    hp = st[HP] - 1
    st[HP] = hp
    st[HALF] = undo[hp, U_HALF]
    st[NULLP] = undo[hp, U_NULLP]
    st[KEY] = hist[hp]
    st[SIDE] = 1 - st[SIDE]


@kernel(nogil=True)
def perft_kernel(tb: np.ndarray, mb: np.ndarray, st: np.ndarray, hist: np.ndarray, undo: np.ndarray,
                 mv: np.ndarray, depth: int, ply: int, bulk: bool) -> int:
    """Leaf count below the current position; ``mv[ply:]`` is scratch space.

    Called only from Python (no literal arguments into a cached recursive kernel; docs/engine.md).
    """
    if depth == 0:
        return 1
    n = gen_moves(tb, mb, st, mv[ply], False)
    if depth == 1 and bulk:
        return n
    total = 0
    for i in range(n):
        m = mv[ply, i]
        make_move(tb, mb, st, hist, undo, m)
        total += perft_kernel(tb, mb, st, hist, undo, mv, depth - 1, ply + 1, bulk)
        unmake_move(tb, mb, st, hist, undo, m)
    return total


@kernel()
def in_check_of(tb: np.ndarray, mb: np.ndarray, st: np.ndarray, colour: int) -> bool:
    """Whether ``colour``'s king is attacked (either side, unlike ``in_check``)."""
    return attacked(tb, mb, st[KSQ + colour], 1 - colour)
