"""``boardctl games step`` as a real daemon subprocess on the sim board, through ``--stdio``.

A PGN with castling on both sides, en passant, a promotion and an under-promotion is stepped
forward and back, made on the board by the LEDs and watched; a saved game is stepped by id.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import chess
import chess.pgn
import pytest
from test_daemon_support import (
    AFTER_MOVE,
    AFTER_PROMOTION,
    Daemon,
    StateLines,
    move_events,
    touched_squares,
)

pytestmark = pytest.mark.slow

SPECIAL = """[Event "Special moves"]
[White "Test"]
[Black "Test"]
[Result "*"]

1. e4 d5 2. e5 f5 3. exf6 Nc6 4. fxg7 Be6 5. gxh8=Q Qd6 6. Nf3 Nb4 7. Be2 Qd7 8. O-O O-O-O
9. Qxg8 Nxc2 10. Qxh7 Nxa1 11. Nc3 d4 12. Nb5 d3 13. Nxa7+ Kb8 14. Nb5 dxe2 15. Qd3 exf1=R+ 16. Kxf1 *
"""

#: The Opera Game (Morphy v Duke of Brunswick and Count Isouard, Paris 1858), a famous game to watch.
OPERA = """[Event "Paris"]
[Site "Paris FRA"]
[Date "1858.??.??"]
[White "Paul Morphy"]
[Black "Duke Karl / Count Isouard"]
[Result "1-0"]

