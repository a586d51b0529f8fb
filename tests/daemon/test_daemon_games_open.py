"""``boardctl games open FILE [--ply N] [--mode play|record]`` and ``games export --notation`` on
the real daemon: the record's position after ply N is set up and play goes on from there."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import chess
import chess.pgn
import pytest
from test_daemon_support import STOCKFISH, needs_engine

RUY_LOPEZ = '[Event "club"]\n[White "Ann"]\n[Black "Bob"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 *\n'


def fen_after(pgn: str, plies: int) -> str:
    game = chess.pgn.read_game(__import__("io").StringIO(pgn))
    assert game is not None
    board = game.board()
    for move in list(game.mainline_moves())[:plies]:
        board.push(move)
    return board.fen()


def games_open(tmp_path: Path, text: str | bytes, *args: str, stdin: str = '{"t": 0}\n',
               name: str = "game.pgn") -> subprocess.CompletedProcess[str]:
    record = tmp_path / name
    if isinstance(text, bytes):
        record.write_bytes(text)
    else:
        record.write_text(text, encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "boardctl", "games", "open", str(record), "--board", "sim", "--stdio", "--no-web",
         "--games-dir", str(tmp_path / "games"), *args],
        input=stdin, capture_output=True, text=True, timeout=60,
    )


def lines_of(out: subprocess.CompletedProcess[str]) -> list[dict[str, object]]:
    assert out.returncode == 0, out.stderr
    return [json.loads(line) for line in out.stdout.splitlines()]


@pytest.mark.slow
@pytest.mark.parametrize("ply", [0, 1, 3, 6])
def test_record_mode_sets_up_the_position_after_ply_n(tmp_path: Path, ply: int) -> None:
    first = lines_of(games_open(tmp_path, RUY_LOPEZ, "--mode", "record", "--ply", str(ply)))[0]
    expected = fen_after(RUY_LOPEZ, ply)
    assert first["start_fen"] == expected and first["fen"] == expected
    assert first["moves"] == [] and first["mode"] == "record" and first["variant"] == "chess"
    assert f"after {ply} of its 6 half-moves" in str(first["warning"])


@pytest.mark.slow
def test_the_last_ply_is_the_default_and_the_game_goes_on_from_it(tmp_path: Path) -> None:
    steps = ['{"t": 0}', '{"t": 1, "square": "b5", "occupied": false}', '{"t": 1.2, "square": "a4", "occupied": true}',
             '{"t": 2}']
    lines = lines_of(games_open(tmp_path, RUY_LOPEZ, "--mode", "record", stdin="".join(s + "\n" for s in steps)))
    assert lines[0]["start_fen"] == fen_after(RUY_LOPEZ, 6)
    assert lines[-1]["moves"] == ["b5a4"]
    (saved,) = (tmp_path / "games").glob("*.pgn")
    text = saved.read_text()
    assert f'[FEN "{fen_after(RUY_LOPEZ, 6)}"]' in text and "Ba4" in text


@pytest.mark.slow
@needs_engine
def test_play_mode_is_the_default_and_the_engine_takes_its_side(tmp_path: Path) -> None:
    """After 1. e4 the human (White by default) waits: the engine, Black, replies at once."""
    out = games_open(tmp_path, RUY_LOPEZ, "--ply", "1", "--engine", str(STOCKFISH), "--movetime", "0.02",
                     stdin='{"t": 0}\n{"t": 5}\n')
    lines = lines_of(out)
    assert lines[0]["mode"] == "play" and lines[0]["start_fen"] == fen_after(RUY_LOPEZ, 1)
    pending = next(line["pending"] for line in lines if line.get("pending"))
    assert chess.Move.from_uci(str(pending)) in chess.Board(fen_after(RUY_LOPEZ, 1)).legal_moves


@pytest.mark.slow
@pytest.mark.parametrize(
    ("text", "args", "message"),
    [
        (RUY_LOPEZ, ["--ply", "7"], "game.pgn: --ply 7: the game has 6 plies (0 to 6)"),
        (RUY_LOPEZ, ["--ply", "-1"], "game.pgn: --ply -1: the game has 6 plies (0 to 6)"),
        ("1. e4 e5 2. Ke3 *\n", [], "game.pgn: illegal san: 'Ke3'"),
        ("1. e4 *\n\n1. d4 *\n", [], "game.pgn: the file holds 2 games; give a file with the one game to set up"),
        ("", [], "game.pgn: no game found"),
        ('[Event "x"]\n\n*\n', [], "game.pgn: the game has no moves and no FEN tag"),
        (RUY_LOPEZ, ["--variant", "xiangqi"], "game.pgn: a chess record: its moves are legal chess "
         "(e2e4 e7e5 g1f3 b8c6 ...), not xiangqi"),
        ('[Game "Chinese Chess"]\n[Format "ICCS"]\n\n1. H2-E2 H9-G7 *\n', ["--variant", "chess"],
         'game.pgn: a xiangqi record (its [Game "Chinese Chess"] tag), but --variant chess was given'),
        (b"\x89PNG\r\n\x1a\n\x00\x00", [], "game.pgn: the game has no moves and no FEN tag"),
    ],
)
def test_a_bad_record_is_one_line_naming_the_file(tmp_path: Path, text: str | bytes, args: list[str],
                                                  message: str) -> None:
    out = games_open(tmp_path, text, "--mode", "record", *args)
    assert out.returncode == 2 and out.stdout == "" and "Traceback" not in out.stderr, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("boardctl games: error: "), lines
    assert message in lines[0], lines[0]
    assert not (tmp_path / "games").exists() or not list((tmp_path / "games").glob("*.json"))


@pytest.mark.slow
def test_a_missing_file_is_named(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "boardctl", "games", "open", str(tmp_path / "nope.pgn")],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "nope.pgn: cannot read (No such file or directory)" in out.stderr


@pytest.mark.slow
def test_export_keeps_san_for_chess_whatever_the_notation(tmp_path: Path) -> None:
    steps = ['{"t": 0}', '{"t": 1, "square": "g1", "occupied": false}', '{"t": 1.2, "square": "f3", "occupied": true}',
             '{"t": 2}']
    subprocess.run([sys.executable, "-m", "boardctl", "record", "--board", "sim", "--stdio", "--no-web",
                    "--games-dir", str(tmp_path / "games")], input="".join(s + "\n" for s in steps),
                   capture_output=True, text=True, timeout=60, check=True)
    outputs = {
        notation: subprocess.run([sys.executable, "-m", "boardctl", "games", "export", "--games-dir",
                                  str(tmp_path / "games"), *(["--notation", notation] if notation else [])],
                                 capture_output=True, text=True, timeout=60, check=True).stdout
        for notation in ("", "iccs", "wxf", "chinese")
    }
    assert "1. Nf3" in outputs[""] and len(set(outputs.values())) == 1


@pytest.mark.slow
def test_export_refuses_an_unknown_notation(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "boardctl", "games", "export", "--notation", "san",
                          "--games-dir", str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "invalid choice: 'san' (choose from 'iccs', 'wxf', 'chinese', 'chinese-ascii')" in out.stderr


# -- xiangqi records (boardctl.variants.xiangqi.records) -------------------------------------------

XIANGQI_PGN = ('[Game "Chinese Chess"]\n[Red "Li"]\n[Black "Wang"]\n[Result "*"]\n[Format "ICCS"]\n\n'
               "1. H2-E2 H9-G7 2. H0-G2 I9-H9 *\n")
XIANGQI_CHINESE = '[Game "Chinese Chess"]\n[Format "Chinese"]\n\n1. 炮二平五 马8进7 2. 马二进三 车9平8 *\n'


def _xiangqi_fen_after(moves: list[str]) -> str:
    from boardctl.variants import get_variant

    board = get_variant("xiangqi").board()
    for uci in moves:
        board.push(board.parse_uci(uci))
    return board.fen()


@pytest.mark.parametrize("text", [XIANGQI_PGN, XIANGQI_CHINESE], ids=["iccs", "chinese"])
@pytest.mark.parametrize("ply", [None, 0, 1, 3])
def test_a_xiangqi_record_is_set_up_after_ply_n(tmp_path: Path, text: str, ply: int | None) -> None:
    import argparse

    from boardctl.commands.games import read_opened

    path = tmp_path / "game.pgn"
    path.write_text(text, encoding="utf-8")
    variant, fen, note = read_opened(argparse.Namespace(file=path, ply=ply, variant=None))
    moves = ("h2e2", "h9g7", "h0g2", "i9h9")
    assert variant == "xiangqi"
    assert fen == _xiangqi_fen_after(moves[: 4 if ply is None else ply])
    assert f"after {4 if ply is None else ply} of its 4 half-moves" in note


@pytest.mark.slow
def test_a_bad_xiangqi_record_is_one_line_naming_the_file(tmp_path: Path) -> None:
    out = games_open(tmp_path, '[Game "Chinese Chess"]\n\n1. H2-E2 H9-H1 *\n', "--mode", "record")
    assert out.returncode == 2 and "Traceback" not in out.stderr
    (line,) = out.stderr.strip().splitlines()
    assert line.startswith("boardctl games: error: ") and "game.pgn" in line


class _XiangqiGame:
    """What ``games export`` reads of a saved game: its moves, start, result and PGN tags."""

    variant = "xiangqi"
    moves = ("h2e2", "h9g7", "h0g2", "i9h9")
    fen = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
    result = "1-0"

    def pgn_text(self) -> str:
        return '[Game "Chinese Chess"]\n[Event "club"]\n[Red "Li"]\n[Black "Wang"]\n[Result "1-0"]\n\n1. H2-E2 *\n'


@pytest.mark.parametrize(
    ("notation", "fmt", "first", "second"),
    [("iccs", "ICCS", "H2-E2", "H9-G7"), ("wxf", "WXF", "C2.5", "H8+7"), ("chinese", "Chinese", "炮二平五", "马８进７"),
     ("chinese-ascii", "Chinese", "炮二平五", "马8进7")],
)
def test_xiangqi_export_in_each_notation(notation: str, fmt: str, first: str, second: str) -> None:
    from boardctl.commands.games import _export_text

    text = _export_text(_XiangqiGame(), notation)  # type: ignore[arg-type]
    assert text.startswith('[Game "Chinese Chess"]\n')
    assert '[Red "Li"]' in text and '[Black "Wang"]' in text and '[Result "1-0"]' in text
    assert f'[Format "{fmt}"]' in text and '[Event "club"]' in text
    assert f"1. {first} {second}" in text and text.rstrip().endswith("1-0")


class _SetUpXiangqiGame(_XiangqiGame):
    """A game started from a set-up with Black to move."""

    fen = "rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 2 2"
    moves = ("i9h9", "h0g2")
    result = "*"


def test_xiangqi_export_of_a_set_up_game_names_its_start() -> None:
    from boardctl.commands.games import _export_text

    text = _export_text(_SetUpXiangqiGame(), "iccs")  # type: ignore[arg-type]
    assert f'[FEN "{_SetUpXiangqiGame.fen}"]' in text
    assert "2... I9-H9 3. H0-G2 *" in text


@pytest.mark.slow
def test_a_xiangqi_record_is_played_on_in_the_daemon(tmp_path: Path) -> None:
    """games open of a xiangqi PGN at ply 2, record mode: Red plays on from there (h0g2)."""
    steps = ['{"t": 0}', '{"t": 1, "square": "h0", "occupied": false}', '{"t": 1.2, "square": "g2", "occupied": true}',
             '{"t": 2}']
    lines = lines_of(games_open(tmp_path, XIANGQI_PGN, "--mode", "record", "--ply", "2",
                                stdin="".join(s + "\n" for s in steps)))
    assert lines[0]["variant"] == "xiangqi" and lines[0]["start_fen"] == _xiangqi_fen_after(["h2e2", "h9g7"])
    assert lines[-1]["moves"] == ["h0g2"] and lines[-1]["turn"] == "black"
