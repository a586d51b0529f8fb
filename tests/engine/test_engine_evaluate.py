"""The set-wise pawn-structure kernel against a square-by-square reference, under each weight set."""

from __future__ import annotations

import random

import chess
import numpy as np
import pytest
from engine_testlib import random_positions

from bench import tune as T
from engine import evaluate as E
from engine.evaluate import (
    DOUBLED_AT,
    ISOLATED_AT,
    PASSED_EG_AT,
    PASSED_MG_AT,
    default_weights,
    eval_tables,
    pawn_structure,
)
from engine.position import Position, tables


def _reference(ev: np.ndarray, own: set[int], enemy: set[int], c: int) -> tuple[int, int]:
    """One pawn and one file at a time, as the rules read."""
    mg = eg = 0
    for f in range(8):
        n = sum(1 for s in own if s % 8 == f)
        if n > 1:
            mg += int(ev[DOUBLED_AT]) * (n - 1)
            eg += int(ev[DOUBLED_AT + 1]) * (n - 1)
    for s in own:
        f, r = s % 8, s // 8
        if not any(t % 8 in (f - 1, f + 1) for t in own):
            mg += int(ev[ISOLATED_AT])
            eg += int(ev[ISOLATED_AT + 1])

        def ahead(t: int, r: int = r) -> bool:
            return t // 8 > r if c == 0 else t // 8 < r

        blocked = any(abs(t % 8 - f) <= 1 and ahead(t) for t in enemy)
        behind_own = any(t % 8 == f and ahead(t) for t in own)
        if not blocked and not behind_own:
            rr = r if c == 0 else 7 - r
            mg += int(ev[PASSED_MG_AT + rr])
            eg += int(ev[PASSED_EG_AT + rr])
    return mg, eg


def _bits(squares: set[int]) -> np.uint64:
    return np.uint64(sum(1 << s for s in squares))


@pytest.mark.parametrize("weights", ["hand-set", "file"])
def test_pawn_structure_matches_reference_on_random_pawns(weights: str) -> None:
    ev = default_weights() if weights == "hand-set" else eval_tables()
    rng = random.Random(7)
    for _ in range(3000):
        density = rng.choice((0.05, 0.15, 0.3))
        white: set[int] = set()
        black: set[int] = set()
        for s in range(8, 56):
            x = rng.random()
            if x < density:
                white.add(s)
            elif x < 2 * density:
                black.add(s)
        for c, own, enemy in ((0, white, black), (1, black, white)):
            got = pawn_structure(ev, _bits(own), _bits(enemy), c)
            assert tuple(got) == _reference(ev, own, enemy, c), (sorted(white), sorted(black), c)


# ---- threats, connected pawns, outposts and passed-pawn extras against the rules, square by square --

def _attacked_by(board: chess.Board, colour: chess.Color, square: int, kinds: tuple[int, ...]) -> bool:
    return any(board.piece_type_at(a) in kinds for a in board.attackers(colour, square))


