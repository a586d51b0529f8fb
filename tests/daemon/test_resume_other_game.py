"""A command that names a game never takes up a game of another variant or mode, and a failing
timer never repeats silently (issue 35, finding 6).

The scene of the report: "Invite a friend" on the chess demo's page left a chess network game
and its ticket in the demo's folder; ``boardctl demo --variant xiangqi`` then opened that chess
game on its 9 x 10 board and printed ``timer tick failed ... IndexError`` 317 times in 12 s.
Here the page's Invite is made on a real daemon (``record --board sim --stdio``, the same code
path as the demo's page), the daemon is stopped, and the next command is started with each way
of naming a game: it must keep its own game, say in the log what was left unfinished and the
command that returns to it, and that command must take the network game up again.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from network.harness import Board, free_port
from test_daemon_support import STOCKFISH, needs_engine
from test_terminal_session import Pty, assert_quiet

from boardctl.daemon import Daemon
from boardctl.errors import BoardctlError, TimerError
from boardctl.hw.sim import SimBoard
from boardctl.session import Session, Settings
from boardctl.storage import GameRecord, GameStore

XQ_START = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
XQ_FEN = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1"  # after 炮二平五
CHESS_FEN = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"


def _invite(port: int, color: str) -> dict[str, Any]:
    request = urllib.request.Request(f"http://127.0.0.1:{port}/api/invite", data=json.dumps({"color": color}).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.loads(answer.read())  # type: ignore[no-any-return]


def _run(tmp_path: Path, games: Path, *extra: str) -> tuple[dict[str, Any], str]:
    """Start ``record`` on ``games`` with ``extra``; its first state line and, after EOF, its stderr."""
    board = Board(["record", "--board", "sim", "--stdio", "--port", str(free_port()), "--games-dir", str(games),
                   *extra], tmp_path / "home")
    try:
        board.send({})
        first = board.next_line(30)
        assert board.proc.stdin is not None
        board.proc.stdin.close()
        assert board.proc.wait(timeout=30) == 0
        assert board.proc.stderr is not None
        return first, board.proc.stderr.read()
    finally:
        if board.proc.poll() is None:
            board.kill()


def _host_from_the_page(tmp_path: Path, games: Path, variant: str, color: str) -> str:
    """A ``record`` daemon of ``variant`` whose page's Invite hosts a network game; stopped (EOF)
    before anybody joins. The network game's id."""
    port = free_port()
    board = Board(["record", "--board", "sim", "--stdio", "--port", str(port), "--games-dir", str(games),
                   "--variant", variant], tmp_path / "home")
    try:
        board.send({})
        board.next_line(30)
        _invite(port, color)
        hosting = board.wait_for(lambda s: s["mode"] == "network", 30)
        assert board.proc.stdin is not None
        board.proc.stdin.close()
        assert board.proc.wait(timeout=30) == 0
        return str(hosting["game"])
    finally:
        if board.proc.poll() is None:
            board.kill()


#: (the page's game, its colour, the next command's options, why it is not taken up, the way back)
NOT_RESUMED = [
    ("chess", "white", ["--variant", "xiangqi"], "this command plays xiangqi", ["--variant", "chess"]),
    ("chess", "black", ["--variant", "xiangqi", "--new"], "this command plays xiangqi", ["--variant", "chess"]),
    ("xiangqi", "red", [], "this command plays chess", ["--variant", "xiangqi"]),
    ("xiangqi", "black", ["--variant", "chess"], "this command plays chess", ["--variant", "xiangqi"]),
    ("chess", "white", ["--new"], "this command starts a new game (--new, --fen)", []),
    ("chess", "black", ["--fen", CHESS_FEN], "this command starts a new game (--new, --fen)", []),
    ("xiangqi", "red", ["--variant", "xiangqi", "--new"], "this command starts a new game (--new, --fen)", ["--variant", "xiangqi"]),
    ("xiangqi", "black", ["--variant", "xiangqi", "--fen", XQ_FEN], "this command starts a new game (--new, --fen)",
     ["--variant", "xiangqi"]),
]


