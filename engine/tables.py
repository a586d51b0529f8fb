# mypy: disable-error-code="no-any-return"
"""Precomputed tables for the kernels, packed into one uint64 array ``tb``.

One flat array keeps kernel signatures short and lets numba cache them (module-level
arrays would be frozen into every compiled function). The offsets below are plain ints,
which numba treats as compile-time constants.
"""

from __future__ import annotations

import numpy as np

from engine.bits import U0, U1, popcount
from engine.jit import njit
from engine.magics import BISHOP_MAGICS, ROOK_MAGICS


def _layout() -> dict[str, int]:
    sizes = [
        ("SQ", 64),
        ("KNIGHT", 64),
        ("KING", 64),
        ("PAWN_ATT", 128),  # [colour * 64 + square]
        ("R_MASK", 64),
        ("R_MAGIC", 64),
        ("R_SHIFT", 64),
        ("R_OFF", 64),
        ("B_MASK", 64),
        ("B_MAGIC", 64),
        ("B_SHIFT", 64),
        ("B_OFF", 64),
        ("BETWEEN", 4096),  # squares strictly between a and b on a line, else 0
        ("LINE", 4096),  # the whole line through a and b, else 0
        ("Z_PIECE", 768),  # [piece * 64 + square]
        ("Z_SIDE", 1),
        ("Z_CASTLE", 16),
        ("Z_EP", 8),
        ("CASTLE_KEEP", 64),  # castling rights kept when a move touches a square
        ("PASSED", 128),  # [colour * 64 + square]: squares ahead on this and adjacent files
        ("FILE", 8),
        ("ADJ", 8),  # files adjacent to a file
        ("SHIELD", 128),  # [colour * 64 + king square]: pawn-shield squares
        ("ATT", 102400 + 5248),  # rook then bishop magic attack sets
    ]
    out: dict[str, int] = {}
    pos = 0
    for name, size in sizes:
        out[name] = pos
        pos += size
    out["SIZE"] = pos
    return out


_L = _layout()
SQ = _L["SQ"]
KNIGHT = _L["KNIGHT"]
KING = _L["KING"]
PAWN_ATT = _L["PAWN_ATT"]
R_MASK = _L["R_MASK"]
R_MAGIC = _L["R_MAGIC"]
R_SHIFT = _L["R_SHIFT"]
R_OFF = _L["R_OFF"]
B_MASK = _L["B_MASK"]
B_MAGIC = _L["B_MAGIC"]
B_SHIFT = _L["B_SHIFT"]
B_OFF = _L["B_OFF"]
BETWEEN = _L["BETWEEN"]
LINE = _L["LINE"]
Z_PIECE = _L["Z_PIECE"]
Z_SIDE = _L["Z_SIDE"]
Z_CASTLE = _L["Z_CASTLE"]
Z_EP = _L["Z_EP"]
CASTLE_KEEP = _L["CASTLE_KEEP"]
PASSED = _L["PASSED"]
FILE = _L["FILE"]
ADJ = _L["ADJ"]
SHIELD = _L["SHIELD"]
ATT = _L["ATT"]
TB_SIZE = _L["SIZE"]

ROOK_DIRS = ((1, 0), (-1, 0), (0, 1), (0, -1))
BISHOP_DIRS = ((1, 1), (1, -1), (-1, 1), (-1, -1))


@njit(cache=True)
def _ray_attacks(sq: int, occ: np.uint64, bishop: bool) -> np.uint64:
    """Slow reference slider attacks, used only to fill the magic tables."""
    out = U0
    f0 = sq % 8
    r0 = sq // 8
    for d in range(4):
        if bishop:
            df = 1 if d < 2 else -1
            dr = 1 if d % 2 == 0 else -1
        else:
            df = (1, -1, 0, 0)[d]
            dr = (0, 0, 1, -1)[d]
        f = f0 + df
        r = r0 + dr
        while 0 <= f < 8 and 0 <= r < 8:
            b = U1 << np.uint64(r * 8 + f)
            out |= b
            if occ & b:
                break
            f += df
            r += dr
    return out


