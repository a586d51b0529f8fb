"""Engine figures side by side: perft, search speed, WAC, matches, memory and start-up.

Run ``python -m bench engine`` (or ``python -m bench.engine --help`` for options). Every
figure printed is measured in this run on this machine; nothing is copied from elsewhere.
Opponents that are missing (``stockfish`` binary, ``sunfish`` module) are reported as skipped.
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import os
import random
import shutil
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import chess
import chess.engine

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
if not DATA.exists():
    DATA = Path("/work/shared/data")
ENGINE_CMD = [sys.executable, "-m", "engine"]
SUNFISH_CMD = [sys.executable, "-m", "sunfish"]
OVERHEAD_MS = 100  # both sides keep this back per move: pipes and a loaded machine add latency
STOCKFISH = shutil.which("stockfish") or ("/usr/games/stockfish" if Path("/usr/games/stockfish").exists() else None)

PERFT_SLOW = (
    ("start", chess.STARTING_FEN, 6, 119_060_324),
    ("kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 5, 193_690_690),
    ("cpw3", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 5, 674_624),
    ("cpw4", "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 5, 15_833_292),
    ("cpw5", "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 5, 89_941_194),
    ("cpw6", "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", 5, 164_075_551),
)


def _perft_chess(board: chess.Board, depth: int) -> int:
    if depth == 1:
        return board.legal_moves.count()
    total = 0
    for move in board.legal_moves:
        board.push(move)
        total += _perft_chess(board, depth - 1)
        board.pop()
    return total


def bench_perft() -> None:
    from engine.position import perft

    print("-- perft (leaves/s; 'bulk' counts the last ply without making the moves)")
    perft(chess.Board(), 3)  # load kernels outside the timing
    tot_n = 0
    tot_t = 0.0
    for name, fen, depth, want in PERFT_SLOW:
        board = chess.Board(fen)
        t = time.perf_counter()
        got = perft(board, depth)
        dt = time.perf_counter() - t
        tot_n += got
        tot_t += dt
        ok = "ok" if got == want else f"WRONG (want {want})"
        print(f"  ours bulk    {name:9s} d{depth} {got:>11,} {ok:5s} {dt:7.2f} s {got / dt / 1e6:7.1f} M/s")
    print(f"  ours bulk    total {tot_n:,} leaves in {tot_t:.1f} s = {tot_n / tot_t / 1e6:.1f} M leaves/s")
    board = chess.Board()
    t = time.perf_counter()
    got = perft(board, 5, bulk=False)
    dt = time.perf_counter() - t
    print(f"  ours no-bulk start d5 {got:,} in {dt:.2f} s = {got / dt / 1e6:.1f} M leaves/s")
    t = time.perf_counter()
    got = _perft_chess(chess.Board(), 4)
    dt = time.perf_counter() - t
    print(f"  python-chess start d4 {got:,} in {dt:.2f} s = {got / dt / 1e6:.2f} M leaves/s (bulk at last ply)")
    if STOCKFISH is None:
        print("  stockfish: skipped (not installed; apt-get install stockfish)")
        return
    proc = subprocess.Popen([STOCKFISH], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write("uci\nisready\n")
    proc.stdin.flush()
    while proc.stdout.readline().strip() != "readyok":
        pass
    t = time.perf_counter()
    proc.stdin.write("position startpos\ngo perft 6\n")
    proc.stdin.flush()
    nodes = 0
    for line in proc.stdout:
        if line.startswith("Nodes searched"):
            nodes = int(line.split(":")[1])
            break
    dt = time.perf_counter() - t
    proc.stdin.write("quit\n")
    proc.stdin.flush()
    proc.wait()
    print(f"  stockfish 15.1 start d6 (go perft 6, bulk) {nodes:,} in {dt:.2f} s = {nodes / dt / 1e6:.1f} M leaves/s")


def bench_search(depth: int) -> None:
    from engine.searcher import Searcher
    from engine.uci import BENCH_FENS

    searcher = Searcher(hash_mb=16)
    searcher.warm()
    nodes, dt = searcher.bench(BENCH_FENS, depth)
    print(f"-- search: {len(BENCH_FENS)} bench positions at depth {depth}: {nodes:,} nodes in {dt:.2f} s "
          f"= {nodes / dt:,.0f} nodes/s (quiescence nodes included)")


def bench_wac(seconds: float, count: int) -> None:
    from engine.searcher import Limits, Searcher

    lines = (DATA / "epd" / "win_at_chess_test.epd").read_text().splitlines()[:count]
    searcher = Searcher(hash_mb=64)
    searcher.warm()
    solved = 0
    failed: list[str] = []
    t = time.perf_counter()
    for line in lines:
        board, ops = chess.Board.from_epd(line)
        searcher.clear()
        result = searcher.search(board, Limits(movetime=int(seconds * 1000)))
        bm, am = ops.get("bm"), ops.get("am")
        if (isinstance(bm, list) and result.best in bm) or (isinstance(am, list) and result.best not in am):
            solved += 1
        else:
            failed.append(str(ops.get("id", "?")))
    dt = time.perf_counter() - t
    print(f"-- WAC: {solved}/{len(lines)} solved at {seconds:g} s per position ({dt:.0f} s total)")
    print(f"   missed: {' '.join(failed[:40])}{' ...' if len(failed) > 40 else ''}")


@dataclass
class Score:
    wins: int = 0
    draws: int = 0
    losses: int = 0
    endings: Counter[str] = field(default_factory=Counter)

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    def elo(self) -> tuple[float, float, float]:
        """Elo difference and its 95% interval from the per-game score variance."""
        n = self.games
        p = (self.wins + 0.5 * self.draws) / n
        var = (self.wins * (1 - p) ** 2 + self.draws * (0.5 - p) ** 2 + self.losses * p**2) / n
        se = math.sqrt(var / n)

        def to_elo(x: float) -> float:
            x = min(max(x, 1e-3), 1 - 1e-3)
            return -400 * math.log10(1 / x - 1)

        return to_elo(p), to_elo(p - 1.96 * se), to_elo(p + 1.96 * se)


@functools.cache
def _opening_lines() -> tuple[tuple[chess.Move, ...], ...]:
    """The opening list's lines of 4-12 plies (read once: parsing them takes seconds)."""
    from engine.book import lines_from_tsv

    return tuple(tuple(ln) for ln in lines_from_tsv(sorted((DATA / "openings").glob("*.tsv"))) if 4 <= len(ln) <= 12)


