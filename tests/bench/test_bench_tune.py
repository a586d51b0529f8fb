"""The evaluation tuner (bench/tune.py): its coefficients are the evaluation, its loss falls, its seed rules it."""

from __future__ import annotations

import random
from pathlib import Path

import chess
import numpy as np
import pytest

from bench import tune as T
from bench.tune_data import ONLY_MOVES, excluded_keys, opening_lines, play_game, position_key
from engine import evaluate as E
from engine.position import Position, tables

# 205 positions of 6 games: `python -m bench tune_data --games 6 --seed 99 --out tests/data/tune_sample.tsv`
SAMPLE = Path(__file__).resolve().parents[1] / "data" / "tune_sample.tsv"


def _positions() -> list[str]:
    """Middle games and endings from seeded random games, checks and all."""
    rng = random.Random(21)
    fens: list[str] = []
    for _ in range(40):
        board = chess.Board()
        while not board.is_game_over() and board.ply() < 140:
            board.push(rng.choice(list(board.legal_moves)))
            if board.ply() % 7 == 0:
                fens.append(board.fen())
    return fens


def _weights(kind: str) -> np.ndarray:
    if kind == "hand-set":
        return E.default_weights()
    if kind == "file":
        return E.eval_tables()
    rng = np.random.default_rng(3)
    ev = E.default_weights()
    ev[:E.PHASE_TOTAL_AT] += rng.integers(-50, 50, size=E.PHASE_TOTAL_AT)
    ev[E.KING_ATT_AT:E.KING_ATT_AT + 6] = rng.integers(0, 6, size=6)
    ev[E.PHASE_W_AT:E.PHASE_W_AT + 6] = rng.integers(0, 12, size=6)
    ev[E.PHASE_W_AT + 3] = 7
    return E.with_derived(ev)


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["hand-set", "file", "random"])
def test_the_coefficients_reproduce_evaluate_exactly(kind: str) -> None:
    """Weights times coefficients, tapered as the kernel does, is the kernel's score: nothing is missed."""
    ev = _weights(kind)
    rows = [(fen, 0.5, 0) for fen in _positions()]
    data = T.reduce_positions(rows)
    kept = [fen for fen in _positions() if not T.is_lone_minor(Position.from_board(chess.Board(fen)).bb)]
    assert data.size == len(kept) > 200
    model = T.Model(data, ev)
    mg, eg, flat = (np.rint(s).astype(np.int64) for s in model.sums(ev.astype(np.float64)))
    total = int(ev[E.PHASE_TOTAL_AT])
    phase = np.minimum(np.rint(data.counts @ ev[E.PHASE_W_AT:E.PHASE_W_AT + 6]).astype(np.int64), total)
    blend = mg * phase + eg * (total - phase)
    ours = np.where(blend >= 0, blend // total, -((-blend) // total)) + flat
    for i, fen in enumerate(kept):
        board = chess.Board(fen)
        pos = Position.from_board(board)
        got = int(E.evaluate(tables(), ev, pos.bb, pos.mb, pos.st))
        tempo = int(ev[E.TEMPO_AT])
        white = got - tempo if board.turn == chess.WHITE else -(got - tempo)
        assert int(ours[i]) - (tempo if board.turn == chess.WHITE else -tempo) == white, fen


def test_the_phase_gradient_matches_finite_differences() -> None:
    rows = T.read_data(SAMPLE)[:150]
    data = T.reduce_positions(rows)
    ev = E.default_weights()
    model = T.Model(data, ev)
    w = ev.astype(np.float64)
    pw = np.array([0.3, 1.2, 0.9, 2.1, 3.7, 0.0])
    g = np.random.default_rng(1).normal(size=data.size)
    _, gpw = model.gradient(w, pw, g)
    for k in range(5):
        step = np.zeros(6)
        step[k] = 1e-5
        numeric = (g @ model.scores(w, pw + step) - g @ model.scores(w, pw - step)) / 2e-5
        assert gpw[k] == pytest.approx(numeric, rel=1e-4, abs=1e-6)


def test_the_loss_falls_and_the_seed_reproduces_the_run() -> None:
    data = T.reduce_positions(T.read_data(SAMPLE))
    assert data.size >= 200
    start = E.default_weights()
    a = T.tune(data, start, seed=7, iterations=60, patience=1000)
    b = T.tune(data, start, seed=7, iterations=60, patience=1000)
    c = T.tune(data, start, seed=8, iterations=60, patience=1000)
    loss_start, loss_end = a.record["loss_start"], a.record["loss_end"]
    assert isinstance(loss_start, dict) and isinstance(loss_end, dict)
    assert loss_end["train"] < loss_start["train"]
    assert np.array_equal(a.weights, b.weights) and a.record == b.record
    assert not np.array_equal(a.weights, c.weights)
    assert a.weights[E.PHASE_TOTAL_AT] == E.phase_total(a.weights)


def test_finishing_moves_square_means_into_material_without_changing_scores() -> None:
    data = T.reduce_positions(T.read_data(SAMPLE)[:200])
    rng = np.random.default_rng(4)
    start = E.default_weights()
    w = start.astype(np.float64)
    w[E.PST_MG:E.PST_EG + 384] += 25.0 + rng.normal(scale=3, size=768)  # a shift material should absorb
    pw = start[E.PHASE_W_AT:E.PHASE_W_AT + 6].astype(np.float64)
    out = T.finish(w, pw, start)
    model = T.Model(data, start)
    before = model.scores(w, pw)
    after = model.scores(out.astype(np.float64), out[E.PHASE_W_AT:E.PHASE_W_AT + 6].astype(np.float64))
    assert np.max(np.abs(before - after)) < 16  # rounding only: dozens of weights per position, each within 0.5
    for pt in range(5):
        squares = range(8, 56) if pt == 0 else range(64)
        assert abs(np.mean([out[E.PST_MG + pt * 64 + s] for s in squares])) < 1


def test_the_openings_are_seeded_and_varied() -> None:
    a = opening_lines(random.Random(5), 30)
    b = opening_lines(random.Random(5), 30)
    assert a == b
    assert len({tuple(m.uci() for m in line) for line in a}) > 20


def test_the_only_move_suite_and_the_positions_after_it_are_excluded() -> None:
    keys = excluded_keys()
    suite = [chess.Board.from_epd(line)[0] for line in ONLY_MOVES.read_text().splitlines() if line.strip()]
    assert len(suite) >= 100
    for board in suite:
        assert position_key(board) in keys
        for move in list(board.legal_moves)[:3]:
            board.push(move)
            assert position_key(board) in keys
            board.pop()
    assert position_key(chess.Board()) not in keys
    assert excluded_keys(ONLY_MOVES.with_name("no-such-suite.epd")) == frozenset()


def test_data_files_with_and_without_games_hold_out_whole_games(tmp_path: Path) -> None:
    rows = T.read_data(SAMPLE)
    assert all(group < 0 for *_, group in rows)  # the old three-column file: blocks
    with_games = tmp_path / "games.tsv"
    with_games.write_text("# games\n" + "".join(f"{fen}\t{res}\t{cp}\t{n // 7}\n" for n, (fen, res, cp, _) in enumerate(rows)))
    mixed = T.distinct_groups([T.read_data(with_games), T.read_data(SAMPLE), T.read_data(with_games)])
    games = {g for *_, g in mixed if g >= 0}
    assert len(games) == 2 * len({n // 7 for n in range(len(rows))})  # the second copy's games are new ones
    data = T.reduce_positions(T.read_data(with_games))
    train, valid = T.split(data.groups, seed=3, share=0.1)
    assert valid.size > 0 and train.size + valid.size == data.size
    assert not set(data.groups[train]) & set(data.groups[valid])
    assert len(set(data.groups[valid])) == round(len(set(data.groups)) * 0.1)
    result = T.tune(data, E.default_weights(), seed=3, iterations=20, patience=1000)
    assert "whole games" in str(result.record["method"]) and result.record["positions_valid"] == valid.size
    bad = tmp_path / "bad.tsv"
    bad.write_text("8/8/8/8/8/8/8/K1k5 w - - 0 1\t0.5\n")
    with pytest.raises(SystemExit, match=r"bad\.tsv:1"):
        T.read_data(bad)


def test_self_play_is_seeded_varied_and_never_keeps_an_excluded_position() -> None:
    from engine.searcher import Searcher

    searcher = Searcher(hash_mb=1, seed=1)
    searcher.ev = E.default_weights()
    searcher.warm()
    opening = opening_lines(random.Random(2), 1)[0]

    def fens(rate: float, exclude: frozenset[str] = frozenset()) -> tuple[list[str], float]:
        samples, result = play_game(searcher, opening, random.Random("game"), 300, random_rate=rate, exclude=exclude)
        return [s.fen for s in samples], result

    a, result_a = fens(0.2)
    assert len(a) > 3
    assert fens(0.2) == (a, result_a)
    assert fens(0.0)[0] != a
    keys = frozenset(position_key(chess.Board(fen)) for fen in a[::2])
    kept, _ = fens(0.2, keys)
    assert kept == [fen for fen in a if position_key(chess.Board(fen)) not in keys]
