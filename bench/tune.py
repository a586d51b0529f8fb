"""Texel tuning of every evaluation weight (engine/evaluate.py) on labelled positions.

``python -m bench tune --data FILE [--seed S] [--iterations N]`` reads the positions that
bench/tune_data.py wrote, fits the sigmoid scale K to the current weights, then minimises

    mean over positions of (label - sigmoid(K * eval(position)))^2

over the whole runtime array at once: material, piece-square tables (middlegame and endgame),
mobility tables, pawn structure (connected pawns too), passed pawns (blocked, the kings' distances),
threats and hanging pieces, outposts, bishop pair and rooks on files, king shelter and
king danger, tempo, and the tapered phase's piece weights. The evaluation is linear in all of
them but the phase weights (and the king-attack unit weights, which index the danger table and
stay as they are), so each position is reduced once to sparse coefficients and the gradient is
a pair of numpy ``bincount`` calls; the phase weights get their exact gradient through the taper.
Adam steps, a seeded hold-out split and early stopping on it, then integer rounding.

The label mixes Texel's game result with Stockfish's fixed-depth evaluation:
``lambda * result + (1 - lambda) * sigmoid(Ksf * stockfish_cp)``, Ksf fitted to the results.

The weights go to engine/data/eval_weights.json (or ``--out``) with the tuner's parameters; keep them
only if an SPRT against the previous set (bench/sprt.py) accepts them (docs/tuning.md).
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import logging
import math
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import chess
import numpy as np

from engine import evaluate as E
from engine.bits import FILE_A, U0, U1, kernel, lsb, popcount
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
from engine.position import Position, tables
from engine.tables import FILE, KING, KNIGHT, SHIELD, SQ

log = logging.getLogger(__name__)

LN10_400 = math.log(10) / 400
BLOCK = 100  # positions per hold-out block (a game gives about 35)
START_COUNTS = np.array([16, 4, 4, 4, 2, 2], dtype=np.float64)  # pieces of each type at the start


# ---- the evaluation as sparse coefficients --------------------------------------------------

@kernel()
def features(tb: np.ndarray, bb: np.ndarray, mb: np.ndarray, st: np.ndarray, acc: np.ndarray,
             counts: np.ndarray, hits: np.ndarray) -> None:
    """Coefficients of every linear weight in ``evaluate`` (White minus Black) into ``acc``.

    Mirrors engine.evaluate.evaluate term by term: the score is ``acc @ weights`` tapered by
    phase, plus the king-danger entries that depend on the attack units (from ``hits``:
    [side, piece type] king-zone squares hit, and [side, 6] the number of attackers).
    ``counts`` gets the number of pieces of each type (both sides), for the phase.
    """
    occ = bb[6] | bb[7]
    # each side's attacks, for the threats: by pawns, by minors, by rooks, by all but pawns
    white = (U0, U0, U0, U0)
    black = (U0, U0, U0, U0)
    for c in range(2):
        sgn = 1 if c == 0 else -1
        flip = 56 * c
        own = bb[6 + c]
        them = 1 - c
        their_pawns = bb[PAWN] & bb[6 + them]
        their_att = E._pawn_attacks(their_pawns, them)
        their_ksq = lsb(bb[KING_T] & bb[6 + them])
        own_ksq = lsb(bb[KING_T] & own)
        zone = tb[KING + their_ksq] | tb[SQ + their_ksq]
        safe = ~own & ~their_att
        pawns = bb[PAWN] & own
        posts = E.outposts(pawns, their_pawns, c)
        minor_att = U0
        rook_att_ = U0
        att = tb[KING + own_ksq]
        p = own
        while p != U0:
            s = lsb(p)
            p &= p - U1
            pc = mb[s]
            pt = pc - 6 if pc >= 6 else pc
            acc[E.MAT_MG + pt] += sgn
            acc[E.MAT_EG + pt] += sgn
            acc[E.PST_MG + pt * 64 + (s ^ flip)] += sgn
            acc[E.PST_EG + pt * 64 + (s ^ flip)] += sgn
            counts[pt] += 1
            if pt in (KING_T, PAWN):
                continue
            if pt in (KNIGHT_T, BISHOP):
                a = tb[KNIGHT + s] if pt == KNIGHT_T else bishop_att(tb, s, occ)
                minor_att |= a
                if posts & tb[SQ + s] != U0:
                    acc[E.OUTPOST_AT + 2 * (pt - KNIGHT_T)] += sgn
                    acc[E.OUTPOST_AT + 2 * (pt - KNIGHT_T) + 1] += sgn
            elif pt == ROOK:
                a = rook_att(tb, s, occ)
                rook_att_ |= a
                f = s & 7
                if tb[FILE + f] & bb[PAWN] == U0:
                    acc[E.ROOK_OPEN_AT] += sgn
                    acc[E.ROOK_OPEN_AT + 1] += sgn
                elif tb[FILE + f] & bb[PAWN] & own == U0:
                    acc[E.ROOK_SEMI_AT] += sgn
                    acc[E.ROOK_SEMI_AT + 1] += sgn
            else:
                a = bishop_att(tb, s, occ) | rook_att(tb, s, occ)
            att |= a
            mob = E.MOB_START[pt] + popcount(a & safe)
            acc[E.MOB_MG_AT + mob] += sgn
            acc[E.MOB_EG_AT + mob] += sgn
            h = a & zone
            if h != U0:
                hits[c, pt] += popcount(h)
                hits[c, 6] += 1
        if popcount(bb[BISHOP] & own) >= 2:
            acc[E.BISHOP_PAIR_AT] += sgn
            acc[E.BISHOP_PAIR_AT + 1] += sgn
        files = E._files(pawns)
        isolated = popcount(pawns & ((files & ~((files << U1) | (files >> U1))) * FILE_A))
        doubled = popcount(pawns) - popcount(files)
        acc[E.ISOLATED_AT] += sgn * isolated
        acc[E.ISOLATED_AT + 1] += sgn * isolated
        acc[E.DOUBLED_AT] += sgn * doubled
        acc[E.DOUBLED_AT + 1] += sgn * doubled
        connected = E.connected_pawns(pawns, c)
        while connected != U0:
            s = lsb(connected)
            connected &= connected - U1
            rr = s // 8 if c == 0 else 7 - s // 8
            acc[E.CONNECTED_AT + 2 * rr] += sgn
            acc[E.CONNECTED_AT + 2 * rr + 1] += sgn
        passed = E.passed_pawns(pawns, their_pawns, c)
        while passed != U0:
            s = lsb(passed)
            passed &= passed - U1
            rr = s // 8 if c == 0 else 7 - s // 8
            acc[E.PASSED_MG_AT + rr] += sgn
            acc[E.PASSED_EG_AT + rr] += sgn
            stop = s + 8 if c == 0 else s - 8
            if occ & tb[SQ + stop] != U0:
                acc[E.PASSED_BLOCKED_AT + 2 * rr] += sgn
                acc[E.PASSED_BLOCKED_AT + 2 * rr + 1] += sgn
            acc[E.PASSED_KING_OWN_AT + rr] += sgn * E.distance(own_ksq, stop)
            acc[E.PASSED_KING_THEIR_AT + rr] += sgn * E.distance(their_ksq, stop)
        shield = popcount(tb[SHIELD + c * 64 + own_ksq] & pawns)
        acc[E.SHIELD_AT + min(shield, 3)] += sgn
        if c == 0:
            white = (E._pawn_attacks(pawns, 0), minor_att, rook_att_, att)
        else:
            black = (E._pawn_attacks(pawns, 1), minor_att, rook_att_, att)
    for c in range(2):
        sgn = 1 if c == 0 else -1
        us, other = (white, black) if c == 0 else (black, white)
        sets = E.threat_sets(bb, c, us[0], us[1], us[2], us[3], other[0], other[3])
        for k in range(3):
            t = sets[k]
            at = (E.THREAT_PAWN_AT, E.THREAT_MINOR_AT, E.THREAT_ROOK_AT)[k]
            while t != U0:
                s = lsb(t)
                t &= t - U1
                pt = piece_type(mb[s])
                acc[at + 2 * pt] += sgn
                acc[at + 2 * pt + 1] += sgn
        n = popcount(sets[3])
        acc[E.HANGING_AT] += sgn * n
        acc[E.HANGING_AT + 1] += sgn * n
    acc[E.TEMPO_AT] += 1 if st[SIDE] == 0 else -1


@kernel()
def is_lone_minor(bb: np.ndarray) -> bool:
    """The evaluation's drawn ending (a lone minor piece, no pawns): it scores 0, with no weight."""
    return bool(bb[PAWN] == U0 and (bb[ROOK] | bb[QUEEN]) == U0 and popcount(bb[KNIGHT_T] | bb[BISHOP]) <= 1)


