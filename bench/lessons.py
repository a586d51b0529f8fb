"""Opening lessons judged by Stockfish: how much each lesson move loses against the best move.

Run ``python -m bench lessons`` (``--depth N``, default 12). For every move of every line it
prints nothing unless the move loses more than ``--threshold`` centipawns (default 120) from the
mover's point of view, then each lesson's evaluation at the end of its main line. Exit status 1
when a main-line move loses more than the threshold: a lesson must not teach a mistake.
Every figure printed is measured in this run.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

import chess
import chess.engine

from boardctl.variants.chess.lessons import LESSON_KEYS, load_lesson

STOCKFISH = shutil.which("stockfish") or (
    "/usr/games/stockfish" if Path("/usr/games/stockfish").exists() else None
)


def _cp(engine: chess.engine.SimpleEngine, board: chess.Board, depth: int) -> int:
    score = engine.analyse(board, chess.engine.Limit(depth=depth))["score"].white()
    return int(score.score(mate_score=10_000))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench lessons", description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=12)
    parser.add_argument("--threshold", type=int, default=120)
    args = parser.parse_args(argv)
    if STOCKFISH is None:
        print("stockfish is missing (make system)")
        return 1
    start = time.perf_counter()
    bad_main = 0
    positions = 0
    with chess.engine.SimpleEngine.popen_uci(STOCKFISH) as engine:
        engine.configure({"Threads": 1})
        for key in LESSON_KEYS:
            lesson = load_lesson(key)
            end_eval = 0
            for line in lesson.lines:
                board = chess.Board()
                before = _cp(engine, board, args.depth)
                for move in line.moves:
                    board.push_uci(move.uci)
                    after = _cp(engine, board, args.depth)
                    positions += 1
                    loss = (before - after) if board.turn == chess.BLACK else (after - before)
                    if loss > args.threshold:
                        where = "main line" if line is lesson.main else line.name
                        print(f"  {key}: {where}, ply {board.ply()} {move.san} loses {loss} cp")
                        bad_main += line is lesson.main
                    before = after
                if line is lesson.main:
                    end_eval = before
            print(f"{key:14} main line {len(lesson.main.moves)} plies, ends at {end_eval:+d} cp (White's view)")
    print(f"{positions} positions at depth {args.depth} in {time.perf_counter() - start:.0f} s; "
          f"main-line moves losing over {args.threshold} cp: {bad_main}")
    return 1 if bad_main else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
