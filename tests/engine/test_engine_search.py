"""Search behaviour: mates, draws by rule, limits, stop, and the weakened pick."""

from __future__ import annotations

import threading
import time

import chess
import pytest
from engine_testlib import data_dir, random_positions

from engine.levels import skill_params
from engine.searcher import FULL_STRENGTH, Limits, Searcher, Strength


@pytest.fixture(scope="module")
def searcher() -> Searcher:
    s = Searcher(hash_mb=8, seed=1)
    s.warm()
    return s


@pytest.mark.parametrize(
    ("fen", "mate"),
    [
        ("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", 1),  # back rank
        ("2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1", 2),  # WAC.001 Qg6
        ("7k/8/5K2/8/8/8/8/6R1 w - - 0 1", 2),
    ],
)
def test_finds_forced_mate(searcher: Searcher, fen: str, mate: int) -> None:
    board = chess.Board(fen)
    result = searcher.search(board, Limits(depth=2 * mate + 3))
    assert result.info is not None
    assert result.info.score_mate == mate
    line = board.copy()
    for move in result.info.pv[: 2 * mate - 1]:
        line.push(move)
    assert line.is_checkmate()


#: Win at Chess positions whose solution gives up material (takes a lesser or defended piece, or
#: moves a piece where it can be taken) and mates; the distance is Stockfish 15.1's at depth 16.
#: Pruning by static exchange must not hide them.
SACRIFICIAL_MATES = [
    ("2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1", 2),  # WAC.001 g3g6
    ("r1bq2rk/pp3pbp/2p1p1pQ/7P/3P4/2PB1N2/PP3PPR/2KR4 w - - 0 1", 2),  # WAC.004 h6h7
    ("5k2/6pp/p1qN4/1p1p4/3P4/2PKP2Q/PP3r2/3R4 b - - 0 1", 2),  # WAC.005 c6c4
    ("4k1r1/2p3r1/1pR1p3/3pP2p/3P2qP/P4N2/1PQ4P/5R1K b - - 0 1", 2),  # WAC.012 g4f3
    ("7k/pp4np/2p3p1/3pN1q1/3P4/Q7/1r3rPP/2R2RK1 w - - 0 1", 2),  # WAC.027 a3f8
    ("r3kr2/1pp4p/1p1p4/7q/4P1n1/2PP2Q1/PP4P1/R1BB2K1 b q - 0 1", 2),  # WAC.054 h5h1
    ("r3q1kr/ppp5/3p2pQ/8/3PP1b1/5R2/PPP3P1/5RK1 w - - 0 1", 3),  # WAC.057 f3f8
    ("rn1qr1k1/1p2np2/2p3p1/8/1pPb4/7Q/PB1P1PP1/2KR1B1R w - - 0 1", 2),  # WAC.060 h3h8
    ("3qrbk1/ppp1r2n/3pP2p/3P4/2P4P/1P3Q2/PB6/R4R1K w - - 0 1", 2),  # WAC.061 f3f7
    ("r3k2r/pbp2pp1/3b1n2/1p6/3P3p/1B2N1Pq/PP1PQP1P/R1B2RK1 b kq - 0 1", 3),  # WAC.079 h3h2
    ("r2q1r1k/2p1b1pp/p1n5/1p1Q1bN1/4n3/1BP1B3/PP3PPP/R4RK1 w - - 0 1", 2),  # WAC.084 d5g8
    ("r1bq1r1k/1pp1Np1p/p2p2pQ/4R3/n7/8/PPPP1PPP/R1B3K1 w - - 0 1", 2),  # WAC.099 e5h5
    ("2Q2n2/2R4p/1p1qpp1k/8/3P3P/3B2P1/5PK1/r7 w - - 0 1", 3),  # WAC.102 c8f8
    ("b4r1k/pq2rp2/1p1bpn1p/3PN2n/2P2P2/P2B3K/1B2Q2N/3R2R1 w - - 0 1", 3),  # WAC.104 e2h5
    ("4r1k1/5bpp/2p5/3pr3/8/1B3pPq/PPR2P2/2R2QK1 b - - 0 1", 3),  # WAC.132 e5e1
    ("6kr/1q2r1p1/1p2N1Q1/5p2/1P1p4/6R1/7P/2R3K1 w - - 0 1", 3),  # WAC.136 c1c8
    ("5b2/pp2r1pk/2pp1pRp/4rP1N/2P1P3/1P4QP/P3q1P1/5R1K w - - 0 1", 3),  # WAC.143 g6h6
    ("r1b2rk1/2p2ppp/p7/1p6/3P3q/1BP3bP/PP3QP1/RNB1R1K1 w - - 0 1", 2),  # WAC.154 f2f7
    ("r1b1qN1k/1pp3p1/p2p3n/4p1B1/8/1BP4Q/PP3KPP/8 w - - 0 1", 2),  # WAC.156 h3h6
    ("5rk1/n1p1R1bp/p2p4/1qpP1QB1/7P/2P3P1/PP3P2/6K1 w - - 0 1", 3),  # WAC.158 e7g7
    ("qn1kr2r/1pRbb3/pP5p/P2pP1pP/3N1pQ1/3B4/3B1PP1/R5K1 w - - 0 1", 2),  # WAC.160 g4d7
    ("5r1k/p5pp/8/1P1pq3/P1p2nR1/Q7/5BPP/6K1 b - - 0 1", 3),  # WAC.172 e5e1
    ("2r1b3/1pp1qrk1/p1n1P1p1/7R/2B1p3/4Q1P1/PP3PP1/3R2K1 w - - 0 1", 3),  # WAC.173 e3h6
    ("r1b3r1/4qk2/1nn1p1p1/3pPp1P/p4P2/1p3BQN/PKPBN3/3R3R b - - 0 1", 3),  # WAC.177 e7a3
    ("r1b2r1k/pp4pp/3p4/3B4/8/1QN3Pn/PP3q1P/R3R2K b - - 0 1", 3),  # WAC.179 f2g1
    ("4kn2/r4p1r/p3bQ2/q1nNP1Np/1p5P/8/PPP3P1/2KR3R w - - 0 1", 2),  # WAC.184 f6e7
    ("r5r1/p1q2p1k/1p1R2pB/3pP3/6bQ/2p5/P1P1NPPP/6K1 w - - 0 1", 3),  # WAC.186 h6f8
    ("3RNbk1/pp3p2/4rQpp/8/1qr5/7P/P4P2/3R2K1 w - - 0 1", 2),  # WAC.188 f6g7
    ("2r1Rn1k/1p1q2pp/p7/5p2/3P4/1B4P1/P1P1QP1P/6K1 w - - 0 1", 3),  # WAC.191 e2c4
    ("r4rk1/5ppp/p3q1n1/2p2NQ1/4n3/P3P3/1B3PPP/1R3RK1 w - - 0 1", 3),  # WAC.203 g5h6
    ("4R3/4q1kp/6p1/1Q3b2/1P1b1P2/6KP/8/8 b - - 0 1", 3),  # WAC.225 e7h4
    ("6R1/4qp1p/ppr1n1pk/8/1P2P1QP/6N1/P4PP1/6K1 w - - 0 1", 2),  # WAC.246 g4h5
    ("4r3/p4r1p/R1p2pp1/1p1bk3/4pNPP/2P1K3/2P2P2/3R4 w - - 0 1", 3),  # WAC.295 d1d5
]


