"""Training positions for the evaluation tuner (bench/tune.py): self-play games, labelled.

``python -m bench tune_data --games N --seed S`` plays our engine against itself at a fixed node
budget per move from varied openings (a random ECO line from engine/data's sibling opening
lists, then two random legal moves), keeps quiet positions, and labels each with

* the game's result from White's side (1, 0.5 or 0), Texel's label, and
* Debian Stockfish's evaluation at a fixed small depth (centipawns from White's side),

one tab-separated line per position: ``fen  result  stockfish_cp``. The same seed gives the same
games (fixed nodes, seeded choices), so the data is regenerable and stays out of git.

"Quiet" means: not in check, the last move was no capture (nothing to recapture), the move our
search chose is no capture or promotion, and the game is past its opening moves.
"""

from __future__ import annotations

import argparse
import logging
import os
import random
import shutil
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import chess
import chess.engine
import chess.pgn

log = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parent.parent
OPENINGS = (ROOT / "engine" / "data" / "openings", ROOT.parent / "shared" / "data" / "openings",
            Path("/work/shared/data/openings"))
DATA_DIR = ROOT / ".tune"
STOCKFISH = "/usr/games/stockfish"
SKIP_PLIES = 10  # opening plies never sampled
ADJUDICATE_CP = 1000  # a win once both sides' searches agree on this much for 6 plies
MAX_PLIES = 300


@dataclass(frozen=True, kw_only=True)
class Sample:
    fen: str
    ply: int


def opening_lines(rng: random.Random, count: int) -> list[list[chess.Move]]:
    """``count`` opening move lists from the ECO tables (random lines), or the empty line."""
    lines: list[str] = []
    for folder in OPENINGS:
        if folder.is_dir():
            for tsv in sorted(folder.glob("*.tsv")):
                for row in tsv.read_text().splitlines()[1:]:
                    parts = row.split("\t")
                    if len(parts) >= 3:
                        lines.append(parts[2])
            break
    out: list[list[chess.Move]] = []
    for _ in range(count):
        if not lines:
            out.append([])
            continue
        board = chess.Board()
        moves: list[chess.Move] = []
        for token in lines[rng.randrange(len(lines))].split():
            if token[0].isdigit():
                continue
            try:
                move = board.parse_san(token)
            except ValueError:
                break
            board.push(move)
            moves.append(move)
        out.append(moves)
    return out


def play_game(searcher: object, opening: list[chess.Move], rng: random.Random, nodes: int,
              ) -> tuple[list[Sample], float]:
    """One self-play game: its quiet positions and the result from White's side."""
    from engine.searcher import Limits, Searcher

    assert isinstance(searcher, Searcher)
    board = chess.Board()
    for move in opening:
        board.push(move)
    for _ in range(2):  # two random plies: varied positions even from a shared line
        legal = list(board.legal_moves)
        if not legal or board.is_game_over():
            break
        board.push(rng.choice(legal))
    searcher.clear()
    samples: list[Sample] = []
    streak = 0
    result: float | None = None
    while result is None:
        outcome = board.outcome(claim_draw=True)
        if outcome is not None:
            result = 0.5 if outcome.winner is None else (1.0 if outcome.winner == chess.WHITE else 0.0)
            break
        if board.ply() >= MAX_PLIES:
            result = 0.5
            break
        found = searcher.search(board, Limits(nodes=nodes))
        if found.best is None:
            result = 0.5
            break
        move = chess.Move.from_uci(found.best.uci())
        score = found.info.score_cp if found.info else None
        mate = found.info.score_mate if found.info else None
        white_cp = None
        if score is not None:
            white_cp = score if board.turn == chess.WHITE else -score
        elif mate is not None:
            white_cp = (1 if (mate > 0) == (board.turn == chess.WHITE) else -1) * 10 * ADJUDICATE_CP
        streak = streak + 1 if white_cp is not None and abs(white_cp) >= ADJUDICATE_CP else 0
        if streak >= 6 and white_cp is not None:
            result = 1.0 if white_cp > 0 else 0.0
            break
        last_capture = bool(board.move_stack) and _was_capture(board)
        if (board.ply() >= SKIP_PLIES and not board.is_check() and not last_capture
                and not board.is_capture(move) and move.promotion is None and mate is None):
            samples.append(Sample(fen=board.fen(), ply=board.ply()))
        board.push(move)
    return samples, result


def _was_capture(board: chess.Board) -> bool:
    last = board.pop()
    try:
        return board.is_capture(last)
    finally:
        board.push(last)


