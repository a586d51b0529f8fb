"""``boardctl learn`` as a real daemon subprocess on the sim board, through ``--stdio``.

Whole lessons by the LEDs, as White and as Black, with right and wrong moves, a quiz, the
progress file, and the engine playing on after the line.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import chess
import pytest
from test_daemon_support import Daemon, move_events, touched_squares

from boardctl.variants.chess.lessons import load_lesson

pytestmark = pytest.mark.slow


class Learn(Daemon):
    """``boardctl learn LESSON … --board sim --stdio`` with its data folder under ``tmp``."""

    def __init__(self, tmp: Path, lesson: str, *extra: str) -> None:
        self.data = tmp / "data"
        super().__init__("learn", tmp / "games", lesson, "--movetime", "0.02", *extra,
                         env={"XDG_DATA_HOME": str(self.data)}, engine=None)

    def progress(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads((self.data / "boardctl" / "lessons.json").read_text())
        return data


def lit(line: dict[str, Any], why: str) -> set[str]:
    return {led["square"] for led in line["leds"] if led["why"] == why}


def wrong_move(board: chess.Board, lesson_key: str) -> chess.Move:
    """A quiet legal move that no line of the lesson plays here."""
    lesson = load_lesson(lesson_key)
    played = tuple(m.uci() for m in board.move_stack)
    lesson_moves = {line.ucis[len(played)] for line in lesson.lines
                    if line.ucis[: len(played)] == played and len(line.ucis) > len(played)}
    quiet = sorted((m for m in board.legal_moves if not board.is_capture(m) and not board.is_castling(m)
                    and m.uci() not in lesson_moves), key=lambda m: m.uci())
    return quiet[0]


def run_lesson(daemon: Learn, key: str, *, white: bool, wrong_at: set[int], quiz: bool = False) -> chess.Board:
    """Make each lit move; at the user's turns numbered in ``wrong_at`` first a wrong one."""
    board = chess.Board()
    state = daemon.tick()
    turn = 0
    while not state["lesson"]["ended"]:
        assert len(board.move_stack) < 200
        if state["pending"] is not None:
            move = chess.Move.from_uci(state["pending"])
            assert lit(state, "engine-move") == touched_squares(board, move)
            state = daemon.play(move, board)
            board.push(move)
            continue
        assert state["lesson"]["your_turn"] and board.turn == (chess.WHITE if white else chess.BLACK)
        if quiz:
            assert state["lesson"]["next"] is None and not lit(state, "lesson-move")
            right = state["lesson"]["line"]
            line = next(li for li in load_lesson(key).lines if li.name == right)
            uci = line.ucis[len(board.move_stack)]
        else:
            uci = state["lesson"]["next"]["uci"]
            assert lit(state, "lesson-move") == touched_squares(board, chess.Move.from_uci(uci))
            assert state["lesson"]["next_note"] or state["lesson"]["ply"] >= 0
        if turn in wrong_at:
            wrong = wrong_move(board, key)
            before = [m.uci() for m in board.move_stack]
            after = daemon.play(wrong, board)
            assert after["moves"] == before, after
            assert lit(after, "takeback") == touched_squares(board, wrong)
            assert lit(after, "lesson-wrong") == (touched_squares(board, chess.Move.from_uci(uci))
                                                  | touched_squares(board, wrong))
            assert after["lesson"]["wrong"]["move"] == wrong.uci()
            assert "not the lesson's move" in after["message"]
            for square, occupied in reversed(move_events(board, wrong)):
                daemon.event(square, not occupied)
            back = daemon.tick()
            assert back["matching"] and not lit(back, "takeback")
            assert lit(back, "lesson-wrong") == touched_squares(board, chess.Move.from_uci(uci))
        move = chess.Move.from_uci(uci)
        state = daemon.play(move, board)
        board.push(move)
        assert state["moves"] == [m.uci() for m in board.move_stack], state
        assert state["lesson"]["wrong"] is None
        turn += 1
    return board


def test_guided_lesson_as_white_with_a_wrong_move(tmp_path: Path) -> None:
    daemon = Learn(tmp_path, "italian", "--color", "white", "--seed", "4")
    board = run_lesson(daemon, "italian", white=True, wrong_at={2})
    state = daemon.state
    lesson = load_lesson("italian")
    line = lesson.lines[state["lesson"]["line_index"]]
    assert [m.uci() for m in board.move_stack] == list(line.ucis)
    assert state["lesson"]["score"]["mistakes"] == 1
    assert "ends here" in state["message"]
    assert state["lesson"]["note"]  # the last main-line move's explanation is shown
    assert daemon.close() == 0, daemon.stderr
    progress = daemon.progress()["lessons"]["italian"]
    assert progress["runs"] == 1 and progress["quiz_runs"] == 0
    assert progress["lines"] == {line.line_id: 1}