@pytest.mark.parametrize(("fen", "mate"), SACRIFICIAL_MATES)
def test_finds_sacrificial_mates(searcher: Searcher, fen: str, mate: int) -> None:
    board = chess.Board(fen)
    result = searcher.search(board, Limits(depth=2 * mate + 3))
    assert result.info is not None and result.info.score_mate == mate
    line = board.copy()
    for move in result.info.pv[: 2 * mate - 1]:
        line.push(move)
    assert line.is_checkmate()


def test_mated_side_sees_negative_mate(searcher: Searcher) -> None:
    board = chess.Board("k7/8/1K6/8/8/8/8/7R b - - 0 1")  # Kb8 Rh8#
    result = searcher.search(board, Limits(depth=4))
    assert result.info is not None and result.info.score_mate == -1


def test_fifty_move_rule_draws(searcher: Searcher) -> None:
    """A queen up, but any quiet move completes 100 halfmoves: the score must be a draw."""
    board = chess.Board("8/8/8/4k3/8/8/8/1Q4K1 w - - 99 120")
    result = searcher.search(board, Limits(depth=4))
    assert result.info is not None and result.info.score_cp == 0
    fresh = searcher.search(chess.Board("8/8/8/4k3/8/8/8/1Q4K1 w - - 0 120"), Limits(depth=4))
    assert fresh.info is not None and fresh.info.score_cp is not None and fresh.info.score_cp > 500


def test_repetition_counts_as_draw(searcher: Searcher) -> None:
    """Black, a rook down, can repeat the position; the engine must see that as a draw."""
    board = chess.Board("7k/8/8/8/8/8/8/R5K1 w - - 0 1")
    for uci in ("g1f1", "h8g8", "f1g1", "g8h8", "g1f1", "h8g8", "f1g1"):
        board.push_uci(uci)
    searcher.clear()
    result = searcher.search(board, Limits(depth=4))
    assert result.info is not None
    assert result.best == chess.Move.from_uci("g8h8")
    assert result.info.score_cp == 0
    without_history = chess.Board(board.fen())
    result = searcher.search(without_history, Limits(depth=4))
    assert result.info is not None and result.info.score_cp is not None and result.info.score_cp < -300