def _classes() -> np.ndarray:
    """Per weight: 0 middlegame, 1 endgame, 2 untapered (tempo), -1 not linear (phase, units, derived)."""
    cls = np.full(E.EV_SIZE, -1, dtype=np.int8)
    for name in ("PST_MG", "MAT_MG", "MOB_MG", "PASSED_MG", "SHIELD", "DANGER"):
        at, size = E.LAYOUT[name]
        cls[at:at + size] = 0
    for name in ("PST_EG", "MAT_EG", "MOB_EG", "PASSED_EG", "PASSED_KING_OWN", "PASSED_KING_THEIR"):
        at, size = E.LAYOUT[name]
        cls[at:at + size] = 1
    for name in ("DOUBLED", "ISOLATED", "BISHOP_PAIR", "ROOK_OPEN", "ROOK_SEMI", "THREAT_PAWN", "THREAT_MINOR",
                 "THREAT_ROOK", "HANGING", "PASSED_BLOCKED", "CONNECTED", "OUTPOST"):
        at, size = E.LAYOUT[name]  # (mg, eg) pairs
        cls[at:at + size:2] = 0
        cls[at + 1:at + size:2] = 1
    cls[E.TEMPO_AT] = 2
    return cls


CLASSES = _classes()


@dataclass
class Dataset:
    """Positions reduced to sparse coefficients: entry k adds vals[k] * w[cols[k]] to rows[k]."""

    rows: np.ndarray  # int32
    cols: np.ndarray  # int32
    vals: np.ndarray  # float64
    counts: np.ndarray  # (n, 6) pieces of each type
    hits: np.ndarray  # (n, 2, 7) king-zone hits by side and piece type, then attackers
    results: np.ndarray  # game result from White's side
    sf_cp: np.ndarray  # Stockfish's score from White's side
    groups: np.ndarray  # hold-out unit: the game (when the data names it), else a block of BLOCK rows

    @property
    def size(self) -> int:
        return int(self.results.shape[0])

    def subset(self, index: np.ndarray) -> Dataset:
        keep = np.isin(self.rows, index)
        remap = np.full(self.size, -1, dtype=np.int64)
        remap[index] = np.arange(len(index))
        return Dataset(remap[self.rows[keep]].astype(np.int32), self.cols[keep], self.vals[keep],
                       self.counts[index], self.hits[index], self.results[index], self.sf_cp[index],
                       self.groups[index])