def _openings(count: int, seed: int) -> list[list[chess.Move]]:
    return [list(line) for line in random.Random(seed).sample(_opening_lines(), count)]


def _play(ours: chess.engine.SimpleEngine, theirs: chess.engine.SimpleEngine, opening: list[chess.Move],
          ours_white: bool, base: float, inc: float) -> tuple[float, str]:
    """One game: our score (1, 0.5, 0) and how it ended. Flag fall loses; 400 plies is a draw."""
    board = chess.Board()
    for move in opening:
        board.push(move)
    clocks = {chess.WHITE: base, chess.BLACK: base}
    while not board.is_game_over(claim_draw=True) and board.ply() < 400:
        mover = ours if (board.turn == chess.WHITE) == ours_white else theirs
        limit = chess.engine.Limit(white_clock=clocks[chess.WHITE], black_clock=clocks[chess.BLACK],
                                   white_inc=inc, black_inc=inc)
        t = time.perf_counter()
        result = mover.play(board, limit)
        clocks[board.turn] -= time.perf_counter() - t
        if clocks[board.turn] < 0:
            return (0.0, "we lost on time") if mover is ours else (1.0, "they lost on time")
        clocks[board.turn] += inc
        if result.move is None:
            break
        board.push(result.move)
    outcome = board.outcome(claim_draw=True)
    if outcome is None:
        return 0.5, "400 plies"
    reason = outcome.termination.name.lower()
    if outcome.winner is None:
        return 0.5, reason
    return (1.0, reason) if (outcome.winner == chess.WHITE) == ours_white else (0.0, reason)


