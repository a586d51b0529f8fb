# mypy: disable-error-code="no-any-return"
"""Static evaluation: tapered material and piece-square tables, mobility, pawn structure, king safety, threats.

Every weight is a runtime value in one int64 array ``ev`` (blocks named in ``LAYOUT``), loaded
from engine/data/eval_weights.json, which the tuner (bench/tune.py, docs/tuning.md) writes; the
hand-set numbers below are the fallback and the tuner's start. Because the kernels read ``ev``
rather than constants, ``scaled_tables`` can give a character's style its own weights without
recompiling. Scores are centipawns from the side to move.
"""

from __future__ import annotations

import functools
import json
import logging
import math
import os
from collections.abc import Mapping
from pathlib import Path

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

log = logging.getLogger(__name__)

# ---- the hand-set weights: the fallback when engine/data/eval_weights.json is absent -----
# Every weight is read at run time from the array ``ev`` (see ``LAYOUT``); these tuples are only
# the defaults that build it. The search imports VALUE_MG for move ordering and pruning margins.
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
KING_DANGER_CAP = 500  # the middlegame penalty is min(units ** 2, cap) with two attackers or more
TEMPO = 10
# ---------------------------------------------------------------------------------------

RANKS_4_6_WHITE = np.uint64(0x0000FFFFFF000000)  # relative ranks 4-6: where outposts can be
RANKS_4_6_BLACK = np.uint64(0x000000FFFFFF0000)
MOB_COUNT = (0, 9, 14, 15, 28, 0)  # mobility table length per piece type (0..max squares)
MOB_START = (0, 0, 9, 23, 38, 0)  # where each piece type's mobility row starts
MOB_SIZE = 66
DANGER_SIZE = 64  # king-danger table, indexed by attack units (capped)


def _ev_layout() -> dict[str, tuple[int, int]]:
    """Name -> (offset, size) of every weight block of the runtime array ``ev``."""
    sizes = [
        ("PST_MG", 6 * 64),  # [piece type * 64 + square from White's side], material excluded
        ("PST_EG", 6 * 64),
        ("MAT_MG", 6),
        ("MAT_EG", 6),
        ("MOB_MG", MOB_SIZE),  # [MOB_START[type] + safe squares attacked]
        ("MOB_EG", MOB_SIZE),
        ("PASSED_MG", 8),  # by relative rank
        ("PASSED_EG", 8),
        ("DOUBLED", 2),  # (mg, eg) per extra pawn on a file: negative, a penalty
        ("ISOLATED", 2),  # (mg, eg) per isolated pawn
        ("BISHOP_PAIR", 2),
        ("ROOK_OPEN", 2),
        ("ROOK_SEMI", 2),
        ("SHIELD", 4),  # mg, by shield pawns 0..3
        ("DANGER", DANGER_SIZE),  # mg added to the attacked side, by attack units
        ("KING_ATT", 6),  # attack units per king-zone square hit, by piece type
        ("PHASE_W", 6),
        ("TEMPO", 1),
        # Threats: (mg, eg) per enemy piece, by its type, that our pawns attack; that our knights
        # or bishops attack (a pawn, knight or bishop only when no enemy pawn guards it); that our
        # rooks attack (a queen, or anything no enemy pawn guards). Then (mg, eg) per enemy piece
        # we attack and nothing of theirs defends.
        ("THREAT_PAWN", 12),
        ("THREAT_MINOR", 12),
        ("THREAT_ROOK", 12),
        ("HANGING", 2),
        ("PASSED_BLOCKED", 16),  # (mg, eg) by relative rank, for a passed pawn whose stop square is occupied
        ("PASSED_KING_OWN", 8),  # eg by relative rank, times the own king's distance to the stop square
        ("PASSED_KING_THEIR", 8),  # the same for the enemy king's distance
        ("CONNECTED", 16),  # (mg, eg) by relative rank, for a pawn guarded by or beside an own pawn
        ("OUTPOST", 4),  # (mg, eg) for a knight, then a bishop, on an outpost (``outposts``)
        ("PHASE_TOTAL", 1),  # derived: the phase of the start position (the taper's denominator)
        # Per-colour terms of a style (``sided_tables``), neutral unless a style sets them: percent
        # scales of the king danger White / Black suffer, of White's / Black's shield bonus (100),
        # then White's / Black's mg bonus per piece within two squares of the enemy king (0).
        ("SIDE_STYLE", 6),
    ]
    out: dict[str, tuple[int, int]] = {}
    pos = 0
    for name, size in sizes:
        out[name] = (pos, size)
        pos += size
    return out


