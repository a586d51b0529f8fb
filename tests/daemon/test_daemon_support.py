"""Driving ``boardctl play|record --board sim --stdio`` as a subprocess, the way a person moves pieces.

Not a test module itself (its one test checks the helper's own move-to-events rule).
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import chess
import pytest

STOCKFISH = shutil.which("stockfish") or shutil.which("/usr/games/stockfish")
needs_engine = pytest.mark.skipif(STOCKFISH is None, reason="stockfish not installed (apt-get install stockfish)")

#: Seconds of virtual time after the last event of a move: past settle (0.3 s) and the promotion window (2 s).
AFTER_MOVE = 0.5
AFTER_PROMOTION = 2.5


def physical(square: chess.Square, flipped: bool) -> str:
    return chess.square_name(63 - square if flipped else square)


def move_events(board: chess.Board, move: chess.Move, *, flipped: bool = False) -> list[tuple[str, bool]]:
    """The (square, occupied) changes a hand makes to play ``move``: captured piece off first."""
    events: list[tuple[str, bool]] = []
    if board.is_en_passant(move):
        victim = chess.square(chess.square_file(move.to_square), chess.square_rank(move.from_square))
        events.append((physical(victim, flipped), False))
    elif board.is_capture(move):
        events.append((physical(move.to_square, flipped), False))
    events += [(physical(move.from_square, flipped), False), (physical(move.to_square, flipped), True)]
    if board.is_castling(move):
        rank = chess.square_rank(move.from_square)
        kingside = chess.square_file(move.to_square) > chess.square_file(move.from_square)
        rook_from = chess.square(7 if kingside else 0, rank)
        rook_to = chess.square(5 if kingside else 3, rank)
        events += [(physical(rook_from, flipped), False), (physical(rook_to, flipped), True)]
    return events


def touched_squares(board: chess.Board, move: chess.Move, *, flipped: bool = False) -> set[str]:
    return {square for square, _ in move_events(board, move, flipped=flipped)}


class StateLines:
    """The stdio line driver: a daemon's JSON state lines, read on a thread into a queue as they
    come; ``next`` waits for one, and says why none came (time-out, or the daemon exited: its
    stderr). Every test driver of a ``--stdio`` daemon reads through this (tests/network/harness.py,
    tests/online/driver.py)."""

    def __init__(self, proc: subprocess.Popen[str], *, name: str = "daemon") -> None:
        self.proc = proc
        self.name = name
        self.queue: queue.Queue[dict[str, Any] | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.queue.put(json.loads(line))
        self.queue.put(None)

    def next(self, timeout: float, *, last: object = None) -> dict[str, Any]:
        """The next line within ``timeout`` seconds (``last``: shown when none comes)."""
        try:
            line = self.queue.get(timeout=timeout)
        except queue.Empty:
            shown = "" if last is None else f" (last: {last})"
            raise AssertionError(f"{self.name}: no state line within {timeout} s{shown}") from None
        if line is None:
            self.queue.put(None)  # asked again, it says the same
            assert self.proc.stderr is not None
            raise AssertionError(f"{self.name} exited ({self.proc.wait()}): {self.proc.stderr.read()[-3000:]}")
        return line

    def rest(self, timeout: float = 5.0) -> list[dict[str, Any]]:
        """Every line still to come until the daemon's output ends."""
        out = []
        while (line := self.queue.get(timeout=timeout)) is not None:
            out.append(line)
        return out


class Daemon:
    """One ``boardctl`` process in stdio mode with virtual time."""

    def __init__(self, mode: str, games_dir: Path, *extra: str, env: dict[str, str] | None = None,
                 engine: str | None = STOCKFISH) -> None:
        """``engine=""``: the daemon's default, the bundled boardctl-engine."""
        args = [sys.executable, "-m", "boardctl", mode, "--board", "sim", "--stdio", "--no-web", "--games-dir", str(games_dir)]
        if mode == "play":
            args += ["--engine", str(engine), "--movetime", "0.02"] if engine else ["--movetime", "0.02"]
        full_env = {**os.environ, "XDG_CONFIG_HOME": str(games_dir.parent / "config"), **(env or {})}
        self.proc = subprocess.Popen(
            [*args, *extra], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, env=full_env,
        )
        self.lines = StateLines(self.proc)
        self.unprompted: list[dict[str, Any]] = []
        self.sent = 0
        self.t = 0.0
        self.state: dict[str, Any] = {}

    def _next(self, timeout: float) -> dict[str, Any]:
        return self.lines.next(timeout)

    def send(self, obj: dict[str, Any], *, timeout: float = 20.0) -> dict[str, Any]:
        """One input line; returns the state line that answers it (unprompted ones are kept)."""
        assert self.proc.stdin is not None
        if "t" in obj:
            self.t = max(self.t, float(obj["t"]))
        self.proc.stdin.write(json.dumps(obj) + "\n")
        self.proc.stdin.flush()
        self.sent += 1
        while True:
            line = self._next(timeout)
            if "reason" in line:
                self.unprompted.append(line)
                self.state = line
                continue
            assert line["input"] == self.sent, line
            self.state = line
            return line

    def tick(self, dt: float = AFTER_MOVE) -> dict[str, Any]:
        return self.send({"t": round(self.t + dt, 3)})

    def event(self, square: str, occupied: bool, dt: float = 0.1) -> dict[str, Any]:
        return self.send({"t": round(self.t + dt, 3), "square": square, "occupied": occupied})

    def button(self, name: str, dt: float = 0.1) -> dict[str, Any]:
        return self.send({"t": round(self.t + dt, 3), "button": name})

    def play(self, move: chess.Move, board: chess.Board, *, flipped: bool = False) -> dict[str, Any]:
        """Make ``move`` by hand and wait past settle; returns the state line after it."""
        for square, occupied in move_events(board, move, flipped=flipped):
            self.event(square, occupied)
        return self.tick(AFTER_PROMOTION if move.promotion else AFTER_MOVE)

    def engine_line(self, *, timeout: float = 20.0) -> dict[str, Any]:
        """The unprompted engine-move line (already read, or the next one)."""
        return self.reason_line("engine-move", timeout=timeout)

    def reason_line(self, reason: str, *, timeout: float = 20.0) -> dict[str, Any]:
        """The first unprompted line with ``reason`` (already read, or still to come)."""
        for line in self.unprompted:
            if line.get("reason") == reason:
                self.unprompted.remove(line)
                return line
        while True:
            line = self._next(timeout)
            self.state = line
            if line.get("reason") == reason:
                return line
            self.unprompted.append(line)

    def close(self, *, timeout: float = 20.0) -> int:
        """End of input: the daemon saves and exits."""
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        code = self.proc.wait(timeout=timeout)
        assert self.proc.stderr is not None
        self.stderr = self.proc.stderr.read()
        return code

    def kill(self) -> None:
        self.proc.kill()  # SIGKILL: no chance to save anything more
        self.proc.wait(timeout=10)


def test_move_events_cover_every_touched_square() -> None:
    board = chess.Board("r3k2r/8/8/3pP3/8/8/8/R3K2R w KQkq d6 0 1")
    assert move_events(board, chess.Move.from_uci("e5d6")) == [("d5", False), ("e5", False), ("d6", True)]
    assert move_events(board, chess.Move.from_uci("e1g1")) == [
        ("e1", False), ("g1", True), ("h1", False), ("f1", True),
    ]
    assert move_events(board, chess.Move.from_uci("a1a8"))[0] == ("a8", False)
    assert touched_squares(board, chess.Move.from_uci("e1c1"), flipped=True) == {"d8", "f8", "h8", "e8"}
