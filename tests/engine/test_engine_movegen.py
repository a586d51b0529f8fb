"""Perft against the standard table and against python-chess on random positions."""

from __future__ import annotations

from pathlib import Path

import chess
import pytest
from engine_testlib import data_dir, random_positions

from engine.position import Position, divide, legal_moves, perft

LEAF_LIMIT = 5_000_000  # deeper counts run in bench/engine.py


def _epd_cases(data_dir: Path) -> list[tuple[str, int, int]]:
    cases = []
    for line in (data_dir / "epd" / "perft.epd").read_text().splitlines():
        if not line.strip():
            continue
        fen, *fields = (part.strip() for part in line.split(";"))
        for field in fields:
            depth, count = field.split()
            if int(count) <= LEAF_LIMIT:
                cases.append((fen, int(depth[1:]), int(count)))
    return cases


@pytest.mark.slow
def test_perft_epd_fast_depths() -> None:
    cases = _epd_cases(data_dir())
    assert len(cases) > 300
    wrong = [(fen, d, want, got) for fen, d, want in cases if (got := perft(chess.Board(fen), d)) != want]
    assert wrong == []


@pytest.mark.parametrize(
    ("fen", "depth", "count"),
    [
        (chess.STARTING_FEN, 5, 4_865_609),
        ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 4, 4_085_603),
        ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 5, 674_624),
        ("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 4, 422_333),
        ("rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 4, 2_103_487),
        ("r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", 4, 3_894_594),
    ],
)
def test_perft_reference_positions(fen: str, depth: int, count: int) -> None:
    board = chess.Board(fen)
    assert perft(board, depth) == count
    assert perft(board, min(depth, 3), bulk=False) == perft(board, min(depth, 3))


def _chess_perft(board: chess.Board, depth: int) -> int:
    if depth == 1:
        return board.legal_moves.count()
    total = 0
    for move in board.legal_moves:
        board.push(move)
        total += _chess_perft(board, depth - 1)
        board.pop()
    return total


@pytest.mark.slow
def test_random_positions_match_python_chess() -> None:
    """Every position's moves, and perft 2 from all 1,000 (perft 3 from the first 150: python-chess's
    side of depth 3 everywhere was the slowest test of the suite; the EPD perft suites go deeper)."""
    boards = random_positions(1000, seed=20261129)
    for number, board in enumerate(boards):
        assert set(legal_moves(board)) == set(board.legal_moves), board.fen()
        depth = 3 if number < 150 else 2
        got = perft(board, depth)
        want = _chess_perft(board, depth)
        if got != want:  # name the first differing move to make the failure readable
            ours = divide(board, depth - 1)
            for move in board.legal_moves:
                board.push(move)
                theirs = _chess_perft(board, depth - 1)
                board.pop()
                assert ours[move] == theirs, f"{board.fen()} {move.uci()}"
        assert got == want, board.fen()


def test_position_key_depends_only_on_position() -> None:
    """Transpositions hash alike; side to move, castling and en passant change the key."""
    a = chess.Board()
    for uci in ("g1f3", "g8f6", "b1c3", "b8c6"):
        a.push_uci(uci)
    b = chess.Board()
    for uci in ("b1c3", "b8c6", "g1f3", "g8f6"):
        b.push_uci(uci)
    assert Position.from_board(a).key == Position.from_board(b).key
    flipped = a.copy()
    flipped.turn = chess.BLACK
    assert Position.from_board(flipped).key != Position.from_board(a).key
    no_castle = a.copy()
    no_castle.castling_rights = 0
    assert Position.from_board(no_castle).key != Position.from_board(a).key
    ep = chess.Board("rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 3")
    assert Position.from_board(ep).key != Position.from_board(chess.Board(ep.fen().replace("e3", "-"))).key