LAYOUT = _ev_layout()
PST_MG = LAYOUT["PST_MG"][0]
PST_EG = LAYOUT["PST_EG"][0]
MAT_MG = LAYOUT["MAT_MG"][0]
MAT_EG = LAYOUT["MAT_EG"][0]
MOB_MG_AT = LAYOUT["MOB_MG"][0]
MOB_EG_AT = LAYOUT["MOB_EG"][0]
PASSED_MG_AT = LAYOUT["PASSED_MG"][0]
PASSED_EG_AT = LAYOUT["PASSED_EG"][0]
DOUBLED_AT = LAYOUT["DOUBLED"][0]
ISOLATED_AT = LAYOUT["ISOLATED"][0]
BISHOP_PAIR_AT = LAYOUT["BISHOP_PAIR"][0]
ROOK_OPEN_AT = LAYOUT["ROOK_OPEN"][0]
ROOK_SEMI_AT = LAYOUT["ROOK_SEMI"][0]
SHIELD_AT = LAYOUT["SHIELD"][0]
DANGER_AT = LAYOUT["DANGER"][0]
KING_ATT_AT = LAYOUT["KING_ATT"][0]
PHASE_W_AT = LAYOUT["PHASE_W"][0]
TEMPO_AT = LAYOUT["TEMPO"][0]
THREAT_PAWN_AT = LAYOUT["THREAT_PAWN"][0]
THREAT_MINOR_AT = LAYOUT["THREAT_MINOR"][0]
THREAT_ROOK_AT = LAYOUT["THREAT_ROOK"][0]
HANGING_AT = LAYOUT["HANGING"][0]
PASSED_BLOCKED_AT = LAYOUT["PASSED_BLOCKED"][0]
PASSED_KING_OWN_AT = LAYOUT["PASSED_KING_OWN"][0]
PASSED_KING_THEIR_AT = LAYOUT["PASSED_KING_THEIR"][0]
CONNECTED_AT = LAYOUT["CONNECTED"][0]
OUTPOST_AT = LAYOUT["OUTPOST"][0]
PHASE_TOTAL_AT = LAYOUT["PHASE_TOTAL"][0]
SIDE_PCT_AT = LAYOUT["SIDE_STYLE"][0]
TROPISM_AT = SIDE_PCT_AT + 4
EV_SIZE = SIDE_PCT_AT + 6
#: Blocks that are not weights of their own: filled by ``with_derived``, not in the weights file.
DERIVED = frozenset({"PHASE_TOTAL", "SIDE_STYLE"})

PIECE_NAMES = ("pawn", "knight", "bishop", "rook", "queen", "king")
WEIGHTS_FILE = Path(__file__).resolve().parent / "data" / "eval_weights.json"
WEIGHTS_FORMAT = "boardctl-eval-weights 1"
WEIGHTS_ENV = "BOARDCTL_EVAL_WEIGHTS"


def _block(name: str) -> range:
    at, size = LAYOUT[name]
    return range(at, at + size)


def _join(*names: str) -> tuple[range, ...]:
    return tuple(_block(n) for n in names)


