"""Two ``boardctl host``/``join --board sim --stdio`` daemons in real time, played by hand; a TCP
proxy between them that can be cut. Not a test module itself."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import chess
import chess.pgn
from test_daemon_support import StateLines, move_events

#: Seconds between a hand's lifts and placements (a real hand takes a tenth of a second and more).
HAND_GAP = 0.15


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Board:
    """One daemon, real time (input lines without ``t``); every output line is kept in order."""

    def __init__(self, argv: list[str], home: Path) -> None:
        self.argv = argv
        self.home = home
        self.seen: list[dict[str, Any]] = []
        self.state: dict[str, Any] = {}
        self.start()

    @staticmethod
    def command() -> list[str]:
        return [sys.executable, "-m", "boardctl"]

    def start(self) -> None:
        env = {**os.environ, "XDG_CONFIG_HOME": str(self.home / "config"), "XDG_DATA_HOME": str(self.home / "data")}
        self.proc = subprocess.Popen(
            [*self.command(), *self.argv], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, env=env,
        )
        self.lines = StateLines(self.proc, name=self.argv[0])  # a restart reads its own process's lines

    def next_line(self, timeout: float) -> dict[str, Any]:
        line = self.lines.next(timeout, last=self.state)
        self.seen.append(line)
        self.state = line
        return line

    def wait_for(self, predicate: Callable[[dict[str, Any]], bool], timeout: float = 20.0) -> dict[str, Any]:
        if self.state and predicate(self.state):
            return self.state
        deadline = time.monotonic() + timeout
        while True:
            line = self.next_line(max(0.01, deadline - time.monotonic()))
            if predicate(line):
                return line

    def send(self, obj: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(obj) + "\n")
        self.proc.stdin.flush()

    def make(self, uci: str, *, timeout: float = 20.0) -> dict[str, Any]:
        """Make ``uci`` by hand on this board (as a hand does, captured piece off first) and wait
        until it is a move of the game."""
        before = len(self.state["moves"])
        board = chess.Board(self.state["fen"])
        for i, (square, occupied) in enumerate(move_events(board, chess.Move.from_uci(uci))):
            if i:
                time.sleep(HAND_GAP)
            self.send({"square": square, "occupied": occupied})
        return self.wait_for(lambda s: len(s["moves"]) > before, timeout)

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=10)

    def close(self, timeout: float = 20.0) -> int:
        if self.proc.poll() is not None:
            return self.proc.returncode
        assert self.proc.stdin is not None
        with contextlib.suppress(BrokenPipeError):
            self.proc.stdin.close()
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()


class Proxy:
    """A TCP relay ``127.0.0.1:port -> 127.0.0.1:target`` that can be cut (``stop``) and restored."""

    def __init__(self, target: int, port: int | None = None) -> None:
        self.target = target
        self.port = port or free_port()
        self._server: socket.socket | None = None
        self._conns: list[socket.socket] = []
        self._lock = threading.Lock()

    def start(self) -> None:
        server = socket.socket()
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("127.0.0.1", self.port))
        server.listen(8)
        self._server = server
        threading.Thread(target=self._accept, args=(server,), daemon=True).start()

    def _accept(self, server: socket.socket) -> None:
        while True:
            try:
                client, _ = server.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target))
            except OSError:
                client.close()
                continue
            with self._lock:
                self._conns += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)

    def stop(self) -> None:
        """Cut: no new connections, and every open one is closed."""
        if self._server is not None:
            self._server.close()
            self._server = None
        with self._lock:
            conns, self._conns = self._conns, []
        for s in conns:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            s.close()


def pgn_moves_and_clocks(path: Path) -> tuple[list[str], list[str], str]:
    """The saved PGN's moves (SAN tokens), ``[%clk]`` comments and Result."""
    text = path.read_text(encoding="utf-8")
    result = re.search(r'\[Result "([^"]+)"\]', text)
    body = text[text.index("\n\n"):]
    clocks = re.findall(r"\[%clk [0-9:.]+\]", body)
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None
    return [m.uci() for m in game.mainline_moves()], clocks, result.group(1) if result else "?"