def _reference_terms(board: chess.Board, colour: chess.Color) -> dict[tuple[str, int], int]:
    """Colour's count of every new term, keyed (block, index), read off the board with python-chess."""
    out: dict[tuple[str, int], int] = {}

    def add(block: str, index: int, n: int = 1) -> None:
        out[(block, index)] = out.get((block, index), 0) + n

    them = not colour

    def rel(sq: int) -> int:
        return chess.square_rank(sq) if colour == chess.WHITE else 7 - chess.square_rank(sq)

    pawns = board.pieces(chess.PAWN, colour)
    enemy_pawns = board.pieces(chess.PAWN, them)
    ahead = 1 if colour == chess.WHITE else -1
    for s in pawns:
        f, r = chess.square_file(s), chess.square_rank(s)
        near = [t for t in pawns if abs(chess.square_file(t) - f) == 1]
        if any(chess.square_rank(t) in (r, r - ahead) for t in near):
            add("CONNECTED", 2 * rel(s))
        blocked = any(abs(chess.square_file(t) - f) <= 1 and (chess.square_rank(t) - r) * ahead > 0 for t in enemy_pawns)
        own_ahead = any(chess.square_file(t) == f and (chess.square_rank(t) - r) * ahead > 0 for t in pawns)
        if not blocked and not own_ahead:
            stop = s + 8 * ahead
            if board.piece_at(stop) is not None:
                add("PASSED_BLOCKED", 2 * rel(s))
            add("PASSED_KING_OWN", rel(s), chess.square_distance(board.king(colour) or 0, stop))
            add("PASSED_KING_THEIR", rel(s), chess.square_distance(board.king(them) or 0, stop))
    for pt, index in ((chess.KNIGHT, 0), (chess.BISHOP, 2)):
        for s in board.pieces(pt, colour):
            f = chess.square_file(s)
            guarded = _attacked_by(board, colour, s, (chess.PAWN,))
            reachable = any(abs(chess.square_file(t) - f) == 1 and (chess.square_rank(t) - chess.square_rank(s)) * ahead > 0
                            for t in enemy_pawns)
            if 3 <= rel(s) <= 5 and guarded and not reachable:
                add("OUTPOST", index)
    for s, piece in board.piece_map().items():
        if piece.color != them or piece.piece_type == chess.KING:
            continue
        pt = piece.piece_type - 1
        pawn_guarded = _attacked_by(board, them, s, (chess.PAWN,))
        if piece.piece_type != chess.PAWN and _attacked_by(board, colour, s, (chess.PAWN,)):
            add("THREAT_PAWN", 2 * pt)
        if _attacked_by(board, colour, s, (chess.KNIGHT, chess.BISHOP)) and (
                not pawn_guarded or piece.piece_type in (chess.ROOK, chess.QUEEN)):
            add("THREAT_MINOR", 2 * pt)
        if _attacked_by(board, colour, s, (chess.ROOK,)) and (not pawn_guarded or piece.piece_type == chess.QUEEN):
            add("THREAT_ROOK", 2 * pt)
        if board.is_attacked_by(colour, s) and not board.is_attacked_by(them, s):
            add("HANGING", 0)
    return out


def _coefficients(fen: str) -> np.ndarray:
    """The tuner's coefficients, which are the evaluation's (tests/bench/test_bench_tune.py)."""
    pos = Position.from_board(chess.Board(fen))
    acc = np.zeros(E.EV_SIZE, dtype=np.int64)
    T.features(tables(), pos.bb, pos.mb, pos.st, acc, np.zeros(6, dtype=np.int64), np.zeros((2, 7), dtype=np.int64))
    return acc


NEW_BLOCKS = ("THREAT_PAWN", "THREAT_MINOR", "THREAT_ROOK", "HANGING", "PASSED_BLOCKED", "PASSED_KING_OWN",
              "PASSED_KING_THEIR", "CONNECTED", "OUTPOST")


@pytest.mark.slow
def test_the_new_terms_count_what_the_rules_say_on_random_positions() -> None:
    """White's count minus Black's, per weight of every new block, equals a square-by-square reading."""
    for fen in (board.fen() for board in random_positions(400, seed=31)):
        board = chess.Board(fen)
        white, black = _reference_terms(board, chess.WHITE), _reference_terms(board, chess.BLACK)
        acc = _coefficients(fen)
        for name in NEW_BLOCKS:
            at, size = E.LAYOUT[name]
            pairs = name not in ("PASSED_KING_OWN", "PASSED_KING_THEIR")
            for i in range(size):
                key = (name, i - 1 if pairs and i % 2 else i)
                assert acc[at + i] == white.get(key, 0) - black.get(key, 0), (fen, name, i)