# What a character's style scales (engine/uci.py) and what the tuner reports on: group -> blocks of ``ev``.
WEIGHT_GROUPS: dict[str, tuple[range, ...]] = {
    "material": _join("MAT_MG", "MAT_EG"),
    "pst": _join("PST_MG", "PST_EG"),
    "mobility": _join("MOB_MG", "MOB_EG"),
    "pawn_structure": _join("DOUBLED", "ISOLATED", "CONNECTED"),
    "passed_pawns": _join("PASSED_MG", "PASSED_EG", "PASSED_BLOCKED", "PASSED_KING_OWN", "PASSED_KING_THEIR"),
    "king_safety": _join("SHIELD", "DANGER"),
    "pieces": _join("BISHOP_PAIR", "ROOK_OPEN", "ROOK_SEMI", "OUTPOST"),
    "threats": _join("THREAT_PAWN", "THREAT_MINOR", "THREAT_ROOK", "HANGING"),
    "king_attack_units": _join("KING_ATT"),
    "phase": _join("PHASE_W"),
    "tempo": _join("TEMPO"),
}


def _pst_value(ptype: int, sq: int) -> tuple[int, int]:
    """The hand-set positional part of a piece on ``sq`` (White's view), material excluded."""
    f, r = sq % 8, sq // 8
    md = abs(2 * f - 7) + abs(2 * r - 7)  # 2 (centre) .. 14 (corner)
    centre = 14 - md
    if ptype == PAWN:
        if r in (0, 7):
            return 0, 0  # no pawn ever stands there
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
    return mg, eg


def default_weights() -> np.ndarray:
    """The hand-set weights (the engine before tuning) as a runtime array."""
    ev = np.zeros(EV_SIZE, dtype=np.int64)
    for pt in range(6):
        for sq in range(64):
            ev[PST_MG + pt * 64 + sq], ev[PST_EG + pt * 64 + sq] = _pst_value(pt, sq)
        ev[MAT_MG + pt] = VALUE_MG[pt]
        ev[MAT_EG + pt] = VALUE_EG[pt]
        ev[KING_ATT_AT + pt] = KING_ATTACK_W[pt]
        ev[PHASE_W_AT + pt] = PHASE_W[pt]
        for n in range(MOB_COUNT[pt]):
            ev[MOB_MG_AT + MOB_START[pt] + n] = MOB_MG[pt] * (n - MOB_BASE[pt])
            ev[MOB_EG_AT + MOB_START[pt] + n] = MOB_EG[pt] * (n - MOB_BASE[pt])
    ev[PASSED_MG_AT:PASSED_MG_AT + 8] = PASSED_MG
    ev[PASSED_EG_AT:PASSED_EG_AT + 8] = PASSED_EG
    ev[DOUBLED_AT:DOUBLED_AT + 2] = (-DOUBLED[0], -DOUBLED[1])
    ev[ISOLATED_AT:ISOLATED_AT + 2] = (-ISOLATED[0], -ISOLATED[1])
    ev[BISHOP_PAIR_AT:BISHOP_PAIR_AT + 2] = BISHOP_PAIR
    ev[ROOK_OPEN_AT:ROOK_OPEN_AT + 2] = ROOK_OPEN
    ev[ROOK_SEMI_AT:ROOK_SEMI_AT + 2] = ROOK_SEMI
    ev[SHIELD_AT:SHIELD_AT + 4] = [SHIELD_MG * n for n in range(4)]
    ev[DANGER_AT:DANGER_AT + DANGER_SIZE] = [-min(u * u, KING_DANGER_CAP) for u in range(DANGER_SIZE)]
    ev[TEMPO_AT] = TEMPO
    return with_derived(ev)


def phase_total(ev: np.ndarray) -> int:
    """The phase of the start position under ``ev``'s phase weights: the taper's full middlegame."""
    counts = (16, 4, 4, 4, 2, 2)
    return int(sum(c * int(ev[PHASE_W_AT + pt]) for pt, c in enumerate(counts)))


def with_derived(ev: np.ndarray) -> np.ndarray:
    """``ev`` with its derived slots filled in: the phase total, and the per-colour style terms
    neutral; raises ValueError when the phase total is not positive."""
    total = phase_total(ev)
    if total <= 0:
        raise ValueError(f"evaluation weights: the phase weights {list(ev[PHASE_W_AT:PHASE_W_AT + 6])} "
                         "give the start position no phase; at least one must be positive")
    ev[PHASE_TOTAL_AT] = total
    ev[SIDE_PCT_AT:SIDE_PCT_AT + 4] = 100
    ev[TROPISM_AT:TROPISM_AT + 2] = 0
    return ev


