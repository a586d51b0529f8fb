"""ChessLink: sensor event -> status report on the transport (p99, over a pty; target <= 20 ms).

The path, as under ``boardctl link --transport serial``: a sensor thread changes the sim board
(as the gpio scanner or the serial reader would) -> ``asyncio_callback`` -> the daemon's loop ->
tracker and session -> the state line -> the ChessLink face (which piece stands where, the
emulated board's report) -> ``AppPort.write`` on the pty's device side -> the app's end of the
pty, read by another thread, where the report is taken apart and checked. The time is taken
from just before the change to the moment the app holds the first whole status that shows it.
Moves come from human-like gesture streams of random games (the sim keeps them physical), one
change every 40-120 ms. Reports on every change (``W0203``) and on every scan (the default).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import select
import statistics
import tempfile
import threading
import time
from pathlib import Path

from boardctl.chesslink.face import ChessLinkFace
from boardctl.chesslink.transports import serve_port
from boardctl.daemon import Daemon
from boardctl.events import SquareChanged
from boardctl.gestures import Hand, events_for_game, random_game
from boardctl.hw.appport import AppPort
from boardctl.hw.sim import SimBoard
from boardctl.session import Session, Settings
from boardctl.storage import GameStore


def _odd(char: str) -> int:
    code = ord(char)
    return code | 0x80 if bin(code).count("1") % 2 == 0 else code


def _frame(text: str) -> bytes:
    check = 0
    for ch in text:
        check ^= ord(ch)
    return bytes(_odd(ch) for ch in text + f"{check:02X}")


def _changes(games: int, seed: int) -> list[SquareChanged]:
    """The square changes of human-like games played one after another (the board set up again between)."""
    rng = random.Random(seed)
    out: list[SquareChanged] = []
    for _ in range(games):
        out += [e for e in events_for_game(random_game(rng, max_plies=60), Hand(rng, adjusts=False))
                if isinstance(e, SquareChanged)]
    return out


class _App:
    """The app's end of the pty: splits the byte stream into replies, remembers each status's time."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.lock = threading.Condition()
        self.statuses: list[tuple[float, str]] = []
        self._pending = ""
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            if not select.select([self.fd], [], [], 0.05)[0]:
                continue
            try:
                data = os.read(self.fd, 4096)
            except OSError:  # the device side closed
                return
            now = time.perf_counter()
            for byte in data:
                ch = chr(byte & 0x7F)
                if not self._pending and ch not in "svlxwr":
                    continue
                self._pending += ch
                size = {"s": 67, "v": 7, "w": 7, "r": 7}.get(self._pending[0], 3)
                if len(self._pending) == size:
                    if self._pending[0] == "s":
                        with self.lock:
                            self.statuses.append((now, self._pending[1:65]))
                            self.lock.notify_all()
                    self._pending = ""

    def wait_for(self, occupied: frozenset[int], since: int, timeout: float = 2.0) -> float | None:
        """The time of the first status after index ``since`` whose occupied squares are ``occupied``."""
        deadline = time.perf_counter() + timeout
        with self.lock:
            while True:
                for at, status in self.statuses[since:]:
                    shown = frozenset((7 - i // 8) * 8 + i % 8 for i, ch in enumerate(status) if ch != ".")
                    if shown == occupied:
                        return at
                left = deadline - time.perf_counter()
                if left <= 0:
                    return None
                self.lock.wait(left)

    def close(self) -> None:
        self._stop.set()
        self.thread.join()


def run(changes: list[SquareChanged], *, mode: str, seed: int) -> list[float]:
    """Latencies (seconds) of every change, with the reports in ``mode`` (``W02`` value as text)."""
    rng = random.Random(seed)
    folder = Path(tempfile.mkdtemp(prefix="bench-link-"))
    master, slave = os.openpty()
    port = AppPort(os.ttyname(slave))
    os.close(slave)
    app = _App(master)
    latencies: list[float] = []

    async def main() -> None:
        session = Session(Settings(mode="record"))
        board = SimBoard(session.physical_occupancy())
        daemon = Daemon(session, store=GameStore(folder / "games"), board=board)
        daemon.save_after_publish = True  # as boardctl link does
        face = ChessLinkFace(daemon)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        tasks = [loop.create_task(daemon.run_board(stop)), loop.create_task(face.run(stop)),
                 loop.create_task(serve_port(face, port, stop))]
        os.write(master, _frame(f"W02{mode}"))
        await asyncio.sleep(0.3)

        def sensor() -> None:
            """The sensor thread: one change at a time, then wait for the app to see it."""
            for change in changes:
                if bool(board.pieces >> change.square & 1) == change.occupied:
                    continue  # a new game's pieces set up again: the board holds them already
                occupied = board.pieces ^ (1 << change.square)
                with app.lock:
                    since = len(app.statuses)
                start = time.perf_counter()
                board.place(change.square) if change.occupied else board.lift(change.square)
                seen = app.wait_for(frozenset(sq for sq in range(64) if occupied >> sq & 1), since)
                if seen is not None:
                    latencies.append(seen - start)
                time.sleep(rng.uniform(0.04, 0.12))

        await asyncio.to_thread(sensor)
        stop.set()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await daemon.close()

    try:
        asyncio.run(main())
    finally:
        app.close()
        port.close()
        os.close(master)
    return latencies


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="bench.link")
    parser.add_argument("--games", type=int, default=2, help="human-like games whose changes are replayed. Default: 2.")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--rounds", type=int, default=3, help="rounds per mode; the median p99 is reported "
                        "(other processes make tails vary). Default: 3.")
    args = parser.parse_args(argv)
    changes = _changes(args.games, args.seed)
    load = os.getloadavg()
    print(f"link: {os.cpu_count()} CPUs, load average {load[0]:.2f} at start")
    worst = 0.0
    for mode, name in (("03", "on every change"), ("00", "every scan (the default)")):
        p99s = []
        for round_ in range(args.rounds):
            lat = run(changes, mode=mode, seed=args.seed + round_)
            p99s.append(_pct(lat, 0.99))
            print(f"link latency [pty, reports {name}, round {round_ + 1}]: {len(lat)} changes seen; event->status "
                  f"p50 {statistics.median(lat) * 1e3:.2f} ms, p90 {_pct(lat, 0.9) * 1e3:.2f} ms, "
                  f"p99 {p99s[-1] * 1e3:.2f} ms, max {max(lat) * 1e3:.2f} ms", flush=True)
        p99 = statistics.median(p99s)
        worst = max(worst, p99)
        print(f"link latency [pty, reports {name}]: median p99 of {args.rounds} rounds {p99 * 1e3:.2f} ms "
              f"(target <= 20 ms); load average {os.getloadavg()[0]:.2f} at the end", flush=True)
    return 0 if worst <= 0.020 else 1
