"""The practice coach's latency: from the player's move to the verdict on the LEDs.

Run ``python -m bench coach`` (``--moves N``, default 60; ``--think S``, the player's thinking
time, default 1.5 s; ``--coach-movetime S``, default the config's 0.4 s; ``--instant`` also
measures moves made at once, before the coach has analysed the position). It plays games
in-process through the real daemon on the sim board, at ``practice1``..``practice5`` in turn
(the opponent engine at those levels' search limits, thinking at the same time as the coach),
with the player making random legal moves (captures preferred, so many moves are mistakes). The
time measured runs from the tick that completes the player's move to the coach's answer being
applied (the better move on the LEDs, or no verdict). Prints p50/p90/p99/max over all moves and
over the moves that got a verdict, with the machine's load. Every figure printed is measured now.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import tempfile
import time
from pathlib import Path

import chess

from boardctl.daemon import Daemon
from boardctl.engine_client import EngineClient
from boardctl.events import SquareChanged, Tick
from boardctl.hw.sim import SimBoard
from boardctl.learning.coach import Coach
from boardctl.session import Session, Settings
from boardctl.storage import GameStore
from engine.levels import PRACTICE_LEVELS

ENGINE = [sys.executable, "-m", "engine"]
TARGET = 1.0  # seconds, issue 15's target for the verdict on the LEDs


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _hands(daemon: Daemon, uci: str, t: float) -> float:
    """Make ``uci`` on the sim board by hand (victim off first, castling's rook too); returns the time."""
    board = chess.Board(daemon.session.board.fen())
    move = chess.Move.from_uci(uci)
    steps: list[tuple[int, bool]] = []
    if board.is_en_passant(move):
        steps.append((chess.square(chess.square_file(move.to_square), chess.square_rank(move.from_square)), False))
    elif board.is_capture(move):
        steps.append((move.to_square, False))
    steps += [(move.from_square, False), (move.to_square, True)]
    if board.is_castling(move):
        rank = chess.square_rank(move.from_square)
        kingside = chess.square_file(move.to_square) > chess.square_file(move.from_square)
        steps += [(chess.square(7 if kingside else 0, rank), False), (chess.square(5 if kingside else 3, rank), True)]
    for sq, occupied in steps:
        t += 0.1
        daemon.inject(SquareChanged(t, sq, occupied))
    return t


async def run(args: argparse.Namespace) -> int:
    rng = random.Random(args.seed)
    all_times: list[float] = []
    verdict_times: list[float] = []
    instant_times: list[float] = []
    games = 0
    with tempfile.TemporaryDirectory() as tmp:
        while len(all_times) < args.moves:
            level = PRACTICE_LEVELS[games % len(PRACTICE_LEVELS)]
            games += 1
            session = Session(Settings(mode="play", color="white", level=level, orientation="normal"))
            board = SimBoard(session.physical_occupancy(), clock=lambda s=session: s.t)
            engine = EngineClient(ENGINE, level=level, movetime=args.movetime)
            coach = Coach.from_command(ENGINE, movetime=args.coach_movetime)
            daemon = Daemon(session, store=GameStore(Path(tmp) / f"g{games}"), engine=engine, board=board,
                            virtual_board=True, virtual_time=True, coach=coach)
            daemon.direct = True
            board.start(daemon.feed)
            await asyncio.gather(engine.start(), coach.start())  # as the daemon starts both
            t = 0.0
            daemon.inject(Tick(t))
            try:
                for ply in range(args.plies):
                    if session.is_over() or len(all_times) >= args.moves:
                        break
                    instant = args.instant and ply % 4 == 3
                    if not instant:
                        await asyncio.sleep(args.think)  # the player thinks; so does the coach
                    legal = list(session.board.generate_legal_moves())
                    captures = [m for m in legal if session.board.capture_square(m) is not None]
                    move = rng.choice(captures if captures and rng.random() < 0.6 else legal)
                    t = _hands(daemon, move.uci(), t)
                    t += 0.5
                    made = len(session.record.moves)
                    notes_before = dict(session.coach_notes.verdicts)
                    start = time.perf_counter()
                    daemon.inject(Tick(t))  # the move counts now
                    assert daemon.coach is not None
                    await daemon.coach.idle()
                    took = time.perf_counter() - start
                    if len(session.record.moves) != made + 1:
                        print(f"  (the move {move.uci()} was not taken: {session.warning}; next game)")
                        break
                    (instant_times if instant else all_times).append(took)
                    if not instant and session.coach_notes.verdicts != notes_before:
                        verdict_times.append(took)
                    await daemon.idle()  # the opponent's move
                    pending = session.pending
                    if pending is None or session.is_over():
                        break
                    t = _hands(daemon, pending.uci(), t) + 0.5
                    daemon.inject(Tick(t))
            finally:
                await daemon.close()
    load = os.getloadavg()
    print(f"coach latency, move -> verdict applied (coach.movetime {args.coach_movetime} s, opponent movetime "
          f"{args.movetime} s, player thinks {args.think} s), {games} games at practice1-5, "
          f"load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} on {os.cpu_count()} cores:")
    for name, values in (("all moves", all_times), ("moves with a verdict", verdict_times),
                         ("moves made at once", instant_times)):
        if values:
            print(f"  {name:22s} n={len(values):3d}  p50 {_percentile(values, 0.5):.3f} s  "
                  f"p90 {_percentile(values, 0.9):.3f} s  p99 {_percentile(values, 0.99):.3f} s  max {max(values):.3f} s")
    if verdict_times:
        met = _percentile(verdict_times, 0.99) <= TARGET
        print(f"  target: verdict on the LEDs within {TARGET} s at p99: {'met' if met else 'NOT met'}")
    return 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench coach", description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=60)
    parser.add_argument("--plies", type=int, default=30, help="the player's moves per game at most")
    parser.add_argument("--think", type=float, default=1.5)
    parser.add_argument("--movetime", type=float, default=1.0, help="the opponent's movetime (config default 1.0)")
    parser.add_argument("--coach-movetime", type=float, default=0.4)
    parser.add_argument("--instant", action="store_true")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    return asyncio.run(run(args))