def weights_to_json(ev: np.ndarray, *, tuner: Mapping[str, object] | None = None) -> str:
    """The weights file's text: every block by name (tables by piece), and how they were made."""
    blocks: dict[str, object] = {}
    for name, (at, size) in LAYOUT.items():
        if name in DERIVED:
            continue
        values = [int(v) for v in ev[at:at + size]]
        if name.startswith("PST_"):
            blocks[name] = {PIECE_NAMES[pt]: values[pt * 64:(pt + 1) * 64] for pt in range(6)}
        else:
            blocks[name] = values
    lines = [f' "format": {json.dumps(WEIGHTS_FORMAT)},',
             f' "tuner": {json.dumps(dict(tuner) if tuner is not None else None, indent=1)},', ' "weights": {']
    for i, (name, value) in enumerate(blocks.items()):
        end = "," if i < len(blocks) - 1 else ""
        if isinstance(value, dict):  # a table per piece, one line each: readable and diffable
            rows = [f'   "{piece}": {json.dumps(v)}' for piece, v in value.items()]
            lines.append(f'  "{name}": {{\n' + ",\n".join(rows) + f"\n  }}{end}")
        else:
            lines.append(f'  "{name}": {json.dumps(value)}{end}')
    return "{\n" + "\n".join(lines) + "\n }\n}\n"


