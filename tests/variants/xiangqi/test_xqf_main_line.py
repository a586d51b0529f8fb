"""XQF: the main line only, in time and size bounded by it (issue 35, finding 2).

A 130 KB XQF with many variations never answered ``games open``: cchess builds the whole tree
first (a minute and more). The file stores the tree in pre-order, so the main line is its first
records in a row; :mod:`boardctl.variants.xiangqi.xqf` reads just those. The catalogue: every
version (old, ciphered with and without the shuffled set-up), variations nowhere, at the first
move, at every move, and long; comments; set-ups with Black to move; a file far larger than the
reported one. cchess is the reference for what the main line is.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from boardctl.commands.games import read_opened
from boardctl.errors import GameFileError
from boardctl.variants.xiangqi import STARTING_FEN, XiangqiBoard
from boardctl.variants.xiangqi.records import read_xqf, xqf_record
from boardctl.variants.xiangqi.xqf import MAX_MOVES
from tests.variants.xiangqi.xqf_writer import Keys, write_xqf

KEYS = Keys(mask=0xFF, ors=(1, 2, 4, 8), total=5, xy=6, xyf=7, xyt=8)
SETUP = "3k5/4a4/4b4/9/2p6/9/4P4/4B4/4A4/3AK4 b - - 0 1"


def random_line(board: XiangqiBoard, rng: random.Random, plies: int, *, avoid: str | None = None) -> list[str]:
    board = board.copy(stack=False)
    line: list[str] = []
    for _ in range(plies):
        moves = [m for m in board.generate_legal_moves() if not (not line and m.uci() == avoid)]
        if not moves:
            break
        move = rng.choice(moves)
        line.append(move.uci())
        board.push(move)
    return line


def tree(fen: str, rng: random.Random, *, plies: int, every: int, depth: int) -> tuple[list[str], dict[int, list[str]]]:
    """A main line and an alternative of ``depth`` plies at every ``every``-th move."""
    main = random_line(XiangqiBoard(fen), rng, plies)
    board, variations = XiangqiBoard(fen), {}
    for i, uci in enumerate(main):
        if every and i % every == 0:
            side = random_line(board, rng, depth, avoid=uci)
            if side:
                variations[i] = side
        board.push(board.parse_uci(uci))
    return main, variations


def _cchess_main_line(path: Path) -> list[str]:
    import cchess

    game = cchess.read_from_xqf(str(path))
    return [str(m) for m in game.dump_iccs_moves()[0]] if game.first_move is not None else []


#: (version, keys, set-up, main plies, a variation every n moves (0: none), its depth, comments)
SHAPES = [
    (10, None, STARTING_FEN, 40, 0, 0, False),
    (10, None, STARTING_FEN, 40, 1, 6, True),
    (10, None, SETUP, 20, 3, 4, False),
    (12, KEYS, STARTING_FEN, 60, 2, 10, True),
    (18, KEYS, STARTING_FEN, 50, 1, 3, False),
    (18, KEYS, SETUP, 24, 5, 8, True),
    (18, Keys(), STARTING_FEN, 30, 7, 20, False),  # a new version with all-zero keys: not ciphered
    (18, KEYS, STARTING_FEN, 1, 1, 30, False),
    (18, KEYS, STARTING_FEN, 0, 0, 0, True),
]


@pytest.mark.parametrize(("version", "keys", "fen", "plies", "every", "depth", "comments"), SHAPES)
def test_the_main_line_is_what_cchess_calls_it(tmp_path: Path, version: int, keys: Keys | None, fen: str,
                                               plies: int, every: int, depth: int, comments: bool) -> None:
    rng = random.Random(f"{version}{plies}{every}{depth}")
    main, variations = tree(fen, rng, plies=plies, every=every, depth=depth)
    notes = {i: f"第{i}着 注" for i in range(0, len(main), 3)} if comments else {}
    path = tmp_path / "game.xqf"
    path.write_bytes(write_xqf(main, fen=fen, version=version, keys=keys, variations=variations, comments=notes,
                               comment="开局" if comments else "", red="许银川", black="吕钦", result="1-0",
                               event="全国象棋个人赛", title="第一轮"))
    record = read_xqf(path)
    assert list(record.moves) == main == _cchess_main_line(path)
    assert record.start_fen.split()[0] == fen.split()[0]
    if main:
        assert record.start_fen.split()[1] == fen.split()[1]
    assert {k: record.tags[k] for k in ("Red", "Black", "Result", "Event", "Title")} == {
        "Red": "许银川", "Black": "吕钦", "Result": "1-0", "Event": "全国象棋个人赛", "Title": "第一轮"}


@pytest.fixture(scope="module")
def large_xqf(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """Over 130 KB: a long game with a comment and an alternative of 60 plies at every move
    (version 10: eight bytes a record)."""
    rng = random.Random(35)
    main, variations = tree(STARTING_FEN, rng, plies=260, every=1, depth=60)
    notes = {i: "这一着是本局的关键，红方借此取得主动" for i in range(len(main))}
    path = tmp_path_factory.mktemp("xqf") / "many-variations.xqf"
    path.write_bytes(write_xqf(main, version=10, variations=variations, comments=notes, red="红", black="黑"))
    assert path.stat().st_size > 130_000 and len(variations) > 100
    return path, main


def test_a_large_file_with_many_variations_reads_in_a_moment(large_xqf: tuple[Path, list[str]]) -> None:
    path, main = large_xqf
    began = time.perf_counter()
    record = read_xqf(path)
    took = time.perf_counter() - began
    assert list(record.moves) == main
    assert took < 1.0, f"{took:.2f} s for the main line of {path.stat().st_size} bytes"


@pytest.mark.slow
def test_games_open_answers_at_once_on_the_large_file(large_xqf: tuple[Path, list[str]], tmp_path: Path) -> None:
    """The report's command, on the real daemon: the position after the main line, quickly."""
    path, main = large_xqf
    board = XiangqiBoard()
    for uci in main:
        board.push(board.parse_uci(uci))
    import argparse

    began = time.perf_counter()
    variant, fen, _ = read_opened(argparse.Namespace(file=path, ply=None, variant=None))
    assert time.perf_counter() - began < 1.5 and (variant, fen) == ("xiangqi", board.fen())
    began = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-m", "boardctl", "games", "open", str(path), "--mode", "record", "--board", "sim",
         "--stdio", "--no-web", "--games-dir", str(tmp_path / "games")],
        input='{"t": 0}\n', capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.splitlines()[0])["fen"] == board.fen()
    assert time.perf_counter() - began < 20  # the daemon's own start included; it was over 120 s


