"""Two people play on the sim board and the game is recorded; then ``boardctl games`` reads it back."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import chess
import chess.pgn
import pytest
from test_daemon_support import Daemon, move_events

from boardctl.events import parse_event

pytestmark = pytest.mark.slow


def play_line(daemon: Daemon, board: chess.Board, ucis: list[str], *, flipped: bool = False) -> dict:
    line: dict = {}
    for uci in ucis:
        move = chess.Move.from_uci(uci)
        line = daemon.play(move, board, flipped=flipped)
        board.push(move)
        assert line["moves"] == [m.uci() for m in board.move_stack], line
    return line


def games_cli(games: Path, *args: str) -> str:
    out = subprocess.run(
        [sys.executable, "-m", "boardctl", "games", "--games-dir", str(games), *args],
        capture_output=True, text=True, check=True,
    )
    return out.stdout


def test_recorded_game_with_takeback_ends_in_mate(tmp_path: Path) -> None:
    games = tmp_path / "games"
    daemon = Daemon("record", games, "--time-control", "10+5")
    board = chess.Board()
    daemon.send({"t": 0})
    play_line(daemon, board, ["f2f3", "e7e5"])
    # Black takes the move back by putting the pawn back (takeback mode "apply").
    daemon.event("e5", False)
    daemon.event("e7", True)
    line = daemon.tick(1.0)
    board.pop()
    assert line["moves"] == ["f2f3"] and line["turn"] == "black"
    line = play_line(daemon, board, ["e7e6", "g2g4", "d8h4"])
    assert line["result"] == "0-1" and line["termination"] == "checkmate"
    assert any(led["why"] == "result" for led in line["leds"])
    assert daemon.close() == 0, daemon.stderr

    (state_file,) = games.glob("*.json")
    state = json.loads(state_file.read_text())
    assert state["mode"] == "record" and state["moves"] == ["f2f3", "e7e6", "g2g4", "d8h4"]
    game = chess.pgn.read_game(io.StringIO(state_file.with_suffix(".pgn").read_text()))
    assert game is not None
    assert game.headers["Result"] == "0-1" and game.headers["TimeControl"] == "600+5"
    assert [n.clock() for n in game.mainline()] == state["clocks"]
    # The event log replays: the same lifts and places, in game orientation, times never decreasing.
    events = [parse_event(x) for x in state_file.with_suffix(".jsonl").read_text().splitlines()]
    assert [e.t for e in events] == sorted(e.t for e in events)
    assert len([e for e in events if hasattr(e, "square")]) == 2 + 2 + 2 + 6

    replayed = subprocess.run([sys.executable, "-m", "boardctl", "replay", str(state_file.with_suffix(".jsonl"))],
                              capture_output=True, text=True, check=True)
    again = chess.pgn.read_game(io.StringIO(replayed.stdout))
    assert again is not None and [m.uci() for m in again.mainline_moves()] == state["moves"]

    # The same log as a script for the sim's stdio face reproduces the whole game.
    scripted = subprocess.run(
        [sys.executable, "-m", "boardctl", "record", "--board", "sim", "--stdio", "--no-web",
         "--games-dir", str(tmp_path / "again")],
        stdin=state_file.with_suffix(".jsonl").open(), capture_output=True, text=True, timeout=60,
    )
    assert scripted.returncode == 0, scripted.stderr
    final = json.loads(scripted.stdout.splitlines()[-1])
    assert final["moves"] == state["moves"] and final["result"] == "0-1"

    listing = games_cli(games, "list")
    assert state["id"] in listing and "0-1" in listing and "4 plies" in listing
    shown = games_cli(games, "show", "last")
    assert shown == state_file.with_suffix(".pgn").read_text()
    out = tmp_path / "all.pgn"
    games_cli(games, "export", "-o", str(out))
    assert chess.pgn.read_game(io.StringIO(out.read_text())) is not None


def test_auto_orientation_from_whites_first_move_and_buttons(tmp_path: Path) -> None:
    games = tmp_path / "games"
    daemon = Daemon("record", games)
    board = chess.Board()
    daemon.send({"t": 0})
    # White sits at the far side: White's first lift is on the board's ranks 7-8.
    play_line(daemon, board, ["e2e4", "e7e5", "g1f3", "b8c6", "f3g1", "c6b8", "g1f3", "b8c6", "f3g1"], flipped=True)
    assert daemon.state["orientation"] == "flipped"
    line = daemon.button("claim")
    assert line["result"] == "*" and "no draw to claim" in line["warning"]
    play_line(daemon, board, ["c6b8"], flipped=True)
    line = daemon.button("claim")
    assert line["result"] == "1/2-1/2" and "threefold" in line["termination"]
    # A new game: a fresh record, same orientation, the old one is kept.
    line = daemon.button("new-game")
    assert line["moves"] == [] and line["result"] == "*" and line["orientation"] == "flipped"
    assert daemon.close() == 0
    assert len(list(games.glob("*.pgn"))) == 2


def test_draw_offer_and_resignation_buttons(tmp_path: Path) -> None:
    games = tmp_path / "games"
    daemon = Daemon("record", games)
    board = chess.Board()
    daemon.send({"t": 0})
    play_line(daemon, board, ["d2d4"])
    line = daemon.button("draw")
    assert line["draw_offer"] is True and {led["why"] for led in line["leds"]} == {"draw-offer"}
    line = play_line(daemon, board, ["d7d5"])  # a move declines
    assert line["draw_offer"] is False
    daemon.button("draw")
    line = daemon.button("draw")
    assert line["result"] == "1/2-1/2" and line["termination"] == "draw agreed"
    daemon.button("new-game")
    # After the new game, the side to move (White) resigns.
    board = chess.Board()
    daemon.tick(1.0)
    line = daemon.button("resign")
    assert line["result"] == "0-1" and line["termination"] == "white resigned"
    assert daemon.close() == 0


def test_illegal_move_is_refused_and_recorded_as_a_comment(tmp_path: Path) -> None:
    games = tmp_path / "games"
    daemon = Daemon("record", games)
    board = chess.Board()
    daemon.send({"t": 0})
    for square, occupied in move_events(board, chess.Move.from_uci("e2e5")):
        daemon.event(square, occupied)
    line = daemon.tick(1.5)
    assert line["moves"] == [] and "illegal-move" in (line["warning"] or "")
    assert {led["why"] for led in line["leds"]} <= {"illegal-move", "mismatch"} and line["leds"]
    daemon.event("e5", False)
    daemon.event("e2", True)
    play_line(daemon, board, ["e2e4"])
    assert daemon.close() == 0
    (pgn,) = games.glob("*.pgn")
    game = chess.pgn.read_game(io.StringIO(pgn.read_text()))
    assert game is not None and "illegal-move" in game.comment
