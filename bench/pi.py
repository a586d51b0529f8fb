"""A Raspberry Pi Zero 2 W budget, simulated: the daemon, the engine and a page client in a cgroup
with a Zero 2 W's memory and a CPU quota scaled to its speed, for a whole game at each level.

What is simulated, and the assumptions (printed with the table):

- **Memory**: the Zero 2 W has 512 MB, of which the GPU's share (64 MB on Raspberry Pi OS Lite),
  the kernel and the OS's own services keep about 130 MB: the cgroup gets ``--memory-mb``
  (default 380 MB) for everything boardctl runs, with no swap beyond it. The page client runs
  inside too (as a browser on the Pi's own screen would; a phone's would not count).
- **CPU**: 4 Cortex-A53 cores at 1 GHz. One A53 core is assumed to run this kind of branchy
  integer code ``--core-ratio`` (default 1/8) as fast as one core of the machine running the
  bench (an in-order dual-issue core at 1 GHz against an out-of-order core at about 3 GHz: about
  2.5x in work per clock, 3x in clock). The engine searches on one thread, so it gets its own
  cgroup of one A53 core's worth; everything else shares the other three cores' worth. The
  engine's nodes per second inside and outside the quota are measured and printed, so the ratio
  the quota produced is visible, not only assumed.

Each level plays one whole game (or ``--plies`` at most) through the real page protocol: a
player page makes random legal moves with a hand's timing and carries out the engine's replies
(bench/soak.py's player). Measured: start to ready (process start to the page answering), the
engine's reply lit (the human's last placement sent -> the state line with the reply to make),
sensor event -> the state line carrying its LEDs (p99), the cgroup's peak memory, its failed
charges and OOM kills, and major page faults (a swap storm shows there first).

Needs root (cgroup v1 ``memory`` and ``cpu`` controllers, or cgroup v2 with both enabled).
``python -m bench pi [--levels beginner master] [--plies 80]``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
V1 = Path("/sys/fs/cgroup")
REPLY_LIMIT_S = 2.0  # the engine's reply at beginner, lit
LED_P99_LIMIT_MS = 20.0
READY_LIMIT_S = 5.0
#: The quota's period. CFS lets a group use its quota and then stops it until the period ends; with
#: the default 100 ms a group of 3/8 CPU would stand still for up to 62 ms at a time, which no
#: slower CPU does. A short period spreads the quota as a slower core would.
PERIOD_US = 10_000  # (CFS takes quotas of 1 ms or more: the engine's 1/8 CPU is 1.25 ms of 10)


# -- the cgroups -----------------------------------------------------------------------------------


class Cgroup:
    """A cgroup v1 pair (memory, cpu) named ``name``, with a child cpu group for the engine."""

    def __init__(self, name: str, *, memory_mb: int, cpus: float, engine_cpus: float) -> None:
        self.memory = V1 / "memory" / name
        self.cpu = V1 / "cpu" / name
        self.engine_cpu = self.cpu / "engine"
        self.rest_cpu = self.cpu / "rest"
        for path in (self.memory, self.cpu, self.engine_cpu, self.rest_cpu):
            path.mkdir(exist_ok=True)
        try:
            self._limit(memory_mb, cpus, engine_cpus)
        except OSError:
            self.remove()
            raise

    def _limit(self, memory_mb: int, cpus: float, engine_cpus: float) -> None:
        limit = memory_mb * 1024 * 1024
        (self.memory / "memory.limit_in_bytes").write_text(str(limit))
        swap = self.memory / "memory.memsw.limit_in_bytes"
        if swap.exists():
            with contextlib.suppress(OSError):
                swap.write_text(str(limit))  # no swap beyond the memory limit
        (self.memory / "memory.swappiness").write_text("0")
        for path, share in ((self.cpu, cpus), (self.engine_cpu, engine_cpus), (self.rest_cpu, cpus - engine_cpus)):
            (path / "cpu.cfs_period_us").write_text(str(PERIOD_US))
            (path / "cpu.cfs_quota_us").write_text(str(int(share * PERIOD_US)))

    def enter(self) -> None:
        """Move the calling process in (a ``preexec_fn``: the daemon and its children inherit)."""
        pid = str(os.getpid())
        (self.memory / "cgroup.procs").write_text(pid)
        (self.rest_cpu / "cgroup.procs").write_text(pid)

    def move_engines(self) -> int:
        """Put the engine processes started inside into the engine's cpu group; how many moved."""
        moved = 0
        for pid in (self.rest_cpu / "cgroup.procs").read_text().split():
            with contextlib.suppress(OSError):
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
                if b"engine" in cmdline or any(part.endswith(b"boardctl-engine") for part in cmdline):
                    (self.engine_cpu / "cgroup.procs").write_text(pid)
                    moved += 1
        return moved

    def read(self, name: str) -> int:
        return int((self.memory / name).read_text().split()[0])

    def stat(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for line in (self.memory / "memory.stat").read_text().splitlines():
            key, value = line.split()
            out[key] = int(value)
        return out

    def oom_kills(self) -> int:
        for line in (self.memory / "memory.oom_control").read_text().splitlines():
            if line.startswith("oom_kill "):
                return int(line.split()[1])
        return 0

    def remove(self) -> None:
        for path in (self.engine_cpu, self.rest_cpu, self.cpu, self.memory):
            with contextlib.suppress(OSError):
                path.rmdir()


def can_run() -> str | None:
    """None when this machine can run the bench, else why not."""
    if os.geteuid() != 0:
        return "needs root (cgroups)"
    if not (V1 / "memory" / "memory.limit_in_bytes").exists() or not (V1 / "cpu" / "cpu.cfs_quota_us").exists():
        return "needs the cgroup v1 memory and cpu controllers under /sys/fs/cgroup"
    return None


# -- the engine's speed inside and outside --------------------------------------------------------


ENGINE_NPS = """
from engine.searcher import Searcher
from engine.uci import BENCH_FENS
import time
s = Searcher(hash_mb=16); s.warm()
cpu = time.process_time()
nodes, seconds = s.bench(BENCH_FENS[:6], DEPTH)
print(nodes, seconds, time.process_time() - cpu)
"""


def engine_nps(cgroup: Cgroup | None, depth: int) -> float:
    """The engine's search on one thread: nodes per CPU second here (what one core does, however
    loaded the machine is), or, in the engine's cpu group of ``cgroup``, nodes per wall second
    (what the quota lets it do)."""
    def enter() -> None:
        if cgroup is not None:
            cgroup.enter()
            (cgroup.engine_cpu / "cgroup.procs").write_text(str(os.getpid()))

    env = {**os.environ, "NUMBA_CACHE_DIR": os.environ.get("NUMBA_CACHE_DIR", str(REPO / ".numba-cache"))}
    code = ENGINE_NPS.replace("DEPTH", str(depth))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=900,
                         check=True, cwd=REPO, env=env, preexec_fn=enter)
    nodes, wall, cpu = out.stdout.split()
    return int(nodes) / float(wall if cgroup is not None else cpu)