@pytest.mark.slow
@pytest.mark.parametrize(("hosted", "color", "extra", "why", "back"), NOT_RESUMED,
                         ids=[f"{c[0]}-then-{' '.join(c[2]) or 'chess'}" for c in NOT_RESUMED])
def test_a_command_naming_another_game_keeps_its_own_and_says_the_way_back(
        tmp_path: Path, hosted: str, color: str, extra: list[str], why: str, back: list[str]) -> None:
    games = tmp_path / "games"
    network_game = _host_from_the_page(tmp_path, games, hosted, color)
    first, stderr = _run(tmp_path, games, *extra)
    wanted = extra[extra.index("--variant") + 1] if "--variant" in extra else "chess"
    assert first["mode"] == "record" and first["variant"] == wanted and first["game"] != network_game, first
    if "--fen" in extra:
        assert first["fen"] == extra[extra.index("--fen") + 1]
    assert "Traceback" not in stderr and "timer tick failed" not in stderr, stderr
    assert "network-host" not in stderr  # the ticket beside the games is no game to check or resume
    side = "Red" if color == "red" else color.capitalize()
    assert (f"Left unfinished: the {hosted} network game {network_game} hosted from the page (0 plies, "
            f"you play {side}); {why}. To return to it: boardctl record --games-dir {games} --variant {hosted}"
            in stderr), stderr
    kept = json.loads((games / f"{network_game}.json").read_text(encoding="utf-8"))
    assert kept["result"] == "*" and kept["termination"] == "", kept  # kept unfinished, not abandoned
    assert (games / "network-host.json").exists()
    # The way back the log names takes it up again.
    again, stderr = _run(tmp_path, games, *back)
    assert again["mode"] == "network" and again["game"] == network_game and again["variant"] == hosted, again
    assert "Left unfinished" not in stderr


@pytest.mark.slow
@pytest.mark.parametrize(("hosted", "color", "extra"), [
    ("chess", "white", []),
    ("chess", "black", ["--variant", "chess"]),
    ("xiangqi", "red", ["--variant", "xiangqi"]),
])
def test_the_same_command_still_takes_the_pages_network_game_up(tmp_path: Path, hosted: str, color: str,
                                                                extra: list[str]) -> None:
    games = tmp_path / "games"
    network_game = _host_from_the_page(tmp_path, games, hosted, color)
    again, stderr = _run(tmp_path, games, *extra)
    assert again["mode"] == "network" and again["game"] == network_game and again["variant"] == hosted, again
    assert "Left unfinished" not in stderr


# -- a failing timer -------------------------------------------------------------------------------

FAILURES: list[Exception] = [
    IndexError("tuple index out of range"),
    KeyError("e4"),
    ZeroDivisionError("division by zero"),
    AttributeError("'NoneType' object has no attribute 'square'"),
    ValueError("bad square 95"),
]


def _daemon(tmp_path: Path, *, failure: Exception, after: int) -> tuple[Daemon, list[int]]:
    """A record daemon in real time whose session's tick fails from the ``after``-th call on."""
    record = GameRecord(id=GameRecord.new_id(), mode="record", white="a", black="b", moves=["e2e4"])
    session = Session(Settings(mode="record"), record=record)
    board = SimBoard(session.physical_occupancy(), clock=time.monotonic)
    daemon = Daemon(session, store=GameStore(tmp_path / "games"), board=board, virtual_board=True)
    calls = [0]
    tick = session.tick

    def failing(t: float) -> None:
        calls[0] += 1
        if calls[0] >= after:
            raise failure
        tick(t)

    session.tick = failing  # type: ignore[method-assign]
    return daemon, calls