Row = tuple[str, float, int, int]  # fen, result, Stockfish's cp, hold-out group


def reduce_positions(rows: Sequence[tuple[str, float, int] | Row]) -> Dataset:
    """Sparse coefficients of ``(fen, result, stockfish_cp[, group])`` rows (lone-minor endings dropped).

    Games are groups 0, 1, ...; a row without one gets the block -1 - index // BLOCK
    (consecutive positions, mostly of one game).
    """
    tb = tables()
    acc = np.zeros(E.EV_SIZE, dtype=np.int64)
    r_l: list[np.ndarray] = []
    c_l: list[np.ndarray] = []
    v_l: list[np.ndarray] = []
    counts: list[np.ndarray] = []
    hits: list[np.ndarray] = []
    results: list[float] = []
    sf: list[float] = []
    groups: list[int] = []
    for n, row in enumerate(rows):
        if len(row) == 4:
            fen, result, cp, group = row
        else:
            fen, result, cp = row
            group = -1 - n // BLOCK
        pos = Position.from_board(chess.Board(fen))
        if is_lone_minor(pos.bb):
            continue
        acc[:] = 0
        cnt = np.zeros(6, dtype=np.int64)
        hit = np.zeros((2, 7), dtype=np.int64)
        with np.errstate(over="ignore"):  # magic products wrap, as in the kernels, when run as Python
            features(tb, pos.bb, pos.mb, pos.st, acc, cnt, hit)
        nz = np.flatnonzero(acc)
        r_l.append(np.full(nz.size, len(results), dtype=np.int32))
        c_l.append(nz.astype(np.int32))
        v_l.append(acc[nz].astype(np.float64))
        counts.append(cnt)
        hits.append(hit)
        results.append(result)
        sf.append(cp)
        groups.append(group)
    return Dataset(np.concatenate(r_l), np.concatenate(c_l), np.concatenate(v_l),
                   np.array(counts, dtype=np.float64), np.array(hits, dtype=np.int64),
                   np.array(results), np.array(sf, dtype=np.float64), np.array(groups, dtype=np.int64))


