"""Soak: a long session of human-like play with many web pages, some never reading (default 10 min).

Runs the real daemon (``boardctl play --board sim``, the bundled engine, the web page on a free
port) in a fresh games folder and drives it only from outside, over the web:

- one *player* page plays the human's moves on the virtual board (lift, pause, place, as a hand
  would), carries out the engine's replies, and puts the pieces back after takebacks and new games;
- the other pages watch: most read every state line and now and then fetch ``/api/state``; some
  (``--stalled``) connect and never read a byte, as a frozen tab would;
- at random, a page asks for a hint, a takeback or (rarely) a new game.

Reported at the end, per half of the run so drift shows: the daemon's resident memory (its own
``VmRSS``, not the engine's), the latency from sending an event to the state line that carries the
LEDs it causes (p50/p99), and errors (refused actions, error replies, dropped sockets, ERROR lines or
tracebacks in the daemon's log, stalls). "Flat" means RSS grew less than ``RSS_GROWTH_LIMIT_MB`` after
warm-up, p99 in the second half is within ``P99_DRIFT`` times the first half's (+ 20 ms), and no error.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import chess

REPO = Path(__file__).resolve().parents[1]
RSS_GROWTH_LIMIT_MB = 5.0
P99_DRIFT = 2.0
WARMUP_SECONDS = 0.15  # share of the run before the RSS baseline is taken


@dataclass
class Stats:
    latencies: list[tuple[float, float]] = field(default_factory=list)  # (when, ms)
    rss: list[tuple[float, float]] = field(default_factory=list)  # (when, MB)
    errors: list[str] = field(default_factory=list)
    moves: int = 0
    games: int = 1
    hints: int = 0
    takebacks: int = 0
    lines_read: int = 0
    state_gets: int = 0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _start_daemon(tmp: Path, *, movetime: float) -> tuple[subprocess.Popen[bytes], str, Path]:
    port = _free_port()
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp / "config"), "XDG_DATA_HOME": str(tmp / "data")}
    env.setdefault("NUMBA_CACHE_DIR", str(REPO / ".numba-cache"))
    cmd = [sys.executable, "-m", "boardctl", "play", "--board", "sim", "--no-terminal", "--port", str(port),
           "--new", "--games-dir", str(tmp / "games"), "--color", "white", "--orientation", "normal",
           "--level", "beginner", "--movetime", str(movetime), "--takeback", "apply"]
    log_path = tmp / "daemon.log"
    log = log_path.open("wb")
    proc = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + 90
    while True:
        if proc.poll() is not None:
            raise SystemExit(f"daemon exited with {proc.returncode}: {log_path.read_text()}")
        try:
            urllib.request.urlopen(url + "api/state", timeout=2).close()
            return proc, url, log_path
        except OSError:
            if time.monotonic() > deadline:
                raise SystemExit("daemon did not start within 90 s") from None
            time.sleep(0.2)


def _hand(board: chess.Board, move: chess.Move) -> list[tuple[str, bool]]:
    """The (square, occupied) changes a hand makes to play ``move``: a captured piece off first."""
    out: list[tuple[str, bool]] = []
    if board.is_en_passant(move):
        out.append((chess.square_name(chess.square(chess.square_file(move.to_square),
                                                   chess.square_rank(move.from_square))), False))
    elif board.is_capture(move):
        out.append((chess.square_name(move.to_square), False))
    out += [(chess.square_name(move.from_square), False), (chess.square_name(move.to_square), True)]
    if board.is_castling(move):
        rank = chess.square_rank(move.from_square)
        kingside = chess.square_file(move.to_square) > chess.square_file(move.from_square)
        out += [(chess.square_name(chess.square(7 if kingside else 0, rank)), False),
                (chess.square_name(chess.square(5 if kingside else 3, rank)), True)]
    return out


class Player:
    """The page that plays: follows the state lines and moves the virtual pieces like a person."""

    def __init__(self, ws: Any, stats: Stats, rng: random.Random, end: float) -> None:
        self.ws, self.stats, self.rng, self.end = ws, stats, rng, end
        self.state: dict[str, Any] = {}
        self.next_id = 0
        self.changed = asyncio.Event()
        self.waiting: dict[int, tuple[float, bool]] = {}  # square -> (sent, occupied), until a state line shows it
        self.last_progress = time.monotonic()

    async def reader(self) -> None:
        async for msg in self.ws:
            data = json.loads(msg.data)
            if "fen" in data:
                now = time.monotonic()
                sensed = int(data.get("occupancy", "0"), 16)
                for square, (sent, occupied) in list(self.waiting.items()):
                    if bool(sensed >> square & 1) == occupied:
                        self.stats.latencies.append((now, (now - sent) * 1000))
                        del self.waiting[square]
                if data.get("moves") != self.state.get("moves"):
                    self.last_progress = now
                self.on_state(data, now)
                self.state = data
                self.changed.set()
            elif "error" in data and not str(data["error"]).startswith(("impossible", "nothing to take back")):
                self.stats.errors.append(f"player: {data['error']}")

    def on_state(self, data: dict[str, Any], now: float) -> None:
        """A state line arrived at ``now`` (before it becomes ``self.state``): for subclasses."""

    async def send(self, action: dict[str, Any]) -> None:
        self.next_id += 1
        if "event" in action:
            event = action["event"]
            self.waiting[chess.parse_square(event["square"])] = (time.monotonic(), event["occupied"])
        await self.ws.send_str(json.dumps({"id": self.next_id, "action": action}))

    async def touch(self, square: str, occupied: bool) -> None:
        await self.send({"event": {"square": square, "occupied": occupied}})
        await asyncio.sleep(self.rng.uniform(0.12, 0.35))

    def sensed(self) -> int:
        return int(self.state.get("occupancy", "0"), 16)

    async def run(self) -> None:
        while time.monotonic() < self.end:
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), 0.5)
            await self.step()
            if time.monotonic() - self.last_progress > 60:
                self.stats.errors.append(f"no progress for 60 s at {self.state.get('fen')}")
                await self.send({"button": "new-game"})
                self.stats.games += 1
                self.last_progress = time.monotonic()

    async def step(self) -> None:
        state = self.state
        if not state or state.get("thinking"):
            return
        board = chess.Board(state["fen"])
        if state.get("pending"):
            for square, occupied in _hand(board, chess.Move.from_uci(state["pending"])):
                await self.touch(square, occupied)
            await asyncio.sleep(1.0)  # let the placed pieces settle before anything else
            return
        wanted = int(board.occupied)
        if self.sensed() != wanted or not state.get("matching", True):
            await self.restore(wanted)
            return
        if state.get("result") != "*" or board.is_game_over() or len(state["moves"]) > 120:
            await self.send({"button": "new-game"})
            self.stats.games += 1
            await asyncio.sleep(1.0)
            return
        if board.turn != (state.get("human") != "black"):
            return
        await asyncio.sleep(self.rng.uniform(0.4, 2.0))  # thinking
        if self.state is not state:
            return  # something happened meanwhile (a hint, a takeback): look again
        moves = list(board.legal_moves)
        captures = [m for m in moves if board.is_capture(m)]
        move = self.rng.choice(captures if captures and self.rng.random() < 0.5 else moves)
        for square, occupied in _hand(board, move):
            await self.touch(square, occupied)
        self.stats.moves += 1
        await asyncio.sleep(0.8)

    async def restore(self, wanted: int) -> None:
        """Put the pieces where the game says (after a takeback, a new game, a slip)."""
        sensed = self.sensed()
        for square in chess.SQUARES:
            if sensed >> square & 1 and not wanted >> square & 1:
                await self.touch(chess.square_name(square), False)
        for square in chess.SQUARES:
            if wanted >> square & 1 and not sensed >> square & 1:
                await self.touch(chess.square_name(square), True)
        await asyncio.sleep(1.0)


async def _watcher(session: Any, url: str, stats: Stats, rng: random.Random, end: float, *, reads: bool) -> None:
    async with session.ws_connect(url + "ws", heartbeat=None) as ws:
        if not reads:
            while time.monotonic() < end:  # a frozen tab: connected, never reading
                await asyncio.sleep(1.0)
            return
        next_action = time.monotonic() + rng.uniform(10, 120)
        while time.monotonic() < end:
            with contextlib.suppress(TimeoutError):
                msg = await asyncio.wait_for(ws.receive(), 1.0)
                if msg.type.name != "TEXT":
                    stats.errors.append(f"watcher socket: {msg.type.name}")
                    return
                stats.lines_read += 1
                data = json.loads(msg.data)
                if "error" in data and not str(data["error"]).startswith(("nothing to take back", "hints", "the game is over")):
                    stats.errors.append(f"watcher: {data['error']}")
            if time.monotonic() >= next_action:
                next_action = time.monotonic() + rng.uniform(60, 240)
                roll = rng.random()
                if roll < 0.6:
                    await ws.send_str(json.dumps({"id": 1, "action": {"button": "hint"}}))
                    stats.hints += 1
                elif roll < 0.8:
                    await ws.send_str(json.dumps({"id": 2, "action": {"button": "takeback"}}))
                    stats.takebacks += 1
                else:
                    async with session.get(url + "api/state") as resp:
                        if resp.status != 200:
                            stats.errors.append(f"GET /api/state: {resp.status}")
                        stats.state_gets += 1


async def _sample_rss(pid: int, stats: Stats, end: float) -> None:
    while time.monotonic() < end:
        stats.rss.append((time.monotonic(), _rss_mb(pid)))
        await asyncio.sleep(2.0)


async def _drive(url: str, pid: int, seconds: float, pages: int, stalled: int, seed: int) -> Stats:
    import aiohttp

    stats = Stats()
    rng = random.Random(seed)
    end = time.monotonic() + seconds
    async with aiohttp.ClientSession() as session, session.ws_connect(url + "ws") as ws:
        player = Player(ws, stats, rng, end)
        tasks = [asyncio.create_task(player.reader()), asyncio.create_task(_sample_rss(pid, stats, end))]
        for n in range(pages - 1):
            reads = n >= stalled
            tasks.append(asyncio.create_task(
                _watcher(session, url, stats, random.Random(seed + n + 1), end, reads=reads)))
        await player.run()
        for task in tasks[2:]:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(task, 10)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(BaseException):
                await task
    return stats


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else float("nan")


def report(stats: Stats, seconds: float, started: float, log_text: str) -> bool:
    half = started + seconds / 2
    first = [ms for t, ms in stats.latencies if t < half]
    second = [ms for t, ms in stats.latencies if t >= half]
    baseline_at = started + seconds * WARMUP_SECONDS
    after = [mb for t, mb in stats.rss if t >= baseline_at] or [mb for _, mb in stats.rss]
    growth = after[-1] - after[0] if after else float("nan")
    log_errors = [line for line in log_text.splitlines() if " ERROR " in line or "Traceback" in line]
    errors = stats.errors + [f"daemon log: {line}" for line in log_errors]
    print(f"soak: {seconds:.0f} s, {stats.moves} human moves, {stats.games} games, {stats.hints} hints, "
          f"{stats.takebacks} takebacks, {stats.lines_read} state lines read by watchers, "
          f"{stats.state_gets} GET /api/state", flush=True)
    if after:
        print(f"  daemon RSS: {after[0]:.1f} MB after warm-up -> {after[-1]:.1f} MB at the end "
              f"(growth {growth:+.1f} MB, max {max(after):.1f} MB; limit +{RSS_GROWTH_LIMIT_MB:.0f} MB)")
    for name, values in (("first half", first), ("second half", second)):
        if values:
            print(f"  event -> LED state line, {name}: n={len(values)} p50={statistics.median(values):.1f} ms "
                  f"p99={_pct(values, 0.99):.1f} ms max={max(values):.1f} ms")
    print(f"  errors: {len(errors)}")
    for line in errors[:10]:
        print(f"    {line}")
    p99_flat = not first or not second or _pct(second, 0.99) <= P99_DRIFT * _pct(first, 0.99) + 20
    flat = growth <= RSS_GROWTH_LIMIT_MB and p99_flat and not errors and bool(stats.latencies)
    print("soak:", "flat" if flat else "NOT FLAT", flush=True)
    return flat


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench soak", description=__doc__)
    parser.add_argument("--seconds", type=float, default=600.0, help="length of the run (default 10 min)")
    parser.add_argument("--pages", type=int, default=20, help="web page clients, the player included")
    parser.add_argument("--stalled", type=int, default=5, help="how many of them never read")
    parser.add_argument("--movetime", type=float, default=0.3, help="engine seconds per move")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-soak-") as tmpdir:
        proc, url, log_path = _start_daemon(Path(tmpdir), movetime=args.movetime)
        started = time.monotonic()
        try:
            stats = asyncio.run(_drive(url, proc.pid, args.seconds, args.pages, args.stalled, args.seed))
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                status = proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                status = -9
        if status != 0:
            stats.errors.append(f"daemon exit status {status}")
        flat = report(stats, args.seconds, started, log_path.read_text(errors="replace"))
    return 0 if flat else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
