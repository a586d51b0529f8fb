"""Xiangqi figures: perft speed beside Fairy-Stockfish, search nodes/s, matches, level calibration.

Run ``python -m bench xiangqi`` (``python -m bench.xiangqi --help`` for options). Every figure
printed is measured in this run on this machine. Matches use a referee that applies the
Asian rules through pyffish (engine/xq_judge.py): repetitions (perpetual check and chase),
the 60-move rule and no legal move; an illegal move or a flag fall loses.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from bench import engine as engine_bench

ENGINE_CMD = [sys.executable, "-m", "engine"]
FAIRY = shutil.which("fairy-stockfish") or (
    "/usr/games/fairy-stockfish" if Path("/usr/games/fairy-stockfish").exists() else None
)
OVERHEAD_MS = 100
START = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
PERFT = (
    ("start", START, 5, 133_312_995),
    ("middlegame", "r1bakabr1/9/1cn3nc1/p1p1p1p1p/9/2P6/P3P1P1P/1CN1C1N2/9/R1BAKABR1 w - - 4 5", 4, None),
    ("endgame", "3ak4/4a4/4b4/p3p3p/9/2P6/P3P3P/4B4/4A4/2BAK4 w - - 0 30", 5, None),
)


class Uci:
    """A UCI engine subprocess spoken to line by line (xiangqi moves pass through ``convert``)."""

    def __init__(self, cmd: list[str], options: dict[str, str], *, ffish_ranks: bool) -> None:
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.ffish_ranks = ffish_ranks  # Fairy-Stockfish numbers the ranks 1-10
        self.send("uci")
        self.wait("uciok")
        self.send("setoption name UCI_Variant value xiangqi")
        for name, value in options.items():
            self.send(f"setoption name {name} value {value}")
        self.send("isready")
        self.wait("readyok")

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def wait(self, prefix: str) -> list[str]:
        assert self.proc.stdout is not None
        lines = []
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError(f"engine exited waiting for {prefix!r}")
            lines.append(line.strip())
            if line.startswith(prefix):
                return lines

    def out(self, move: str) -> str:
        from engine.xq_judge import to_ffish

        return to_ffish(move) if self.ffish_ranks else move

    def back(self, move: str) -> str:
        from engine.xq_judge import from_ffish

        return from_ffish(move) if self.ffish_ranks else move

    def new_game(self) -> None:
        self.send("ucinewgame")
        self.send("isready")
        self.wait("readyok")

    def play(self, fen: str, moves: list[str], go: str) -> str:
        tail = f" moves {' '.join(self.out(m) for m in moves)}" if moves else ""
        self.send(f"position fen {fen}{tail}")
        self.send(f"go {go}")
        lines = self.wait("bestmove")
        for line in lines:
            if line.startswith("info string error"):  # e.g. a refused move: keep the evidence
                print(f"   !! {line} (position fen {fen} moves {' '.join(moves)})", file=sys.stderr, flush=True)
        return self.back(lines[-1].split()[1])

    def close(self) -> None:
        try:
            self.send("quit")
            self.proc.wait(5)
        except Exception:
            self.proc.kill()


def fairy_perft(fen: str, depth: int) -> tuple[int, float]:
    """Fairy-Stockfish's count and the seconds from `go perft` to its answer."""
    assert FAIRY is not None
    eng = Uci([FAIRY], {}, ffish_ranks=True)
    eng.send(f"position fen {fen}")
    eng.send("isready")
    eng.wait("readyok")
    t = time.perf_counter()
    eng.send(f"go perft {depth}")
    line = eng.wait("Nodes searched")[-1]
    elapsed = time.perf_counter() - t
    eng.close()
    return int(line.split(":")[1]), elapsed


