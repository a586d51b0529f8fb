"""A club room through one Mosquitto: every move of every board in the relay's PGN, once and in
order, while the broker restarts and boards lose their link; move -> relay page latency; relay RSS.

``python -m bench club [--boards 200] [--procs 4] [--compress 10]``: ``--boards`` simulated boards
(real daemons with sim boards and the broadcast face, bench/club_room.py), spread over ``--procs``
worker processes, play a round whose board time (about 20 minutes: thinking 1-28 s before each of
up to 80 plies, then a resignation) runs ``--compress`` times faster than the wall clock. One
private ``mosquitto`` carries them to one ``boardctl relay`` process. During the round the broker
is restarted ``--restarts`` times (1 s down) and ``--offline`` boards lose their link (a TCP relay
that drops and refuses their connections) for ``--offline-seconds`` each.

Measured: the relay's ``/games.pgn`` at the end against every board's own record (moves, clocks,
result: a move lost or doubled breaks the equality); the time from a move being made on a board
to the relay's page stream (``/api/stream``, what the page shows) carrying it, over the moves made
while that board's link and the broker were up; and the relay process's VmRSS every 2 s. The
games are saved on /dev/shm (the bench is about the broadcast, not an SD card's fsyncs).

``--demo`` (``make demo-club``): 16 boards of a made-up club evening in real time (thinking 2-10 s,
the last board off line for 20 s), the relay's page on http://127.0.0.1:8090/ until Ctrl-C.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import json
import multiprocessing
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import chess.pgn

from bench.mqtt_rig import Broker, CuttableLink, free_port

EVENT = "club"


def _worker(names: list[str], broker_port: int, folder: str, compress: float, start_at: float,
            offline: dict[str, float], offline_seconds: float, plies: int, think: tuple[float, float],
            out: str) -> None:
    """One process of boards: play them all, write what each board recorded to ``out``."""
    asyncio.run(_boards(names, broker_port, Path(folder), compress, start_at, offline, offline_seconds, plies, think,
                        Path(out)))


async def _boards(names: list[str], broker_port: int, folder: Path, compress: float, start_at: float,
                  offline: dict[str, float], offline_seconds: float, plies: int, think: tuple[float, float],
                  out: Path | None) -> None:
    from bench.club_room import RoomBoard, make_script
    from boardctl.broadcast.schema import parse_address

    links: dict[str, CuttableLink] = {}
    boards = []
    for name in names:
        port = broker_port
        if name in offline:
            links[name] = CuttableLink(broker_port)
            await links[name].start()
            port = links[name].port
        address = parse_address(f"mqtt://127.0.0.1:{port}/{EVENT}/{name}", board=True)
        boards.append(RoomBoard(address, folder / name, make_script(int(name), plies=plies, think=think)))
    for board in boards:
        await board.start()
    origin = time.monotonic() + (start_at - time.time())
    windows: dict[str, list[float]] = {}

    async def cut(name: str, at: float) -> None:
        await asyncio.sleep(max(0.0, origin + at - time.monotonic()))
        windows[name] = [time.time(), time.time() + offline_seconds]
        links[name].cut(offline_seconds)

    cuts = [asyncio.create_task(cut(name, at)) for name, at in offline.items()]
    await asyncio.gather(*(board.play(compress, start=origin) for board in boards), *cuts)
    # Stay connected until every link is back and the last messages are out.
    deadline = time.monotonic() + offline_seconds + 10
    while any(link.is_down for link in links.values()) and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
    await asyncio.sleep(3.0)
    report = {}
    for board in boards:
        record = board.session.record
        report[board.publisher.board] = {"moves": record.moves, "clocks": record.clocks, "result": record.result,
                                         "made": board.made, "offline": windows.get(board.publisher.board)}
    for board in boards:
        await board.close()
    for link in links.values():
        await link.close()
    if out is not None:
        out.write_text(json.dumps(report), encoding="utf-8")


def _rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def _cpu_s(pid: int) -> float:
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class PageWatch:
    """Reads the relay's page stream: when each (board, ply) first shows."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.seen: dict[tuple[str, int], float] = {}
        self.plies: dict[str, int] = {}
        self.went_back = 0

    async def run(self) -> None:
        import aiohttp

        while True:
            try:
                async with aiohttp.ClientSession() as session, session.get(self.url) as response:
                    buffer = b""
                    async for chunk in response.content.iter_any():
                        buffer += chunk
                        while b"\n\n" in buffer:
                            message, buffer = buffer.split(b"\n\n", 1)
                            self._message(json.loads(message.removeprefix(b"data: ")), time.time())
            except (aiohttp.ClientError, ConnectionError):
                await asyncio.sleep(0.2)

    def _message(self, body: dict[str, Any], now: float) -> None:
        for board in body["boards"]:
            name, plies = board["board"], board.get("plies", 0)
            before = self.plies.get(name, 0)
            if plies < before:
                self.went_back += 1
            for ply in range(before + 1, plies + 1):
                self.seen.setdefault((name, ply), now)
            self.plies[name] = max(before, plies)


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