@pytest.mark.parametrize(("damage", "fault"), [
    (lambda data: data[:0x400 + 8 * 3 + 4], "move 3: the file ends inside it"),
    (lambda data: data[:600], "shorter (600 bytes) than an XQF header"),
    (lambda data: data[:0x400 + 8 * 2] + bytes([0x18 + 95, 0x20 + 1, 0xF0, 0]) + data[0x400 + 8 * 2 + 4:],
     "move 2: not a move between two points"),
    (lambda data: data[:0x400 + 8 * 2] + bytes([0x18 + 75, 0x20 + 72, 0xF0, 0]) + data[0x400 + 8 * 2 + 4:],
     "move 2: illegal move"),
])
def test_a_damaged_main_line_is_one_error_naming_the_move(tmp_path: Path, damage: object, fault: str) -> None:
    data = write_xqf(["h2e2", "h9g7", "h0g2", "i9h9"], version=10)
    with pytest.raises(GameFileError) as caught:
        xqf_record(damage(data), source="bad.xqf")  # type: ignore[operator]
    assert str(caught.value).startswith("bad.xqf: ") and fault in str(caught.value), caught.value


def test_the_main_line_is_bounded(tmp_path: Path) -> None:
    """A main line over MAX_MOVES stops the read there (horses out and back for ever)."""
    cycle = ["h0g2", "h9g7", "g2h0", "g7h9"]
    data = write_xqf(cycle * (MAX_MOVES // 4 + 1), version=10)
    began = time.perf_counter()
    with pytest.raises(GameFileError, match=f"more than {MAX_MOVES} moves"):
        xqf_record(data)
    assert time.perf_counter() - began < 2.0