def danger_entries(data: Dataset, ev: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(rows, cols, vals) of the king-danger table under ``ev``'s attack-unit weights."""
    w = ev[E.KING_ATT_AT:E.KING_ATT_AT + 6]
    units = np.clip((data.hits[:, :, :6] * w).sum(axis=2), 0, E.DANGER_SIZE - 1)  # (n, 2)
    rows_l, cols_l, vals_l = [], [], []
    for side, sign in ((0, -1.0), (1, 1.0)):  # side 0 attacking hurts Black: minus from White's view
        on = np.flatnonzero(data.hits[:, side, 6] >= 2)
        rows_l.append(on.astype(np.int32))
        cols_l.append((E.DANGER_AT + units[on, side]).astype(np.int32))
        vals_l.append(np.full(on.size, sign))
    return np.concatenate(rows_l), np.concatenate(cols_l), np.concatenate(vals_l)


class Model:
    """The evaluation over a dataset as a function of float weights: scores and their gradient."""

    def __init__(self, data: Dataset, ev: np.ndarray) -> None:
        dr, dc, dv = danger_entries(data, ev)
        rows = np.concatenate([data.rows, dr])
        cols = np.concatenate([data.cols, dc])
        vals = np.concatenate([data.vals, dv])
        self.n = data.size
        self.parts = []
        for cls in (0, 1, 2):
            m = CLASSES[cols] == cls
            self.parts.append((rows[m], cols[m], vals[m]))
        self.counts = data.counts

    def rho(self, pw: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
        total = float(START_COUNTS @ pw)
        raw = self.counts @ pw
        return np.minimum(raw, total) / total, raw, total

    def sums(self, w: np.ndarray) -> list[np.ndarray]:
        return [np.bincount(r, weights=v * w[c], minlength=self.n) for r, c, v in self.parts]

    def scores(self, w: np.ndarray, pw: np.ndarray) -> np.ndarray:
        mg, eg, flat = self.sums(w)
        rho, _, _ = self.rho(pw)
        out: np.ndarray = mg * rho + eg * (1 - rho) + flat
        return out

    def gradient(self, w: np.ndarray, pw: np.ndarray, g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """d(sum of g * score)/dw and /dpw for per-position weights ``g`` (dLoss/dscore)."""
        mg, eg, _ = self.sums(w)
        rho, raw, total = self.rho(pw)
        gw = np.zeros(E.EV_SIZE)
        for (r, c, v), factor in zip(self.parts, (g * rho, g * (1 - rho), g), strict=True):
            gw += np.bincount(c, weights=v * factor[r], minlength=E.EV_SIZE)
        free = raw < total
        drho = np.where(free[:, None], (self.counts * total - raw[:, None] * START_COUNTS) / total ** 2, 0.0)
        gpw = ((g * (mg - eg))[:, None] * drho).sum(axis=0)
        return gw, gpw


def sigmoid(x: np.ndarray) -> np.ndarray:
    out: np.ndarray = 1.0 / (1.0 + np.exp(-np.clip(x, -50, 50)))
    return out


def mse(labels: np.ndarray, scores: np.ndarray, k: float) -> float:
    return float(np.mean((labels - sigmoid(k * LN10_400 * scores)) ** 2))


def fit_scale(labels: np.ndarray, scores: np.ndarray) -> float:
    """The K (in units of 400 cp per factor of 10 odds) minimising the error: golden-section search."""
    lo, hi = 0.05, 5.0
    phi = (math.sqrt(5) - 1) / 2
    for _ in range(60):
        a = hi - phi * (hi - lo)
        b = lo + phi * (hi - lo)
        if mse(labels, scores, a) < mse(labels, scores, b):
            hi = b
        else:
            lo = a
    return (lo + hi) / 2


@dataclass(frozen=True, kw_only=True)
class TuneResult:
    weights: np.ndarray
    record: dict[str, object]


def labels_of(data: Dataset, lam: float, k_sf: float) -> np.ndarray:
    out: np.ndarray = lam * data.results + (1 - lam) * sigmoid(k_sf * LN10_400 * data.sf_cp)
    return out


def split(groups: np.ndarray, *, seed: int, share: float) -> tuple[np.ndarray, np.ndarray]:
    """(train, hold-out) row indices: a seeded ``share`` of the groups (games or blocks) held out whole.

    A game's positions share its result, so a position-by-position split would leak into the
    hold-out.
    """
    rng = np.random.default_rng(seed)
    units = np.unique(groups)
    chosen = rng.permutation(units)[:max(1, round(units.size * share))] if units.size > 1 else units[:0]
    is_valid = np.isin(groups, chosen)
    return np.flatnonzero(~is_valid), np.flatnonzero(is_valid)


def tune(data: Dataset, start: np.ndarray, *, seed: int, iterations: int, lam: float = 0.5,
         lr: float = 1.0, lr_phase: float = 0.01, holdout: float = 0.1, patience: int = 60,
         l2: float = 0.0) -> TuneResult:
    """Tuned weights from ``start`` on ``data``, and a record of how (losses, K, iterations).

    ``l2`` pulls every weight towards its start: ``l2 * mean((w - start)^2)`` joins the loss, so
    weights that few positions inform (a queen with 27 free squares) stay near their start.
    """
    train, valid = split(data.groups, seed=seed, share=holdout)
    n_valid = valid.size
    k_sf = fit_scale(data.results, data.sf_cp) if lam < 1 else 0.0
    tr, va = data.subset(train), data.subset(valid)
    y_tr, y_va = labels_of(tr, lam, k_sf), labels_of(va, lam, k_sf)
    m_tr, m_va = Model(tr, start), Model(va, start)
    w = start.astype(np.float64)
    linear = CLASSES >= 0
    pw = w[E.PHASE_W_AT:E.PHASE_W_AT + 6].copy()
    phase_free = np.array([True, True, True, True, True, False])
    k = fit_scale(y_tr, m_tr.scores(w, pw))
    kk = k * LN10_400
    loss0_tr = mse(y_tr, m_tr.scores(w, pw), k)
    loss0_va = mse(y_va, m_va.scores(w, pw), k) if n_valid else loss0_tr
    log.info("K=%.3f Ksf=%.3f; start loss train %.6f valid %.6f (%d/%d positions)",
             k, k_sf, loss0_tr, loss0_va, tr.size, va.size)
    m1, v1 = np.zeros_like(w), np.zeros_like(w)
    m2, v2 = np.zeros_like(pw), np.zeros_like(pw)
    b1, b2, eps = 0.9, 0.999, 1e-12
    best = (loss0_va, w.copy(), pw.copy(), 0)
    for it in range(1, iterations + 1):
        s = m_tr.scores(w, pw)
        p = sigmoid(kk * s)
        g = -2 * (y_tr - p) * p * (1 - p) * kk / tr.size
        gw, gpw = m_tr.gradient(w, pw, g)
        gw += 2 * l2 * (w - start) / linear.sum()
        gw[~linear] = 0
        gpw[~phase_free] = 0
        m1 = b1 * m1 + (1 - b1) * gw
        v1 = b2 * v1 + (1 - b2) * gw * gw
        w -= lr * (m1 / (1 - b1 ** it)) / (np.sqrt(v1 / (1 - b2 ** it)) + eps)
        m2 = b1 * m2 + (1 - b1) * gpw
        v2 = b2 * v2 + (1 - b2) * gpw * gpw
        pw -= lr_phase * (m2 / (1 - b1 ** it)) / (np.sqrt(v2 / (1 - b2 ** it)) + eps)
        pw = np.maximum(pw, 0.0)
        if it % 10 == 0 or it == iterations:
            lva = mse(y_va, m_va.scores(w, pw), k) if n_valid else mse(y_tr, m_tr.scores(w, pw), k)
            if lva < best[0]:
                best = (lva, w.copy(), pw.copy(), it)
            if it % 50 == 0:
                log.info("iteration %d: train %.6f valid %.6f", it, mse(y_tr, s, k), lva)
            if it - best[3] > patience:
                break
    _, w, pw, best_it = best
    out = finish(w, pw, start)
    loss_tr = mse(y_tr, m_tr.scores(out.astype(np.float64), out[E.PHASE_W_AT:E.PHASE_W_AT + 6].astype(float)), k)
    loss_va = mse(y_va, m_va.scores(out.astype(np.float64), out[E.PHASE_W_AT:E.PHASE_W_AT + 6].astype(float)), k) \
        if n_valid else loss_tr
    by_game = bool((data.groups >= 0).any())
    record: dict[str, object] = {
        "method": "Texel: Adam on the sigmoid-scaled squared error, early-stopped on a hold-out of whole games"
                  if by_game else "Texel: Adam on the sigmoid-scaled squared error, early-stopped on a hold-out of whole blocks of 100 consecutive positions",
        "seed": seed, "positions_train": tr.size, "positions_valid": va.size, "K": round(k, 4),
        "label": f"{lam} * game result + {1 - lam:.2f} * sigmoid(Ksf * stockfish_cp)", "Ksf": round(k_sf, 4),
        "iterations_max": iterations, "iterations_best": best_it, "learning_rate": lr, "l2": l2,
        "learning_rate_phase": lr_phase, "loss_start": {"train": round(loss0_tr, 6), "valid": round(loss0_va, 6)},
        "loss_end": {"train": round(loss_tr, 6), "valid": round(loss_va, 6)},
        "fixed": "king-attack unit weights (they index the danger table); king phase weight 0",
    }
    return TuneResult(weights=out, record=record)


def finish(w: np.ndarray, pw: np.ndarray, start: np.ndarray) -> np.ndarray:
    """Integer weights: piece-square means moved into material, phase weights rescaled, rounded."""
    w = w.copy()
    for pt in range(6):
        squares = np.arange(8, 56) if pt == PAWN else np.arange(64)
        for pst, mat in ((E.PST_MG, E.MAT_MG), (E.PST_EG, E.MAT_EG)):
            block = w[pst + pt * 64:pst + pt * 64 + 64]
            mean = block[squares].mean()
            block[squares] -= mean
            if pt == PAWN:
                block[[*range(8), *range(56, 64)]] = 0
            if pt != KING_T:
                w[mat + pt] += mean
    out = np.rint(w).astype(np.int64)
    out[~(CLASSES >= 0)] = start[~(CLASSES >= 0)]
    top = pw.max()
    scale = 16.0 / top if top > 0 else 1.0  # the largest phase weight becomes 16: resolution to spare
    out[E.PHASE_W_AT:E.PHASE_W_AT + 6] = np.rint(pw * scale).astype(np.int64)
    if E.phase_total(out) <= 0:
        out[E.PHASE_W_AT:E.PHASE_W_AT + 6] = start[E.PHASE_W_AT:E.PHASE_W_AT + 6]
    return E.with_derived(out)


def read_data(path: Path, limit: int | None = None) -> list[Row]:
    """The rows of a bench/tune_data.py file; a file without the game column gets blocks of BLOCK rows."""
    rows: list[Row] = []
    with path.open() as fh:
        for n, line in enumerate(fh, 1):
            if line.startswith("#") or not line.strip():
                continue
            parts = line.rstrip("\n").split("\t")
            try:
                if len(parts) not in (3, 4):
                    raise ValueError(f"{len(parts)} columns")
                game = int(parts[3]) if len(parts) == 4 else -1 - len(rows) // BLOCK
                rows.append((parts[0], float(parts[1]), int(parts[2]), game))
            except ValueError as exc:
                raise SystemExit(f"{path}:{n}: not 'fen, result, stockfish_cp[, game]' ({exc})") from None
            if limit is not None and len(rows) >= limit:
                break
    return rows


def distinct_groups(parts: list[list[Row]]) -> list[Row]:
    """The files' rows in one list, renumbered so that no two files share a game or block.

    Two runs with other seeds both have a game 0; games get fresh ids 0, 1, ... and blocks of
    rows without a game -1, -2, ...
    """
    out: list[Row] = []
    next_block = -1
    seen: dict[tuple[int, int], int] = {}
    for k, part in enumerate(parts):
        blocks: dict[int, int] = {}
        for fen, result, cp, group in part:
            if group < 0:
                if group not in blocks:
                    blocks[group] = next_block
                    next_block -= 1
                group = blocks[group]
            else:
                group = seen.setdefault((k, group), len(seen))
            out.append((fen, result, cp, group))
    return out


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="bench.tune", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, required=True, nargs="+", help="positions from bench/tune_data.py")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--iterations", type=int, default=1500)
    parser.add_argument("--lambda", dest="lam", type=float, default=0.5, help="weight of the game result in the label")
    parser.add_argument("--lr", type=float, default=1.0)
    parser.add_argument("--l2", type=float, default=0.0, help="pull towards the start weights")
    parser.add_argument("--limit", type=int, default=None, help="use only the first N positions")
    parser.add_argument("--out", type=Path, default=E.WEIGHTS_FILE)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    start_time = time.monotonic()
    parts = [read_data(path) for path in args.data]
    rows = distinct_groups(parts)[:args.limit]
    data = reduce_positions(rows)
    log.info("%d positions reduced in %.0f s", data.size, time.monotonic() - start_time)
    start = E.default_weights()
    result = tune(data, start, seed=args.seed, iterations=args.iterations, lam=args.lam, lr=args.lr,
                  l2=args.l2)
    files = [f"{p.name} ({p.open().readline().strip('# ' + chr(10))})" for p in args.data]
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in args.data)).hexdigest()[:16]
    record = {**result.record, "data": files, "data_sha256": digest,
              "start": "the hand-set weights (engine.evaluate.default_weights)",
              "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
              "seconds": round(time.monotonic() - start_time),
              "command": "python -m bench tune " + " ".join(argv)}
    args.out.write_text(E.weights_to_json(result.weights, tuner=record))
    log.info("wrote %s: %s", args.out, record)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
