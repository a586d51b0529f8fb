"""Level table, the cheap import promise of engine.levels, and the shipped opening book."""

from __future__ import annotations

import itertools
import random
import subprocess
import sys

import chess
from engine_testlib import data_dir

from engine.book import BOOK_PATH, Book, build, lines_from_tsv
from engine.levels import LEVELS, skill_for_elo, skill_params


def test_named_and_practice_levels_exist_in_order_of_strength() -> None:
    named = ["beginner", "intermediate", "advanced", "master"]
    practice = [f"practice{i}" for i in range(1, 6)]
    assert set(LEVELS) == set(named + practice)
    for group in (named, practice):
        elos = [LEVELS[n].elo for n in group]
        skills = [LEVELS[n].skill for n in group]
        assert elos == sorted(elos) and skills == sorted(skills)


def test_levels_map_to_standard_options() -> None:
    master = LEVELS["master"]
    assert master.uci_options() == {"UCI_LimitStrength": True, "UCI_Elo": master.elo}
    # Stockfish 15.1 accepts UCI_Elo 1350..2850 only: beginner falls back to Skill Level
    beginner = LEVELS["beginner"]
    assert beginner.uci_options(elo_range=(1350, 2850)) == {"UCI_LimitStrength": False, "Skill Level": beginner.skill}
    assert beginner.uci_options(elo_range=None)["Skill Level"] == beginner.skill


def test_skill_scale_is_monotonic() -> None:
    skills = [skill_for_elo(elo) for elo in range(100, 3000, 10)]
    assert skills == sorted(skills) and skills[0] == LEVELS["beginner"].skill and skills[-1] == 20
    assert skill_for_elo(1500) in range(LEVELS["practice3"].skill, LEVELS["practice4"].skill + 1)
    # xiangqi's levels are not on an Elo scale: linear between the option's bounds
    assert skill_for_elo(800, variant="xiangqi") == 0 and skill_for_elo(2400, variant="xiangqi") == 20
    assert skill_for_elo(1600, variant="xiangqi") == 10
    params = [skill_params(s) for s in range(21)]
    assert all(a.max_depth <= b.max_depth and a.margin >= b.margin for a, b in itertools.pairwise(params))
    assert params[20].margin == 0 and params[20].max_nodes is None


def test_levels_module_does_not_import_numba() -> None:
    code = "import sys, engine.levels; print('numba' in sys.modules, 'numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


def test_shipped_book_is_built_from_the_openings() -> None:
    lines = lines_from_tsv(sorted((data_dir() / "openings").glob("*.tsv")))
    assert len(lines) > 3000
    assert BOOK_PATH.read_bytes() == build(lines)


def test_book_moves_are_legal_and_varied() -> None:
    book = Book(rng=random.Random(3))
    board = chess.Board()
    picks = {book.pick(board) for _ in range(40)}
    assert len(picks) >= 5 and picks <= set(board.legal_moves)
    board.push_uci("e2e4")
    board.push_uci("c7c5")
    move = book.pick(board)
    assert move is not None and move in board.legal_moves
    assert book.pick(chess.Board("8/8/8/4k3/8/8/8/1Q4K1 w - - 0 1")) is None


def test_level_skill_agrees_with_its_elo() -> None:
    for level in LEVELS.values():
        assert skill_for_elo(level.elo) == level.skill, level
