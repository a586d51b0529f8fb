"""The only-move suite (bench/data/only_moves.epd) meets issue 17's selection rules."""

from __future__ import annotations

import re

import chess

from bench import only_moves


def test_the_suite_has_100_positions_from_50_games_by_the_rules() -> None:
    suite = only_moves.load_suite()
    lines = [ln for ln in only_moves.SUITE.read_text().splitlines() if ln.strip()]
    assert len(suite) >= 100
    games = set()
    for (board, move, ident), line in zip(suite, lines, strict=True):
        assert move in board.legal_moves, ident
        assert board.legal_moves.count() >= 2, ident
        found = re.search(r'game (\d+) ply \d+, .*depth (\d+) MultiPV 2, best (-?\d+) cp, gap (\d+) cp', line)
        assert found is not None, ident
        game, depth, best, gap = (int(g) for g in found.groups())
        games.add(game)
        assert depth >= 13 and gap >= 150 and best <= 500, ident
    assert len(games) >= 50
    assert len({board.board_fen() for board, _, _ in suite}) == len(suite)  # no duplicates


def test_epd_round_trip() -> None:
    board = chess.Board("4k3/8/8/8/8/8/4q3/4K2R w K - 0 1")
    pos = only_moves.OnlyMove(fen=board.fen(), move=chess.Move.from_uci("e1e2"), best_cp=-50, gap_cp=900,
                              ident="om.x", origin="game 3 ply 40, stockfish 3000 nodes, depth 14 MultiPV 2")
    loaded, ops = chess.Board.from_epd(pos.epd())
    assert ops["bm"] == [chess.Move.from_uci("e1e2")]
    assert ops["id"] == "om.x"
    assert loaded.board_fen() == board.board_fen()
