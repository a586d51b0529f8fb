"""Resuming and replacing unfinished games: announced, kept apart from the demo's, abandoned by --new."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import chess
import pytest
from test_daemon_support import STOCKFISH, needs_engine

from boardctl.commands.games import abandon_unfinished, demo_games_dir, resume_notice
from boardctl.storage import GameRecord, GameStore


@pytest.mark.parametrize(("mode", "human", "moves", "fen", "expected"), [
    ("play", "black", [], chess.STARTING_FEN, "move 1, you play Black. New game: boardctl play --new"),
    ("play", "white", ["e2e4", "e7e5"], chess.STARTING_FEN, "move 2, you play White. New game: boardctl play --new"),
    ("play", "black", ["e2e4"], chess.STARTING_FEN, "move 1, you play Black. New game: boardctl play --new"),
    ("record", None, ["d2d4", "d7d5", "c2c4"], chess.STARTING_FEN,
     "move 2, recording two players. New game: boardctl play --new"),
    ("play", "white", [], "4k3/8/8/8/8/8/8/4K3 w - - 0 12", "move 12, you play White. New game: boardctl play --new"),
])
def test_resume_notice(mode: str, human: str | None, moves: list[str], fen: str, expected: str) -> None:
    from boardctl.session import resume_notice as page_notice

    record = GameRecord(id="x", mode=mode, white="a", black="b", human=human, moves=moves, fen=fen,
                        started="2026-11-30T21:05:00Z")
    assert resume_notice(record, command="boardctl play --new") == (
        f"Resuming your unfinished game of 2026-11-30, {expected}")
    # the page says the same, ending with its own way to a new game
    assert page_notice(record).split(" New game:")[0] == resume_notice(record, command="x").split(" New game:")[0]


def test_abandon_marks_every_unfinished_game_of_the_mode(tmp_path: Path) -> None:
    store = GameStore(tmp_path)
    for i, (mode, result) in enumerate([("play", "*"), ("play", "*"), ("play", "1-0"), ("record", "*")]):
        store.save(GameRecord(id=f"2026010{i}-000000-000000", mode=mode, white="a", black="b", result=result))
    marked = abandon_unfinished(store, "play")
    assert [r.id for r in marked] == ["20260101-000000-000000", "20260100-000000-000000"]
    assert store.unfinished("play") is None and store.unfinished("record") is not None
    assert store.load("20260102-000000-000000").termination == ""  # a finished game stays as it was
    assert '[Termination "abandoned"]' in store.path("20260100-000000-000000", ".pgn").read_text()


def boardctl(tmp: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XDG_DATA_HOME": str(tmp / "data"), "XDG_CONFIG_HOME": str(tmp / "config")}
    return subprocess.run([sys.executable, "-m", "boardctl", *args], input=stdin, capture_output=True, text=True,
                          env=env, timeout=120)


E2E4 = '{"t": 0}\n{"t": 1, "square": "e2", "occupied": false}\n{"t": 1.2, "square": "e4", "occupied": true}\n{"t": 2}\n'


def states(out: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in out.splitlines()]


@pytest.mark.slow
def test_resume_is_announced_in_the_log_and_new_abandons(tmp_path: Path) -> None:
    games = tmp_path / "games"
    first = boardctl(tmp_path, "record", "--board", "sim", "--stdio", "--no-web", "--games-dir", str(games), stdin=E2E4)
    assert first.returncode == 0, first.stderr
    game_id = states(first.stdout)[-1]["game"]
    assert states(first.stdout)[-1]["moves"] == ["e2e4"]
    again = boardctl(tmp_path, "record", "--board", "sim", "--stdio", "--no-web", "--games-dir", str(games),
                     stdin='{"t": 0}\n')
    assert again.returncode == 0
    assert states(again.stdout)[-1]["game"] == game_id
    assert "Resuming your unfinished game of " in again.stderr
    assert ", move 1, recording two players. New game: boardctl record --new" in again.stderr
    fresh = boardctl(tmp_path, "record", "--board", "sim", "--stdio", "--no-web", "--games-dir", str(games), "--new",
                     stdin='{"t": 0}\n')
    assert fresh.returncode == 0 and "Resuming" not in fresh.stderr
    assert states(fresh.stdout)[-1]["game"] != game_id and states(fresh.stdout)[-1]["moves"] == []
    old = json.loads((games / f"{game_id}.json").read_text())
    assert old["termination"] == "abandoned" and old["result"] == "*"
    assert '[Termination "abandoned"]' in (games / f"{game_id}.pgn").read_text()
    listed = boardctl(tmp_path, "games", "list", "--games-dir", str(games))
    assert f"{game_id}  record  White - Black  abandoned  1 plies" in listed.stdout


@pytest.mark.slow
@needs_engine
def test_play_never_resumes_a_demo_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    demo = GameStore(demo_games_dir())
    demo.save(GameRecord(id="20260101-000000-000000", mode="play", white="Human", black="engine", human="white",
                         moves=["e2e4", "e7e5"]))
    out = boardctl(tmp_path, "play", "--board", "sim", "--stdio", "--no-web", "--engine", str(STOCKFISH),
                   stdin='{"t": 0}\n')
    assert out.returncode == 0, out.stderr
    line = states(out.stdout)[-1]
    assert line["moves"] == [] and line["game"] != "20260101-000000-000000"
    assert "Resuming" not in out.stderr
    assert demo.load("20260101-000000-000000").termination == ""  # untouched
