"""``boardctl replay``: generated event files come back as the exact PGN, under both policies."""

from __future__ import annotations

import io
import json
import random
import subprocess
import sys
from pathlib import Path

import chess
import chess.pgn
import pytest

from boardctl.events import Button, ButtonPressed, Event, format_event
from boardctl.gestures import Hand, events_for_game, random_game
from boardctl.tracker import Policy


def write_events(path: Path, events: list[Event]) -> None:
    path.write_text("".join(format_event(e) + "\n" for e in events), encoding="utf-8")


def boardctl(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "boardctl", *args], input=stdin, capture_output=True, text=True, timeout=120, check=False
    )


def read_games(text: str) -> list[chess.pgn.Game]:
    handle = io.StringIO(text)
    games = []
    while (game := chess.pgn.read_game(handle)) is not None:
        games.append(game)
    return games


@pytest.mark.slow
@pytest.mark.parametrize("policy", list(Policy))
def test_replay_reproduces_generated_games_exactly(tmp_path: Path, policy: Policy) -> None:
    rng = random.Random(2024 + len(policy.value))
    moves = random_game(rng, max_plies=90)
    path = tmp_path / "game.jsonl"
    write_events(path, events_for_game(moves, Hand(rng, policy=policy)))
    result = boardctl("replay", str(path), "--policy", policy.value)
    assert result.returncode == 0, result.stderr
    [game] = read_games(result.stdout)
    assert list(game.mainline_moves()) == moves
    assert result.stderr == ""


@pytest.mark.slow
def test_replay_from_a_fen_writes_the_fen_tag(tmp_path: Path) -> None:
    # A black pawn keeps the game alive after the knight promotion (K+N v K is a dead position: a draw).
    fen = "4k3/P7/8/8/8/8/7p/4K3 w - - 0 1"
    board = chess.Board(fen)
    moves = [chess.Move.from_uci("a7a8n"), chess.Move.from_uci("e8e7")]
    events = events_for_game(moves, Hand(random.Random(3), brushes=False, adjusts=False), board=board)
    path = tmp_path / "game.jsonl"
    write_events(path, events)
    result = boardctl("replay", str(path), "--fen", fen)
    assert result.returncode == 0, result.stderr
    [game] = read_games(result.stdout)
    assert game.headers["FEN"] == fen
    assert [m.uci() for m in game.mainline_moves()] == ["a7a8n", "e8e7"]


@pytest.mark.slow
def test_replay_prints_violations_with_code_and_ply_and_comments_them(tmp_path: Path) -> None:
    lines = [
        {"t": 1.0, "square": "d2", "occupied": False},
        {"t": 1.5, "square": "d2", "occupied": True},
        {"t": 2.0, "square": "e2", "occupied": False},
        {"t": 2.4, "square": "e4", "occupied": True},
        {"t": 3.0},
        {"t": 3.5, "square": "e4", "occupied": False},
        {"t": 3.9, "square": "e2", "occupied": True},
        {"t": 4.5, "square": "d2", "occupied": False},
        {"t": 4.9, "square": "d4", "occupied": True},
        {"t": 6.0},
    ]
    text = "".join(json.dumps(line) + "\n" for line in lines)
    result = boardctl("replay", "-", stdin=text)
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines() == ["warning: touch-move 1 e4 but d2 was touched first"]
    [game] = read_games(result.stdout)
    assert [m.uci() for m in game.mainline_moves()] == ["d2d4"]
    assert "touch-move" in game.next().comment  # type: ignore[union-attr]


@pytest.mark.slow
def test_casual_policy_allows_what_fide_flags(tmp_path: Path) -> None:
    text = "\n".join([
        '{"t": 1.0, "square": "d2", "occupied": false}',
        '{"t": 1.5, "square": "d2", "occupied": true}',
        '{"t": 2.0, "square": "e2", "occupied": false}',
        '{"t": 2.4, "square": "e4", "occupied": true}',
        '{"t": 3.0}',
    ])
    result = boardctl("replay", "-", "--policy", "casual", stdin=text)
    assert result.returncode == 0
    assert result.stderr == ""
    assert [m.uci() for m in read_games(result.stdout)[0].mainline_moves()] == ["e2e4"]