async def _fetch(url: str) -> str:
    import aiohttp

    async with aiohttp.ClientSession() as session, session.get(url) as response:
        return await response.text()


async def run_bench(args: argparse.Namespace) -> int:
    folder = Path(tempfile.mkdtemp(prefix="bench-club-", dir="/dev/shm" if Path("/dev/shm").is_dir() else None))
    names = [str(n) for n in range(1, args.boards + 1)]
    rng = random.Random(7)
    round_wall = 20 * 60 / args.compress
    offline = {name: rng.uniform(0.1, 0.6) * round_wall for name in rng.sample(names, min(args.offline, len(names)))}
    with Broker(folder / "broker") as broker:
        http = free_port()
        relay = subprocess.Popen([sys.executable, "-m", "boardctl", "relay", f"{broker.url}/{EVENT}", "--http", str(http),
                                  "--name", "bench"], stderr=subprocess.DEVNULL)
        watch = PageWatch(f"http://127.0.0.1:{http}/api/stream")
        watcher = asyncio.create_task(watch.run())
        start_at = time.time() + 3.0 + args.boards * 0.02
        context = multiprocessing.get_context("spawn")
        workers = []
        for index in range(args.procs):
            mine = names[index::args.procs]
            workers.append(context.Process(target=_worker, args=(
                mine, broker.port, str(folder / "boards"), args.compress, start_at,
                {n: offline[n] for n in mine if n in offline}, args.offline_seconds, args.plies, (1.0, 28.0),
                str(folder / f"worker{index}.json"))))
        for worker in workers:
            worker.start()
        rss: list[tuple[float, float]] = []
        restarts = [start_at + round_wall * (i + 1) / (args.restarts + 1) for i in range(args.restarts)]
        down: list[tuple[float, float]] = []
        deadline = time.time() + round_wall * 1.5 + args.offline_seconds + 120
        while any(w.is_alive() for w in workers) and time.time() < deadline:
            if restarts and time.time() >= restarts[0]:
                restarts.pop(0)
                began = time.time()
                await asyncio.to_thread(broker.restart, down=1.0)
                down.append((began, time.time()))
            with contextlib.suppress(OSError):
                rss.append((time.time() - start_at, _rss_mb(relay.pid)))
            await asyncio.sleep(2.0)
        for worker in workers:
            if worker.is_alive():
                print(f"worker {worker.pid} still running after the round: stopped", file=sys.stderr)
                worker.kill()
        records: dict[str, Any] = {}
        for index in range(args.procs):
            path = folder / f"worker{index}.json"
            if not path.exists():
                print(f"worker {index} failed (exit status {workers[index].exitcode}): its boards are missing",
                      file=sys.stderr)
                continue
            records.update(json.loads(path.read_text(encoding="utf-8")))
        pgn = await _fetch(f"http://127.0.0.1:{http}/games.pgn")
        arbiter = json.loads(await _fetch(f"http://127.0.0.1:{http}/api/arbiter"))
        for note in arbiter["notes"][:10]:
            print(f"relay note: board {note['board']}: {note['text']}", file=sys.stderr)
        print(f"| relay's messages: applied / duplicates / refused / status | {arbiter['counts']['applied']} / "
              f"{arbiter['counts']['duplicate']} / {arbiter['counts']['refused']} / {arbiter['counts']['status']} |")
        relay_cpu = _cpu_s(relay.pid)
        rss.append((time.time() - start_at, _rss_mb(relay.pid)))
        watcher.cancel()
        relay.terminate()
        relay.wait(timeout=20)
        late_pgn = await _late_relay(broker, len(records))
    shutil.rmtree(folder, ignore_errors=True)
    print(f"| a relay started after the round: games equal | {_equal_games(records, late_pgn)} / {len(records)} |")
    return _report(args, records, pgn, watch, rss, down, relay_cpu, time.time() - start_at)


