"""Whole games against a real engine subprocess on the sim board, through ``--stdio``."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path

import chess
import chess.pgn
import pytest
from test_daemon_support import Daemon, needs_engine, physical, touched_squares

pytestmark = pytest.mark.slow


def human_move(board: chess.Board, rng: random.Random) -> chess.Move:
    """A legal move, preferring captures and checks so that games go somewhere; queen promotions only."""
    moves = [m for m in board.legal_moves if m.promotion in (None, chess.QUEEN)]
    sharp = [m for m in moves if board.is_capture(m) or board.gives_check(m)]
    return rng.choice(sharp if sharp and rng.random() < 0.5 else moves)


def carry_out_engine_move(daemon: Daemon, board: chess.Board, *, flipped: bool = False) -> chess.Move:
    """Read the engine's move from the LEDs, check them, and make it by hand."""
    line = daemon.engine_line()
    assert line["pending"] is not None
    move = chess.Move.from_uci(line["pending"])
    lit = {led["square"] for led in line["leds"] if led["why"] == "engine-move"}
    assert lit == touched_squares(board, move, flipped=flipped), (line["leds"], move)
    after = daemon.play(move, board, flipped=flipped)
    board.push(move)
    assert after["pending"] is None
    assert after["moves"] == [m.uci() for m in board.move_stack]
    return move


def play_moves(daemon: Daemon, board: chess.Board, rng: random.Random, human: chess.Color, plies: int,
               *, flipped: bool = False) -> None:
    for _ in range(plies):
        if board.is_game_over():
            return
        if board.turn == human:
            move = human_move(board, rng)
            line = daemon.play(move, board, flipped=flipped)
            board.push(move)
            assert line["moves"] == [m.uci() for m in board.move_stack], line
        else:
            carry_out_engine_move(daemon, board, flipped=flipped)


def saved(games_dir: Path) -> tuple[dict, chess.pgn.Game]:
    (state_file,) = [p for p in games_dir.glob("*.json")]
    state = json.loads(state_file.read_text())
    game = chess.pgn.read_game(io.StringIO(state_file.with_suffix(".pgn").read_text()))
    assert game is not None
    return state, game


def test_game_against_the_engine_by_its_leds(tmp_path: Path) -> None:
    """The default configuration: our own engine (boardctl-engine), as a UCI subprocess."""
    games = tmp_path / "games"
    daemon = Daemon("play", games, "--color", "white", "--level", "practice1", "--time-control", "5+2", engine="")
    rng = random.Random(5)
    board = chess.Board()
    first = daemon.send({"t": 0})
    assert first["human"] == "white" and first["moves"] == [] and first["result"] == "*"
    play_moves(daemon, board, rng, chess.WHITE, 400)
    state = daemon.state
    assert state["result"] == (board.result() if board.is_game_over() else "*")
    assert daemon.close() == 0, daemon.stderr
    saved_state, game = saved(games)
    assert saved_state["moves"] == [m.uci() for m in board.move_stack]
    assert [m.uci() for m in game.mainline_moves()] == saved_state["moves"]
    h = game.headers
    assert h["White"] == "Human" and h["Black"].startswith("boardctl-engine") and "practice1" in h["Black"]
    assert h["TimeControl"] == "300+2" and h["Result"] == saved_state["result"]
    assert all(node.clock() is not None for node in game.mainline())
    assert "ECO" in h and "Opening" in h


@needs_engine
def test_flipped_board_human_black(tmp_path: Path) -> None:
    games = tmp_path / "games"
    daemon = Daemon("play", games, "--color", "black", "--orientation", "flipped", "--level", "practice1")
    rng = random.Random(11)
    board = chess.Board()
    daemon.send({"t": 0})  # the engine (White) moves first, shown on the turned-round board
    play_moves(daemon, board, rng, chess.BLACK, 8, flipped=True)
    assert daemon.state["orientation"] == "flipped"
    # A lift on the physical square of a logical e-pawn lights nothing wrong: squares really are turned.
    assert physical(chess.E2, True) == "d7"
    assert daemon.close() == 0, daemon.stderr
    saved_state, game = saved(games)
    assert saved_state["orientation"] == "flipped" and saved_state["human"] == "black"
    assert [m.uci() for m in game.mainline_moves()] == [m.uci() for m in board.move_stack]
    assert game.headers["Black"] == "Human"


