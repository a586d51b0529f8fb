"""``boardctl online`` as a subprocess (``--board sim --stdio``, real time) against the stand-in.

Moves are made by hand on the sim board; the opponent's moves come from the stand-in's script,
are lit on the board and made by hand too.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import chess
import pytest

from tests.online.driver import TOKEN, Online, made, remote_shown, saved_game
from tests.online.standin import StandIn

pytestmark = pytest.mark.slow


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
            assert leds_at(shown, "remote-move") == {theirs[:2], theirs[2:]}
            # the clocks are the server's: the opponent's time as Lichess counts it
            server = standin.call(lambda: (next(iter(standin.games.values())).wtime,
                                           next(iter(standin.games.values())).btime))
            assert shown["clock"]["black"] == pytest.approx(server[1] / 1000, abs=0.01)
            assert shown["clock"]["running"] == "white"
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
    assert record["clocks"][1] == 300.0 and record["clocks"][3] > 300.0  # [%clk]: Lichess's, increment from move 2
    assert record["white"].startswith("BoardUser") and record["black"].startswith("Scripted")  # type: ignore[attr-defined]
    # each move was posted once: nothing sent twice
    posts = [path for method, path, status in standin.requests if "/move/" in path]
    assert len(posts) == 4 and all(status == 200 for _, p, status in standin.requests if "/move/" in p)
    assert TOKEN not in daemon.stderr
    assert all(TOKEN not in json.dumps(line) for line in daemon.seen)


def shown_times(lines: list[dict[str, object]], uci: str) -> int:
    """How many times ``uci`` went onto the LEDs (pending became it)."""
    count, before = 0, None
    for line in lines:
        pending = line.get("pending")
        if pending == uci and before != uci:
            count += 1
        before = pending
    return count


def test_a_dropped_stream_is_reconnected_and_nothing_is_applied_twice(tmp_path: Path, standin: StandIn) -> None:
    standin.script = ["e7e5", "b8c6"]
    standin.reply_delay = 1.0  # the opponent answers while the stream is down
    daemon = Online(tmp_path, standin, "--seek", "3+2")
    board = chess.Board()
    try:
        daemon.send({})
        daemon.hand(board, "e2e4")
        game = next(iter(standin.games.values()))
        assert standin.call(lambda: standin.drop_game_streams(game.id)) == 1
        daemon.wait_for(remote_shown("e7e5"))
        # dropped again while the opponent's move is lit: the new gameFull repeats it
        standin.call(lambda: standin.drop_game_streams(game.id))
        opened = sum(1 for path in standin.opened if path.startswith("/api/board/game/stream/"))
        deadline = 0
        while sum(1 for p in standin.opened if p.startswith("/api/board/game/stream/")) == opened:
            deadline += 1
            assert deadline < 100, "no reconnection"
            time.sleep(0.05)
        daemon.hand(board, "e7e5")
        daemon.wait_for(made(2))
        daemon.hand(board, "g1f3")
        daemon.wait_for(remote_shown("b8c6"))
    finally:
        assert daemon.close() == 0, daemon.stderr
    assert game.moves == ["e2e4", "e7e5", "g1f3", "b8c6"]
    assert shown_times(daemon.seen, "e7e5") == 1 and shown_times(daemon.seen, "b8c6") == 1
    posts = [path for _, path, _ in standin.requests if "/move/" in path]
    assert posts == [f"/api/board/game/{game.id}/move/e2e4", f"/api/board/game/{game.id}/move/g1f3"]
    streams = [p for p in standin.opened if p.startswith("/api/board/game/stream/")]
    assert len(streams) >= 3  # the first, two reconnections
    assert saved_game(daemon.games)["moves"] == ["e2e4", "e7e5", "g1f3"]  # b8c6 still to be made
    assert "reconnecting" in daemon.stderr


def test_429_is_waited_out_then_the_move_goes(tmp_path: Path, standin: StandIn) -> None:
    standin.script = ["e7e5"]
    standin.rate_limit = {"/api/board/game/stream/": 1}
    daemon = Online(tmp_path, standin, "--seek", "3+2")
    board = chess.Board()
    try:
        daemon.send({})
        standin.call(lambda: standin.rate_limit.update({"/move/": 1}))
        daemon.hand(board, "e2e4")
        daemon.wait_for(remote_shown("e7e5"))
    finally:
        assert daemon.close() == 0, daemon.stderr
    moves = [status for _, path, status in standin.requests if "/move/" in path]
    assert moves == [429, 200]
    streams = [status for _, path, status in standin.requests if path.startswith("/api/board/game/stream/")]
    assert streams[0] == 429  # refused once, then opened (a stream's own status is logged at its end)
    assert any(p.startswith("/api/board/game/stream/") for p in standin.opened)
    assert daemon.stderr.count("HTTP 429") == 2 and "waiting 0.5 s" in daemon.stderr


HOSTILE_RAW = [
    (b"this is not json\n", "not a JSON line"),
    (b"[" * 5000 + b"\n", "not a JSON line"),
    (b'{"type":"gameState","moves":"e2e4 e7e9","wtime":1,"btime":1,"winc":0,"binc":0,"status":"started"}\n',
     "'moves' must be UCI moves"),
    (b'{"type":"gameState","moves":"","wtime":"soon","btime":1,"winc":0,"binc":0,"status":"started"}\n',
     "not a JSON line"),  # berserk's own conversion of wtime fails first
    (b'{"type":"gameState","moves":"","wtime":-4,"btime":1,"winc":0,"binc":0,"status":"started"}\n',
     "'wtime' must be a whole number"),
    (b'{"type":"gameState","moves":"","wtime":4,"btime":1,"winc":0,"binc":0,"status":"won"}\n',
     "'status' must be one of"),
]


def test_hostile_stream_lines_are_refused_and_the_game_goes_on(tmp_path: Path, standin: StandIn) -> None:
    standin.script = ["e7e5"]
    daemon = Online(tmp_path, standin, "--seek", "3+2")
    board = chess.Board()
    try:
        daemon.send({})
        game = next(iter(standin.games.values()))
        for raw, message in HOSTILE_RAW:
            streams = sum(1 for p in standin.opened if p.startswith("/api/board/game/stream/"))
            standin.call(lambda raw=raw: standin.send_raw(game.id, raw))
            refused = daemon.wait_for(lambda line, m=message: m in str(line.get("warning")))
            assert "game stream of" in refused["warning"] and refused["result"] == "*"
            for _ in range(100):  # reconnected before the next one
                if sum(1 for p in standin.opened if p.startswith("/api/board/game/stream/")) > streams:
                    break
                time.sleep(0.05)
        daemon.hand(board, "e2e4")
        daemon.wait_for(remote_shown("e7e5"))
    finally:
        assert daemon.close() == 0, daemon.stderr
    assert game.moves == ["e2e4", "e7e5"]
    assert "Traceback" not in daemon.stderr
    assert sum("not a JSON line" in line for line in daemon.stderr.splitlines()) >= 3


def test_the_token_appears_nowhere(tmp_path: Path, standin: StandIn) -> None:
    """Not in stderr at -vv (requests, berserk and urllib3 debugging included), state lines,
    saved files or the error of a refused token."""
    standin.script = ["e7e5"]
    daemon = Online(tmp_path, standin, "--seek", "3+2", verbose=2)
    board = chess.Board()
    try:
        daemon.send({})
        daemon.hand(board, "e2e4")
        daemon.wait_for(remote_shown("e7e5"))
    finally:
        assert daemon.close() == 0, daemon.stderr
    assert TOKEN in standin.tokens_seen  # it was sent, as a bearer token
    assert "DEBUG" in daemon.stderr and TOKEN not in daemon.stderr
    assert all(TOKEN not in json.dumps(line) for line in daemon.seen)
    for path in daemon.games.rglob("*"):
        if path.is_file():
            assert TOKEN not in path.read_text(errors="replace"), path
    # a token Lichess refuses: one line, exit status 2, the token not in it
    standin.token = "lip_anotherValidToken"
    refused = Online(tmp_path / "again", standin, "--seek", "3+2")
    code = refused.close()
    assert code == 2 and "HTTP 401" in refused.stderr and "board:play" in refused.stderr
    assert TOKEN not in refused.stderr and "Traceback" not in refused.stderr


def test_killed_and_started_again_takes_the_game_up(tmp_path: Path, standin: StandIn) -> None:
    """kill -9 mid-game; the opponent answers meanwhile; ``boardctl online`` with no seek finds
    the game going on (the event stream lists it), lights the answer and plays on, same record."""
    standin.script = ["e7e5", "b8c6"]
    standin.reply_delay = 0.5
    first = Online(tmp_path, standin, "--seek", "3+2")
    board = chess.Board()
    first.send({})
    first.hand(board, "e2e4")
    game = next(iter(standin.games.values()))
    for _ in range(100):
        if game.moves == ["e2e4"]:
            break
        time.sleep(0.02)
    first.kill()
    for _ in range(250):  # the answer comes while no board listens
        if game.moves == ["e2e4", "e7e5"]:
            break
        time.sleep(0.02)
    assert game.moves == ["e2e4", "e7e5"]
    again = Online(tmp_path, standin)  # no --seek: take up the game going on
    try:
        again.send({})
        again.wait_for(remote_shown("e7e5"))
        again.hand(board, "e7e5")
        again.wait_for(made(2))
        again.hand(board, "g1f3")
        again.wait_for(remote_shown("b8c6"))
    finally:
        assert again.close() == 0, again.stderr
    assert game.moves == ["e2e4", "e7e5", "g1f3", "b8c6"]
    assert len(standin.games) == 1
    record = saved_game(again.games)  # one record: the first run's, taken up
    assert record["moves"] == ["e2e4", "e7e5", "g1f3"]
    assert [p for _, p, _ in standin.requests if "/move/" in p] == [
        f"/api/board/game/{game.id}/move/e2e4", f"/api/board/game/{game.id}/move/g1f3"]


def test_challenge_as_black(tmp_path: Path, standin: StandIn) -> None:
    """``--challenge``: the game id is the challenge's; as Black the opponent's first move is lit."""
    standin.script = ["e2e4", "g1f3"]
    daemon = Online(tmp_path, standin, "--challenge", "Scripted", "--clock", "3+2", "--color", "black", "--rated")
    board = chess.Board()
    try:
        first = daemon.send({})
        assert first["human"] == "black" and first["online"]["rated"] is True
        daemon.wait_for(remote_shown("e2e4"))
        daemon.hand(board, "e2e4")
        daemon.hand(board, "e7e5")
        daemon.wait_for(remote_shown("g1f3"))
    finally:
        assert daemon.close() == 0, daemon.stderr
    (challenge_id,) = standin.challenges
    game = standin.games[challenge_id]
    assert game.rated and game.black == "BoardUser" and game.moves == ["e2e4", "e7e5", "g1f3"]
    assert saved_game(daemon.games)["moves"] == ["e2e4", "e7e5"]


def test_accept_an_incoming_challenge(tmp_path: Path, standin: StandIn) -> None:
    standin.script = []
    challenge_id = standin.call(lambda: standin.incoming_challenge(minutes=5, increment=0))
    daemon = Online(tmp_path, standin, "--accept")
    board = chess.Board()
    try:
        first = daemon.send({})
        assert first["online"]["game"] == challenge_id and first["clock"]["white"] == pytest.approx(300.0, abs=0.5)
        daemon.hand(board, "d2d4")
    finally:
        assert daemon.close() == 0, daemon.stderr
    assert standin.challenges[challenge_id]["status"] == "accepted"
    assert standin.games[challenge_id].moves == ["d2d4"]
    assert f"accepting the challenge {challenge_id}" in daemon.stderr


@pytest.mark.parametrize(("ending", "result", "termination"), [
    ("the opponent resigns", "1-0", "Black resigned (Lichess)"),
    ("the opponent left: claim victory", "1-0", "Black left the game (Lichess)"),
    ("my draw offer accepted", "1/2-1/2", "draw agreed (Lichess)"),
])
def test_the_server_decides_and_no_local_game_follows(tmp_path: Path, standin: StandIn, ending: str, result: str,
                                                       termination: str) -> None:
    """A result the server decides is in the game log (the replay hook checks it); after it, the
    new-game button starts no local game but says how to play another on Lichess."""
    standin.script = ["e7e5"]
    standin.accept_draw = ending.startswith("my draw")
    daemon = Online(tmp_path, standin, "--seek", "3+2")
    board = chess.Board()
    try:
        daemon.send({})
        daemon.exchange(board, "e2e4", "e7e5")
        daemon.wait_for(made(2))
        game = next(iter(standin.games.values()))
        if ending == "the opponent resigns":
            standin.call(standin.opponent_resigns)
        elif ending.startswith("the opponent left"):
            daemon.button("claim")  # nothing to claim yet: nothing is sent
            standin.call(lambda: standin.opponent_leaves(claim_after=1))
            daemon.wait_for(lambda line: "opponent left the game" in str(line.get("warning")))
            daemon.button("claim")  # too early: the board says when
            daemon.wait_for(lambda line: "can be claimed in" in str(line.get("warning")))
            time.sleep(1.1)  # the rule's own second (claim_after=1): a wait for time, not for a condition
            daemon.button("claim")
        else:
            daemon.button("draw")
        end = daemon.wait_for(lambda line: line["result"] != "*")
        assert (end["result"], end["termination"]) == (result, termination)
        # A new game after a Lichess game: none starts here; the board says what to do.
        after = daemon.button("new-game")
        assert "run boardctl online again" in after["warning"]
        assert after["game"] == end["game"] and after["result"] == result and after["mode"] == "network"
    finally:
        assert daemon.close() == 0, daemon.stderr
    claims = [p for _, p, _ in standin.requests if "claim" in p]
    if ending.startswith("the opponent left"):
        assert claims == [f"/api/board/game/{game.id}/claim-victory/"]  # once, when allowed: the early one is not sent
        assert game.status == "timeout" and game.winner == "white"
    else:
        assert claims == []
    record = saved_game(daemon.games)
    assert record["result"] == result and record["termination"] == termination
    log = (daemon.games / f"{record['id']}.jsonl").read_text()
    assert f'"result": "{result}"' in log  # the server's verdict, for replay
