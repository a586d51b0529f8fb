"""Positions where only one move holds: the suite's builder and the "found at 1 s" figure.

``python -m bench only_moves`` searches every position of ``bench/data/only_moves.epd`` for one
second with our engine, sunfish and Stockfish ``UCI_Elo 2000``, and prints how many each found
("found": its ``bestmove`` is the suite's move).

``python -m bench only_moves --build --seed 1`` rebuilds the suite, reproducibly from the seed:

1. games: Stockfish (Debian's, 1 thread, fixed nodes per move, both chosen per game from the
   seed) plays itself from openings drawn from ``../shared/data/openings``; with ``MultiPV 3``
   a seeded coin plays the second or third line now and then (when it is within 60 cp), so
   games differ and contain mistakes as human games do;
2. candidates: positions from ply 12 on where the game's own MultiPV 3 search put the first
   line 100 cp or more ahead of the second are analysed again at depth ``--depth`` (14),
   MultiPV 2;
3. kept: best minus second >= 150 cp at that depth, the side to move not already winning by
   more than 5 pawns (best <= +500 cp, no mate for the side to move), at most 3 positions per
   game, 4 plies apart or more.

The suite is evidence for the search, not data for tuning: nothing in the tuner reads it.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import chess
import chess.engine

from bench import sprt

SUITE = Path(__file__).resolve().parent / "data" / "only_moves.epd"
STOCKFISH = shutil.which("stockfish") or ("/usr/games/stockfish" if Path("/usr/games/stockfish").exists() else None)
MATE_CP = 10_000
GAP_CP = 150
WINNING_CP = 500
FIRST_PLY = 12


@dataclass(frozen=True, kw_only=True)
class OnlyMove:
    """A suite position: the move that holds and the margin Stockfish found for it."""

    fen: str
    move: chess.Move
    best_cp: int
    gap_cp: int
    ident: str
    origin: str

    def epd(self) -> str:
        board = chess.Board(self.fen)
        return board.epd(bm=[self.move], id=self.ident,
                         c0=f"{self.origin}, best {self.best_cp} cp, gap {self.gap_cp} cp")


def load_suite(path: Path = SUITE) -> list[tuple[chess.Board, chess.Move, str]]:
    """(board, only move, id) for each line of an EPD suite."""
    out: list[tuple[chess.Board, chess.Move, str]] = []
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        board, ops = chess.Board.from_epd(line)
        bm = ops.get("bm")
        if not isinstance(bm, list) or len(bm) != 1:
            raise ValueError(f"{path}:{n}: wants exactly one bm move")
        out.append((board, bm[0], str(ops.get("id", n))))
    return out


def _cp(score: chess.engine.PovScore, turn: chess.Color) -> int:
    return score.pov(turn).score(mate_score=MATE_CP) or 0


def _top2(sf: chess.engine.SimpleEngine, board: chess.Board, depth: int) -> tuple[chess.Move, int, int] | None:
    """(best move, its cp, second's cp) for the side to move, or None with fewer than 2 moves."""
    infos = sf.analyse(board, chess.engine.Limit(depth=depth), multipv=2)
    if len(infos) < 2 or "pv" not in infos[0] or "pv" not in infos[1]:
        return None
    return infos[0]["pv"][0], _cp(infos[0]["score"], board.turn), _cp(infos[1]["score"], board.turn)


def self_play(sf: chess.engine.SimpleEngine, opening: list[str], rng: random.Random, nodes: int,
              wander: float) -> tuple[list[chess.Move], list[int]]:
    """One Stockfish game at ``nodes`` per move, and the plies that look like only moves.

    With chance ``wander`` a lesser line within 60 cp is played. The MultiPV 3 search of each
    move is also the cheap first filter: plies from FIRST_PLY on whose first line leads the
    second by 100 cp or more (and does not win by more than 5 pawns) are candidates.
    """
    board = chess.Board()
    for uci in opening:
        board.push_uci(uci)
    game = object()
    candidates: list[int] = []
    while not board.is_game_over(claim_draw=True) and board.ply() < 240:
        infos = sf.analyse(board, chess.engine.Limit(nodes=nodes), multipv=3, game=game)
        lines = [(i["pv"][0], _cp(i["score"], board.turn)) for i in infos if i.get("pv")]
        if not lines:
            break
        if (board.ply() >= FIRST_PLY and len(lines) >= 2 and lines[0][1] - lines[1][1] >= 100
                and lines[0][1] <= WINNING_CP):
            candidates.append(board.ply())
        move = lines[0][0]
        near = [m for m, cp in lines[1:] if cp >= lines[0][1] - 60]
        if near and rng.random() < wander:
            move = rng.choice(near)
        board.push(move)
    return board.move_stack, candidates


def build(*, seed: int, count: int, depth: int, per_game: int = 3) -> list[OnlyMove]:
    """At least ``count`` only-move positions from 50 or more self-play games (see the module docstring)."""
    if STOCKFISH is None:
        raise SystemExit("the builder needs Debian's stockfish (apt-get install stockfish)")
    rng = random.Random(seed)
    lines = sprt.book_lines()
    suite: list[OnlyMove] = []
    games = 0
    with chess.engine.SimpleEngine.popen_uci([STOCKFISH]) as sf:
        sf.configure({"Threads": 1, "Hash": 32})
        while len(suite) < count or len({p.origin.split(" ply")[0] for p in suite}) < 50:
            games += 1
            opening = list(rng.choice(lines))
            nodes = rng.choice((3_000, 6_000, 12_000))
            moves, candidates = self_play(sf, opening, rng, nodes, wander=rng.choice((0.1, 0.2, 0.3)))
            kept: list[int] = []
            for ply in candidates:
                if len(kept) >= per_game:
                    break
                if kept and ply - kept[-1] < 4:
                    continue
                board = chess.Board()
                for move in moves[:ply]:
                    board.push(move)
                deep = _top2(sf, board, depth)
                if deep is not None and deep[1] - deep[2] >= GAP_CP and deep[1] <= WINNING_CP:
                    kept.append(ply)
                    suite.append(OnlyMove(
                        fen=board.fen(), move=deep[0], best_cp=deep[1], gap_cp=deep[1] - deep[2],
                        ident=f"om.{len(suite) + 1:03d}",
                        origin=f"game {games} ply {ply}, stockfish {nodes} nodes, depth {depth} MultiPV 2",
                    ))
            print(f"game {games} ({' '.join(opening[:6])}...): {len(moves)} plies, {len(candidates)} candidates, "
                  f"kept {len(kept)}; suite {len(suite)}", flush=True)
    return suite


def _found(play: Callable[[chess.Board], object],
           suite: list[tuple[chess.Board, chess.Move, str]]) -> tuple[int, list[str]]:
    found = 0
    missed: list[str] = []
    for board, move, ident in suite:
        got = play(board)
        if got == move:
            found += 1
        else:
            missed.append(ident)
    return found, missed


def bench(seconds: float, suite_path: Path, opponents: list[str]) -> None:
    from engine.searcher import Limits, Searcher

    suite = load_suite(suite_path)
    games = len({ln.split("game ")[1].split(" ply")[0] for ln in suite_path.read_text().splitlines() if "game " in ln})
    print(f"-- only-move suite: {len(suite)} positions from {games} games ({suite_path.name}), "
          f"{seconds:g} s per position")
    searcher = Searcher(hash_mb=64)
    searcher.warm()

    def ours(board: chess.Board) -> object:
        searcher.clear()
        return searcher.search(board, Limits(movetime=int(seconds * 1000))).best

    t = time.perf_counter()
    found, missed = _found(ours, suite)
    print(f"   ours: {found}/{len(suite)} = {100 * found / len(suite):.0f}% found ({time.perf_counter() - t:.0f} s); "
          f"missed {' '.join(missed)}", flush=True)
    cmds: dict[str, tuple[list[str], dict[str, str | int | bool]]] = {
        "sunfish": ([sys.executable, "-m", "sunfish"], {}),
        "stockfish": ([STOCKFISH or "stockfish"], {"UCI_LimitStrength": True, "UCI_Elo": 2000, "Threads": 1,
                                                    "Hash": 64}),
    }
    for name in opponents:
        cmd, options = cmds[name]
        try:
            engine = chess.engine.SimpleEngine.popen_uci(cmd, timeout=60)
        except Exception as exc:  # a missing opponent is reported, not fatal
            print(f"   {name}: skipped ({exc})")
            continue
        try:
            if options:
                engine.configure(options)
            label = "stockfish UCI_Elo 2000" if name == "stockfish" else name

            def theirs(board: chess.Board, engine: chess.engine.SimpleEngine = engine) -> object:
                return engine.play(board, chess.engine.Limit(time=seconds), game=object()).move

            found, missed = _found(theirs, suite)
            print(f"   {label}: {found}/{len(suite)} = {100 * found / len(suite):.0f}% found", flush=True)
        finally:
            engine.quit()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="bench.only_moves", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", action="store_true", help="rebuild the suite instead of running it")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=120, help="positions to collect (--build)")
    parser.add_argument("--depth", type=int, default=14, help="Stockfish depth for the final check (--build)")
    parser.add_argument("--suite", type=Path, default=SUITE)
    parser.add_argument("--time", type=float, default=1.0, help="seconds per position")
    parser.add_argument("--opponents", default="sunfish,stockfish", help="also run these (comma-separated)")
    args = parser.parse_args(argv)
    if args.build:
        suite = build(seed=args.seed, count=args.count, depth=args.depth)
        args.suite.parent.mkdir(parents=True, exist_ok=True)
        args.suite.write_text("".join(p.epd() + "\n" for p in suite))
        print(f"wrote {len(suite)} positions to {args.suite}")
        return 0
    bench(args.time, args.suite, [o for o in args.opponents.split(",") if o])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