@pytest.mark.parametrize("failure", FAILURES, ids=lambda e: type(e).__name__)
def test_a_failing_tick_ends_the_run_once_with_the_game_saved(tmp_path: Path, failure: Exception,
                                                              caplog: pytest.LogCaptureFixture) -> None:
    async def scenario() -> tuple[BaseException | None, int, float]:
        daemon, calls = _daemon(tmp_path, failure=failure, after=3)
        stop = asyncio.Event()
        began = time.monotonic()
        caught: BaseException | None = None
        try:
            await asyncio.wait_for(daemon.run_board(stop), timeout=5)
        except TimeoutError:
            stop.set()
        except BoardctlError as exc:
            caught = exc
        finally:
            await daemon.close()
        return caught, calls[0], time.monotonic() - began

    caplog.set_level(logging.INFO)
    caught, calls, took = asyncio.run(scenario())
    assert isinstance(caught, TimerError), caught
    message = str(caught)
    assert f"{type(failure).__name__}: {failure}" in message and "\n" not in message
    assert "is saved in" in message and str(tmp_path / "games") in message
    assert calls == 3 and took < 2  # it stopped at the first failure, not 50 ms later again and again
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text  # said once, by the error
    saved = GameStore(tmp_path / "games").records()
    assert [r.moves for r in saved] == [["e2e4"]]


