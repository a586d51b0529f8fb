"""Driving ``boardctl online --board sim --stdio`` (real time) against a stand-in in this process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import chess
from test_daemon_support import StateLines, move_events

from boardctl.online.token import store_token
from tests.online.standin import StandIn

TOKEN = "lip_daemontesttoken7x"
#: Past the settle time (0.3 s) of a placed piece.
SETTLE = 0.45
#: Between two changes of one move (a victim lifted and its square filled quicker is a brush).
BETWEEN = 0.12


class Online:
    """One ``boardctl online`` process; every line it printed is kept in ``seen``."""

    def __init__(self, tmp: Path, standin: StandIn, *extra: str, token: str = TOKEN, verbose: int = 1) -> None:
        config_dir = tmp / "config" / "boardctl"
        config_dir.mkdir(parents=True, exist_ok=True)
        self.config = config_dir / "config.toml"
        if not self.config.exists():
            store_token(self.config, token)
        self.games = tmp / "games"
        env = {**os.environ, "XDG_CONFIG_HOME": str(tmp / "config"), "XDG_DATA_HOME": str(tmp / "data")}
        args = [sys.executable, "-m", "boardctl", *["-v"] * verbose, "online", "--board", "sim", "--stdio", "--no-web",
                "--games-dir", str(self.games), "--lichess-url", standin.url, "--rate-limit-wait", "0.5", *extra]
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, env=env)
        self.lines = StateLines(self.proc, name="boardctl online")
        self.seen: list[dict[str, Any]] = []
        self.state: dict[str, Any] = {}
        self.sent = 0
        self.stderr = ""

    def _next(self, timeout: float) -> dict[str, Any]:
        line = self.lines.next(timeout, last=self.state)
        self.seen.append(line)
        self.state = line
        return line

    def send(self, obj: dict[str, Any], *, timeout: float = 20.0) -> dict[str, Any]:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(obj) + "\n")
        self.proc.stdin.flush()
        self.sent += 1
        while True:
            line = self._next(timeout)
            if "reason" not in line and line["input"] == self.sent:
                return line

    def wait_for(self, predicate: Callable[[dict[str, Any]], bool], *, timeout: float = 20.0) -> dict[str, Any]:
        """The first state line (already the latest, or still to come) for which ``predicate`` holds."""
        if self.state and predicate(self.state):
            return self.state
        end = time.monotonic() + timeout
        while True:
            line = self._next(max(0.01, end - time.monotonic()))
            if predicate(line):
                return line

    def hand(self, board: chess.Board, uci: str) -> None:
        """Make ``uci`` by hand on the sim board and let it settle."""
        move = chess.Move.from_uci(uci)
        for square, occupied in move_events(board, move):
            self.send({"square": square, "occupied": occupied})
            time.sleep(BETWEEN)  # a hand is not faster than the brush time
        board.push(move)
        time.sleep(SETTLE)
        self.send({})

    def exchange(self, board: chess.Board, mine: str, reply: str) -> None:
        """Make ``mine`` by hand, wait until the opponent's ``reply`` is lit, and make it by hand too."""
        self.hand(board, mine)
        self.wait_for(remote_shown(reply))
        self.hand(board, reply)

    def shift(self, frm: str, to: str) -> None:
        """Move a piece from ``frm`` to the empty ``to`` by hand (putting pieces back) and let it settle."""
        self.send({"square": frm, "occupied": False})
        time.sleep(BETWEEN)
        self.send({"square": to, "occupied": True})
        time.sleep(SETTLE)
        self.send({})

    def button(self, name: str) -> dict[str, Any]:
        return self.send({"button": name})

    def close(self, *, timeout: float = 20.0) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        code = self.proc.wait(timeout=timeout)
        self.seen.extend(self.lines.rest())
        assert self.proc.stderr is not None
        self.stderr = self.proc.stderr.read()
        return code

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=10)


def remote_shown(uci: str) -> Callable[[dict[str, Any]], bool]:
    """The opponent's move is shown on the LEDs, waiting to be made by hand."""
    return lambda line: line.get("pending") == uci


def made(n: int) -> Callable[[dict[str, Any]], bool]:
    return lambda line: len(line.get("moves", [])) >= n and line.get("pending") is None


def saved_game(games: Path) -> dict[str, object]:
    records = [json.loads(p.read_text()) for p in sorted(games.glob("*.json"))]
    assert len(records) == 1, records
    return records[0]