@needs_engine
def test_kill_9_loses_no_completed_move_and_resume_needs_a_matching_board(tmp_path: Path) -> None:
    games = tmp_path / "games"
    rng = random.Random(3)
    board = chess.Board()
    daemon = Daemon("play", games, "--level", "practice1")
    daemon.send({"t": 0})
    play_moves(daemon, board, rng, chess.WHITE, 6)
    # The human moves; the engine answers, but its move is still only on the LEDs when power goes.
    move = human_move(board, rng)
    daemon.play(move, board)
    board.push(move)
    shown = daemon.engine_line()["pending"]
    daemon.kill()
    completed = [m.uci() for m in board.move_stack]

    # Restart with the pieces as they were: the game goes on where it stood, the same reply lit.
    again = Daemon("play", games, "--level", "practice1")
    line = again.send({"t": 0})
    assert line["moves"] == completed
    assert line["matching"] is True and line["pending"] == shown
    move = chess.Move.from_uci(shown)
    assert {led["square"] for led in line["leds"] if led["why"] == "engine-move"} == touched_squares(board, move)
    line = again.play(move, board)
    board.push(move)
    assert line["moves"] == [m.uci() for m in board.move_stack]
    play_moves(again, board, rng, chess.WHITE, 2)
    again.kill()
    completed = [m.uci() for m in board.move_stack]

    # Restart onto a board set up from scratch: it does not match; LEDs say what to fix.
    third = Daemon("play", games, "--level", "practice1", "--sim-setup", "start")
    line = third.send({"t": 0})
    assert line["moves"] == completed and line["matching"] is False
    line = third.tick(2.0)
    wrong = {led["square"] for led in line["leds"] if led["why"] == "mismatch"}
    start = chess.Board().occupied
    assert wrong == {chess.square_name(s) for s in chess.SquareSet(start ^ board.occupied)}
    for square in chess.SquareSet(start & ~board.occupied):
        third.event(chess.square_name(square), False)
    for square in chess.SquareSet(board.occupied & ~start):
        third.event(chess.square_name(square), True)
    line = third.tick(1.0)
    assert line["matching"] is True and not any(led["why"] == "mismatch" for led in line["leds"])
    if board.turn == chess.BLACK:
        carry_out_engine_move(third, board)
    assert third.close() == 0, third.stderr
    saved_state, _ = saved(games)
    assert saved_state["moves"] == [m.uci() for m in board.move_stack]


def undo_events(board: chess.Board, move: chess.Move) -> list[tuple[str, bool]]:
    """The hand's changes that take ``move`` (the last one in ``board``) back off the board."""
    board = board.copy()
    board.pop()
    name = chess.square_name
    events = [(name(move.to_square), False), (name(move.from_square), True)]
    if board.is_castling(move):
        rank = chess.square_rank(move.from_square)
        kingside = chess.square_file(move.to_square) > chess.square_file(move.from_square)
        events += [(name(chess.square(5 if kingside else 3, rank)), False), (name(chess.square(7 if kingside else 0, rank)), True)]
    elif board.is_en_passant(move):
        events.append((name(chess.square(chess.square_file(move.to_square), chess.square_rank(move.from_square))), True))
    elif board.is_capture(move):
        events.append((name(move.to_square), True))
    return events


@needs_engine
def test_takeback_against_the_engine_removes_both_moves(tmp_path: Path) -> None:
    games = tmp_path / "games"
    daemon = Daemon("play", games, "--level", "practice1")
    board = chess.Board()
    rng = random.Random(8)
    daemon.send({"t": 0})
    play_moves(daemon, board, rng, chess.WHITE, 6)
    assert board.turn == chess.WHITE and len(board.move_stack) == 6
    line = daemon.button("takeback")
    assert line["moves"] == [m.uci() for m in board.move_stack[:4]]
    restore = {led["square"] for led in line["leds"] if led["why"] == "takeback"}
    target = board.copy()
    target.pop()
    target.pop()
    assert restore == {chess.square_name(s) for s in chess.SquareSet(board.occupied ^ target.occupied)}
    for _ in range(2):  # the engine's reply first, then the human's move
        events = undo_events(board, board.peek())
        for square, occupied in events:
            daemon.event(square, occupied)
        board.pop()
    line = daemon.tick(1.0)
    assert line["matching"] is True and line["moves"] == [m.uci() for m in board.move_stack]
    assert not any(led["why"] == "takeback" for led in line["leds"])
    # A hint: the engine's suggestion for the human, lit until the next move.
    daemon.button("hint")
    hint = daemon.reason_line("hint")
    suggested = chess.Move.from_uci(hint["hint"])
    assert suggested in board.legal_moves
    assert {led["square"] for led in hint["leds"] if led["why"] == "hint"} == touched_squares(board, suggested)
    # The human moves again, and the engine answers.
    play_moves(daemon, board, rng, chess.WHITE, 2)
    assert daemon.close() == 0
    saved_state, _ = saved(games)
    assert saved_state["moves"] == [m.uci() for m in board.move_stack]
