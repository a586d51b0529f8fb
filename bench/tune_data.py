"""Training positions for the evaluation tuner (bench/tune.py): self-play games, labelled.

``python -m bench tune_data --games N --seed S`` plays our engine against itself at a fixed node
budget per move from varied openings (a random ECO line from engine/data's sibling opening
lists, then two random legal moves), keeps quiet positions, and labels each with

* the game's result from White's side (1, 0.5 or 0), Texel's label, and
* Debian Stockfish's evaluation at a fixed small depth (centipawns from White's side),

one tab-separated line per position: ``fen  result  stockfish_cp  game``. The same seed gives the
same games (fixed nodes, seeded choices), so the data is regenerable and stays out of git. Each
game is labelled and written as soon as it ends, so a stopped run keeps every finished game.

"Quiet" means: not in check, the last move was no capture (nothing to recapture), the move our
search chose is no capture or promotion, and the game is past its opening moves.

For variety beyond the openings, ``--nodes-max`` draws each game's node budget between
``--nodes`` and it (weaker and stronger play), and ``--random-rate`` replaces that share of the
search's moves between plies 10 and 80 by a random legal move (games with imbalances and
mistakes, which the evaluation must also judge). Both come from the game's own random stream.

The only-move suite (bench/data/only_moves.epd) stays out of the data: its positions, and every
position one legal move after one, are never kept.
"""

from __future__ import annotations

import argparse
import logging
import os
import random
import shutil
import sys
import time
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
RANDOM_UNTIL = 80  # --random-rate applies to plies SKIP_PLIES..RANDOM_UNTIL
ONLY_MOVES = ROOT / "bench" / "data" / "only_moves.epd"


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


def position_key(board: chess.Board) -> str:
    """The position without move counters: pieces, side to move, castling, en passant."""
    return board.epd()


def excluded_keys(path: Path = ONLY_MOVES) -> frozenset[str]:
    """Positions never kept: each position of the EPD suite at ``path`` and every one a legal move after it."""
    keys: set[str] = set()
    if not path.exists():
        return frozenset()
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        board, _ = chess.Board.from_epd(line)
        keys.add(position_key(board))
        for move in board.legal_moves:
            board.push(move)
            keys.add(position_key(board))
            board.pop()
    return frozenset(keys)


def play_game(searcher: object, opening: list[chess.Move], rng: random.Random, nodes: int,
              *, random_rate: float = 0.0, exclude: frozenset[str] = frozenset(),
              ) -> tuple[list[Sample], float]:
    """One self-play game: its quiet positions and the result from White's side.

    With ``random_rate`` that share of the moves between plies SKIP_PLIES and RANDOM_UNTIL is a
    random legal move (drawn from ``rng``; the position before it is not kept). Positions in
    ``exclude`` (see :func:`position_key`) are never kept.
    """
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
        if random_rate > 0 and SKIP_PLIES <= board.ply() < RANDOM_UNTIL and rng.random() < random_rate:
            board.push(rng.choice(list(board.legal_moves)))
            streak = 0
            continue
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
                and not board.is_capture(move) and move.promotion is None and mate is None
                and position_key(board) not in exclude):
            samples.append(Sample(fen=board.fen(), ply=board.ply()))
        board.push(move)
    return samples, result


def _was_capture(board: chess.Board) -> bool:
    last = board.pop()
    try:
        return board.is_capture(last)
    finally:
        board.push(last)


def open_stockfish() -> chess.engine.SimpleEngine:
    path = STOCKFISH if Path(STOCKFISH).exists() else shutil.which("stockfish")
    if path is None:
        raise FileNotFoundError("Stockfish is not installed (scripts/ensure-stockfish.sh)")
    sf = chess.engine.SimpleEngine.popen_uci([path])
    sf.configure({"Threads": 1, "Hash": 16})
    return sf


def stockfish_label(sf: chess.engine.SimpleEngine, fen: str, depth: int) -> int:
    """Stockfish's score of ``fen`` at ``depth``, centipawns from White's side (mates clipped)."""
    info = sf.analyse(chess.Board(fen), chess.engine.Limit(depth=depth))
    score = info.get("score")
    return 0 if score is None else int(score.white().score(mate_score=3000) or 0)


