"""Tracker throughput: human-like event streams for whole games, events per second on one core.

``--against REV`` also runs the same streams through the tracker of git revision ``REV``, in
alternating subprocesses (one round each, in turn), and prints the ratio: a change's cost measured
in one run, on the same load.
"""

from __future__ import annotations

import argparse
import os
import pickle
import random
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

from boardctl.core.rules import Variant
from boardctl.events import Event
from boardctl.gestures import Hand, events_for_game, random_game
from boardctl.tracker import Policy, Tracker
from boardctl.variants import NAMES, get_variant


def _streams(games: int, seed: int, variant: Variant | None = None) -> list[tuple[Policy, list[Event]]]:
    rng = random.Random(seed)
    streams = []
    for index in range(games):
        policy = Policy.STRICT if index % 2 else Policy.CASUAL
        moves = random_game(rng, max_plies=100, variant=variant)
        streams.append((policy, events_for_game(moves, Hand(rng, policy=policy), variant=variant)))
    return streams


#: One round in a subprocess: the streams from a pickle (policies by value), the CPU seconds on stdout.
_ROUND = """
import pickle, sys, time
from boardctl.tracker import Tracker
from boardctl.variants import get_variant
variant = get_variant(sys.argv[2])
with open(sys.argv[1], "rb") as f:
    streams = pickle.load(f)
start = time.process_time()
for policy, events in streams:
    feed = Tracker(policy=policy, variant=variant).feed
    for event in events:
        feed(event)
print(time.process_time() - start)
"""


def _round(root: Path, streams: Path, variant: str) -> float:
    env = {**os.environ, "PYTHONPATH": str(root)}
    out = subprocess.run(
        [sys.executable, "-c", _ROUND, str(streams), variant], env=env, check=True, capture_output=True, text=True, cwd=root
    )
    return float(out.stdout.strip())


def against(rev: str, streams: list[tuple[Policy, list[Event]]], variant: str, rounds: int) -> None:
    """The same streams through this tree's tracker and revision ``rev``'s, rounds alternating."""
    here = Path(__file__).resolve().parent.parent
    total = sum(len(events) for _, events in streams)
    with tempfile.TemporaryDirectory() as tmp:
        old = Path(tmp) / "old"
        old.mkdir()
        archive = subprocess.run(["git", "archive", rev, "boardctl"], cwd=here, check=True, capture_output=True).stdout
        with tarfile.open(fileobj=__import__("io").BytesIO(archive)) as tar:
            tar.extractall(old, filter="data")
        data = Path(tmp) / "streams.pickle"
        # The policy as its value: the classes may live in other modules in the other revision.
        data.write_bytes(pickle.dumps([(str(policy), events) for policy, events in streams]))
        new_rates, old_rates = [], []
        for index in range(rounds):
            # Which runs first alternates too: a round after another runs a little faster.
            for root, rates in [(here, new_rates), (old, old_rates)][:: 1 if index % 2 else -1]:
                rates.append(total / _round(root, data, variant))
    new, base = statistics.median(new_rates), statistics.median(old_rates)
    print(f"tracker ({variant}) against {rev}: {new:,.0f} vs {base:,.0f} events/s per CPU second, "
          f"ratio {new / base:.3f} (median of {rounds} alternating rounds)")


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="bench.tracker")
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--variant", choices=NAMES, default="chess")
    parser.add_argument("--against", metavar="REV", help="also time git revision REV's tracker on the same streams")
    args = parser.parse_args(argv)
    variant = get_variant(args.variant)
    streams = _streams(args.games, seed=1, variant=variant)
    if args.against:
        against(args.against, streams, variant.name, args.rounds)
        return
    total = sum(len(events) for _, events in streams)
    rates, cpu_rates = [], []
    worst = 0.0
    for _ in range(args.rounds):
        start, cpu_start = time.perf_counter(), time.process_time()
        for policy, events in streams:
            tracker = Tracker(policy=policy, variant=variant)
            feed = tracker.feed
            for event in events:
                feed(event)
        rates.append(total / (time.perf_counter() - start))
        cpu_rates.append(total / (time.process_time() - cpu_start))
    for policy, events in streams[:10]:
        tracker = Tracker(policy=policy, variant=variant)
        for event in events:
            t0 = time.perf_counter()
            tracker.feed(event)
            worst = max(worst, time.perf_counter() - t0)
    wall, cpu = statistics.median(rates), statistics.median(cpu_rates)
    name = "tracker" if variant.name == "chess" else f"tracker ({variant.name})"
    print(f"{name}: {total} events in {args.games} games, {args.rounds} rounds (median of rounds)")
    print(f"{name}: {cpu:,.0f} events/s per CPU second ({1e6 / cpu:.1f} us/event, target <= 50 us); "
          f"wall clock {wall:,.0f} events/s; slowest single event {worst * 1e6:.0f} us")


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