# -- one game ---------------------------------------------------------------------------------------


@dataclass
class GameStats:
    level: str
    ready_s: float = float("nan")
    replies_s: list[float] = field(default_factory=list)
    leds_ms: list[float] = field(default_factory=list)
    plies: int = 0
    result: str = "*"
    errors: list[str] = field(default_factory=list)
    peak_mb: float = float("nan")
    failcnt: int = 0
    oom_kills: int = 0
    major_faults: int = 0
    exit_status: int | None = None


class _Player:
    """bench/soak.py's player page, which also times the engine's replies: from the last event
    it sent (the human's placement) to the first state line with a new reply to make."""

    @staticmethod
    def make(ws: Any, soak: Any, rng: random.Random, end: float, replies: list[float]) -> Any:
        from bench.soak import Player

        class Timed(Player):
            last_sent = 0.0
            pending: str | None = None

            def on_state(self, data: dict[str, Any], now: float) -> None:
                pending = data.get("pending")
                if pending and pending != self.pending and len(data.get("moves") or []) % 2 == 1:
                    replies.append(now - self.last_sent)
                self.pending = pending

            async def send(self, action: dict[str, Any]) -> None:
                if "event" in action:
                    self.last_sent = time.monotonic()
                await super().send(action)

        return Timed(ws, soak, rng, end)