def bench_perft() -> None:
    from engine.xq_position import XqBoard, perft

    print("-- xiangqi perft, bulk counting (leaves/s, wall clock; both programs in this run)")
    perft(XqBoard(), 3)
    for name, fen, depth, known in PERFT:
        board = XqBoard(fen)
        t = time.perf_counter()
        n = perft(board, depth)
        ours = time.perf_counter() - t
        check = "" if known is None else (" (correct)" if n == known else f" (WRONG, want {known:,})")
        line = f"   {name} d{depth}: {n:,} leaves{check}; ours {ours:.2f} s = {n / ours / 1e6:.1f} M/s"
        if FAIRY:
            fn, fs = fairy_perft(fen, depth)
            line += f"; Fairy-Stockfish {fs:.2f} s = {fn / fs / 1e6:.1f} M/s" + ("" if fn == n else f" (COUNT {fn:,})")
        print(line, flush=True)
    board = XqBoard()
    t = time.perf_counter()
    n = perft(board, 4, bulk=False)
    print(f"   start d4, every leaf made: {n / (time.perf_counter() - t) / 1e6:.1f} M leaves/s", flush=True)


def bench_search(depth: int, runs: int = 3) -> None:
    """Nodes/s over the bench positions at ``depth`` from a clear table, ``runs`` times: CPU time
    (this process) is the comparable figure on a shared machine; the median run is printed."""
    from engine.xq_searcher import XqSearcher
    from engine.xq_uci import BENCH_FENS

    s = XqSearcher(hash_mb=16)
    s.warm()
    results = []
    for _ in range(runs):
        cpu = time.process_time()
        nodes, elapsed = s.bench(BENCH_FENS, depth)
        results.append((nodes / max(time.process_time() - cpu, 1e-9), nodes, elapsed))
    results.sort()
    cpu_nps, nodes, elapsed = results[len(results) // 2]
    print(f"-- xiangqi search: {len(BENCH_FENS)} positions at depth {depth}: {nodes:,} nodes; median of {runs} runs "
          f"{cpu_nps:,.0f} nodes/s in CPU time (all: {', '.join(f'{r[0]:,.0f}' for r in results)}); "
          f"wall clock {nodes / elapsed:,.0f} nodes/s", flush=True)
    if FAIRY:
        total_n, total_t = 0, 0.0
        eng = Uci([FAIRY], {"Hash": "16"}, ffish_ranks=True)
        for fen in BENCH_FENS:
            eng.new_game()
            eng.send(f"position fen {fen}")
            t = time.perf_counter()
            eng.send(f"go depth {depth + 2}")
            lines = eng.wait("bestmove")
            total_t += time.perf_counter() - t
            infos = [ln for ln in lines if " nodes " in ln]
            if infos:
                total_n += int(infos[-1].split(" nodes ")[1].split()[0])
        eng.close()
        print(f"   Fairy-Stockfish at depth {depth + 2}: {total_n:,} nodes in {total_t:.2f} s = "
              f"{total_n / max(total_t, 1e-9):,.0f} nodes/s", flush=True)


def bench_readyok(runs: int = 3) -> None:
    """Seconds from starting ``python -m engine`` to the first ``readyok`` after choosing xiangqi
    (warm cache: the kernels are already built), and the engine's memory after a short search."""
    times: list[float] = []
    cpu: list[float] = []  # the engine's own CPU seconds until readyok: what a quiet machine would take
    status: dict[str, str] = {}
    for _ in range(runs):
        t = time.perf_counter()
        proc = subprocess.Popen(ENGINE_CMD, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write("uci\nsetoption name UCI_Variant value xiangqi\nisready\n")
        proc.stdin.flush()
        while proc.stdout.readline().strip() != "readyok":
            pass
        times.append(time.perf_counter() - t)
        fields = Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        cpu.append((int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK"))  # utime + stime
        proc.stdin.write("position startpos\ngo movetime 1000\n")
        proc.stdin.flush()
        while not proc.stdout.readline().startswith("bestmove"):
            pass
        lines = Path(f"/proc/{proc.pid}/status").read_text().splitlines()
        status = {ln.split(":")[0]: ln.split(":")[1].strip() for ln in lines if ln.startswith(("VmRSS", "VmHWM"))}
        proc.stdin.write("quit\n")
        proc.stdin.flush()
        proc.wait(10)
    print(f"-- xiangqi start-up: first readyok after setoption UCI_Variant xiangqi {min(times):.2f} s "
          f"(best of {runs}; all: {', '.join(f'{x:.2f}' for x in times)}; the engine's CPU time until then: "
          f"{', '.join(f'{x:.2f}' for x in cpu)} s); RSS after a 1 s search "
          f"{status.get('VmRSS')} (peak {status.get('VmHWM')})", flush=True)


class Score(engine_bench.Score):
    """The chess bench's score and Elo interval, with the ending of each game counted."""

    def add(self, s: float, ending: str) -> None:
        self.endings[ending] += 1
        if s == 1.0:
            self.wins += 1
        elif s == 0.5:
            self.draws += 1
        else:
            self.losses += 1

    def line(self) -> str:
        elo, lo, hi = self.elo()
        pct = 100 * (self.wins + 0.5 * self.draws) / max(self.games, 1)
        return (f"+{self.wins} ={self.draws} -{self.losses} ({pct:.1f}%) Elo {elo:+.0f} [{lo:+.0f}, {hi:+.0f}]; "
                f"endings: {', '.join(f'{k} {v}' for k, v in self.endings.most_common())}")


def play(red: Uci, black: Uci, opening: tuple[str, ...], go_for: GoFor) -> tuple[float, str, list[str]]:
    """One game from ``opening``: Red's score, how it ended (ruled by pyffish) and the moves.

    Every move either engine sends is checked against pyffish's legal moves before it is played.
    """
    from engine.xq_judge import Ending, legal_moves, ruling

    moves = list(opening)
    clocks = [go_for.base, go_for.base]
    for eng in (red, black):
        eng.new_game()
    while True:
        verdict = ruling(START, moves)
        side = len(moves) % 2
        if verdict.ending is not Ending.ONGOING:
            how = ("repetition or 60 moves" if verdict.optional else "no legal move")
            red_view = verdict.ending if side == 0 else {Ending.WIN: Ending.LOSS, Ending.LOSS: Ending.WIN}.get(
                verdict.ending, verdict.ending)
            return {Ending.WIN: 1.0, Ending.LOSS: 0.0}.get(red_view, 0.5), how, moves
        if len(moves) >= 400:
            return 0.5, "400 plies", moves
        mover = red if side == 0 else black
        t = time.perf_counter()
        move = mover.play(START, moves, go_for.command(clocks))
        clocks[side] -= time.perf_counter() - t
        if go_for.has_clock and clocks[side] < 0:
            return (0.0 if side == 0 else 1.0), "lost on time", moves
        clocks[side] += go_for.inc
        if move not in legal_moves(START, moves):
            print(f"   !! illegal move {move} after {' '.join(moves)}", file=sys.stderr, flush=True)
            return (0.0 if side == 0 else 1.0), f"illegal move {move}", [*moves, move]
        moves.append(move)


@dataclass(frozen=True)
class GoFor:
    """How each move is searched: a clock (base + increment, seconds), a fixed node count or a
    fixed time a move (no flag to fall: for level pairings on a loaded machine)."""

    base: float = 10.0
    inc: float = 0.1
    nodes: int | None = None
    movetime: int | None = None

    @classmethod
    def from_text(cls, text: str) -> GoFor:
        """``10+0.1`` (clock), ``nodes=5000`` or ``movetime=100`` (milliseconds)."""
        if text.startswith("nodes="):
            return cls(nodes=int(text.removeprefix("nodes=")))
        if text.startswith("movetime="):
            return cls(movetime=int(text.removeprefix("movetime=")))
        base, inc = (float(x) for x in text.split("+"))
        return cls(base, inc)

    @property
    def has_clock(self) -> bool:
        return self.nodes is None and self.movetime is None

    def command(self, clocks: list[float]) -> str:
        if self.nodes is not None:
            return f"nodes {self.nodes}"
        if self.movetime is not None:
            return f"movetime {self.movetime}"
        ms = int(self.inc * 1000)
        return f"wtime {int(clocks[0] * 1000)} btime {int(clocks[1] * 1000)} winc {ms} binc {ms}"

    def __str__(self) -> str:
        if self.nodes is not None:
            return f"{self.nodes} nodes a move"
        if self.movetime is not None:
            return f"{self.movetime} ms a move"
        return f"{self.base:g}+{self.inc:g} s"


def match(name: str, ours_opts: dict[str, str], theirs_cmd: list[str], theirs_opts: dict[str, str], games: int,
          go_for: GoFor, seed: int, *, theirs_ffish: bool, state: Path | None = None,
          random_plies: int = 0) -> Score:
    """``games`` colour-swapped games from the shuffled opening list.

    With ``state``, every finished game (its moves too) is appended to that JSON-lines file
    and a rerun with the same file resumes after the games already there. ``random_plies``
    random legal moves after each opening line make every game differ (self-play).
    """
    from engine.xq_book import openings

    lines = [o.moves for o in openings()]
    random.Random(seed).shuffle(lines)
    score = Score()
    done = 0
    if state is not None and state.exists():
        for row in state.read_text().splitlines():
            rec = json.loads(row)
            if rec.get("match") != name:
                continue
            score.add(rec["score"], rec["ending"])
            done += 1
        print(f"   ... {name}: resuming after {done} games from {state}", flush=True)
    if done >= games:
        print(f"-- xiangqi match vs {name} ({go_for}, {score.games} games, colour-swapped openings): "
              f"{score.line()}", flush=True)
        return score
    ours = Uci(ENGINE_CMD, {"OwnBook": "false", "Move Overhead": str(OVERHEAD_MS), **ours_opts}, ffish_ranks=False)
    theirs = Uci(theirs_cmd, theirs_opts, ffish_ranks=theirs_ffish)
    try:
        i = done
        while score.games < games:
            opening = lines[(i // 2) % len(lines)]
            if random_plies:
                opening = _randomised(opening, random_plies, random.Random(seed * 100_003 + i))
            ours_red = i % 2 == 0
            red, black = (ours, theirs) if ours_red else (theirs, ours)
            s, ending, moves = play(red, black, opening, go_for)
            ours_score = s if ours_red else 1.0 - s
            score.add(ours_score, ending)
            i += 1
            if state is not None:
                with state.open("a") as f:
                    f.write(json.dumps({"match": name, "game": i, "ours_red": ours_red, "score": ours_score,
                                        "ending": ending, "moves": moves}) + "\n")
            print(f"   ... {name}: game {score.games} ({'ours Red' if ours_red else 'ours Black'}, "
                  f"{' '.join(opening[:2])}...): {ours_score:g} by {ending}; {score.line()}",
                  flush=True)
    finally:
        ours.close()
        theirs.close()
    print(f"-- xiangqi match vs {name} ({go_for}, {score.games} games, colour-swapped openings): "
          f"{score.line()}", flush=True)
    return score


def _randomised(opening: tuple[str, ...], plies: int, rng: random.Random) -> tuple[str, ...]:
    """``opening`` plus up to ``plies`` random legal moves (pyffish's), stopping early if the game ends."""
    from engine.xq_judge import legal_moves

    moves = list(opening)
    for _ in range(plies):
        legal = legal_moves(START, moves)
        if not legal:
            break
        moves.append(rng.choice(sorted(legal)))
    return tuple(moves)


def fairy_match(games: int, go_for: GoFor, seed: int, elo: int | None, state: Path | None) -> None:
    if FAIRY is None:
        print("-- xiangqi match: skipped (fairy-stockfish not installed)")
        return
    opts = {"Move Overhead": str(OVERHEAD_MS)}
    if elo is not None:
        opts |= {"UCI_LimitStrength": "true", "UCI_Elo": str(elo)}
    match(f"Fairy-Stockfish 11.1 {'UCI_Elo ' + str(elo) if elo else 'full strength'}", {}, [FAIRY], opts,
          games, go_for, seed, theirs_ffish=True, state=state)


def self_play(games: int, go_for: GoFor, seed: int, state: Path | None) -> None:
    """Our engine against itself from the openings plus four random plies, every move refereed: a legality soak."""
    match("ourselves", {}, ENGINE_CMD, {"OwnBook": "false", "Move Overhead": str(OVERHEAD_MS)},
          games, go_for, seed, theirs_ffish=False, state=state, random_plies=4)


def calibrate(games: int, go_for: GoFor, seed: int, state: Path | None, only: list[str] | None = None) -> None:
    """Each named level against the one below (our engine on both sides), and master vs Fairy-Stockfish.

    ``only``: the pairings to play, named by the higher level (``fairy`` for master vs 1350).
    """
    from engine.levels import LEVELS, NAMED_LEVELS

    for low, high in itertools.pairwise(NAMED_LEVELS):
        if only is not None and high not in only:
            continue
        hi_opts = {"Skill Level": str(LEVELS[high].skill)}
        lo_opts = {"Skill Level": str(LEVELS[low].skill), "OwnBook": "false", "Move Overhead": str(OVERHEAD_MS)}
        match(f"our {low} (as {high})", hi_opts, ENGINE_CMD, lo_opts, games, go_for, seed, theirs_ffish=False,
              state=state)
    if FAIRY and (only is None or "fairy" in only):
        match("Fairy-Stockfish UCI_Elo 1350 (as master)", {"Skill Level": str(LEVELS["master"].skill)}, [FAIRY],
              {"UCI_LimitStrength": "true", "UCI_Elo": "1350", "Move Overhead": str(OVERHEAD_MS)},
              games, go_for, seed, theirs_ffish=True, state=state)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.xiangqi", description=__doc__)
    parser.add_argument("--skip", nargs="*", default=[],
                        choices=["readyok", "perft", "search", "match", "calibrate"])
    parser.add_argument("--depth", type=int, default=8, help="search bench depth")
    parser.add_argument("--games", type=int, default=0, help="match games vs Fairy-Stockfish (0: none)")
    parser.add_argument("--elo", type=int, default=2000, help="Fairy-Stockfish UCI_Elo (0: full strength)")
    parser.add_argument("--tc", default="10+0.1", help="base+increment in seconds, or nodes=N a move")
    parser.add_argument("--calibrate", type=int, default=0, help="games per level pairing (0: none)")
    parser.add_argument("--calibrate-tc", default=None, help="time control of the level pairings (default --tc)")
    parser.add_argument("--pairings", nargs="*", default=None,
                        help="calibrate only these pairings: the higher level's name, or fairy for master vs 1350")
    parser.add_argument("--self-play", type=int, default=0, help="refereed games of our engine against itself")
    parser.add_argument("--state", type=Path, default=None,
                        help="JSON-lines file of finished games: written as games end, resumed from on a rerun")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    go_for = GoFor.from_text(args.tc)
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    if "readyok" not in args.skip:
        bench_readyok()
    if "perft" not in args.skip:
        bench_perft()
    if "search" not in args.skip:
        bench_search(args.depth)
    if args.self_play:
        self_play(args.self_play, go_for, args.seed, args.state)
    if args.games and "match" not in args.skip:
        fairy_match(args.games, go_for, args.seed, args.elo or None, args.state)
    if args.calibrate and "calibrate" not in args.skip:
        calibrate(args.calibrate, GoFor.from_text(args.calibrate_tc or args.tc), args.seed, args.state,
                  args.pairings)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
