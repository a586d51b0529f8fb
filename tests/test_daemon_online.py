"""``boardctl online`` as a subprocess (``--board sim --stdio``, real time) against the stand-in.

Moves are made by hand on the sim board; the opponent's moves come from the stand-in's script,
are lit on the board and made by hand too.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import chess
import pytest

from boardctl.online.standin import StandIn
from tests.online.driver import TOKEN, Online, made, remote_shown


@pytest.fixture
def standin() -> Iterator[StandIn]:
    server = StandIn(token=TOKEN, reply_delay=0.1, accept_delay=0.2, keepalive=1.0)
    server.start_in_thread()
    yield server
    server.stop_thread()


def saved_game(games: Path) -> dict[str, object]:
    records = [json.loads(p.read_text()) for p in sorted(games.glob("*.json"))]
    assert len(records) == 1, records
    return records[0]


def leds_at(line: dict[str, object], code: str) -> set[str]:
    return {led["square"] for led in line["leds"] if led["why"] == code}  # type: ignore[index, union-attr]


def test_a_whole_game_seek_play_and_mate(tmp_path: Path, standin: StandIn) -> None:
    standin.script = ["e7e5", "b8c6", "g8f6"]
    daemon = Online(tmp_path, standin, "--seek", "5+3")
    board = chess.Board()
    try:
        first = daemon.send({})
        assert first["human"] == "white" and first["moves"] == []
        for mine, theirs in (("e2e4", "e7e5"), ("f1c4", "b8c6"), ("d1h5", "g8f6")):
            daemon.hand(board, mine)
            shown = daemon.wait_for(remote_shown(theirs))
            # the opponent's move is lit, its two squares, until made by hand
            assert leds_at(shown, "engine-move") == {theirs[:2], theirs[2:]}
            assert shown["clock"] is not None
            daemon.hand(board, theirs)
            daemon.wait_for(made(len(board.move_stack)))
        daemon.hand(board, "h5f7")
        end = daemon.wait_for(lambda line: line["result"] == "1-0")
        assert end["moves"][-1] == "h5f7"
    finally:
        assert daemon.close() == 0, daemon.stderr
    game = next(iter(standin.games.values()))
    assert game.moves == [m.uci() for m in board.move_stack]
    assert game.status == "mate" and game.winner == "white"
    record = saved_game(daemon.games)
    assert record["moves"] == game.moves and record["result"] == "1-0"
    assert record["white"].startswith("BoardUser") and record["black"].startswith("Scripted")  # type: ignore[attr-defined]
    # each move was posted once: nothing sent twice
    posts = [path for method, path, status in standin.requests if "/move/" in path]
    assert len(posts) == 4 and all(status == 200 for _, p, status in standin.requests if "/move/" in p)
    assert TOKEN not in daemon.stderr
    assert all(TOKEN not in json.dumps(line) for line in daemon.seen)