@njit(cache=True)
def _relevance_mask(sq: int, bishop: bool) -> np.uint64:
    """Blocker squares that matter for a slider on sq (board edges excluded)."""
    out = U0
    f0 = sq % 8
    r0 = sq // 8
    for d in range(4):
        if bishop:
            df = 1 if d < 2 else -1
            dr = 1 if d % 2 == 0 else -1
        else:
            df = (1, -1, 0, 0)[d]
            dr = (0, 0, 1, -1)[d]
        f = f0 + df
        r = r0 + dr
        while 0 <= f < 8 and 0 <= r < 8 and 0 <= f + df < 8 and 0 <= r + dr < 8:
            out |= U1 << np.uint64(r * 8 + f)
            f += df
            r += dr
    return out


@njit(cache=True)
def find_magics(seed: int) -> np.ndarray:
    """Search magic multipliers (rook squares 0-63, then bishop 64-127); run once offline."""
    out = np.zeros(128, dtype=np.uint64)
    state = np.uint64(seed)
    occs = np.zeros(4096, dtype=np.uint64)
    atts = np.zeros(4096, dtype=np.uint64)
    used = np.zeros(4096, dtype=np.uint64)
    epoch = np.zeros(4096, dtype=np.int64)
    tries = 0
    for k in range(128):
        bishop = k >= 64
        sq = k % 64
        mask = _relevance_mask(sq, bishop)
        bits = popcount(mask)
        n = 0
        sub = U0
        while True:
            occs[n] = sub
            atts[n] = _ray_attacks(sq, sub, bishop)
            n += 1
            sub = (sub - mask) & mask
            if sub == U0:
                break
        shift = np.uint64(64 - bits)
        while True:
            magic = np.uint64(0xFFFFFFFFFFFFFFFF)
            for _ in range(3):
                state ^= state << np.uint64(13)
                state ^= state >> np.uint64(7)
                state ^= state << np.uint64(17)
                magic &= state
            if popcount((mask * magic) >> np.uint64(56)) < 6:
                continue
            tries += 1
            ok = True
            for i in range(n):
                idx = np.int64((occs[i] * magic) >> shift)
                if epoch[idx] != tries:
                    epoch[idx] = tries
                    used[idx] = atts[i]
                elif used[idx] != atts[i]:
                    ok = False
                    break
            if ok:
                out[k] = magic
                break
    return out


