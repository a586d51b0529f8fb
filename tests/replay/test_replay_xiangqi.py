"""Replay of xiangqi logs: the session's own log read back gives the same game and ruling."""

from __future__ import annotations

import io
import json
import random

import pytest

from boardctl.events import Event, SquareChanged, format_event
from boardctl.gestures import Hand, events_for_game, random_game
from boardctl.replay import read_events, replay
from boardctl.session import Effects, Session, Settings
from boardctl.storage import EventLog
from boardctl.variants import get_variant

XQ = get_variant("xiangqi")


def _log_text(log: list[Event]) -> str:
    return "".join(format_event(event, XQ.geometry) + "\n" for event in log)


def _logged(answers: list[Effects]) -> list[Event]:
    """The game log the session's answers wrote, in order."""
    return [event for answer in answers for _, event in answer.log]


def _record_session(seed: int, *, policy: str = "strict") -> tuple[Session, list[Event]]:
    rng = random.Random(seed)
    moves = random_game(rng, max_plies=rng.randint(4, 60), variant=XQ)
    session = Session(Settings(mode="record", orientation="normal", variant="xiangqi", policy=policy))
    answers = []
    for event in events_for_game(moves, Hand(rng), variant=XQ):
        answers += [session.tick(event.t), session.feed(event)]
    answers.append(session.tick(session.t + 60.0))
    assert session.record.moves == [m.uci() for m in moves]
    return session, _logged(answers)


@pytest.mark.parametrize("seed", range(6))
def test_a_recorded_xiangqi_game_replays_exactly(seed: int) -> None:
    session, log = _record_session(seed, policy="casual" if seed % 2 else "strict")
    text = _log_text(log)
    names = [json.loads(line)["square"] for line in text.splitlines() if '"square"' in line]
    assert names and all(XQ.geometry.is_name(name) for name in names)  # xiangqi point names in the log
    games, warnings = replay(read_events(io.StringIO(text), name="log"))
    assert not [w for w in warnings if w.code == "illegal-move"]
    assert games[-1].record.moves == session.record.moves
    assert games[-1].board.fen() == session.board.fen()
    assert games[-1].record.variant == "xiangqi"
    pgn = str(games[-1].to_pgn())
    assert pgn.startswith('[Game "Chinese Chess"]') and '[Format "ICCS"]' in pgn


def test_a_headerless_xiangqi_log_needs_the_variant() -> None:
    lines = ['{"t": 1.0, "square": "h2", "occupied": false}\n', '{"t": 1.3, "square": "e2", "occupied": true}\n']
    games, _ = replay(read_events(lines, name="x", variant=XQ), variant=XQ)
    assert games[-1].record.moves == ["h2e2"]
    with pytest.raises(ValueError, match=r"square"):
        read_events(['{"t": 1.0, "square": "a0", "occupied": false}\n'], name="x")  # no a0 on a chess board
    # A last line without its newline is a whole line if it is whole JSON, whatever the board.
    games, _ = replay(read_events(['{"t": 1.0, "square": "h0", "occupied": false}\n', '{"t": 1.3, "square": "g2", "occupied": true}'],
                                  name="x", variant=XQ), variant=XQ)
    assert games[-1].record.moves == ["h0g2"]


def test_perpetual_check_is_ruled_on_replay_too() -> None:
    fen = "R8/rR7/4k4/1r7/9/9/9/9/3K2c2/9 w - - 0 1"
    moves = ["b8b7", "e7e8", "b7b8", "e8e7", "b8b7", "e7e8", "b7b8", "e8e7"]
    session = Session(Settings(mode="record", orientation="normal", variant="xiangqi"), fen=fen)
    t = 1.0
    answers = [session.tick(t)]
    for uci in moves:
        move = session.board.parse_uci(uci)
        for square, occupied in ((move.from_square, False), (move.to_square, True)):
            t += 0.3
            answers.append(session.feed(SquareChanged(t, square, occupied)))
        t += 1.0
        answers.append(session.tick(t))
    assert (session.record.result, session.record.termination) == ("0-1", "perpetual check (长将判负)")
    games, _ = replay(read_events(io.StringIO(_log_text(_logged(answers))), name="log"))
    assert (games[-1].record.result, games[-1].record.termination) == ("0-1", "perpetual check (长将判负)")
    assert '[Result "0-1"]' in str(games[-1].to_pgn())


def test_the_event_log_writes_xiangqi_names_after_its_header(tmp_path: object) -> None:
    from pathlib import Path

    session, logged = _record_session(3)
    path = Path(str(tmp_path)) / "g.jsonl"
    log = EventLog(path)
    log.extend(logged)
    log.close()
    games, _ = replay(read_events(path.read_text(encoding="utf-8").splitlines(keepends=True), name=str(path)))
    assert games[-1].record.moves == session.record.moves
    reopened = EventLog(path)  # resuming: the game is known from the header already in the file
    assert reopened.geometry is XQ.geometry
    reopened.close()