def test_node_limit_and_depth_limit(searcher: Searcher) -> None:
    result = searcher.search(chess.Board(), Limits(nodes=20_000))
    assert result.info is not None and result.info.nodes <= 20_000
    result = searcher.search(chess.Board(), Limits(depth=5))
    assert result.info is not None and result.info.depth == 5


@pytest.mark.slow
def test_stop_ends_infinite_search(searcher: Searcher) -> None:
    results = []
    thread = threading.Thread(target=lambda: results.append(searcher.search(chess.Board(), Limits(infinite=True))))
    thread.start()
    time.sleep(0.5)
    searcher.stop()
    thread.join(timeout=5)
    assert not thread.is_alive()
    assert results and results[0].best in chess.Board().legal_moves


def test_movetime_is_respected(searcher: Searcher) -> None:
    start = time.monotonic()
    result = searcher.search(chess.Board(), Limits(movetime=300))
    assert time.monotonic() - start < 1.5
    assert result.best in chess.Board().legal_moves


def test_best_moves_are_legal_on_random_positions(searcher: Searcher) -> None:
    for board in random_positions(40, seed=7):
        result = searcher.search(board, Limits(depth=3))
        assert result.best in board.legal_moves, board.fen()
        if result.info and result.info.pv:
            line = board.copy()
            for move in result.info.pv:
                assert move in line.legal_moves, (board.fen(), result.info.pv)
                line.push(move)


@pytest.mark.slow
def test_win_at_chess_sample(searcher: Searcher) -> None:
    """A short WAC sample at 0.3 s: most must be solved (the full run is in bench/engine.py)."""
    solved = 0
    lines = (data_dir() / "epd" / "win_at_chess_test.epd").read_text().splitlines()[:12]
    for line in lines:
        board, ops = chess.Board.from_epd(line)
        result = searcher.search(board, Limits(movetime=300))
        solved += result.best in ops["bm"]
    assert solved >= 9


@pytest.mark.parametrize("skill", range(-1, 22))
def test_strength_from_skill_follows_the_skill_table(skill: int) -> None:
    """One constructor turns a skill level into the searcher's limits; 20 and above are full."""
    strength = Strength.from_skill(skill)
    if skill >= 20:
        assert strength == FULL_STRENGTH and strength.is_full
        return
    p = skill_params(skill)
    assert (strength.max_depth, strength.max_nodes, strength.margin, strength.temperature) == (
        p.max_depth, p.max_nodes, p.margin, p.temperature)
    assert not strength.is_full and strength.max_nodes is not None


def test_weakened_choice_varies_but_stays_sane(searcher: Searcher) -> None:
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    strength = Strength.from_skill(2)
    picks = {searcher.search(board, Limits(), strength=strength).best for _ in range(12)}
    assert len(picks) >= 3
    assert picks <= set(board.legal_moves)
    # a hanging queen is still taken even at a low level: the margin is far below a queen
    hang = chess.Board("rnb1kbnr/pppp1ppp/8/4p1q1/4P3/3P4/PPP2PPP/RNBQKBNR w KQkq - 1 3")
    takes = sum(searcher.search(hang, Limits(), strength=strength).best == chess.Move.from_uci("c1g5")
                for _ in range(6))
    assert takes == 6


def test_pick_weight_chooses_within_the_margin_only(searcher: Searcher) -> None:
    """The style's pick weight shifts the choice among the near-best moves, never past the margin:
    a move weighted a million times is always picked when it is near the best, never when it
    hangs the queen."""
    strength = Strength.from_skill(6)
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    favourite = chess.Move.from_uci("f1c4")
    searcher.pick_weight = lambda _board, move: 1e6 if move == favourite else 1.0
    hang = chess.Board("rnb1kbnr/pppp1ppp/8/4p1q1/4P3/3P4/PPP2PPP/RNBQKBNR w KQkq - 1 3")
    try:
        assert all(searcher.search(board, Limits(), strength=strength).best == favourite for _ in range(6))
        searcher.pick_weight = lambda _board, move: 1e6 if move.uci() == "a2a3" else 1.0
        assert all(searcher.search(hang, Limits(), strength=strength).best == chess.Move.from_uci("c1g5")
                   for _ in range(6))
    finally:
        searcher.pick_weight = None


def test_weakened_choice_keeps_to_the_clock(searcher: Searcher) -> None:
    """Re-scoring root moves at a high level must not overrun the move time."""
    board = chess.Board("r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1BBPPP/R2QK2R w KQ - 0 9")
    strength = Strength.from_skill(18)
    start = time.monotonic()
    result = searcher.search(board, Limits(movetime=400), strength=strength)
    assert time.monotonic() - start < 1.5
    assert result.best in board.legal_moves
