"""Stockfish's judgement of every move in the opening book, for the book's soundness filter.

``python -m bench book_scores`` walks the named lines the book is built from (engine/book.py)
and asks Debian's Stockfish 15.1, at a fixed depth and one thread, for the score of each
(position, move) pair's resulting position. It writes ``engine/data/book_scores.tsv``: one
line ``epd  uci  cp`` a move, cp from the moving side's view (a mate is +-10000), under
comment lines that record how it was made. ``python -m engine.book`` then drops the moves
that are clearly worse than the position's best book move (``engine.book.build``).

Positions are scored once however many lines reach them; a stopped run keeps what it wrote
(``--resume`` goes on from the file). Deterministic for a given Stockfish build and depth.
"""

from __future__ import annotations

import argparse
import logging
import shutil
import time
from pathlib import Path

import chess
import chess.engine

from engine.book import SCORES_PATH, line_moves, lines_from_tsv, read_scores

log = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parent.parent
OPENINGS = ROOT.parent / "shared" / "data" / "openings"
MATE_CP = 10000


def book_moves(lines: list[list[chess.Move]]) -> list[tuple[str, chess.Move, chess.Board]]:
    """Every distinct (position, move) of the lines, in first-seen order, with the board after it."""
    seen: set[tuple[str, str]] = set()
    out: list[tuple[str, chess.Move, chess.Board]] = []
    for board, move in line_moves(lines):
        key = (board.epd(), move.uci())
        if key not in seen:
            seen.add(key)
            after = board.copy(stack=False)
            after.push(move)
            out.append((key[0], move, after))
    return out


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench book_scores", description=__doc__.splitlines()[0])
    parser.add_argument("--openings", type=Path, default=OPENINGS, help="folder of the named lines (*.tsv)")
    parser.add_argument("--out", type=Path, default=SCORES_PATH)
    parser.add_argument("--depth", type=int, default=12)
    parser.add_argument("--stockfish", default=shutil.which("stockfish") or "/usr/games/stockfish")
    parser.add_argument("--hash", type=int, default=32, help="Stockfish's hash table, MB")
    parser.add_argument("--resume", action="store_true", help="keep the scores already in --out")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")

    todo = book_moves(lines_from_tsv(sorted(args.openings.glob("*.tsv"))))
    tmp = args.out.with_suffix(".part")
    previous = tmp if tmp.exists() else args.out  # a stopped run's partial file first
    done = read_scores(previous) if args.resume and previous.exists() else {}
    results: dict[str, int] = {}  # epd of the position after the move -> cp for the side to move there
    start = time.monotonic()
    engine = chess.engine.SimpleEngine.popen_uci(args.stockfish)
    try:
        engine.configure({"Threads": 1, "Hash": args.hash})
        version = engine.id.get("name", "stockfish")
        with tmp.open("w", encoding="utf-8") as out:
            out.write(f"# {version}, depth {args.depth}, 1 thread, hash {args.hash} MB: the score of the position\n"
                      "# after each book move, from the moving side's view (mate +-10000); made by\n"
                      f"# python -m bench book_scores --depth {args.depth}\n")
            for i, (epd, move, after) in enumerate(todo):
                if (epd, move.uci()) in done:
                    cp = done[(epd, move.uci())]
                else:
                    key = after.epd()
                    if key not in results:
                        if after.is_game_over():
                            outcome = after.outcome()
                            results[key] = 0 if outcome is None or outcome.winner is None else -MATE_CP
                        else:
                            info = engine.analyse(after, chess.engine.Limit(depth=args.depth))
                            results[key] = info["score"].relative.score(mate_score=MATE_CP)
                    cp = -results[key]
                out.write(f"{epd}\t{move.uci()}\t{cp}\n")
                if i % 500 == 499:
                    out.flush()
                    log.info("%d of %d moves scored, %.0f s", i + 1, len(todo), time.monotonic() - start)
        tmp.replace(args.out)
    finally:
        engine.quit()
    log.info("wrote %d scores to %s in %.0f s", len(todo), args.out, time.monotonic() - start)
    return 0
