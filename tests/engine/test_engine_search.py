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