def weights_from_json(text: str, *, source: str = "weights") -> tuple[np.ndarray, dict[str, object] | None]:
    """(runtime array, tuner record) from a weights file's text; ValueError naming ``source`` and the field."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{source}: not JSON ({exc})") from None
    if not isinstance(doc, dict) or doc.get("format") != WEIGHTS_FORMAT:
        raise ValueError(f"{source}: not a weights file (format should be {WEIGHTS_FORMAT!r})")
    blocks = doc.get("weights")
    if not isinstance(blocks, dict):
        raise ValueError(f"{source}: 'weights' should be an object of blocks")
    ev = np.zeros(EV_SIZE, dtype=np.int64)
    for name, (at, size) in LAYOUT.items():
        if name in DERIVED:
            continue
        raw = blocks.get(name)
        if name.startswith("PST_") and isinstance(raw, dict):
            raw = [v for piece in PIECE_NAMES for v in (raw.get(piece) or [None])]
        if not isinstance(raw, list) or len(raw) != size or not all(type(v) is int for v in raw):
            raise ValueError(f"{source}: weights block {name} should hold {size} integers")
        ev[at:at + size] = raw
    tuner = doc.get("tuner")
    try:
        return with_derived(ev), tuner if isinstance(tuner, dict) else None
    except ValueError as exc:
        raise ValueError(f"{source}: {exc}") from None


def load_weights(path: Path = WEIGHTS_FILE) -> np.ndarray:
    """The runtime array from the weights file, or the hand-set weights when there is none."""
    try:
        text = path.read_text()
    except FileNotFoundError:
        log.info("no evaluation weights at %s: using the hand-set ones", path)
        return default_weights()
    return weights_from_json(text, source=str(path))[0]


@functools.cache
def eval_tables() -> np.ndarray:
    """The evaluation's runtime weights (read-only), as every search uses them.

    ``BOARDCTL_EVAL_WEIGHTS`` names another weights file: matches of one set against another
    (docs/tuning.md) start the engine twice with different files.
    """
    other = os.environ.get(WEIGHTS_ENV, "")
    if other:  # named on purpose: a missing file is an error, not the hand-set weights
        try:
            ev = weights_from_json(Path(other).read_text(), source=f"{WEIGHTS_ENV}={other}")[0]
        except OSError as exc:
            raise ValueError(f"{WEIGHTS_ENV}={other}: cannot read it ({exc.strerror})") from None
    else:
        ev = load_weights()
    ev.flags.writeable = False
    return ev


def scaled_tables(scales: Mapping[str, float], *, base: np.ndarray | None = None) -> np.ndarray:
    """A copy of ``base`` (default: ``eval_tables()``) with each named group's weights multiplied.

    The characters' style options use it: scaling the runtime array needs no recompiling and
    follows whatever weights the tuner produced. Unknown groups raise ValueError.
    """
    ev = np.array(eval_tables() if base is None else base, dtype=np.int64)
    for group, factor in scales.items():
        if group not in WEIGHT_GROUPS:
            raise ValueError(f"unknown evaluation weight group {group!r}; known: {', '.join(WEIGHT_GROUPS)}")
        if not math.isfinite(factor) or factor < 0:
            raise ValueError(f"scale of {group!r} should be a finite number >= 0, not {factor}")
        for block in WEIGHT_GROUPS[group]:
            ev[block.start:block.stop] = np.rint(ev[block.start:block.stop] * factor).astype(np.int64)
    if phase_total(ev) <= 0:
        raise ValueError("scaling the phase weights to zero leaves no taper")
    ev = with_derived(ev)
    ev.flags.writeable = False
    return ev


def sided_tables(ev: np.ndarray, *, danger: tuple[int, int] = (100, 100),
                 shield: tuple[int, int] = (100, 100), tropism: tuple[int, int] = (0, 0)) -> np.ndarray:
    """A read-only copy of ``ev`` whose evaluation is no longer colour-symmetric: the king danger
    White and Black suffer, and their pawn-shield bonus, each scaled by its own percentage; and
    White's and Black's middlegame bonus per knight, bishop, rook or queen within two squares of
    the enemy king (king tropism, centipawns).

    Rodent IV's personalities separate attacking the enemy king from guarding one's own; a style
    does so through these, for the side it plays (engine/style.py). The defaults are ``ev`` itself.
    """
    for name, pair in (("danger", danger), ("shield", shield)):
        if len(pair) != 2 or not all(isinstance(v, int) and 0 <= v <= 10_000 for v in pair):
            raise ValueError(f"{name} scales should be two percentages 0..10000, not {pair!r}")
    if len(tropism) != 2 or not all(isinstance(v, int) and -1000 <= v <= 1000 for v in tropism):
        raise ValueError(f"tropism should be two centipawn values -1000..1000, not {tropism!r}")
    out = np.array(ev, dtype=np.int64)
    out[SIDE_PCT_AT:SIDE_PCT_AT + 6] = (*danger, *shield, *tropism)
    out.flags.writeable = False
    return out


@kernel(inline=True)
def _pct(value: int, pct: int) -> int:
    """``value`` scaled by ``pct`` percent (floored); exactly ``value`` at 100, with no division then."""
    if pct == 100:
        return value
    return value * pct // 100


@kernel(inline=True)
def _near_king(tb: np.ndarray, ksq: int) -> np.uint64:
    """The squares within two king steps of ``ksq``."""
    z = tb[KING + ksq] | tb[SQ + ksq]
    return _beside(z | (z << U8) | (z >> U8))


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
def passed_pawns(pawns: np.uint64, enemy_pawns: np.uint64, c: int) -> np.uint64:
    """Colour ``c``'s passed pawns: no enemy pawn ahead on this or an adjacent file, no own pawn ahead on this file."""
    return pawns & ~_behind(pawns, c) & ~_beside(_behind(enemy_pawns, c))


@kernel()
def connected_pawns(pawns: np.uint64, c: int) -> np.uint64:
    """Colour ``c``'s pawns guarded by an own pawn or standing beside one (a phalanx)."""
    beside = ((pawns & ~FILE_H) << U1) | ((pawns & ~FILE_A) >> U1)
    return pawns & (_pawn_attacks(pawns, c) | beside)


