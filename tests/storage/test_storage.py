from __future__ import annotations

import io
import json
import os
import random
from pathlib import Path

import chess
import chess.pgn
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardctl.errors import GameFileError
from boardctl.events import SquareChanged, Tick, parse_event
from boardctl.storage import EventLog, GameRecord, GameStore, Violation, write_atomically


def record(**kw: object) -> GameRecord:
    fields: dict[str, object] = {"id": "20260101-120000-abcd", "mode": "record", "white": "Ann", "black": "Bob"}
    fields.update(kw)
    return GameRecord(**fields)  # type: ignore[arg-type]


def parse(text: str) -> chess.pgn.Game:
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None
    return game


def test_pgn_has_seven_tag_roster_time_control_opening_and_clocks() -> None:
    rec = record(
        moves=["e2e4", "c7c5", "g1f3"],
        clocks=[905.0, 899.5, 901.25],
        time_control="15+10",
        started="2026-03-04T10:00:00Z",
    )
    game = parse(rec.pgn_text())
    h = game.headers
    assert list(h)[:7] == ["Event", "Site", "Date", "Round", "White", "Black", "Result"]
    assert (h["Date"], h["White"], h["Black"], h["Result"]) == ("2026.03.04", "Ann", "Bob", "*")
    assert h["TimeControl"] == "900+10"
    assert (h["ECO"], h["Opening"]) == ("B27", "Sicilian Defense")
    assert "FEN" not in h and "SetUp" not in h
    assert [node.clock() for node in game.mainline()] == [905.0, 899.5, 901.25]
    assert [m.uci() for m in game.mainline_moves()] == rec.moves


def test_pgn_from_a_position_has_fen_and_violations_as_comments() -> None:
    fen = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"
    rec = record(
        fen=fen,
        moves=["e2e4", "e8d7"],
        violations=[Violation(0, "touch-move", "white", "touched e1, moved e2"), Violation(2, "illegal-move", "black", "d7d5")],
        result="1/2-1/2",
        termination="draw agreed",
    )
    game = parse(rec.pgn_text())
    assert game.headers["FEN"] == fen and game.headers["SetUp"] == "1"
    assert game.headers["TimeControl"] == "-"
    assert game.headers["Result"] == "1/2-1/2"
    assert "touch-move" in game.comment
    last = game.end()
    assert "illegal-move: d7d5" in last.comment and "draw agreed" in last.comment
    assert game.end().board().fen().split()[0] == "8/3k4/8/8/4P3/8/8/4K3"


def test_state_json_round_trip_and_bad_files(tmp_path: Path) -> None:
    store = GameStore(tmp_path / "games")
    rec = record(moves=["e2e4"], clocks=[None], violations=[Violation(1, "mismatch", "black", "x")])
    store.save(rec)
    assert store.load(rec.id) == rec
    assert (tmp_path / "games" / f"{rec.id}.pgn").read_text().startswith('[Event "Over-the-board game"]')
    (tmp_path / "games" / "bad.json").write_text('{"version": 1, "id": "bad", "moves": ["e2e5"]}')
    with pytest.raises(GameFileError, match=r"bad\.json"):
        store.load("bad")
    data = json.loads((tmp_path / "games" / f"{rec.id}.json").read_text())
    data["moves"] = ["e2e4", "e2e4"]
    (tmp_path / "games" / "illegal.json").write_text(json.dumps(data))
    with pytest.raises(GameFileError, match="not a valid game state file"):
        store.load("illegal")
    with pytest.raises(GameFileError, match="no game 'nope'"):
        store.load("nope")


def test_unfinished_picks_the_newest_unfinished_game_of_the_mode(tmp_path: Path) -> None:
    store = GameStore(tmp_path)
    store.save(record(id="20260101-000000-0001", mode="play", moves=["e2e4"]))
    store.save(record(id="20260101-000000-0002", mode="record", moves=["d2d4"]))
    store.save(record(id="20260101-000000-0003", mode="play", result="1-0"))
    store.save(record(id="20260101-000000-0004", mode="play", termination="abandoned"))
    found = store.unfinished("play")
    assert found is not None and found.id == "20260101-000000-0001"
    found = store.unfinished("record")
    assert found is not None and found.id == "20260101-000000-0002"
    assert GameStore(tmp_path / "none").unfinished("play") is None


def test_atomic_write_leaves_no_temporary_files(tmp_path: Path) -> None:
    target = tmp_path / "x.pgn"
    write_atomically(target, "one")
    write_atomically(target, "two")
    assert target.read_text() == "two"
    assert os.listdir(tmp_path) == ["x.pgn"]


def test_atomic_write_keeps_old_file_when_writing_fails(tmp_path: Path) -> None:
    target = tmp_path / "x.pgn"
    write_atomically(target, "old")
    with pytest.raises(UnicodeEncodeError):
        write_atomically(target, "bad \udc80 surrogate")
    assert target.read_text() == "old"
    assert os.listdir(tmp_path) == ["x.pgn"]


def test_event_log_times_never_decrease_across_restarts(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    log = EventLog(path)
    log.append(SquareChanged(10.0, chess.E2, False))
    log.append(Tick(12.0))
    log.close()
    log = EventLog(path)  # a restart: the new process's clock starts low again
    log.append(SquareChanged(1.0, chess.E4, True))
    log.append(Tick(1.5))
    log.close()
    events = [parse_event(line) for line in path.read_text().splitlines()]
    times = [e.t for e in events]
    assert times == sorted(times) and times == [10.0, 12.0, 12.0, 12.5]
    assert events[2] == SquareChanged(12.0, chess.E4, True)


@given(st.integers(0, 2**32 - 1), st.integers(0, 40))
@settings(max_examples=25, deadline=None)
def test_state_file_round_trips_any_game(seed: int, plies: int) -> None:
    rng = random.Random(seed)
    board = chess.Board()
    for _ in range(plies):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(rng.choice(moves))
    rec = record(moves=[m.uci() for m in board.move_stack], clocks=[rng.uniform(0, 900) for _ in board.move_stack])
    again = GameRecord.from_json(json.loads(json.dumps(rec.to_json())), where="x")
    assert again == rec and again.board() == board
    game = parse(rec.pgn_text())
    assert list(game.mainline_moves()) == board.move_stack