def stockfish_labels(fens: list[str], depth: int) -> Iterator[int]:
    """Stockfish's score of each position at ``depth``, centipawns from White's side (mates clipped)."""
    path = STOCKFISH if Path(STOCKFISH).exists() else shutil.which("stockfish")
    if path is None:
        raise FileNotFoundError("Stockfish is not installed (scripts/ensure-stockfish.sh)")
    with chess.engine.SimpleEngine.popen_uci([path]) as sf:
        sf.configure({"Threads": 1, "Hash": 16})
        for fen in fens:
            info = sf.analyse(chess.Board(fen), chess.engine.Limit(depth=depth))
            score = info.get("score")
            yield 0 if score is None else int(score.white().score(mate_score=3000) or 0)


def generate(*, games: int, seed: int, nodes: int, sf_depth: int, out: Path, per_game: int,
             shard: tuple[int, int] = (0, 1), max_positions: int | None = None,
             current_weights: bool = False) -> int:
    """Play ``games`` games (those of ``shard`` (index, count)) and write their labelled positions
    to ``out``; returns the count."""
    from engine.searcher import Searcher

    searcher = Searcher(hash_mb=8, seed=seed)
    if not current_weights:  # the tuner's start, so that a retune replays the same games
        from engine.evaluate import default_weights

        searcher.ev = default_weights()
    searcher.warm()
    openings = opening_lines(random.Random(seed), games)
    rows: list[tuple[str, float]] = []
    start = time.monotonic()
    index, count = shard
    played = 0
    for i, opening in enumerate(openings):
        if i % count != index:
            continue
        rng = random.Random(f"{seed}/{i}")  # each game its own stream: shards play the same games
        samples, result = play_game(searcher, opening, rng, nodes)
        rng.shuffle(samples)
        rows.extend((s.fen, result) for s in samples[:per_game])
        played += 1
        if played % 50 == 0:
            log.info("%d games, %d positions, %.0f s", played, len(rows), time.monotonic() - start)
    log.info("self-play done: %d positions from %d games in %.0f s", len(rows), played, time.monotonic() - start)
    if max_positions is not None:  # the labelling is the slow part: keep the first ones
        rows = rows[:max_positions]
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".part")
    with tmp.open("w") as fh:
        fh.write(f"# games={games} seed={seed} nodes={nodes} sf_depth={sf_depth} per_game={per_game}"
                 f" shard={index}/{count}" + (f" max_positions={max_positions}" if max_positions else "")
                 + (" weights=current" if current_weights else "") + "\n")
        for (fen, result), cp in zip(rows, stockfish_labels([r[0] for r in rows], sf_depth), strict=True):
            fh.write(f"{fen}\t{result}\t{cp}\n")
    os.replace(tmp, out)
    log.info("labelled %d positions in %.0f s: %s", len(rows), time.monotonic() - start, out)
    return len(rows)


def default_path(seed: int, games: int, shard: tuple[int, int] = (0, 1)) -> Path:
    suffix = f"-{shard[0]}of{shard[1]}" if shard[1] > 1 else ""
    return DATA_DIR / f"selfplay-s{seed}-g{games}{suffix}.tsv"


def _shard(text: str) -> tuple[int, int]:
    index, _, count = text.partition("/")
    try:
        i, n = int(index), int(count)
    except ValueError:
        raise argparse.ArgumentTypeError(f"shard should be INDEX/COUNT, like 0/2, not {text!r}") from None
    if not 0 <= i < n:
        raise argparse.ArgumentTypeError(f"shard {text!r}: the index should be in 0..count-1")
    return i, n


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="bench.tune_data", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=1200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--nodes", type=int, default=4000, help="search nodes per move")
    parser.add_argument("--sf-depth", type=int, default=8, help="Stockfish's labelling depth")
    parser.add_argument("--per-game", type=int, default=40, help="positions kept per game at most")
    parser.add_argument("--shard", type=_shard, default=(0, 1),
                        help="INDEX/COUNT: play only games i with i %% COUNT == INDEX (run shards in parallel)")
    parser.add_argument("--max-positions", type=int, default=None,
                        help="label and keep only the first N positions of this shard")
    parser.add_argument("--current-weights", action="store_true",
                        help="play with engine/data/eval_weights.json, not the hand-set weights")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    out = args.out or default_path(args.seed, args.games, args.shard)
    generate(games=args.games, seed=args.seed, nodes=args.nodes, sf_depth=args.sf_depth, out=out,
             per_game=args.per_game, shard=args.shard, max_positions=args.max_positions,
             current_weights=args.current_weights)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