@kernel()
def outposts(pawns: np.uint64, enemy_pawns: np.uint64, c: int) -> np.uint64:
    """Squares on colour ``c``'s relative ranks 4-6 that an own pawn guards and no enemy pawn can
    ever attack (none on an adjacent file is still able to advance to it)."""
    ranks = RANKS_4_6_WHITE if c == 0 else RANKS_4_6_BLACK
    reach = _pawn_attacks(enemy_pawns | _behind(enemy_pawns, c), 1 - c)
    return ranks & _pawn_attacks(pawns, c) & ~reach


@kernel(inline=True)
def distance(a: int, b: int) -> int:
    """King steps between squares ``a`` and ``b``."""
    return max(abs((a & 7) - (b & 7)), abs((a >> 3) - (b >> 3)))


@kernel()
def threat_sets(bb: np.ndarray, c: int, pawn_att: np.uint64, minor_att: np.uint64, rook_att_: np.uint64,
                att: np.uint64, their_pawn_att: np.uint64,
                their_att: np.uint64) -> tuple[np.uint64, np.uint64, np.uint64, np.uint64]:
    """The enemy pieces colour ``c`` threatens: (attacked by pawns, by minors, by rooks, hanging).

    ``att`` and ``their_att`` are each side's attacks by everything but pawns (king included).
    """
    their = bb[7 - c] & ~bb[KING_T]
    guarded = their_pawn_att
    by_pawn = their & ~bb[PAWN] & pawn_att
    by_minor = their & minor_att & (~guarded | bb[ROOK] | bb[QUEEN])
    by_rook = their & rook_att_ & (~guarded | bb[QUEEN])
    hanging = their & (att | pawn_att) & ~(their_att | their_pawn_att)
    return by_pawn, by_minor, by_rook, hanging


@kernel()
def pawn_structure(ev: np.ndarray, pawns: np.uint64, enemy_pawns: np.uint64, c: int) -> tuple[int, int]:
    """(mg, eg) of colour ``c``'s isolated, doubled and passed pawns.

    Set-wise: the same sums as a loop over pawns and files, without the loops.
    """
    files = _files(pawns)
    isolated = popcount(pawns & ((files & ~((files << U1) | (files >> U1))) * FILE_A))
    doubled = popcount(pawns) - popcount(files)  # sum over files of (pawns on it - 1)
    mg = ev[ISOLATED_AT] * isolated + ev[DOUBLED_AT] * doubled
    eg = ev[ISOLATED_AT + 1] * isolated + ev[DOUBLED_AT + 1] * doubled
    passed = passed_pawns(pawns, enemy_pawns, c)
    while passed != U0:
        s = lsb(passed)
        passed &= passed - U1
        rr = s // 8 if c == 0 else 7 - s // 8
        mg += ev[PASSED_MG_AT + rr]
        eg += ev[PASSED_EG_AT + rr]
    return mg, eg


@kernel()
def _passer_terms(ev: np.ndarray, tb: np.ndarray, passed: np.uint64, occ: np.uint64, c: int,
                  own_ksq: int, their_ksq: int) -> tuple[int, int]:
    """(mg, eg) of colour ``c``'s passed pawns beyond their rank: blocked, and the kings' distances."""
    mg = 0
    eg = 0
    while passed != U0:
        s = lsb(passed)
        passed &= passed - U1
        rr = s // 8 if c == 0 else 7 - s // 8
        stop = s + 8 if c == 0 else s - 8
        if occ & tb[SQ + stop] != U0:
            mg += ev[PASSED_BLOCKED_AT + 2 * rr]
            eg += ev[PASSED_BLOCKED_AT + 2 * rr + 1]
        eg += ev[PASSED_KING_OWN_AT + rr] * distance(own_ksq, stop)
        eg += ev[PASSED_KING_THEIR_AT + rr] * distance(their_ksq, stop)
    return mg, eg


