"""Xiangqi against the bundled engine through the real daemon (``boardctl play --variant xiangqi
--board sim --stdio``): the engine's move is read from ``pending`` and the LEDs, made by hand, and
the game survives a kill -9 (the same command resumes it). Red and Black, and the game's end."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path
from typing import Any

import pytest
from test_daemon_support import AFTER_MOVE, Daemon

from boardctl.core.rules import GameBoard, Move
from boardctl.variants import get_variant

pytestmark = pytest.mark.slow

XQ = get_variant("xiangqi")
G = XQ.geometry


def physical(square: int, flipped: bool) -> str:
    return G.square_name(G.turned(square) if flipped else square)


def hand_events(board: GameBoard, move: Move, *, flipped: bool) -> list[tuple[str, bool]]:
    """A capture's victim off first, then the mover lifted and placed. On the game's very first
    move the mover goes up first (test_first_move_capture_victim_first_under_auto_orientation
    checks the other order, which auto orientation must not read as a turned board)."""
    start, end = physical(move.from_square, flipped), physical(move.to_square, flipped)
    if board.capture_square(move) is None:
        return [(start, False), (end, True)]
    if not board.move_stack and board.fen() == XQ.starting_fen:
        return [(start, False), (end, False), (end, True)]
    return [(end, False), (start, False), (end, True)]


def make(daemon: Daemon, board: GameBoard, move: Move, *, flipped: bool) -> dict[str, Any]:
    for square, occupied in hand_events(board, move, flipped=flipped):
        daemon.event(square, occupied, 0.2)
    line = daemon.tick(AFTER_MOVE)
    board.push(move)
    assert line["moves"] == [m.uci() for m in board.move_stack], line
    return line


def human_move(board: GameBoard, rng: random.Random) -> Move:
    legal = list(board.generate_legal_moves())
    captures = [m for m in legal if board.capture_square(m) is not None]
    return rng.choice(captures if captures and rng.random() < 0.5 else legal)


def engine_move(daemon: Daemon, board: GameBoard, *, flipped: bool, line: dict[str, Any] | None = None) -> Move:
    """Read the engine's move from ``pending`` and the LEDs, check them, and make it by hand."""
    line = line or daemon.engine_line(timeout=60)
    assert line["pending"] is not None, line
    move = board.parse_uci(line["pending"])
    assert board.is_legal(move)
    lit = {led["square"] for led in line["leds"] if led["why"] == "engine-move"}
    assert lit == {physical(move.from_square, flipped), physical(move.to_square, flipped)}, (line["leds"], move)
    after = make(daemon, board, move, flipped=flipped)
    assert after["pending"] is None
    return move


def play_plies(daemon: Daemon, board: GameBoard, rng: random.Random, human: bool, plies: int, *, flipped: bool) -> None:
    for _ in range(plies):
        if board.outcome() is not None:
            return
        if board.turn == human:
            make(daemon, board, human_move(board, rng), flipped=flipped)
        else:
            engine_move(daemon, board, flipped=flipped)


def saved(games: Path) -> dict[str, Any]:
    (state_file,) = games.glob("*.json")
    state: dict[str, Any] = json.loads(state_file.read_text())
    pgn = state_file.with_suffix(".pgn").read_text(encoding="utf-8")
    assert pgn.splitlines()[0] == '[Game "Chinese Chess"]' and '[Format "ICCS"]' in pgn
    assert XQ.read_pgn is not None
    game = XQ.read_pgn(io.StringIO(pgn))
    assert game is not None and list(game.moves) == state["moves"]
    return state


ARGS = ("--variant", "xiangqi", "--level", "practice1")