@njit(cache=True)
def _fill(tb: np.ndarray, magics: np.ndarray, zobrist: np.ndarray) -> int:
    """Fill every table; returns the number of magic collisions (must be 0)."""
    for sq in range(64):
        tb[SQ + sq] = U1 << np.uint64(sq)
    for sq in range(64):
        f0 = sq % 8
        r0 = sq // 8
        kn = U0
        kg = U0
        for df in range(-2, 3):
            for dr in range(-2, 3):
                f = f0 + df
                r = r0 + dr
                if not (0 <= f < 8 and 0 <= r < 8) or (df == 0 and dr == 0):
                    continue
                if abs(df * dr) == 2:
                    kn |= tb[SQ + r * 8 + f]
                if abs(df) <= 1 and abs(dr) <= 1:
                    kg |= tb[SQ + r * 8 + f]
        tb[KNIGHT + sq] = kn
        tb[KING + sq] = kg
        for c in range(2):
            pa = U0
            r = r0 + (1 if c == 0 else -1)
            for df in (-1, 1):
                f = f0 + df
                if 0 <= f < 8 and 0 <= r < 8:
                    pa |= tb[SQ + r * 8 + f]
            tb[PAWN_ATT + c * 64 + sq] = pa
    collisions = 0
    off = 0
    for k in range(128):
        bishop = k >= 64
        sq = k % 64
        mask = _relevance_mask(sq, bishop)
        bits = popcount(mask)
        magic = magics[k]
        base = B_MASK if bishop else R_MASK
        tb[base + sq] = mask
        tb[base + 64 + sq] = magic
        tb[base + 128 + sq] = np.uint64(64 - bits)
        tb[base + 192 + sq] = np.uint64(ATT + off)
        sub = U0
        while True:
            att = _ray_attacks(sq, sub, bishop)
            idx = ATT + off + np.int64((sub * magic) >> np.uint64(64 - bits))
            if tb[idx] != U0 and tb[idx] != att:
                collisions += 1
            tb[idx] = att
            sub = (sub - mask) & mask
            if sub == U0:
                break
        off += 1 << bits
    for a in range(64):
        for b in range(64):
            if a == b:
                continue
            fa, ra, fb, rb = a % 8, a // 8, b % 8, b // 8
            df = fb - fa
            dr = rb - ra
            if not (df == 0 or dr == 0 or abs(df) == abs(dr)):
                continue
            bishop = df != 0 and dr != 0
            full = (_ray_attacks(a, U0, bishop) & _ray_attacks(b, U0, bishop)) | tb[SQ + a] | tb[SQ + b]
            between = _ray_attacks(a, tb[SQ + b], bishop) & _ray_attacks(b, tb[SQ + a], bishop)
            # the line through both: intersect the full rays, restricted to the same direction
            line = tb[SQ + a] | tb[SQ + b]
            sf = (df > 0) - (df < 0)
            sr = (dr > 0) - (dr < 0)
            for sgn in (-1, 1):
                f = fa + sgn * sf
                r = ra + sgn * sr
                while 0 <= f < 8 and 0 <= r < 8:
                    line |= tb[SQ + r * 8 + f]
                    f += sgn * sf
                    r += sgn * sr
            tb[BETWEEN + a * 64 + b] = between
            tb[LINE + a * 64 + b] = line & (full | line)
    for i in range(768 + 1 + 16 + 8):
        tb[Z_PIECE + i] = zobrist[i]
    tb[Z_CASTLE] = U0  # no rights hashes to nothing, so castle-less positions share keys
    for sq in range(64):
        keep = np.uint64(15)
        if sq == 4:
            keep = np.uint64(12)
        elif sq == 7:
            keep = np.uint64(14)
        elif sq == 0:
            keep = np.uint64(13)
        elif sq == 60:
            keep = np.uint64(3)
        elif sq == 63:
            keep = np.uint64(11)
        elif sq == 56:
            keep = np.uint64(7)
        tb[CASTLE_KEEP + sq] = keep
    for f in range(8):
        fm = U0
        for r in range(8):
            fm |= tb[SQ + r * 8 + f]
        tb[FILE + f] = fm
    for f in range(8):
        adj = U0
        if f > 0:
            adj |= tb[FILE + f - 1]
        if f < 7:
            adj |= tb[FILE + f + 1]
        tb[ADJ + f] = adj
    for sq in range(64):
        f0 = sq % 8
        r0 = sq // 8
        for c in range(2):
            m = U0
            sh = U0
            for r in range(8):
                ahead = r > r0 if c == 0 else r < r0
                for f in range(max(0, f0 - 1), min(8, f0 + 2)):
                    if ahead:
                        m |= tb[SQ + r * 8 + f]
                    near = (r - r0 if c == 0 else r0 - r)
                    if 1 <= near <= 2:
                        sh |= tb[SQ + r * 8 + f]
            tb[PASSED + c * 64 + sq] = m
            tb[SHIELD + c * 64 + sq] = sh
    return collisions


def build_tables() -> np.ndarray:
    """All kernel tables; zobrist keys come from a fixed seed so hashes are reproducible."""
    tb = np.zeros(TB_SIZE, dtype=np.uint64)
    magics = np.array(ROOK_MAGICS + BISHOP_MAGICS, dtype=np.uint64)
    rng = np.random.default_rng(0x5EED)
    zobrist = rng.integers(0, 2**64 - 1, size=768 + 1 + 16 + 8, dtype=np.uint64, endpoint=True)
    from engine.kernels import fill

    collisions = fill(tb, magics, zobrist)
    if collisions:
        raise RuntimeError(f"magic tables: {collisions} destructive collisions")
    return tb