# (FEN, block, index, White's count minus Black's): one idea each, read by a player
NEW_TERM_CASES = [
    ("4k3/8/8/4N3/3P4/8/8/4K3 w - - 0 1", "OUTPOST", 0, 1),  # knight e5 guarded by d4, no black pawn
    ("4k3/5p2/8/4N3/3P4/8/8/4K3 w - - 0 1", "OUTPOST", 0, 0),  # f7 can still advance to f6 and hit e5
    ("4k3/8/5p2/4N3/3P4/8/8/4K3 w - - 0 1", "OUTPOST", 0, 0),  # f6 attacks e5 now
    ("4k3/8/8/8/3PB3/8/8/4K3 w - - 0 1", "OUTPOST", 2, 0),  # rank 4 is not an outpost
    ("4k3/8/4p3/3b4/8/8/8/4K3 w - - 0 1", "OUTPOST", 2, -1),  # Black's bishop d5 (its rank 4) guarded by e6
    ("4k3/8/8/8/8/2n5/1P6/4K3 w - - 0 1", "THREAT_PAWN", 2, 1),  # b2 attacks the knight c3
    ("4k3/8/8/8/8/8/2q5/1N2K3 w - - 0 1", "THREAT_MINOR", 8, 0),  # a knight on b1 does not attack c2
    ("4k3/8/8/8/8/2q5/8/1N2K3 w - - 0 1", "THREAT_MINOR", 8, 1),  # knight b1 attacks the queen c3
    ("4k3/8/8/8/4p3/3p4/8/1B2K3 w - - 0 1", "THREAT_MINOR", 0, 0),  # d3 is guarded by e4: no threat
    ("4k3/8/8/8/8/3p4/8/1B2K3 w - - 0 1", "THREAT_MINOR", 0, 1),  # bishop b1 attacks the lone pawn d3
    ("4k3/8/8/8/8/8/2p5/1B2K3 w - - 0 1", "THREAT_MINOR", 0, 1),  # bishop b1 attacks the lone pawn c2
    ("4k3/8/8/8/8/8/8/R2qK3 w - - 0 1", "THREAT_ROOK", 8, 1),  # rook a1 attacks the queen d1
    ("3rk3/8/8/8/8/8/8/R3K3 w - - 0 1", "THREAT_ROOK", 6, 0),  # a1 does not see d8
    ("r3k3/8/8/8/8/8/8/R3K3 w - - 0 1", "THREAT_ROOK", 6, 0),  # rooks face each other: each threatens the other
    ("r3k3/8/8/8/8/8/8/R3K3 b - - 0 1", "HANGING", 0, 0),  # ...and neither is defended: both hang
    ("4k3/8/8/8/8/8/1p6/R3K3 w - - 0 1", "THREAT_ROOK", 0, 0),  # a1 does not attack b2 (not on its lines)
    ("4k3/8/8/8/8/8/8/Rp2K3 w - - 0 1", "THREAT_ROOK", 0, 1),  # a1 attacks the lone pawn b1
    ("4k3/8/8/8/8/8/8/R2nK3 w - - 0 1", "HANGING", 0, 1),  # the knight d1 is attacked, nothing defends it
    ("3rk3/8/8/8/8/8/8/R2nK3 w - - 0 1", "HANGING", 0, 0),  # ...now the rook d8 defends it
    ("4k3/8/8/3Pp3/8/8/8/4K3 w - - 0 1", "CONNECTED", 8, 0),  # d5 and e5 of opposite colours
    ("4k3/8/8/3PP3/8/8/8/4K3 w - - 0 1", "CONNECTED", 8, 2),  # a phalanx on rank 5: both count
    ("4k3/8/8/3P4/4P3/8/8/4K3 w - - 0 1", "CONNECTED", 8, 1),  # d5 guarded by e4; e4 is not guarded
    ("4k3/8/4p3/4P3/8/8/8/4K3 w - - 0 1", "PASSED_BLOCKED", 8, 0),  # e5 is not passed (e6 blocks it)
    ("4k3/8/3n4/3P4/8/8/8/4K3 w - - 0 1", "PASSED_BLOCKED", 8, 1),  # d5 passed, its stop square d6 occupied
    ("8/8/3k4/8/3P4/8/8/4K3 w - - 0 1", "PASSED_KING_THEIR", 3, 1),  # Black's king d6 is 1 from d5
    ("8/8/3k4/8/3P4/8/8/4K3 w - - 0 1", "PASSED_KING_OWN", 3, 4),  # White's king e1 is 4 from d5
]


@pytest.mark.parametrize(("fen", "block", "index", "expected"), NEW_TERM_CASES)
def test_each_new_term_reads_a_position_as_a_player_would(fen: str, block: str, index: int, expected: int) -> None:
    board = chess.Board(fen)
    white, black = _reference_terms(board, chess.WHITE), _reference_terms(board, chess.BLACK)
    key = (block, index)
    assert white.get(key, 0) - black.get(key, 0) == expected, "the reference disagrees with the case"
    assert _coefficients(fen)[E.LAYOUT[block][0] + index] == expected
