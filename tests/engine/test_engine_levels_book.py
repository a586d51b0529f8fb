"""Level table, the cheap import promise of engine.levels, and the shipped opening book."""

from __future__ import annotations

import itertools
import random
import struct
import subprocess
import sys
from pathlib import Path

import chess
import chess.polyglot
import pytest
from engine_testlib import data_dir

from engine.book import (
    BOOK_PATH,
    MAX_LOSS,
    SCORES_PATH,
    Book,
    BookError,
    build,
    is_sound,
    line_moves,
    lines_from_tsv,
    read_scores,
)
from engine.levels import LEVELS, SKILL_MAX, skill_for_elo, skill_params


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


def test_a_level_between_two_depths_completes_the_deeper_one_only_sometimes() -> None:
    """Beginner and practice3 sit between two depths: the deeper one within a node cap smaller
    than any full-depth skill's at that depth, yet enough to finish it on easy moves."""
    params = {s: skill_params(s) for s in range(SKILL_MAX)}
    for skill in (LEVELS["beginner"].skill, LEVELS["practice3"].skill):
        p = params[skill]
        assert p.max_nodes is not None and p.max_depth > params[skill - 1].max_depth
        same_depth = [q.max_nodes for s, q in params.items() if s > skill and q.max_depth == p.max_depth]
        assert same_depth and all(n is not None and n > p.max_nodes for n in same_depth)


@pytest.mark.slow
def test_levels_module_does_not_import_numba() -> None:
    code = "import sys, engine.levels; print('numba' in sys.modules, 'numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


@pytest.mark.slow
def test_shipped_book_is_built_from_the_openings_and_their_scores() -> None:
    lines = lines_from_tsv(sorted((data_dir() / "openings").glob("*.tsv")))
    assert len(lines) > 3000
    scores = read_scores(SCORES_PATH)
    assert BOOK_PATH.read_bytes() == build(lines, scores)
    # every move of every named line has its score
    missing = {(board.epd(), move.uci()) for board, move in line_moves(lines)} - scores.keys()
    assert not missing


@pytest.mark.parametrize(("cp", "best", "sound"), [
    (30, 30, True),  # the best move itself
    (30 - MAX_LOSS, 30, True),  # just within the loss allowed
    (30 - MAX_LOSS - 1, 30, False),
    (-40, -30, True),  # a sound defence in a worse opening
    (-100, -95, True),  # the floor itself
    (-101, -95, False),  # even the best of bad moves leaves the book
    (-300, 50, False),
    (10000, 10000, True),  # a mate
    (500, 10000, False),  # a win where a mate is in book
])
def test_soundness_rule(cp: int, best: int, sound: bool) -> None:
    assert is_sound(cp, best) is sound


def _line(*sans: str) -> list[chess.Move]:
    board = chess.Board()
    return [board.push_san(san) for san in sans]


def test_build_leaves_out_the_moves_scored_unsound() -> None:
    lines = [_line("e4", "e5", "Nf3"), _line("e4", "e5", "f4"), _line("g4"), _line("d4")]
    start, after_e5 = chess.Board(), chess.Board()
    for san in ("e4", "e5"):
        after_e5.push_san(san)
    scores = {(start.epd(), "e2e4"): 30, (start.epd(), "d2d4"): 25, (start.epd(), "g2g4"): -90,
              (after_e5.epd(), "g1f3"): 40, (after_e5.epd(), "f2f4"): -20}
    with_scores = _entries(build(lines, scores))
    assert _entries(build(lines)) - with_scores == {(start.epd(), "g2g4"), (after_e5.epd(), "f2f4")}
    # a move without a score stays: new named lines are never dropped unseen
    del scores[(start.epd(), "g2g4")]
    assert (start.epd(), "g2g4") in _entries(build(lines, scores))


def _entries(data: bytes) -> set[tuple[str, str]]:
    """(epd, uci) of each entry of a book, for the positions the tests use."""
    boards = [chess.Board()]
    for san in ("e4", "e5"):
        boards.append(boards[-1].copy())
        boards[-1].push_san(san)
    out = set()
    for board in boards:
        key = chess.polyglot.zobrist_hash(board)
        for i in range(0, len(data), 16):
            entry_key, raw = struct.unpack_from(">QH", data, i)
            if entry_key == key:
                move = chess.Move(raw >> 6 & 63, raw & 63)
                out.add((board.epd(), move.uci()))
    return out


@pytest.mark.parametrize(("sans", "kept"), [
    # sound main lines stay
    (("e4",), True), (("d4",), True), (("c4",), True), (("Nf3",), True),
    (("e4", "c5"), True), (("e4", "e6"), True), (("e4", "c6"), True), (("e4", "e5"), True),
    (("d4", "Nf6"), True), (("d4", "d5"), True), (("e4", "e5", "Nf3", "Nc6"), True),
    # named but unsound: Grob, Amar, Borg, Englund, Latvian, Damiano, Fred
    (("g4",), False), (("Nh3",), False), (("e4", "g5"), False), (("d4", "e5"), False),
    (("e4", "e5", "Nf3", "f5"), False), (("e4", "e5", "Nf3", "f6"), False), (("e4", "f5"), False),
])
def test_shipped_book_keeps_sound_lines_and_drops_unsound_ones(sans: tuple[str, ...], kept: bool) -> None:
    board = chess.Board()
    for san in sans[:-1]:
        board.push_san(san)
    move = board.parse_san(sans[-1])
    with chess.polyglot.open_reader(BOOK_PATH) as reader:
        moves = {entry.move for entry in reader.find_all(board)}
    assert (move in moves) is kept


@pytest.mark.parametrize(("text", "where"), [
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -\te2e4\n", "x.tsv:1"),
    ("# comment\nrnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -\te2e4\tlots\n", "x.tsv:2"),
])
def test_a_malformed_scores_file_is_named_with_its_line(tmp_path: Path, text: str, where: str) -> None:
    path = tmp_path / "x.tsv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(BookError, match=where):
        read_scores(path)


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