async def _play(url: str, stats: GameStats, plies: int, seed: int) -> None:
    import aiohttp
    import chess

    from bench.soak import Stats

    soak = Stats()
    end = time.monotonic() + 1800
    async with aiohttp.ClientSession() as session, session.ws_connect(url + "ws") as ws:
        player = _Player.make(ws, soak, random.Random(seed), end, stats.replies_s)
        reader = asyncio.create_task(player.reader())
        while time.monotonic() < end:
            player.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(player.changed.wait(), 0.5)
            state = player.state
            if not state:
                continue
            moves = state.get("moves") or []
            if state.get("result") != "*" or len(moves) >= plies:
                stats.result, stats.plies = state.get("result", "*"), len(moves)
                break
            if chess.Board(state["fen"]).is_game_over():
                continue  # the result is on its way
            await player.step()
        reader.cancel()
        with contextlib.suppress(BaseException):
            await reader
    stats.leds_ms = [ms for _, ms in soak.latencies]
    stats.errors += soak.errors


def play_one(level: str, cgroup: Cgroup, *, plies: int, seed: int) -> GameStats:
    from bench.soak import _free_port

    stats = GameStats(level)
    with tempfile.TemporaryDirectory(prefix="bench-pi-") as tmpdir:
        tmp = Path(tmpdir)
        port = _free_port()
        env = {**os.environ, "XDG_CONFIG_HOME": str(tmp / "config"), "XDG_DATA_HOME": str(tmp / "data")}
        env.setdefault("NUMBA_CACHE_DIR", str(REPO / ".numba-cache"))
        cmd = [sys.executable, "-m", "boardctl", "play", "--board", "sim", "--no-terminal", "--port", str(port),
               "--new", "--games-dir", str(tmp / "games"), "--color", "white", "--orientation", "normal",
               "--level", level]
        log_path = tmp / "daemon.log"
        before = cgroup.stat().get("total_pgmajfault", 0)
        started = time.monotonic()
        with log_path.open("wb") as log:
            proc = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                    preexec_fn=cgroup.enter)
        url = f"http://127.0.0.1:{port}/"
        try:
            while True:
                if proc.poll() is not None:
                    stats.errors.append(f"daemon exited with {proc.returncode}")
                    return stats
                try:
                    urllib.request.urlopen(url + "api/state", timeout=2).close()
                    break
                except OSError:
                    if time.monotonic() - started > 120:
                        stats.errors.append("daemon not ready within 120 s")
                        return stats
                    time.sleep(0.05)
            stats.ready_s = time.monotonic() - started
            client = subprocess.Popen([sys.executable, "-m", "bench.pi", "--client", url, "--plies", str(plies),
                                       "--seed", str(seed)], cwd=REPO, stdout=subprocess.PIPE, text=True,
                                      preexec_fn=cgroup.enter)
            while client.poll() is None:
                cgroup.move_engines()
                time.sleep(0.2)
            assert client.stdout is not None
            played = json.loads(client.stdout.read() or "{}")
            if client.returncode != 0 or not played:
                stats.errors.append(f"page client exited with {client.returncode}")
            for key in ("replies_s", "leds_ms", "plies", "result", "errors"):
                if key in played:
                    setattr(stats, key, played[key] if key != "errors" else stats.errors + played[key])
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                stats.exit_status = proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                stats.exit_status = -9
            text = log_path.read_text(errors="replace")
            stats.errors += [line for line in text.splitlines() if " ERROR " in line or "Traceback" in line]
        stats.peak_mb = cgroup.read("memory.max_usage_in_bytes") / 2**20
        stats.failcnt = cgroup.read("memory.failcnt")
        stats.oom_kills = cgroup.oom_kills()
        stats.major_faults = cgroup.stat().get("total_pgmajfault", 0) - before
    return stats


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else float("nan")


