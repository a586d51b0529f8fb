"""How many boards one relay and one broker hold: game messages at rising rates, no board simulated.

``python -m bench club_flood [--boards 1000] [--rates 100,200,400,800,1600] [--step 15]``: one
process publishes, for ``--boards`` boards, the ``game`` message a board would send after each
move (the whole game so far, chess games of up to 80 plies, numbered, QoS 1, retained), at each
rate in turn for ``--step`` seconds, through one private Mosquitto to one ``boardctl relay``
process. A real round makes about one message per board every 15 s (200 boards: 13 a second).

For each rate: the time from a message being published to the relay's page stream carrying its
move (p50, p99), and the CPU the relay and the broker used. Where the p99 passes 500 ms, or the
moves shown fall behind those sent, is where one relay stops.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from bench.club import EVENT, PageWatch, _cpu_s, _percentile
from bench.mqtt_rig import Broker, free_port
from boardctl.broadcast import mqtt
from boardctl.broadcast.schema import Snapshot, client_id, game_topic, parse_address
from boardctl.gestures import random_game
from boardctl.variants import get_variant


def _games(count: int, plies: int) -> list[list[str]]:
    rng = random.Random(11)
    out = []
    while len(out) < count:
        moves = [m.uci() for m in random_game(rng, max_plies=plies)]
        if len(moves) == plies:
            out.append(moves)
    return out


def _publish(address: str, boards: list[str], games: list[list[str]], rates: list[float], step: float,
             sent: dict[tuple[str, int], float], marks: list[float]) -> None:
    """(a thread) Publish at each rate for ``step`` s; the boards take turns, one ply each."""
    target = parse_address(f"{address}/{EVENT}/flood", board=True)
    client = mqtt.make_client(target, client_id("flood", EVENT))
    client.max_inflight_messages_set(5000)
    mqtt.start(client, target)
    time.sleep(1.0)
    fen = get_variant("chess").starting_fen
    plies = dict.fromkeys(boards, 0)
    seq = dict.fromkeys(boards, 0)
    turn = 0
    for rate in rates:
        marks.append(time.time())
        end = time.monotonic() + step
        start = time.monotonic()
        made = 0
        while time.monotonic() < end:
            due = int((time.monotonic() - start) * rate)
            while made < due:
                board = boards[turn % len(boards)]
                turn += 1
                game = games[turn % len(games)]
                if plies[board] >= len(game):
                    continue
                plies[board] += 1
                seq[board] += 1
                moves = game[:plies[board]]
                now = time.time()
                snap = Snapshot(seq=seq[board], event=EVENT, board=board, game="20261205-190000-000001",
                                variant="chess", fen=fen, moves=tuple(moves), clocks=tuple(900.0 - i for i in range(len(moves))),
                                result="*", termination="", white="W", black="B", time_control="15+10",
                                clock={"white": 800.0, "black": 800.0, "running": "white" if len(moves) % 2 == 0 else "black"},
                                violations=(), sent=now)
                client.publish(game_topic(EVENT, board), json.dumps(snap.to_json(), separators=(",", ":")),
                               qos=1, retain=True)
                sent[(board, plies[board])] = now
                made += 1
            time.sleep(0.005)
    marks.append(time.time())
    time.sleep(3.0)
    mqtt.stop(client)


async def run(args: argparse.Namespace) -> int:
    rates = [float(r) for r in args.rates.split(",")]
    boards = [f"f{n}" for n in range(1, args.boards + 1)]
    games = _games(40, 80)
    folder = Path(tempfile.mkdtemp(prefix="bench-flood-", dir="/dev/shm" if Path("/dev/shm").is_dir() else None))
    sent: dict[tuple[str, int], float] = {}
    marks: list[float] = []
    with Broker(folder / "broker") as broker:
        http = free_port()
        relay = subprocess.Popen([sys.executable, "-m", "boardctl", "relay", f"{broker.url}/{EVENT}", "--http", str(http),
                                  "--name", "flood"], stderr=subprocess.DEVNULL)
        await asyncio.sleep(1.5)
        watch = PageWatch(f"http://127.0.0.1:{http}/api/stream")
        watcher = asyncio.create_task(watch.run())
        publisher = threading.Thread(target=_publish, args=(broker.url, boards, games, rates, args.step, sent, marks))
        assert broker.process is not None
        cpu = [(_cpu_s(relay.pid), _cpu_s(broker.process.pid))]
        publisher.start()
        while publisher.is_alive():
            if len(marks) > len(cpu) - 1:
                cpu.append((_cpu_s(relay.pid), _cpu_s(broker.process.pid)))
            await asyncio.sleep(0.05)
        cpu.append((_cpu_s(relay.pid), _cpu_s(broker.process.pid)))
        watcher.cancel()
        relay.terminate()
        relay.wait(timeout=20)
    shutil.rmtree(folder, ignore_errors=True)
    print(f"| messages/s sent | boards | p50 ms | p99 ms | shown / sent | relay CPU | broker CPU |  "
          f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)")
    print("|---|---|---|---|---|---|---|")
    for index in range(len(rates)):
        begin, end = marks[index], marks[index + 1]
        mine = [(key, t) for key, t in sent.items() if begin <= t < end]
        latencies = [(watch.seen[key] - t) * 1000 for key, t in mine if key in watch.seen]
        relay_cpu = (cpu[index + 2][0] - cpu[index + 1][0]) / (end - begin) if index + 2 < len(cpu) else float("nan")
        broker_cpu = (cpu[index + 2][1] - cpu[index + 1][1]) / (end - begin) if index + 2 < len(cpu) else float("nan")
        print(f"| {len(mine) / (end - begin):.0f} | {args.boards} | {_percentile(latencies, 0.5):.0f} | "
              f"{_percentile(latencies, 0.99):.0f} | {len(latencies)} / {len(mine)} | {relay_cpu:.0%} | {broker_cpu:.0%} |")
    return 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench club_flood", description=__doc__.split("\n\n")[0])
    parser.add_argument("--boards", type=int, default=1000)
    parser.add_argument("--rates", default="100,200,400,800,1600")
    parser.add_argument("--step", type=float, default=15.0)
    return asyncio.run(run(parser.parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