def _kill_and_resume(tmp_path: Path, color: str, seed: int) -> None:
    games = tmp_path / "games"
    human = color == "red"
    rng = random.Random(seed)
    board = XQ.board()
    daemon = Daemon("play", games, *ARGS, "--color", color, engine="")
    first = daemon.send({"t": 0})
    assert first["variant"] == "xiangqi" and first["human"] == color and first["moves"] == []
    flipped = first["orientation"] == "flipped"
    play_plies(daemon, board, rng, human, 4 if human else 5, flipped=flipped)  # Black: the engine began
    assert board.turn == human and board.outcome() is None
    # The human moves; the engine answers, but its move is only on the LEDs when the power goes.
    make(daemon, board, human_move(board, rng), flipped=flipped)
    shown = daemon.engine_line(timeout=60)["pending"]
    assert shown is not None
    daemon.kill()
    completed = [m.uci() for m in board.move_stack]

    again = Daemon("play", games, *ARGS, "--color", color, engine="")
    line = again.send({"t": 0})
    assert line["variant"] == "xiangqi" and line["human"] == color
    assert line["moves"] == completed and line["fen"] == board.fen()
    assert line["matching"] is True and line["pending"] == shown, line
    engine_move(again, board, flipped=flipped, line=line)
    play_plies(again, board, rng, human, 2, flipped=flipped)
    assert again.close() == 0, again.stderr
    assert saved(games)["moves"] == [m.uci() for m in board.move_stack]


def test_red_beats_a_kill_9_against_the_engine(tmp_path: Path) -> None:
    _kill_and_resume(tmp_path, "red", 4)


def test_black_beats_a_kill_9_against_the_engine(tmp_path: Path) -> None:
    _kill_and_resume(tmp_path, "black", 9)


#: Red to move; after h0f0 Black (the engine) has no legal move and is not in check: in xiangqi that loses.
NO_MOVE_AFTER = "4k4/R8/9/9/9/9/9/9/9/3K3R1 w - - 0 1"
#: Red (the engine) to move mates with b0b9.
MATE_IN_ONE = "4k4/R8/9/9/9/9/9/9/9/1R1K5 w - - 0 1"


def test_the_engine_mates_and_the_result_is_recorded(tmp_path: Path) -> None:
    games = tmp_path / "games"
    board = XQ.board(MATE_IN_ONE)
    daemon = Daemon("play", games, "--variant", "xiangqi", "--level", "2400", "--movetime", "0.3",
                    "--color", "black", "--fen", MATE_IN_ONE, engine="")
    first = daemon.send({"t": 0})
    flipped = first["orientation"] == "flipped"
    move = engine_move(daemon, board, flipped=flipped)
    assert move.uci() == "b0b9"
    line = daemon.state
    assert line["result"] == "1-0", line
    assert daemon.close() == 0, daemon.stderr
    state = saved(games)
    assert state["result"] == "1-0" and state["moves"] == ["b0b9"]


def test_the_human_leaves_the_engine_without_a_move(tmp_path: Path) -> None:
    games = tmp_path / "games"
    board = XQ.board(NO_MOVE_AFTER)
    daemon = Daemon("play", games, *ARGS, "--color", "red", "--fen", NO_MOVE_AFTER, engine="")
    first = daemon.send({"t": 0})
    flipped = first["orientation"] == "flipped"
    line = make(daemon, board, board.parse_uci("h0f0"), flipped=flipped)  # the chariot to f0 takes the last point
    assert board.outcome() is not None
    assert line["result"] == "1-0", line
    assert daemon.close() == 0, daemon.stderr
    assert saved(games)["result"] == "1-0"


def test_first_move_capture_victim_first_under_auto_orientation(tmp_path: Path) -> None:
    """A first-move cannon capture, victim (b9) off first: not Red's horse on a turned board."""
    daemon = Daemon("play", tmp_path / "games", *ARGS, "--color", "red", engine="")
    daemon.send({"t": 0})
    for square, occupied in (("b9", False), ("b2", False), ("b9", True)):
        daemon.event(square, occupied, 0.2)
    line = daemon.tick(AFTER_MOVE)
    daemon.kill()
    assert line["moves"] == ["b2b9"] and line["orientation"] == "normal", line
