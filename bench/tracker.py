"""Tracker throughput: human-like event streams for whole games, events per second on one core."""

from __future__ import annotations

import argparse
import random
import statistics
import time

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


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="bench.tracker")
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--variant", choices=NAMES, default="chess")
    args = parser.parse_args(argv)
    variant = get_variant(args.variant)
    streams = _streams(args.games, seed=1, variant=variant)
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
    print(f"tracker: {cpu:,.0f} events/s per CPU second ({1e6 / cpu:.1f} us/event, target <= 50 us); "
          f"wall clock {wall:,.0f} events/s; slowest single event {worst * 1e6:.0f} us")


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