1. e4 e5 2. Nf3 d6 3. d4 Bg4 4. dxe5 Bxf3 5. Qxf3 dxe5 6. Bc4 Nf6 7. Qb3 Qe7 8. Nc3 c6 9. Bg5 b5
10. Nxb5 cxb5 11. Bxb5+ Nbd7 12. O-O-O Rd8 13. Rxd7 Rxd7 14. Rd1 Qe6 15. Bxd7+ Nxd7 16. Qb8+ Nxb8
17. Rd8# 1-0
"""


class Step(Daemon):
    """``boardctl games step GAME … --board sim --stdio``."""

    def __init__(self, tmp: Path, game: str, *extra: str, games_dir: Path | None = None) -> None:
        args = [sys.executable, "-m", "boardctl", "games", "step", game, "--board", "sim", "--stdio", "--no-web",
                *extra]
        if games_dir is not None:
            args += ["--games-dir", str(games_dir)]
        env = {**os.environ, "XDG_CONFIG_HOME": str(tmp / "config"), "XDG_DATA_HOME": str(tmp / "data")}
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, env=env)
        self.lines = StateLines(self.proc)
        self.unprompted: list[dict[str, Any]] = []
        self.sent = 0
        self.t = 0.0
        self.state: dict[str, Any] = {}


def lit(line: dict[str, Any], why: str) -> set[str]:
    return {led["square"] for led in line["leds"] if led["why"] == why}


def game_of(text: str) -> chess.pgn.Game:
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None
    return game


def test_step_on_the_board_forward_and_back_through_special_moves(tmp_path: Path) -> None:
    pgn = tmp_path / "special.pgn"
    pgn.write_text(SPECIAL)
    moves = list(game_of(SPECIAL).mainline_moves())
    daemon = Step(tmp_path, str(pgn))
    start = daemon.tick()
    assert start["step"]["plies"] == len(moves) == 31 and start["step"]["set_up"]
    assert start["step"]["sans"][4] == "exf6" and start["step"]["sans"][8] == "gxh8=Q"
    board = chess.Board()
    for ply, move in enumerate(moves):
        waiting = daemon.state
        assert not lit(waiting, "step-move")  # nothing lit before hint
        shown = daemon.button("hint")
        assert lit(shown, "step-move") == touched_squares(board, move), (ply, shown["leds"])
        assert shown["step"]["next"] == board.san(move)
        if ply == 13:  # a wrong move first: put back, the game's move lit
            wrong = next(m for m in board.legal_moves if m != move and not board.is_capture(m)
                         and not board.is_castling(m) and m.promotion is None)
            after = daemon.play(wrong, board)
            assert after["moves"] == [m.uci() for m in board.move_stack]
            assert lit(after, "takeback") == touched_squares(board, wrong)
            assert lit(after, "lesson-wrong") == touched_squares(board, move) | touched_squares(board, wrong)
            for square, occupied in reversed(move_events(board, wrong)):
                daemon.event(square, not occupied)
            assert lit(daemon.tick(), "lesson-wrong") == touched_squares(board, move)
        if move.promotion not in (None, chess.QUEEN):  # chosen on the board's buttons, as by hand
            daemon.button(f"promote-{chess.piece_name(move.promotion)}")
        line = daemon.play(move, board)
        board.push(move)
        assert line["moves"] == [m.uci() for m in board.move_stack], (ply, line)
        assert line["step"]["ply"] == ply + 1 and not lit(line, "step-move")
    assert daemon.button("hint")["message"].startswith("The end of the game")
    # Back: each takeback lights the squares to restore; restoring them by hand steps back.
    for _ in range(3):
        move = board.pop()
        back = daemon.button("takeback")
        assert back["moves"] == [m.uci() for m in board.move_stack]
        after = board.copy()
        after.push(move)
        changed = chess.SquareSet(board.occupied ^ after.occupied)  # what the switches can tell
        assert lit(back, "takeback") == {chess.square_name(sq) for sq in changed}
        for square, occupied in reversed(move_events(board, move)):
            daemon.event(square, not occupied)
        restored = daemon.tick(AFTER_PROMOTION if move.promotion else AFTER_MOVE)
        assert restored["matching"] and not lit(restored, "takeback"), restored
        assert restored["step"]["ply"] == len(board.move_stack)
    assert daemon.close() == 0, daemon.stderr


def test_watch_steps_without_moving_anything(tmp_path: Path) -> None:
    pgn = tmp_path / "opera.pgn"
    pgn.write_text(OPERA)
    moves = list(game_of(OPERA).mainline_moves())
    daemon = Step(tmp_path, str(pgn), "--watch")
    start = daemon.tick()
    assert start["step"]["watch"] and start["step"]["headers"]["White"] == "Paul Morphy"
    board = chess.Board()
    for move in moves:
        line = daemon.button("hint")
        assert lit(line, "step-move") == touched_squares(board, move)  # castling: the rook's squares too
        board.push(move)
        assert line["fen"] == board.fen() and line["moves"] == [m.uci() for m in board.move_stack]
        assert {led["why"] for led in line["leds"]} == {"step-move"}  # no mismatch though nothing moved
    assert board.is_checkmate() and "the end of the game (1-0)" in daemon.state["message"]
    for _ in range(5):
        board.pop()
        back = daemon.button("takeback")
        assert back["fen"] == board.fen()
    assert back["step"]["ply"] == len(moves) - 5
    assert daemon.close() == 0, daemon.stderr


def test_setup_lights_first_and_hint_waits_for_it(tmp_path: Path) -> None:
    pgn = tmp_path / "opera.pgn"
    pgn.write_text(OPERA)
    daemon = Step(tmp_path, str(pgn), "--sim-setup", "empty")
    line = daemon.tick()
    assert not line["step"]["set_up"] and len(lit(line, "setup")) == 32
    assert "first" in daemon.button("hint")["message"] and not lit(daemon.state, "step-move")
    board = chess.Board()
    for square in chess.SquareSet(board.occupied):
        daemon.event(chess.square_name(square), True)
    ready = daemon.tick()
    assert ready["step"]["set_up"] and not lit(ready, "setup")
    assert lit(daemon.button("hint"), "step-move") == {"e2", "e4"}
    assert daemon.close() == 0, daemon.stderr


def test_a_saved_game_by_id_and_bad_names(tmp_path: Path) -> None:
    games = tmp_path / "games"
    games.mkdir()
    from boardctl.storage import GameRecord, GameStore

    record = GameRecord(id=GameRecord.new_id(), mode="record", white="A", black="B",
                        fen=chess.STARTING_FEN, moves=["e2e4", "e7e5", "g1f3"])
    GameStore(games).save(record)
    daemon = Step(tmp_path, "last", "--watch", games_dir=games)
    daemon.tick()
    assert daemon.button("hint")["moves"] == ["e2e4"]
    assert daemon.state["step"]["plies"] == 3 and daemon.state["step"]["source"] == record.id
    assert daemon.close() == 0, daemon.stderr
    assert [p.name for p in games.iterdir() if p.suffix == ".json"] == [f"{record.id}.json"]  # nothing added
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data"), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    for name, message in (("nosuch", "no game matching 'nosuch'"), (str(tmp_path / "x.pgn"), "cannot read")):
        out = subprocess.run([sys.executable, "-m", "boardctl", "games", "step", name, "--games-dir", str(games),
                              "--board", "sim", "--stdio"], capture_output=True, text=True, env=env, timeout=60,
                             stdin=subprocess.DEVNULL)
        assert out.returncode == 2 and message in out.stderr and "Traceback" not in out.stderr, out.stderr


@pytest.mark.parametrize("text", ["1. e4 e5 2. Ke3 *", "not a game at all"], ids=["illegal", "garbage"])
def test_a_bad_pgn_is_one_clear_error(tmp_path: Path, text: str) -> None:
    pgn = tmp_path / "bad.pgn"
    pgn.write_text(text)
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data"), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    out = subprocess.run([sys.executable, "-m", "boardctl", "games", "step", str(pgn), "--board", "sim", "--stdio"],
                         capture_output=True, text=True, env=env, timeout=60, stdin=subprocess.DEVNULL)
    assert out.returncode == 2 and "bad.pgn" in out.stderr and "Traceback" not in out.stderr, out.stderr
    assert json.dumps(out.stdout) == '""'