def report(games: list[GameStats], *, memory_mb: int, ratio: float, nps_out: float, nps_in: float) -> bool:
    print(f"Zero 2 W budget: {memory_mb} MB, CPU 4 x {ratio:.3f} of one core here "
          f"(engine alone: {ratio:.3f}); engine {nps_out / 1e3:.0f} k nodes per CPU second here, "
          f"{nps_in / 1e3:.0f} k nodes/s in its quota (ratio {nps_in / nps_out:.3f})")
    print("| level | plies | result | ready | reply lit, median / max | event -> LEDs p99 | peak memory "
          "| failed charges | OOM kills | major faults |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    ok = True
    for g in games:
        replies = g.replies_s
        med = statistics.median(replies) if replies else float("nan")
        top = max(replies) if replies else float("nan")
        p99 = _pct(g.leds_ms, 0.99)
        print(f"| {g.level} | {g.plies} | {g.result} | {g.ready_s:.2f} s | {med:.2f} s / {top:.2f} s | "
              f"{p99:.1f} ms (n={len(g.leds_ms)}) | {g.peak_mb:.0f} MB | {g.failcnt} | {g.oom_kills} | "
              f"{g.major_faults} |")
        fine = (not g.errors and g.oom_kills == 0 and g.exit_status == 0 and g.ready_s <= READY_LIMIT_S
                and p99 <= LED_P99_LIMIT_MS and bool(replies) and (g.level != "beginner" or top <= REPLY_LIMIT_S))
        for line in g.errors[:5]:
            print(f"  {g.level}: {line}")
        ok = ok and fine
    print(f"limits: ready <= {READY_LIMIT_S} s, the reply at beginner lit <= {REPLY_LIMIT_S} s, "
          f"event -> LEDs p99 <= {LED_P99_LIMIT_MS} ms, no OOM kill, exit status 0")
    print("pi budget:", "holds" if ok else "DOES NOT HOLD", flush=True)
    return ok


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench pi", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--levels", nargs="+", default=["beginner", "master"])
    parser.add_argument("--plies", type=int, default=80, help="at most this many plies a game (default 80)")
    parser.add_argument("--memory-mb", type=int, default=380)
    parser.add_argument("--core-ratio", type=float, default=1 / 8,
                        help="one Zero 2 W core's speed as a share of one core here (default 1/8)")
    parser.add_argument("--depth", type=int, default=8, help="depth of the engine's speed test")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--client", metavar="URL", help=argparse.SUPPRESS)  # the page client, run inside
    args = parser.parse_args(argv)
    if args.client:
        stats = GameStats("")
        asyncio.run(_play(args.client, stats, args.plies, args.seed))
        print(json.dumps({"replies_s": stats.replies_s, "leds_ms": stats.leds_ms, "plies": stats.plies,
                          "result": stats.result, "errors": stats.errors}))
        return 0
    why = can_run()
    if why is not None:
        print(f"bench pi: {why}")
        return 0
    cgroup = Cgroup(f"boardctl-pi-{os.getpid()}", memory_mb=args.memory_mb, cpus=4 * args.core_ratio,
                    engine_cpus=args.core_ratio)
    try:
        nps_out = engine_nps(None, args.depth)
        nps_in = engine_nps(cgroup, args.depth)
        games = [play_one(level, cgroup, plies=args.plies, seed=args.seed + n) for n, level in enumerate(args.levels)]
        ok = report(games, memory_mb=args.memory_mb, ratio=args.core_ratio, nps_out=nps_out, nps_in=nps_in)
    finally:
        cgroup.remove()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