async def _late_relay(broker: Broker, boards: int) -> str:
    """The PGN of a relay started once the round is over: only the broker's retained messages."""
    http = free_port()
    late = subprocess.Popen([sys.executable, "-m", "boardctl", "relay", f"{broker.url}/{EVENT}", "--http", str(http),
                             "--name", "late"], stderr=subprocess.DEVNULL)
    text = ""
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            await asyncio.sleep(0.5)
            with contextlib.suppress(OSError, Exception):
                text = await _fetch(f"http://127.0.0.1:{http}/games.pgn")
            if text.count("[Board ") >= boards and '[Result "*"]' not in text:
                break
    finally:
        late.terminate()
        late.wait(timeout=20)
    return text


def _read_pgn(pgn: str) -> tuple[dict[str, list[str]], dict[str, str]]:
    games: dict[str, list[str]] = {}
    results: dict[str, str] = {}
    stream = io.StringIO(pgn)
    while (game := chess.pgn.read_game(stream)) is not None:
        games[game.headers["Board"]] = [m.uci() for m in game.mainline_moves()]
        results[game.headers["Board"]] = game.headers["Result"]
    return games, results


def _equal_games(records: dict[str, Any], pgn: str) -> int:
    games, results = _read_pgn(pgn)
    return sum(1 for name, r in records.items() if games.get(name) == r["moves"] and results.get(name) == r["result"])


def _report(args: argparse.Namespace, records: dict[str, Any], pgn: str, watch: PageWatch,
            rss: list[tuple[float, float]], down: list[tuple[float, float]], relay_cpu: float, wall: float) -> int:
    games, results = _read_pgn(pgn)
    for name, r in records.items():
        if games.get(name) != r["moves"] or results.get(name) != r["result"]:
            print(f"board {name}: record {len(r['moves'])} plies {r['result']}, relay "
                  f"{len(games.get(name, []))} plies {results.get(name)}", file=sys.stderr)
    total = sum(len(r["moves"]) for r in records.values())
    equal = _equal_games(records, pgn)
    lost = sum(max(0, len(r["moves"]) - len(games.get(name, []))) for name, r in records.items())
    extra = sum(max(0, len(games.get(name, [])) - len(r["moves"])) for name, r in records.items())
    latencies, delayed = [], []
    for name, r in records.items():
        for ply, made in r["made"].items():
            seen = watch.seen.get((name, int(ply)))
            if seen is None:
                continue
            window = r["offline"]
            disturbed = (window is not None and window[0] - 1 <= made <= window[1] + 3) or any(
                a - 1 <= made <= b + 3 for a, b in down)
            (delayed if disturbed else latencies).append((seen - made) * 1000)
    mid = [m for t, m in rss if t > 0]
    print(f"| boards | {args.boards} in {args.procs} processes, {args.compress:g}x compressed time |")
    print(f"| moves made / in the relay's PGN, in order | {total} / {total - lost} ({lost} lost, {extra} extra) |")
    print(f"| games equal to the board's record (moves, result) | {equal} / {len(records)} |")
    print(f"| page went back (a ply shown then withdrawn) | {watch.went_back} |")
    print(f"| move -> page, undisturbed moves: p50 / p99 / max ms | {_percentile(latencies, 0.5):.0f} / "
          f"{_percentile(latencies, 0.99):.0f} / {max(latencies, default=float('nan')):.0f} (n={len(latencies)}) |")
    print(f"| move -> page, moves near a restart or an offline board: p50 / max s | "
          f"{_percentile(delayed, 0.5) / 1000:.1f} / {max(delayed, default=float('nan')) / 1000:.1f} (n={len(delayed)}) |")
    if mid:
        marks = " / ".join(f"{mid[min(len(mid) - 1, int(q * len(mid)))]:.0f}" for q in (0.0, 0.25, 0.5, 0.75))
        print(f"| relay RSS MB at the start, a quarter, half, three quarters of the round / the end / max | "
              f"{marks} / {mid[-1]:.0f} / {max(mid):.0f} |")
    print(f"| relay CPU time / wall | {relay_cpu:.0f} s / {wall:.0f} s |")
    print(f"| broker restarts / boards off line | {len(down)} / {args.offline} x {args.offline_seconds:g} s |")
    print(f"| load average (1 min) at the end | {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs |")
    return 0 if lost == 0 and extra == 0 and equal == len(records) else 1