@pytest.mark.slow
def test_a_failing_tick_ends_a_stdio_run_in_one_line(tmp_path: Path) -> None:
    """Through ``boardctl record --stdio`` in real time (lines without ``t``): a tick that fails
    (here: a session.tick made to raise by a sitecustomize the child imports) ends the run with
    one ``error:`` line, no traceback, exit status 2 and the game saved."""
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(
        "from boardctl import session\n"
        "_tick = session.Session.tick\n"
        "_calls = [0]\n"
        "def tick(self, t):\n"
        "    _calls[0] += 1\n"
        "    if _calls[0] > 60:\n"
        "        raise IndexError('tuple index out of range')\n"
        "    return _tick(self, t)\n"
        "session.Session.tick = tick\n", encoding="utf-8")
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data"), "XDG_CONFIG_HOME": str(tmp_path / "config"),
           "PYTHONPATH": os.pathsep.join([str(hook), os.environ.get("PYTHONPATH", "")])}
    games = tmp_path / "games"
    proc = subprocess.Popen([sys.executable, "-m", "boardctl", "record", "--board", "sim", "--stdio", "--no-web",
                             "--games-dir", str(games)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdin is not None
        for line in ('{"square": "e2", "occupied": false}', '{"square": "e4", "occupied": true}'):
            proc.stdin.write(line + "\n")
            proc.stdin.flush()
            time.sleep(0.3)
        proc.wait(timeout=20)  # it ends by itself: stdin is still open
        assert proc.stderr is not None
        stderr = proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
    assert proc.returncode == 2, stderr
    assert "Traceback" not in stderr and "timer tick failed" not in stderr, stderr
    errors = [line for line in stderr.splitlines() if "error:" in line]
    assert len(errors) == 1 and "the game's timer failed (IndexError: tuple index out of range)" in errors[0], stderr
    (state,) = games.glob("*.json")
    assert json.loads(state.read_text(encoding="utf-8"))["moves"] == ["e2e4"]


# -- the scene of the report, in a terminal ------------------------------------------------------


@pytest.fixture
def terminal(tmp_path: Path) -> Iterator[Callable[..., Pty]]:
    made: list[Pty] = []

    def start(*args: str) -> Pty:
        made.append(Pty(tmp_path, *args))
        return made[-1]

    yield start
    for proc in made:
        proc.close()


@pytest.mark.slow
@needs_engine
def test_the_xiangqi_demo_leaves_the_chess_demos_network_game_alone(terminal: Callable[..., Pty]) -> None:
    spawn = terminal
    port = free_port()
    chess_demo = spawn("demo", "--engine", str(STOCKFISH), "--port", str(port), "--movetime", "0.05")
    chess_demo.expect(r"Your move \(White\)")
    network_game = _invite(port, "white")["invite"]
    chess_demo.expect(r"Invite the other board")
    chess_demo.signal_group(signal.SIGINT)
    assert chess_demo.wait() == 0
    assert network_game

    xiangqi_demo = spawn("demo", "--variant", "xiangqi", "--port", "0")
    left = xiangqi_demo.expect(r"Left unfinished: the chess network game (\S+) hosted from the page \(0 plies, "
                               r"you play White\); this command plays xiangqi\. To return to it: "
                               r"boardctl demo --variant chess")
    xiangqi_demo.expect(r"Your move \(Red\)")
    time.sleep(1.5)  # long enough for 30 ticks of the timer
    xiangqi_demo.expect(r"", timeout=0.5)
    xiangqi_demo.signal_group(signal.SIGINT)
    assert xiangqi_demo.wait() == 0
    assert_quiet(xiangqi_demo.out)
    assert "timer tick failed" not in xiangqi_demo.out and "IndexError" not in xiangqi_demo.out

    back = spawn("demo", "--variant", "chess", "--engine", str(STOCKFISH), "--port", "0", "--movetime", "0.05")
    back.expect(rf"Resuming the network game {left[1]} hosted from the page")
    back.signal_group(signal.SIGINT)
    assert back.wait() == 0
    assert_quiet(back.out)


# -- an unfinished game of the other variant (play/record's own) -----------------------------------

MOVES = {
    "chess": ['{"t": 0}', '{"t": 1, "square": "e2", "occupied": false}', '{"t": 1.2, "square": "e4", "occupied": true}',
              '{"t": 2}'],
    "xiangqi": ['{"t": 0}', '{"t": 1, "square": "h2", "occupied": false}',
                '{"t": 1.2, "square": "e2", "occupied": true}', '{"t": 2}'],
}


def _record_run(tmp_path: Path, games: Path, stdin: list[str], *extra: str) -> tuple[dict[str, Any], str]:
    out = subprocess.run([sys.executable, "-m", "boardctl", "record", "--board", "sim", "--stdio", "--no-web",
                          "--games-dir", str(games), *extra], input="".join(f"{line}\n" for line in stdin),
                         capture_output=True, text=True, timeout=60,
                         env={**os.environ, "XDG_DATA_HOME": str(tmp_path / "data"),
                              "XDG_CONFIG_HOME": str(tmp_path / "config")})
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.splitlines()[-1]), out.stderr


@pytest.mark.slow
@pytest.mark.parametrize(("first", "then"), [("chess", "xiangqi"), ("xiangqi", "chess")])
def test_an_unfinished_game_of_the_other_variant_is_named_with_the_way_back(tmp_path: Path, first: str,
                                                                         then: str) -> None:
    games = tmp_path / "games"
    left, _ = _record_run(tmp_path, games, MOVES[first], "--variant", first)
    assert len(left["moves"]) == 1
    now, stderr = _record_run(tmp_path, games, ['{"t": 0}'], "--variant", then)
    assert now["variant"] == then and now["game"] != left["game"] and now["moves"] == []
    assert (f"Left unfinished: the {first} game {left['game']} (1 plies); this command plays {then}. "
            f"To return to it: boardctl record --games-dir {games} --variant {first}") in stderr, stderr
    back, stderr = _record_run(tmp_path, games, ['{"t": 0}'], "--variant", first)
    assert back["game"] == left["game"] and back["moves"] == left["moves"] and "Left unfinished" not in stderr


@pytest.mark.slow
def test_new_abandons_only_the_named_variants_games(tmp_path: Path) -> None:
    games = tmp_path / "games"
    xiangqi, _ = _record_run(tmp_path, games, MOVES["xiangqi"], "--variant", "xiangqi")
    chess, _ = _record_run(tmp_path, games, MOVES["chess"], "--variant", "chess")
    fresh, _ = _record_run(tmp_path, games, ['{"t": 0}'], "--variant", "chess", "--new")
    assert fresh["game"] not in (chess["game"], xiangqi["game"])
    assert json.loads((games / f"{chess['game']}.json").read_text())["termination"] == "abandoned"
    assert json.loads((games / f"{xiangqi['game']}.json").read_text())["termination"] == ""
    back, _ = _record_run(tmp_path, games, ['{"t": 0}'], "--variant", "xiangqi")
    assert back["game"] == xiangqi["game"] and back["moves"] == ["h2e2"]
