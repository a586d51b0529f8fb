"""What the session tells the page (issue 14): clocks that wait for the pieces, the engine's line
and book moves, and the notice of a resumed game. In-process with the real tracker, plus one
run of ``boardctl play --stdio`` with a real engine."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import chess
import pytest
from test_daemon_support import STOCKFISH, move_events

from boardctl.engine_client import Reply
from boardctl.events import Snapshot, SquareChanged
from boardctl.session import Session, Settings, resume_notice
from boardctl.storage import GameRecord

START = chess.BB_RANK_1 | chess.BB_RANK_2 | chess.BB_RANK_7 | chess.BB_RANK_8


def set_up(session: Session, t: float, target: int) -> float:
    """Lift and place pieces one by one until the switches show ``target``; returns the time."""
    occ = session.tracker.occupancy
    for square in chess.SquareSet(occ & ~target):
        t += 0.1
        session.feed(SquareChanged(t, square, False))
    for square in chess.SquareSet(target & ~occ):
        t += 0.1
        session.feed(SquareChanged(t, square, True))
    t += 0.5
    session.tick(t)
    return t


def play(session: Session, uci: str, t: float) -> float:
    for square, occupied in move_events(session.board, chess.Move.from_uci(uci)):
        t += 0.1
        session.feed(SquareChanged(t, chess.parse_square(square), occupied))
    t += 0.5
    session.tick(t)
    return t


@pytest.mark.parametrize(
    ("color", "fen", "occupancy"),
    [
        ("white", chess.STARTING_FEN, 0),  # an empty board: the human sets everything up
        ("black", chess.STARTING_FEN, 0),  # the engine is White: its time must not run either
        ("black", "4k3/8/8/8/8/8/8/R3K3 w - - 0 1", START),  # a FEN position on a full board
        ("white", "4k3/8/8/8/8/8/8/R3K3 b - - 0 1", START),
    ],
)
def test_clocks_start_when_the_pieces_match_not_before(color: str, fen: str, occupancy: int) -> None:
    session = Session(Settings(mode="play", color=color, time_control="5+3"), fen=fen, occupancy=occupancy)
    session.tick(0.0)
    session.tick(30.0)
    line = session.state_line()
    assert line["matching"] is False
    assert line["clock"] == {"white": 300, "black": 300, "running": None}
    assert session.engine_request() is None  # nor is the engine asked
    t = set_up(session, 30.0, chess.Board(fen).occupied)
    assert session.tracker.is_matching()
    turn = chess.Board(fen).turn
    clock = session.state_line()["clock"]
    assert clock["running"] == chess.COLOR_NAMES[turn]
    # The side to move has lost only the time since the board matched, not the set-up's 30 s.
    assert 300 - (t - 30.0) <= clock[chess.COLOR_NAMES[turn]] < 300


def test_a_new_game_on_a_board_that_is_not_set_up_waits_too() -> None:
    session = Session(Settings(mode="record", time_control="1+0"))
    session.tick(0.0)
    t = play(session, "e2e4", 0.0)
    assert session.state_line()["clock"]["running"] == "black"
    session.new_game(t, fen="4k3/8/8/8/8/8/8/R3K3 w - - 0 1")
    session.tick(t + 20)
    assert session.state_line()["clock"] == {"white": 60, "black": 60, "running": None}
    t = set_up(session, t + 20, chess.Board("4k3/8/8/8/8/8/8/R3K3 w - - 0 1").occupied)
    assert session.state_line()["clock"]["running"] == "white"
    session.tick(t + 5)
    assert session.state_line()["clock"]["white"] == pytest.approx(55, abs=0.6)


def test_a_resumed_game_is_announced_until_its_first_move() -> None:
    record = GameRecord(id="x", mode="play", white="Human", black="engine", human="white", level="beginner",
                        started="2026-03-04T10:00:00Z")
    record.moves = ["e2e4", "e7e5", "g1f3", "b8c6"]
    assert resume_notice(record) == (
        "Resuming your unfinished game of 2026-03-04, move 3, you play White. "
        "New game: the New game button on the page, or start with --new."
    )
    session = Session(Settings(mode="play", color="black"), record=record)
    assert session.state_line()["notice"] == resume_notice(record)
    t = play(session, "f1b5", 0.0)
    assert session.state_line()["moves"][-1] == "f1b5"
    assert session.state_line()["notice"] is None
    # A new game has no notice at all.
    assert Session(Settings(mode="play")).state_line()["notice"] is None
    assert t > 0


@pytest.mark.parametrize(
    ("human", "moves", "started", "expected"),
    [
        ("black", ["e2e4"], "2025-01-02T03:04:05Z", "of 2025-01-02, move 1, you play Black."),
        ("white", [], "2025-12-31T23:59:59Z", "of 2025-12-31, move 1, you play White."),
        (None, ["d2d4", "d7d5", "c2c4"], "2024-06-01T00:00:00Z", "of 2024-06-01, move 2, recording two players."),
    ],
)
def test_resume_notice_wording(human: str | None, moves: list[str], started: str, expected: str) -> None:
    record = GameRecord(id="x", mode="play" if human else "record", white="W", black="B", human=human, started=started)
    record.moves = moves
    assert resume_notice(record).startswith("Resuming your unfinished game " + expected)


def test_the_engines_line_and_book_moves_reach_the_state_line() -> None:
    session = Session(Settings(mode="play", color="white"))
    session.tick(0.0)
    t = play(session, "e2e4", 0.0)
    request = session.engine_request()
    assert request is not None
    board = request.board
    session.engine_replied(request, Reply(chess.Move.from_uci("e7e5"), None, (), book=True), t)
    line = session.state_line()
    assert (line["book"], line["pv"], line["eval"]) == (True, None, None)
    t = play(session, "e7e5", t)
    t = play(session, "g1f3", t)
    request = session.engine_request()
    assert request is not None
    pv = tuple(chess.Move.from_uci(u) for u in ("b8c6", "f1b5", "a7a6"))
    session.engine_replied(request, Reply(pv[0], -20, pv), t)
    line = session.state_line()
    assert line["book"] is False
    assert line["pv"] == "2...Nc6 3. Bb5 a6"
    assert line["eval"] == {"cp": 20}
    assert board.fen() != request.board.fen()
    session.new_game(t + 1)
    assert session.state_line()["pv"] is None


def test_a_snapshot_that_matches_starts_the_clock() -> None:
    session = Session(Settings(mode="record", time_control="3+2"), occupancy=0)
    session.tick(0.0)
    session.feed(Snapshot(10.0, START))
    session.tick(10.5)
    assert session.state_line()["clock"]["running"] == "white"


@pytest.mark.slow
@pytest.mark.skipif(STOCKFISH is None, reason="needs stockfish (make system)")
def test_stdio_play_from_an_empty_board_starts_the_clocks_only_when_set_up(tmp_path: Path) -> None:
    """``boardctl play --stdio --sim-setup empty``: 40 s of setting up cost the engine nothing."""
    lines = ['{"t": 0}', '{"t": 20}']
    t = 20.0
    for square in chess.SquareSet(START):
        t += 0.5
        lines.append(json.dumps({"t": t, "square": chess.square_name(square), "occupied": True}))
    lines.append(json.dumps({"t": t + 1}))
    result = subprocess.run(
        [sys.executable, "-m", "boardctl", "play", "--board", "sim", "--stdio", "--no-web", "--sim-setup", "empty",
         "--games-dir", str(tmp_path / "g"), "--engine", str(STOCKFISH), "--color", "black", "--movetime", "0.05",
         "--time-control", "5+3", "--new"],
        input="".join(line + "\n" for line in lines), capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stderr
    out = [json.loads(x) for x in result.stdout.splitlines()]
    waiting = [x for x in out if not x["matching"]]
    assert waiting and all(x["clock"]["running"] is None and x["clock"]["white"] == 300 for x in waiting)
    moved = [x for x in out if x["pending"]]
    assert moved, out[-1]
    # The engine (White) was asked only once the board matched: its clock lost no set-up time.
    assert moved[0]["clock"]["white"] == pytest.approx(303, abs=0.01)
    assert moved[0]["clock"]["running"] == "black"
