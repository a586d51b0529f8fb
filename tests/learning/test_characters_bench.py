"""bench/characters.py's figures from games: the counts, the metrics, the claims and Spearman."""

from __future__ import annotations

import chess
import pytest

from bench.characters import (
    Claim,
    Metrics,
    Record,
    Side,
    load_state,
    metrics,
    side_counts,
    spearman,
)


@pytest.mark.parametrize(
    ("xs", "ys", "rho"),
    [([1, 2, 3, 4], [10, 20, 30, 40], 1.0), ([1, 2, 3, 4], [4, 3, 2, 1], -1.0),
     ([1, 2, 3], [1, 1, 1], 0.0), ([1, 2, 3, 4, 5], [2, 1, 4, 3, 5], 0.8),
     ([800, 1000, 1000, 2000], [0, 1, 1, 3], 1.0)],
)
def test_spearman(xs: list[float], ys: list[float], rho: float) -> None:
    assert spearman(xs, ys) == pytest.approx(rho)


def _game(sans: str) -> chess.Board:
    board = chess.Board()
    for san in sans.split():
        board.push_san(san)
    return board


def test_side_counts_of_scholars_mate() -> None:
    board = _game("e4 e5 Bc4 Nc6 Qh5 Nf6 Qxf7#")
    white, black = side_counts(board, chess.WHITE), side_counts(board, chess.BLACK)
    # e4, Bc4 and Qh5 land 4, 4 and 3 squares from the king on e8; Qxf7 lands next to it
    assert white == Side(moves=4, near_king=1, pawn_moves=1, captures=1, deficit=0.0)
    assert black.moves == 3 and black.captures == 0 and black.pawn_moves == 1
    assert black.deficit == 0.0  # black's material after each of its moves: never behind yet


def test_deficit_counts_material_given_up() -> None:
    # A gambit for Black: after ...d5 level, after ...Nf6 and ...e6 a pawn down, after ...Bxe6
    # (two pawns taken, one back) still a pawn down
    board = _game("e4 d5 exd5 Nf6 c4 e6 dxe6 Bxe6")
    black = side_counts(board, chess.BLACK)
    assert black.deficit == pytest.approx(0 + 1 + 1 + 1)
    assert side_counts(board, chess.WHITE).deficit == 0


def test_claims_are_strict() -> None:
    zero = Metrics(1, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    more = Metrics(1, 0.3, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    claim = Claim("x", "a", "b", "near_king", 1.25)
    assert not claim.check({"a": zero, "b": zero})[0]  # 0 vs 0 is no difference
    assert claim.check({"a": more, "b": zero})[0]
    assert not claim.check({"a": Metrics(1, 0.24, 0, 0, 0, 0, 0, 0), "b": Metrics(1, 0.2, 0, 0, 0, 0, 0, 0)})[0]


def test_metrics_and_state_round_trip(tmp_path: object) -> None:
    from pathlib import Path

    path = Path(str(tmp_path)) / "state.jsonl"
    records = [
        Record("style", "vera", "level-2000", "1-0", "checkmate", 40,
               {"white": Side(20, 5, 4, 3, 10.0), "black": Side(20, 1, 6, 2, 0.0)}, "e2e4"),
        Record("style", "level-2000", "vera", "1/2-1/2", "threefold_repetition", 60,
               {"white": Side(30, 2, 5, 4, 0.0), "black": Side(30, 9, 6, 6, 5.0)}, "e2e4"),
    ]
    import json

    path.write_text("".join(json.dumps(r.to_json()) + "\n" for r in records) + '{"cut": ', encoding="utf-8")
    loaded = load_state(path)
    assert loaded == records  # the line cut by a kill is dropped
    m = metrics(loaded, "vera")
    assert m.games == 2 and m.near_king == pytest.approx(14 / 50) and m.deficit == pytest.approx(15 / 50)
    assert m.length == 50 and m.draw_rate == 0.5 and m.score == 0.75
    assert m.pawn_moves == pytest.approx(10 / 50) and m.captures == pytest.approx(9 / 50)
