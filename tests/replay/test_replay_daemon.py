"""``boardctl replay`` of what the daemon saved prints the saved game: moves, Result, Termination.

Each test plays a game through ``boardctl record|play --board sim --stdio`` (the way the daemon
tests do), lets it end the way games end (buttons, mate then clearing up, a flag, a forfeit),
and replays every ``<id>.jsonl`` it left, in process and through the command line.
"""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import chess
import chess.pgn
import pytest
from replay_check import check_games_dir, saved_games
from test_daemon_support import Daemon, move_events

pytestmark = pytest.mark.slow

MATE = ["f2f3", "e7e5", "g2g4", "d8h4"]


def play(daemon: Daemon, board: chess.Board, ucis: list[str]) -> dict:
    line: dict = {}
    for uci in ucis:
        move = chess.Move.from_uci(uci)
        line = daemon.play(move, board)
        board.push(move)
    return line


def replay_cli(log: Path) -> chess.pgn.Game:
    out = subprocess.run([sys.executable, "-m", "boardctl", "replay", str(log)], capture_output=True, text=True, check=True)
    game = chess.pgn.read_game(io.StringIO(out.stdout))
    assert game is not None
    return game


def finish(daemon: Daemon, games: Path, count: int = 1) -> list[chess.pgn.Game]:
    assert daemon.close() == 0, daemon.stderr
    assert check_games_dir(games) == count
    return [replay_cli(log) for log in saved_games(games)]


def test_resign_claim_and_draw_buttons(tmp_path: Path) -> None:
    cases = [
        (["e2e4", "e7e5", "g1f3"], ["resign"], "1-0", "black resigned"),
        (["g1f3", "g8f6", "f3g1", "f6g8"] * 2, ["claim"], "1/2-1/2", "draw claimed: threefold repetition"),
        (["e2e4", "e7e5"], ["draw", "draw"], "1/2-1/2", "draw agreed"),
    ]
    for index, (moves, buttons, result, termination) in enumerate(cases):
        games = tmp_path / f"games{index}"
        daemon = Daemon("record", games)
        daemon.send({"t": 0})
        play(daemon, chess.Board(), moves)
        for name in buttons:
            line = daemon.button(name)
        assert (line["result"], line["termination"]) == (result, termination)
        [game] = finish(daemon, games)
        assert (game.headers["Result"], game.headers["Termination"]) == (result, "normal")
        assert game.end().comment.endswith(termination)  # the detail, after the last move
        assert [m.uci() for m in game.mainline_moves()] == moves


def test_mate_then_clearing_the_board_and_a_new_game(tmp_path: Path) -> None:
    games = tmp_path / "games"
    daemon = Daemon("record", games)
    daemon.send({"t": 0})
    board = chess.Board()
    line = play(daemon, board, MATE)
    assert line["result"] == "0-1" and line["termination"] == "checkmate"
    for square in chess.SquareSet(board.occupied):  # clear everything away
        daemon.event(chess.square_name(square), False, dt=0.15)
    line = daemon.tick(2.0)
    assert line["result"] == "0-1" and line["moves"] == MATE and "illegal" not in str(line["warning"])
    for square in chess.SquareSet(chess.BB_RANK_1 | chess.BB_RANK_2 | chess.BB_RANK_7 | chess.BB_RANK_8):
        daemon.event(chess.square_name(square), True, dt=0.1)
    line = daemon.tick(1.0)
    assert line["moves"] == [] and line["result"] == "*"
    play(daemon, chess.Board(), ["d2d4", "d7d5"])
    first, second = finish(daemon, games, count=2)
    assert [m.uci() for m in first.mainline_moves()] == MATE and first.headers["Result"] == "0-1"
    assert "illegal" not in str(first)  # clearing up is not an illegal move, and stays out of the PGN
    assert [m.uci() for m in second.mainline_moves()] == ["d2d4", "d7d5"]


def test_mate_then_pieces_moved_back_is_not_a_takeback(tmp_path: Path) -> None:
    games = tmp_path / "games"
    daemon = Daemon("record", games)
    daemon.send({"t": 0})
    play(daemon, chess.Board(), MATE)
    for a, b in (("h4", "d8"), ("g4", "g2")):
        daemon.event(a, False)
        daemon.event(b, True)
        line = daemon.tick(0.5)
    assert line["moves"] == MATE and line["result"] == "0-1"
    [game] = finish(daemon, games)
    assert game.headers["Termination"] == "normal" and game.end().comment.endswith("checkmate")


def test_flag_and_forfeit(tmp_path: Path) -> None:
    games = tmp_path / "flag"
    daemon = Daemon("record", games, "--time-control", "1+0")
    daemon.send({"t": 0})
    play(daemon, chess.Board(), ["e2e4"])
    line = daemon.tick(61.0)
    assert line["result"] == "1-0" and line["termination"] == "black lost on time"
    [game] = finish(daemon, games)
    assert game.headers["Termination"] == "time forfeit" and game.end().comment.endswith("black lost on time")

    games = tmp_path / "forfeit"
    daemon = Daemon("record", games, "--arbiter")
    daemon.send({"t": 0})
    for a, b in (("e2", "e5"), ("e5", "e2"), ("e2", "e6")):
        daemon.event(a, False)
        daemon.event(b, True)
        line = daemon.tick(0.5)
    assert line["result"] == "0-1" and "forfeits" in line["termination"]
    [game] = finish(daemon, games)
    assert game.headers["Result"] == "0-1" and game.headers["Termination"] == "rules infraction"


def test_blitz_replies_through_the_daemon(tmp_path: Path) -> None:
    games = tmp_path / "games"
    daemon = Daemon("record", games)
    daemon.send({"t": 0})
    board = chess.Board()
    moves = ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5c6", "d7c6", "e1g1"]
    landed = ""
    for uci in moves:
        move = chess.Move.from_uci(uci)
        for index, (square, occupied) in enumerate(move_events(board, move)):
            # The reply's first lift 0.05 s after the last placement (0.15 s when it takes that very
            # piece: quicker reads as a blink); the hand carries a piece for 0.2 s.
            gap = (0.15 if square == landed else 0.05) if index == 0 else 0.2
            daemon.event(square, occupied, dt=gap)
            if occupied:
                landed = square
        board.push(move)
    line = daemon.tick(0.5)
    assert line["moves"] == moves and line["warning"] is None
    [game] = finish(daemon, games)
    assert [m.uci() for m in game.mainline_moves()] == moves


def test_game_against_the_engine_with_a_draw_offer(tmp_path: Path) -> None:
    games = tmp_path / "games"
    daemon = Daemon("play", games, "--color", "white", "--level", "practice1", engine="")
    daemon.send({"t": 0})
    board = chess.Board()
    for uci in ("e2e4", "g1f3"):
        line = daemon.play(chess.Move.from_uci(uci), board)
        board.push_uci(uci)
        engine = daemon.engine_line()
        reply = chess.Move.from_uci(engine["pending"])
        daemon.play(reply, board)
        board.push(reply)
    line = daemon.button("draw")
    [game] = finish(daemon, games)
    assert [m.uci() for m in game.mainline_moves()] == [m.uci() for m in board.move_stack]
    assert game.headers["Result"] == line["result"]