#: The demo's players (made up): a club's evening, one line per board.
DEMO_PLAYERS = ["Ada Reyes", "Ben Okafor", "Chloé Martin", "Dev Patel", "Elif Yılmaz", "Finn Larsen", "Grace Liu",
                "Hugo Silva", "Ines Novak", "Jonas Berg", "Kira Tanaka", "Luca Romano", "Maya Cohen", "Nils Eriksson",
                "Olga Petrova", "Pablo Ruiz", "Quinn Walsh", "Rosa Jimenez", "Sam Mensah", "Tara Singh"]


async def run_demo(args: argparse.Namespace) -> int:
    """Boards in real time on the relay's page until Ctrl-C (SIGINT) or SIGTERM."""
    import signal

    folder = Path(tempfile.mkdtemp(prefix="demo-club-"))
    names = [str(n) for n in range(1, args.boards + 1)]
    pairings = folder / "pairings.csv"
    rows = [f"{n},{DEMO_PLAYERS[(2 * i) % len(DEMO_PLAYERS)]},{DEMO_PLAYERS[(2 * i + 1) % len(DEMO_PLAYERS)]},1"
            for i, n in enumerate(names)]
    pairings.write_text("board,white,black,round\n" + "\n".join(rows) + "\n", encoding="utf-8")
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    with Broker(folder / "broker") as broker:
        relay = subprocess.Popen([sys.executable, "-m", "boardctl", "relay", f"{broker.url}/{EVENT}", "--http",
                                  str(args.http), "--name", "demo", "--pairings", str(pairings)])
        try:
            print(f"A room of {args.boards} boards: open http://127.0.0.1:{args.http}/ (the PGN: /games.pgn); "
                  "the last board loses its Wi-Fi for 20 s after 40 s; Ctrl-C ends it", flush=True)
            play = asyncio.create_task(_boards(names, broker.port, folder / "boards", 1.0, time.time() + 2.0,
                                               {names[-1]: 40.0}, 20.0, 60, (2.0, 10.0), None))
            play.add_done_callback(lambda t: t.cancelled() or print("Every game is over; the page stays up until "
                                                                    "Ctrl-C", flush=True))
            await stop.wait()
            play.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await play
        finally:
            relay.terminate()
            relay.wait(timeout=20)
            shutil.rmtree(folder, ignore_errors=True)
    return 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench club", description=__doc__.split("\n\n")[0])
    parser.add_argument("--boards", type=int, default=200)
    parser.add_argument("--procs", type=int, default=4)
    parser.add_argument("--compress", type=float, default=10.0)
    parser.add_argument("--plies", type=int, default=80)
    parser.add_argument("--restarts", type=int, default=2)
    parser.add_argument("--offline", type=int, default=20)
    parser.add_argument("--offline-seconds", type=float, default=30.0)
    parser.add_argument("--demo", action="store_true")
    parser.add_argument("--http", type=int, default=8090)
    args = parser.parse_args(argv)
    if args.demo:
        if "--boards" not in argv:
            args.boards = 16
        return asyncio.run(run_demo(args))
    return asyncio.run(run_bench(args))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