@kernel()
def _threat_terms(ev: np.ndarray, mb: np.ndarray, by_pawn: np.uint64, by_minor: np.uint64, by_rook: np.uint64,
                  hanging: np.uint64) -> tuple[int, int]:
    """(mg, eg) of the threats ``threat_sets`` found."""
    mg = 0
    eg = 0
    for at, t in ((THREAT_PAWN_AT, by_pawn), (THREAT_MINOR_AT, by_minor), (THREAT_ROOK_AT, by_rook)):
        while t != U0:
            s = lsb(t)
            t &= t - U1
            pt = piece_type(mb[s])
            mg += ev[at + 2 * pt]
            eg += ev[at + 2 * pt + 1]
    n = popcount(hanging)
    return mg + ev[HANGING_AT] * n, eg + ev[HANGING_AT + 1] * n


@kernel(inline=True)
def _side_terms(tb: np.ndarray, ev: np.ndarray, bb: np.ndarray, mb: np.ndarray, c: int,
                occ: np.uint64, their_pawn_att: np.uint64, own_ksq: int,
                their_ksq: int) -> tuple[int, int, int, int, int, np.uint64, np.uint64, np.uint64]:
    """(mg, eg, phase, king attack units, king attackers, then the squares attacked by the minor
    pieces, by the rooks and by every piece but the pawns) of colour ``c``'s pieces."""
    own = bb[6 + c]
    them = 1 - c
    flip = 56 * c  # black reads the tables from its own side of the board
    zone = tb[KING + their_ksq] | tb[SQ + their_ksq]
    safe = ~own & ~their_pawn_att
    pawns = bb[PAWN] & own
    their_pawns = bb[PAWN] & bb[6 + them]
    posts = outposts(pawns, their_pawns, c)
    mg = 0
    eg = 0
    phase = 0
    units = 0
    nattackers = 0
    minor_att = U0
    rook_att_ = U0
    att = tb[KING + own_ksq]
    p = own & ~bb[PAWN]
    while p != U0:
        s = lsb(p)
        p &= p - U1
        pt = piece_type(mb[s])
        mg += ev[MAT_MG + pt] + ev[PST_MG + pt * 64 + (s ^ flip)]
        eg += ev[MAT_EG + pt] + ev[PST_EG + pt * 64 + (s ^ flip)]
        phase += ev[PHASE_W_AT + pt]
        if pt == KING_T:
            continue
        if pt in (KNIGHT_T, BISHOP):
            a = tb[KNIGHT + s] if pt == KNIGHT_T else bishop_att(tb, s, occ)
            minor_att |= a
            if posts & tb[SQ + s] != U0:
                mg += ev[OUTPOST_AT + 2 * (pt - KNIGHT_T)]
                eg += ev[OUTPOST_AT + 2 * (pt - KNIGHT_T) + 1]
        elif pt == ROOK:
            a = rook_att(tb, s, occ)
            rook_att_ |= a
            f = s & 7
            if tb[FILE + f] & bb[PAWN] == U0:
                mg += ev[ROOK_OPEN_AT]
                eg += ev[ROOK_OPEN_AT + 1]
            elif tb[FILE + f] & bb[PAWN] & own == U0:
                mg += ev[ROOK_SEMI_AT]
                eg += ev[ROOK_SEMI_AT + 1]
        else:
            a = bishop_att(tb, s, occ) | rook_att(tb, s, occ)
        att |= a
        mob = MOB_START[pt] + popcount(a & safe)
        mg += ev[MOB_MG_AT + mob]
        eg += ev[MOB_EG_AT + mob]
        hits = a & zone
        if hits != U0:
            units += ev[KING_ATT_AT + pt] * popcount(hits)
            nattackers += 1
    if popcount(bb[BISHOP] & own) >= 2:
        mg += ev[BISHOP_PAIR_AT]
        eg += ev[BISHOP_PAIR_AT + 1]
    connected = connected_pawns(pawns, c)
    p = pawns
    npawns = 0
    while p != U0:
        s = lsb(p)
        p &= p - U1
        npawns += 1
        mg += ev[PST_MG + PAWN * 64 + (s ^ flip)]
        eg += ev[PST_EG + PAWN * 64 + (s ^ flip)]
        if connected & tb[SQ + s] != U0:
            rr = s // 8 if c == 0 else 7 - s // 8
            mg += ev[CONNECTED_AT + 2 * rr]
            eg += ev[CONNECTED_AT + 2 * rr + 1]
    mg += ev[MAT_MG + PAWN] * npawns
    eg += ev[MAT_EG + PAWN] * npawns
    phase += ev[PHASE_W_AT + PAWN] * npawns
    smg, seg = pawn_structure(ev, pawns, their_pawns, c)
    mg += smg
    eg += seg
    smg, seg = _passer_terms(ev, tb, passed_pawns(pawns, their_pawns, c), occ, c, own_ksq, their_ksq)
    mg += smg
    eg += seg
    shield = popcount(tb[SHIELD + c * 64 + own_ksq] & pawns)
    mg += _pct(ev[SHIELD_AT + min(shield, 3)], ev[SIDE_PCT_AT + 2 + c])
    return mg, eg, phase, units, nattackers, minor_att, rook_att_, att