@pytest.mark.slow
def test_new_game_inside_one_file_appends_a_second_pgn(tmp_path: Path) -> None:
    rng = random.Random(5)
    hand = Hand(rng, brushes=False, adjusts=False)
    first = [chess.Move.from_uci(u) for u in ("e2e4", "e7e5")]
    events = events_for_game(first, hand)
    hand.t += 1.0
    events.append(ButtonPressed(hand.t, Button.NEW_GAME))
    hand.t += 0.5
    # Put the two pawns back; the tracker waits for the start position, then the second game.
    events += events_for_game([chess.Move.from_uci("e4e2")], hand, board=chess.Board("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"))
    events += events_for_game([chess.Move.from_uci("e5e7")], hand, board=chess.Board("rnbqkbnr/pppp1ppp/8/4p3/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 2"))
    second = [chess.Move.from_uci(u) for u in ("d2d4", "d7d5")]
    events += events_for_game(second, hand)
    path = tmp_path / "two.jsonl"
    write_events(path, events)
    result = boardctl("replay", str(path))
    assert result.returncode == 0, result.stderr
    games = read_games(result.stdout)
    assert [list(g.mainline_moves()) for g in games] == [first, second]
    assert "warning: new-game 3 " in result.stderr


@pytest.mark.slow
def test_malformed_line_is_an_error_naming_the_line_and_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"t": 1.0, "square": "e2", "occupied": false}\n{"t": 2.0, "square": "e9", "occupied": true}\n')
    result = boardctl("replay", str(path))
    assert result.returncode == 2
    assert result.stdout == ""
    assert f"{path}:2" in result.stderr
    assert "'e9'" in result.stderr


@pytest.mark.slow
def test_time_going_backwards_is_an_error(tmp_path: Path) -> None:
    result = boardctl("replay", "-", stdin='{"t": 2.0}\n{"t": 1.0}\n')
    assert result.returncode == 2
    assert "<stdin>:2" in result.stderr
    assert result.stdout == ""


@pytest.mark.slow
def test_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    result = boardctl("replay", str(tmp_path / "nope.jsonl"))
    assert result.returncode == 2
    assert "nope.jsonl" in result.stderr


@pytest.mark.slow
@pytest.mark.parametrize(("line", "message"), [
    ('{"t": 1.0, "engine": "e9e5", "score": 3}', "'engine' must be a move"),
    ('{"t": 1.0, "engine": "e7e5", "score": "x"}', "'score' must be an integer"),
    ('{"t": 1.0, "score": 3}', "'score' without 'engine'"),
    ('{"t": 1.0, "header": 3}', "'header' must be an object"),
    ('{"t": 1.0, "header": {"version": 99}}', "header version 99"),
    ('{"t": 1.0, "header": {"version": 1, "settings": {"nope": 1}, "record": {}, "occupancy": "0"}}', "settings"),
    ('{"t": 1.0, "header": {"version": 1, "settings": {"variant": "xiangqi", "xiangqi_rules": "wxf"}, "record": {}, '
     '"occupancy": "0"}}', "xiangqi rules are chinese or asian"),
    ('{"t": 1.0, "header": {"version": 1, "settings": {"variant": "xiangqi", "xiangqi_move_limit": 99}, "record": {}, '
     '"occupancy": "0"}}', "move limit is 1 to 60"),
])
def test_bad_game_log_lines_are_errors_naming_the_line(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    result = boardctl("replay", str(path))
    assert result.returncode == 2 and result.stdout == ""
    assert f"{path}:1" in result.stderr and message in result.stderr


def test_game_log_lines_round_trip() -> None:
    from boardctl.events import EngineReplied, GameHeader, format_event, parse_event

    for event in (EngineReplied(2.5, chess.Move.from_uci("e7e5"), -35), EngineReplied(3.0, chess.Move.from_uci("a7a8q"), None),
                  GameHeader(0.0, {"version": 1, "settings": {}, "record": {}, "occupancy": "0"})):
        parsed = parse_event(format_event(event))
        assert format_event(parsed) == format_event(event)
        if isinstance(event, EngineReplied):  # read back as text, made the board's own move by the session
            assert isinstance(parsed, EngineReplied) and parsed.move.uci() == event.move.uci() and parsed.score == event.score
        else:
            assert parsed == event