def header(*, games: int, seed: int, nodes: int, nodes_max: int | None, random_rate: float, sf_depth: int,
           per_game: int, shard: tuple[int, int], max_positions: int | None, current_weights: bool) -> str:
    """The data file's first line: everything that regenerates it."""
    return (f"# games={games} seed={seed} nodes={nodes}" + (f"-{nodes_max}" if nodes_max else "")
            + (f" random_rate={random_rate:g}" if random_rate else "")
            + f" sf_depth={sf_depth} per_game={per_game} shard={shard[0]}/{shard[1]}"
            + (f" max_positions={max_positions}" if max_positions else "")
            + (" weights=current" if current_weights else "") + " exclude=only_moves.epd")


def generate(*, games: int, seed: int, nodes: int, sf_depth: int, out: Path, per_game: int,
             shard: tuple[int, int] = (0, 1), max_positions: int | None = None,
             current_weights: bool = False, nodes_max: int | None = None, random_rate: float = 0.0) -> int:
    """Play ``games`` games (those of ``shard`` (index, count)), label their positions and write
    them to ``out`` game by game (``out.part`` until the end); returns the count.

    ``max_positions`` stops the run once that many are written (whole games: the games played
    are a prefix of the shard's, so the data is still the seed's).
    """
    from engine.searcher import Searcher

    searcher = Searcher(hash_mb=8, seed=seed)
    if not current_weights:  # the tuner's start, so that a retune replays the same games
        from engine.evaluate import default_weights

        searcher.ev = default_weights()
    searcher.warm()
    openings = opening_lines(random.Random(seed), games)
    exclude = excluded_keys()
    start = time.monotonic()
    index, count = shard
    played = written = 0
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".part")
    with tmp.open("w") as fh, open_stockfish() as sf:
        fh.write(header(games=games, seed=seed, nodes=nodes, nodes_max=nodes_max, random_rate=random_rate,
                        sf_depth=sf_depth, per_game=per_game, shard=shard, max_positions=max_positions,
                        current_weights=current_weights) + "\n")
        for i, opening in enumerate(openings):
            if i % count != index:
                continue
            if max_positions is not None and written >= max_positions:
                break
            rng = random.Random(f"{seed}/{i}")  # each game its own stream: shards play the same games
            budget = rng.randint(nodes, nodes_max) if nodes_max and nodes_max > nodes else nodes
            samples, result = play_game(searcher, opening, rng, budget, random_rate=random_rate, exclude=exclude)
            rng.shuffle(samples)
            lines = [f"{s.fen}\t{result}\t{stockfish_label(sf, s.fen, sf_depth)}\t{i}\n" for s in samples[:per_game]]
            fh.write("".join(lines))
            fh.flush()
            written += len(lines)
            played += 1
            if played % 25 == 0:
                log.info("%d games, %d positions, %.0f s", played, written, time.monotonic() - start)
    os.replace(tmp, out)
    log.info("%d positions of %d games in %.0f s: %s", written, played, time.monotonic() - start, out)
    return written


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
    parser.add_argument("--nodes-max", type=int, default=None,
                        help="draw each game's nodes per move between --nodes and this")
    parser.add_argument("--random-rate", type=float, default=0.0,
                        help=f"share of moves (plies {SKIP_PLIES}-{RANDOM_UNTIL}) played at random")
    parser.add_argument("--sf-depth", type=int, default=8, help="Stockfish's labelling depth")
    parser.add_argument("--per-game", type=int, default=40, help="positions kept per game at most")
    parser.add_argument("--shard", type=_shard, default=(0, 1),
                        help="INDEX/COUNT: play only games i with i %% COUNT == INDEX (run shards in parallel)")
    parser.add_argument("--max-positions", type=int, default=None,
                        help="stop once N positions of this shard are written (after whole games)")
    parser.add_argument("--current-weights", action="store_true",
                        help="play with engine/data/eval_weights.json, not the hand-set weights")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    out = args.out or default_path(args.seed, args.games, args.shard)
    generate(games=args.games, seed=args.seed, nodes=args.nodes, sf_depth=args.sf_depth, out=out,
             per_game=args.per_game, shard=args.shard, max_positions=args.max_positions,
             current_weights=args.current_weights, nodes_max=args.nodes_max, random_rate=args.random_rate)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