def stockfish_at(elo: int) -> dict[str, int | bool | str]:
    """Stockfish limited to ``elo`` on one thread, as every match here meets it."""
    return {"UCI_LimitStrength": True, "UCI_Elo": elo, "Threads": 1, "Hash": 16, "Move Overhead": OVERHEAD_MS}


def match(name: str, cmd: list[str], options: dict[str, int | bool | str], games: int, base: float,
          inc: float, seed: int, ours_options: dict[str, int | bool | str] | None = None,
          state: Path | None = None, play: bool = True) -> Score | None:
    """Play (or with ``play=False`` only read back from ``state``) a colour-swapped match."""
    score = Score()
    done: list[list[object]] = []  # [score, ending] per game, in play order (resumable with ``state``)
    if state is not None and state.exists():
        saved = json.loads(state.read_text())
        if saved.get("setup") != [name, base, inc, seed]:
            raise SystemExit(f"{state} holds another match ({saved.get('setup')}); choose another --state")
        done = saved["games"]
        print(f"   {'resuming' if play else 'reading'} {name}: {len(done)} games from {state}", flush=True)
    ours = theirs = None  # opened only to play: reading back a saved match starts no engine
    if play:
        try:
            theirs = chess.engine.SimpleEngine.popen_uci(cmd, timeout=60)
        except Exception as exc:  # a missing opponent is reported, not fatal
            print(f"-- match vs {name}: skipped ({exc})")
            return None
        ours = chess.engine.SimpleEngine.popen_uci(ENGINE_CMD, timeout=120)
        ours.configure({"OwnBook": False, "Move Overhead": OVERHEAD_MS, **(ours_options or {})})
        if options:
            theirs.configure(options)
    else:
        games = min(games, len(done))
    try:
        for i, opening in enumerate(_openings((games + 1) // 2, seed)):
            for ours_white in (True, False):
                if score.games >= games:
                    break
                if score.games < len(done):
                    s, ending = float(done[score.games][0]), str(done[score.games][1])  # type: ignore[arg-type]
                else:
                    assert ours is not None and theirs is not None  # games beyond the saved ones are played
                    s, ending = _play(ours, theirs, opening, ours_white, base, inc)
                    done.append([s, ending, os.getloadavg()[0]])
                    if state is not None:
                        state.parent.mkdir(parents=True, exist_ok=True)
                        state.write_text(json.dumps({"setup": [name, base, inc, seed], "games": done}) + "\n")
                score.endings[ending] += 1
                if s == 1.0:
                    score.wins += 1
                elif s == 0.5:
                    score.draws += 1
                else:
                    score.losses += 1
            print(f"   ... {name}: after {score.games} games +{score.wins} ={score.draws} -{score.losses}",
                  flush=True) if i % 5 == 4 else None
    finally:
        for engine in (ours, theirs):
            if engine is not None:
                engine.quit()
    elo, lo, hi = score.elo()
    note = " (a clean sweep: the Elo is only a bound)" if score.wins in (0, score.games) and not score.draws else ""
    print(f"-- match vs {name} ({base:g}+{inc:g} s, {score.games} games, colour-swapped openings): "
          f"+{score.wins} ={score.draws} -{score.losses}  Elo {elo:+.0f} [{lo:+.0f}, {hi:+.0f}] 95% CI{note}",
          flush=True)
    print(f"   endings: {', '.join(f'{k} {v}' for k, v in score.endings.most_common())}", flush=True)
    loads = [float(g[2]) for g in done if len(g) > 2]  # type: ignore[arg-type]
    if loads:
        print(f"   1-minute load average while playing: mean {sum(loads) / len(loads):.1f}, "
              f"max {max(loads):.1f} (2 cores)", flush=True)
    return score


def _engine_process(*, jit: bool) -> tuple[float, dict[str, str]]:
    """Start the UCI engine, search 3 s with Hash 64 MB: (seconds to first readyok, /proc status)."""
    from engine.aot import FORCE_JIT

    env = dict(os.environ, **{FORCE_JIT: "1" if jit else "0"})
    proc = subprocess.Popen(ENGINE_CMD, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
    assert proc.stdin is not None and proc.stdout is not None
    t = time.perf_counter()
    proc.stdin.write("uci\nisready\n")
    proc.stdin.flush()
    while proc.stdout.readline().strip() != "readyok":
        pass
    ready = time.perf_counter() - t
    proc.stdin.write("setoption name Hash value 64\nsetoption name OwnBook value false\nisready\n")
    proc.stdin.flush()
    while proc.stdout.readline().strip() != "readyok":
        pass
    proc.stdin.write("position startpos\ngo movetime 3000\n")
    proc.stdin.flush()
    while not proc.stdout.readline().startswith("bestmove"):
        pass
    status = Path(f"/proc/{proc.pid}/status").read_text()
    fields = {line.split(":")[0]: line.split(":")[1].strip() for line in status.splitlines() if ":" in line}
    proc.stdin.write("quit\n")
    proc.stdin.flush()
    proc.wait()
    return ready, fields


def bench_memory_and_startup() -> None:
    from engine.aot import module_path

    cache = os.environ.get("NUMBA_CACHE_DIR", "default dir")
    if module_path("chess").is_file():
        ready, fields = _engine_process(jit=False)
        print(f"-- start-up, ahead-of-time kernels ({module_path('chess').name}): first readyok after {ready:.2f} s")
        print(f"-- memory, ahead-of-time kernels: engine RSS {fields.get('VmRSS')} (peak {fields.get('VmHWM')}) "
              "with Hash 64 MB after a 3 s search")
    else:
        print(f"-- memory, ahead-of-time kernels: not built ({module_path('chess')} missing; `python -m engine warm`)")
    ready, fields = _engine_process(jit=True)
    print(f"-- start-up, numba JIT (warm cache in {cache}): first readyok after {ready:.2f} s")
    print(f"-- memory, numba JIT: engine RSS {fields.get('VmRSS')} (peak {fields.get('VmHWM')}) "
          "with Hash 64 MB after a 3 s search")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="bench.engine", description=__doc__)
    parser.add_argument("--skip", nargs="*", default=[], choices=["perft", "search", "wac", "sunfish", "stockfish", "memory"])
    parser.add_argument("--search-depth", type=int, default=10)
    parser.add_argument("--wac-time", type=float, default=1.0, help="seconds per WAC position")
    parser.add_argument("--wac-count", type=int, default=300)
    parser.add_argument("--games", type=int, default=4, help="games per match (even: colour-swapped pairs)")
    parser.add_argument("--tc", default="5+0.05", help="base+increment seconds per game")
    parser.add_argument("--elos", default="1350,2000", help="Stockfish UCI_Elo values to play")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--state", type=Path, default=None, metavar="DIR",
                        help="keep each match's games in DIR/<opponent>.json and resume from there")
    parser.add_argument("--calibrate", type=int, default=0, metavar="GAMES",
                        help="also place the levels on Stockfish's scale, GAMES games a pairing (LADDER)")
    parser.add_argument("--levels", nargs="*", default=[name for name, _ in LADDER], metavar="LEVEL",
                        help="with --calibrate: the levels to play (others are read from --state if saved)")
    args = parser.parse_args(argv)
    base, inc = (float(x) for x in args.tc.split("+"))
    from engine.searcher import Searcher

    Searcher(hash_mb=1).warm()  # compile once up front so no figure includes it
    if "memory" not in args.skip:
        bench_memory_and_startup()
    if "perft" not in args.skip:
        bench_perft()
    if "search" not in args.skip:
        bench_search(args.search_depth)
    if "wac" not in args.skip:
        bench_wac(args.wac_time, args.wac_count)
    if "sunfish" not in args.skip:
        match("sunfish", SUNFISH_CMD, {}, args.games, base, inc, args.seed,
              state=args.state / f"sunfish-{args.tc}.json" if args.state else None)
    if "stockfish" not in args.skip:
        if STOCKFISH is None:
            print("-- match vs stockfish: skipped (not installed)")
        else:
            for elo in (int(e) for e in args.elos.split(",") if e):
                match(f"stockfish UCI_Elo {elo}", [STOCKFISH],
                      stockfish_at(elo),
                      args.games, base, inc, args.seed,
                      state=args.state / f"stockfish-{elo}-{args.tc}.json" if args.state else None)
    if args.calibrate and STOCKFISH is not None:
        calibrate(args.calibrate, base, inc, args.seed, names=args.levels, state=args.state)
    return 0


SF_FLOOR = 1350  # Stockfish 15.1's lowest UCI_Elo
WITHIN = 150  # issue 17: each level within so many Elo of its label
#: Each level and what it is measured against, strongest first: Stockfish at the level's own label
#: (at its floor for a label below it), or, under the floor, the next stronger level of ours,
#: whose estimate the chain then builds on.
LADDER: tuple[tuple[str, int | str], ...] = (
    ("master", 2200), ("practice5", 1800), ("advanced", 1700), ("practice4", 1600),
    ("practice3", 1400), ("intermediate", SF_FLOOR),
    ("practice2", "intermediate"), ("practice1", "practice2"), ("beginner", "practice1"),
)


def calibrate(games: int, base: float, inc: float, seed: int, *, names: Sequence[str],
              state: Path | None) -> dict[str, tuple[float, float, float]]:
    """Place each named level on Stockfish's UCI_Elo scale, as the daemon sends it (Skill Level).

    A level is measured against Stockfish at its own label, so that it scores near 50 % when it
    is where its name says and the estimate is tight; under Stockfish's floor it is measured
    against the next stronger level, and its estimate is that level's plus the difference.
    With ``state`` every pairing resumes from its file, so a pairing can be played by one run
    and its figure reused by another (``--levels`` picks the pairings to play or read).
    """
    from engine.levels import LEVELS

    estimates: dict[str, tuple[float, float, float]] = {}
    for name, anchor in LADDER:
        level = LEVELS[name]
        if isinstance(anchor, int):
            label, cmd = f"stockfish UCI_Elo {anchor}", [STOCKFISH or "stockfish"]
            options = stockfish_at(anchor)
            base_elo: tuple[float, float, float] | None = (anchor, anchor, anchor)
            against = f"sf{anchor}"
        else:
            ref = LEVELS[anchor]
            label, cmd = f"our {anchor} (Skill Level {ref.skill})", ENGINE_CMD
            options = {"Skill Level": ref.skill, "OwnBook": False, "Move Overhead": OVERHEAD_MS}
            base_elo = estimates.get(anchor)
            against = f"s{ref.skill}"
        # the file names the skills that play, so a level given another skill is measured afresh
        file = state / f"level-{name}-s{level.skill}-vs-{against}-{base:g}+{inc:g}.json" if state is not None else None
        if name not in names and not (file is not None and file.exists()):
            continue
        score = match(f"{label} [ours: {name}, Skill Level {level.skill}]", cmd, options, games, base, inc, seed,
                      ours_options={"Skill Level": level.skill}, state=file,
                      play=name in names)
        if score is None or not score.games:
            continue
        diff, lo, hi = score.elo()
        if base_elo is None:
            print(f"   level {name}: {anchor} {diff:+.0f} [{lo:+.0f}, {hi:+.0f}] ({anchor} not placed)")
            continue
        est = (base_elo[0] + diff, base_elo[1] + lo, base_elo[2] + hi)
        estimates[name] = est
        ok = abs(est[0] - level.elo) <= WITHIN
        sweep = " (a clean sweep: only a bound)" if score.wins in (0, score.games) and not score.draws else ""
        print(f"   level {name} (label {level.elo}): about {est[0]:.0f} [{est[1]:.0f}, {est[2]:.0f}] on Stockfish's "
              f"UCI_Elo scale{sweep}: {'within' if ok else 'NOT within'} {WITHIN} of its label", flush=True)
    return estimates


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
