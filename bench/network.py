"""Board to board over loopback: the time from a move becoming complete on one board (its settle
time after the placement) to its ``remote-move`` LEDs on the other (target: 50 ms p99).

Two real daemons, ``boardctl host`` and ``boardctl join`` (``--board sim --stdio``, real time,
web server on, loopback), play a random legal game (fixed seed, no promotions) by hand: the bench
writes a move's input lines to the mover's stdin, and the clock starts when the placement line is
written plus the settle time (0.3 s); it stops when the other daemon's state line shows the move
``pending`` (printed after its LEDs were set). So the figure includes both pipes and is an upper
bound. Each ``remote-move`` is then made by hand on the other board, as a player does. The load
(``os.getloadavg``) is printed with the figures.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import queue
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import chess

TARGET_P99_MS = 50.0
SETTLE = 0.3


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class _Daemon:
    def __init__(self, argv: list[str], home: Path) -> None:
        env = {**os.environ, "XDG_CONFIG_HOME": str(home / "config")}
        self.proc = subprocess.Popen([sys.executable, "-m", "boardctl", *argv], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
        self.lines: queue.Queue[tuple[float, dict[str, Any]]] = queue.Queue()
        self.state: dict[str, Any] = {}
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put((time.perf_counter(), json.loads(line)))

    def wait(self, predicate: Any, timeout: float = 30.0) -> tuple[float, dict[str, Any]]:
        if self.state and predicate(self.state):
            return time.perf_counter(), self.state
        deadline = time.perf_counter() + timeout
        while True:
            at, line = self.lines.get(timeout=max(0.01, deadline - time.perf_counter()))
            self.state = line
            if predicate(line):
                return at, line

    def send(self, obj: dict[str, Any]) -> float:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(obj) + "\n")
        self.proc.stdin.flush()
        return time.perf_counter()

    def make(self, board: chess.Board, move: chess.Move) -> float:
        """The hand's lines for ``move``; returns when the last placement was written."""
        changes = []
        if board.is_en_passant(move):
            changes.append((chess.square(chess.square_file(move.to_square), chess.square_rank(move.from_square)), False))
        elif board.is_capture(move):
            changes.append((move.to_square, False))
        changes += [(move.from_square, False), (move.to_square, True)]
        if board.is_castling(move):
            rank = chess.square_rank(move.from_square)
            kingside = chess.square_file(move.to_square) > chess.square_file(move.from_square)
            changes += [(chess.square(7 if kingside else 0, rank), False), (chess.square(5 if kingside else 3, rank), True)]
        placed = 0.0
        for square, occupied in changes:
            written = self.send({"square": chess.square_name(square), "occupied": occupied})
            if occupied:
                placed = written
            time.sleep(0.02)
        return placed

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def _game(seed: int, plies: int) -> list[chess.Move]:
    rng = random.Random(seed)
    board = chess.Board()
    moves: list[chess.Move] = []
    while len(moves) < plies:
        legal = [m for m in board.legal_moves if not m.promotion]
        if not legal:
            break
        move = rng.choice(legal)
        board.push(move)
        if board.is_game_over(claim_draw=False):
            board.pop()
            break
        moves.append(move)
    return moves


def measure(plies: int, seed: int) -> list[float]:
    """Milliseconds per move, both directions."""
    samples: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        host = _Daemon(["host", "--board", "sim", "--stdio", "--port", str(_free_port()), "--games-dir",
                        str(root / "h"), "--time-control", "30+0"], root / "hh")
        try:
            _, first = host.wait(lambda s: "invite" in s)
            invite = first["invite"]
            guest = _Daemon(["join", invite["address"], "--code", invite["code"], "--board", "sim", "--stdio",
                             "--port", str(_free_port()), "--games-dir", str(root / "j")], root / "jj")
            try:
                for d in (host, guest):
                    d.send({})
                for d in (host, guest):
                    d.wait(lambda s: (s.get("network") or {}).get("connected"))
                board = chess.Board()
                for i, move in enumerate(_game(seed, plies)):
                    mover, other = (host, guest) if i % 2 == 0 else (guest, host)
                    uci = move.uci()
                    placed = mover.make(board, move)
                    lit_at, _ = other.wait(lambda s, uci=uci: s["pending"] == uci)
                    samples.append((lit_at - (placed + SETTLE)) * 1000)
                    other.make(board, move)
                    other.wait(lambda s, n=i + 1: len(s["moves"]) == n)
                    board.push(move)
            finally:
                guest.close()
        finally:
            host.close()
    return samples


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench network", description=__doc__)
    parser.add_argument("--plies", type=int, default=60, help="moves per game (default 60)")
    parser.add_argument("--games", type=int, default=2, help="games, each with a new pair of daemons (default 2)")
    args = parser.parse_args(argv)
    load_before = os.getloadavg()
    samples: list[float] = []
    for game in range(args.games):
        samples += measure(args.plies, seed=game)
    load_after = os.getloadavg()
    samples.sort()
    p99 = samples[max(0, math.ceil(0.99 * len(samples)) - 1)]  # nearest rank
    print(f"move complete -> remote-move LEDs on the other board, loopback: {len(samples)} moves; "
          f"min {samples[0]:.1f} ms, median {statistics.median(samples):.1f} ms, p90 {samples[int(0.9 * (len(samples) - 1))]:.1f} ms, "
          f"p99 {p99:.1f} ms, max {samples[-1]:.1f} ms (target p99 {TARGET_P99_MS:.0f} ms); "
          f"load average {load_before[0]:.2f} before, {load_after[0]:.2f} after, {os.cpu_count()} CPUs")
    ok = p99 <= TARGET_P99_MS
    print("network latency:", "within target" if ok else "OVER TARGET")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
