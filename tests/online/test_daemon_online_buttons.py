"""Draw, takeback, resign and abort in ``boardctl online`` (a daemon subprocess, the stand-in).

Every saved game must replay to its PGN (tests/conftest.py): the server's verdicts and takebacks
are result and takeback lines in the game log (docs/events.md, "Game logs").
"""

from __future__ import annotations

from pathlib import Path

import chess
import pytest

from tests.online.driver import Online, made, remote_shown, saved_game
from tests.online.standin import StandIn

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("who", ["me", "opponent"])
def test_draw_offered_and_accepted(tmp_path: Path, standin: StandIn, who: str) -> None:
    standin.script = ["e7e5"]
    standin.accept_draw = who == "me"
    daemon = Online(tmp_path, standin, "--seek", "3+2")
    board = chess.Board()
    try:
        daemon.send({})
        daemon.exchange(board, "e2e4", "e7e5")
        if who == "opponent":
            standin.call(lambda: standin.opponent_offers("draw"))
            offer = daemon.wait_for(lambda line: "offers a draw" in str(line.get("warning")))
            assert offer["result"] == "*"
        daemon.button("draw")
        end = daemon.wait_for(lambda line: line["result"] == "1/2-1/2")
        assert end["termination"].startswith("draw agreed")
    finally:
        assert daemon.close() == 0, daemon.stderr
    assert next(iter(standin.games.values())).status == "draw"
    assert saved_game(daemon.games)["result"] == "1/2-1/2"


def test_takebacks_both_ways(tmp_path: Path, standin: StandIn) -> None:
    standin.script = ["e7e5", "c7c5", "d7d5"]
    standin.accept_takeback = True
    daemon = Online(tmp_path, standin, "--seek", "3+2")
    board = chess.Board()
    try:
        daemon.send({})
        daemon.exchange(board, "e2e4", "e7e5")
        # I ask, on my turn: my move and the reply go (two plies), put back by hand
        daemon.button("takeback")
        back = daemon.wait_for(lambda line: line["moves"] == [])
        assert {led["square"] for led in back["leds"] if led["why"] == "takeback"} >= {"e2", "e4", "e5", "e7"}
        daemon.shift("e5", "e7")  # pieces back where they were
        daemon.shift("e4", "e2")
        board = chess.Board()
        daemon.wait_for(lambda line: line["matching"] and line["moves"] == [])
        daemon.exchange(board, "e2e4", "c7c5")
        # the opponent asks after its move: its move goes (one ply), and it plays another
        standin.call(lambda: standin.opponent_offers("takeback"))
        daemon.wait_for(lambda line: "asks to take back" in str(line.get("warning")))
        daemon.button("takeback")
        daemon.wait_for(lambda line: line["moves"] == ["e2e4"])
        daemon.shift("c5", "c7")
        board.pop()
        daemon.wait_for(remote_shown("d7d5"))
        daemon.hand(board, "d7d5")
        daemon.wait_for(made(2))
    finally:
        assert daemon.close() == 0, daemon.stderr
    game = next(iter(standin.games.values()))
    assert game.moves == ["e2e4", "d7d5"] == saved_game(daemon.games)["moves"]


@pytest.mark.parametrize(("moves", "status", "result"), [(0, "aborted", "*"), (2, "resign", "0-1")])
def test_resign_or_abort(tmp_path: Path, standin: StandIn, moves: int, status: str, result: str) -> None:
    standin.script = ["e7e5"]
    daemon = Online(tmp_path, standin, "--seek", "3+2")
    board = chess.Board()
    try:
        daemon.send({})
        if moves:
            daemon.exchange(board, "e2e4", "e7e5")
        daemon.button("resign")
        game = next(iter(standin.games.values()))
        end = daemon.wait_for(lambda line: line["termination"] == "abandoned" if status == "aborted"
                              else line["result"] == result)
        assert end["result"] == result
    finally:
        assert daemon.close() == 0, daemon.stderr
    assert game.status == status
    record = saved_game(daemon.games)
    assert record["result"] == result
    if status == "aborted":
        assert record["termination"] == "abandoned"  # never resumed by boardctl play
    else:
        assert str(record["termination"]).lower() == "white resigned"