@kernel()
def evaluate(tb: np.ndarray, ev: np.ndarray, bb: np.ndarray, mb: np.ndarray, st: np.ndarray) -> int:
    """Static score in centipawns for the side to move."""
    occ = bb[6] | bb[7]
    wp = bb[PAWN] & bb[6]
    bp = bb[PAWN] & bb[7]
    wk = lsb(bb[KING_T] & bb[6])
    bk = lsb(bb[KING_T] & bb[7])
    wpa = _pawn_attacks(wp, 0)
    bpa = _pawn_attacks(bp, 1)
    mg0, eg0, ph0, u0, a0, wminor, wrook, watt = _side_terms(tb, ev, bb, mb, 0, occ, bpa, wk, bk)
    mg1, eg1, ph1, u1, a1, bminor, brook, batt = _side_terms(tb, ev, bb, mb, 1, occ, wpa, bk, wk)
    t0, t1, t2, t3 = threat_sets(bb, 0, wpa, wminor, wrook, watt, bpa, batt)
    tmg, teg = _threat_terms(ev, mb, t0, t1, t2, t3)
    mg0 += tmg
    eg0 += teg
    t0, t1, t2, t3 = threat_sets(bb, 1, bpa, bminor, brook, batt, wpa, watt)
    tmg, teg = _threat_terms(ev, mb, t0, t1, t2, t3)
    mg1 += tmg
    eg1 += teg
    if a0 >= 2:  # white attacks the black king
        mg1 += _pct(ev[DANGER_AT + min(max(u0, 0), DANGER_SIZE - 1)], ev[SIDE_PCT_AT + 1])
    if a1 >= 2:
        mg0 += _pct(ev[DANGER_AT + min(max(u1, 0), DANGER_SIZE - 1)], ev[SIDE_PCT_AT])
    if ev[TROPISM_AT] != 0:  # a style's bonus for pieces close to the enemy king; 0 unless styled
        mg0 += ev[TROPISM_AT] * popcount(bb[6] & ~bb[PAWN] & ~bb[KING_T] & _near_king(tb, bk))
    if ev[TROPISM_AT + 1] != 0:
        mg1 += ev[TROPISM_AT + 1] * popcount(bb[7] & ~bb[PAWN] & ~bb[KING_T] & _near_king(tb, wk))
    total = ev[PHASE_TOTAL_AT]
    phase = min(max(ph0 + ph1, 0), total)
    blend = (mg0 - mg1) * phase + (eg0 - eg1) * (total - phase)
    # rounded towards zero, so that the colour-mirrored position scores exactly the negation
    score = blend // total if blend >= 0 else -((-blend) // total)
    if bb[PAWN] == U0 and (bb[ROOK] | bb[QUEEN]) == U0 and popcount(bb[KNIGHT_T] | bb[BISHOP]) <= 1:
        return 0  # a lone minor piece cannot win
    if st[SIDE] == 1:
        score = -score
    return score + ev[TEMPO_AT]