def test_guided_lesson_as_black_then_the_engine_plays_on(tmp_path: Path) -> None:
    daemon = Learn(tmp_path, "petrov", "--color", "black", "--seed", "1")
    board = run_lesson(daemon, "petrov", white=False, wrong_at={0, 3})
    assert daemon.state["lesson"]["score"]["mistakes"] == 2
    # The line is over: the engine plays on once it is its turn.
    if board.turn == chess.BLACK:
        move = next(m for m in sorted(board.legal_moves, key=lambda m: m.uci()) if not board.is_castling(m))
        daemon.play(move, board)
        board.push(move)
    line = daemon.engine_line(timeout=60)
    assert chess.Move.from_uci(line["pending"]) in board.legal_moves
    assert line["lesson"]["ended"] and line["lesson"]["beyond"]  # the game has gone past the line
    assert daemon.close() == 0, daemon.stderr
    assert daemon.progress()["lessons"]["petrov"]["runs"] == 1


def test_quiz_scores_and_saves_progress(tmp_path: Path) -> None:
    daemon = Learn(tmp_path, "spanish", "--color", "white", "--quiz", "--seed", "2", "--no-play-on")
    run_lesson(daemon, "spanish", white=True, wrong_at={1}, quiz=True)
    score = daemon.state["lesson"]["score"]
    assert score["first_try"] == score["moves"] - 1 and score["mistakes"] == 1
    assert f"{score['percent']} %" in daemon.state["message"]
    assert daemon.close() == 0, daemon.stderr
    progress = daemon.progress()["lessons"]["spanish"]
    assert progress["quiz_runs"] == 1 and progress["last_quiz"] == progress["best_quiz"] == score["percent"]


def test_learn_list_and_a_bad_lesson_name(tmp_path: Path) -> None:
    env = {"XDG_DATA_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-m", "boardctl", "learn", "--list"], capture_output=True, text=True,
                         env=env, timeout=60)
    assert out.returncode == 0 and "italian" in out.stdout and "not started" in out.stdout
    bad = subprocess.run([sys.executable, "-m", "boardctl", "learn", "sicilian", "--board", "sim", "--stdio"],
                         capture_output=True, text=True, env=env, timeout=60, stdin=subprocess.DEVNULL)
    assert bad.returncode == 2 and "no lesson called 'sicilian'" in bad.stderr and "Traceback" not in bad.stderr


def _first_moves(daemon: Learn, plies: int) -> dict[str, Any]:
    """Make the lesson's first ``plies`` plies as White (the lit move, then the engine's reply)."""
    board = chess.Board()
    state = daemon.tick()
    while len(board.move_stack) < plies:
        uci = state["pending"] if state["pending"] is not None else state["lesson"]["next"]["uci"]
        move = chess.Move.from_uci(uci)
        state = daemon.play(move, board)
        board.push(move)
    return state


def _spoken(folder: Path, kind: str, count: int, timeout: float = 60.0) -> list[Path]:
    """The WAV files of ``kind`` said so far, waiting until there are ``count`` of them."""
    import time

    deadline = time.monotonic() + timeout
    while True:
        found = sorted(folder.glob(f"*-{kind}.wav")) if folder.exists() else []
        if len(found) >= count or time.monotonic() > deadline:
            return found
        time.sleep(0.2)


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng not installed (make test)")
@pytest.mark.parametrize(("how", "lesson_said", "moves_said"), [
    ("config", True, False),  # speech.enabled and speech.events = ["lesson"] in the config file
    ("speak", True, True),  # --speak is --speech: every event speech.events names, the notes among them
    ("config-no-lesson", False, True),  # speech on, but the events leave the notes out
    ("off", False, False),
])
def test_lesson_notes_are_spoken_through_the_speech_settings(tmp_path: Path, how: str, lesson_said: bool,
                                                              moves_said: bool) -> None:
    config = tmp_path / "config" / "boardctl"
    config.mkdir(parents=True)
    events = {"config": '["lesson"]', "config-no-lesson": '["move"]'}.get(how)
    text = '[speech]\noutput = "files"\n'
    if events is not None:
        text += f"enabled = true\nevents = {events}\n"
    (config / "config.toml").write_text(text)
    extra = {"speak": ["--speak"]}.get(how, [])
    daemon = Learn(tmp_path, "italian", "--color", "white", "--seed", "4", *extra)
    state = _first_moves(daemon, 3)
    assert state["lesson"]["note"]
    folder = tmp_path / "data" / "boardctl" / "speech"
    notes = _spoken(folder, "lesson", 2, timeout=60 if lesson_said else 3)
    moves = _spoken(folder, "move", 1, timeout=30 if moves_said else 1)
    assert daemon.close() == 0, daemon.stderr
    assert bool(notes) is lesson_said and bool(moves) is moves_said, (notes, moves)
    for wav in notes:
        assert wav.stat().st_size > 1000  # espeak-ng's audio, not an empty file
