"""Do the characters play like their descriptions, and does their strength follow their rating?

``python -m bench characters`` plays two sets of games with our engine over UCI, at small fixed
node budgets (``go nodes``: 1000 a move in the style games, 1500 in the round robin; a character's
level may cap it lower) so that a loaded machine changes the speed, not the moves:

* **style**: each chosen character plays ``--games`` games (colours alternating) against one
  fixed opponent, our engine at level ``--opponent-level`` with its own style. From every game
  the character's moves give the style metrics (:class:`Metrics`): how often it moves a piece
  next to the enemy king, the material it is down on average (given up for the initiative),
  the game length, its draw rate, how often it moves a pawn (pawn-structure changes) and how
  often it captures. :data:`CLAIMS` then checks what the styles promise, each with its margin;
  the attacker against the solid defender first.
* **round robin**: the chosen characters play each other, each pairing twice with colours
  swapped; the Spearman correlation of rating against score must be at least 0.7.

Games are saved as they finish, one JSON line each, in ``--state`` (default
``bench/characters.jsonl``): an interrupted run resumes where it stopped, and ``--report`` only
prints the figures of what is saved. Run it under ``nice``: it keeps one core busy.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import chess
import chess.engine

from boardctl.engine_client import level_of
from boardctl.learning.characters import Character, find_character, load_characters

ENGINE_CMD = [sys.executable, "-m", "engine"]
STATE = Path(__file__).with_name("characters.jsonl")
VALUES = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9}
MAX_PLIES = 200  # a game still going here is scored a draw
RESIGN_MARGIN, RESIGN_PLIES = 10, 8  # so many pawns behind for so many plies in a row: lost
#: One character of each style, all rated 1650-1850 but the beginner, so that style, not
#: strength, sets them apart; and a round robin spanning the whole rating range.
STYLE_SET = ("vera", "hedda", "marta", "oskar", "yuri", "nadia", "ned")
ROUND_ROBIN_SET = ("benny", "gus", "ned", "wanda", "carl", "elsa", "vera", "bertil", "max")


@dataclass(frozen=True)
class Side:
    """The raw counts of one side's play in one game."""

    moves: int = 0
    near_king: int = 0  # moves of a piece (not the king) to within two squares of the enemy king
    pawn_moves: int = 0
    captures: int = 0
    deficit: float = 0.0  # sum over its moves of the material it is behind afterwards, in pawns

    def to_json(self) -> dict[str, Any]:
        return {"moves": self.moves, "near_king": self.near_king, "pawn_moves": self.pawn_moves,
                "captures": self.captures, "deficit": round(self.deficit, 3)}


def material(board: chess.Board, colour: chess.Color) -> int:
    return sum(VALUES[p] * len(board.pieces(p, colour)) for p in VALUES)


def side_counts(board: chess.Board, colour: chess.Color) -> Side:
    """The counts of ``colour``'s moves in ``board``'s game, replayed from its root."""
    replay = board.root()
    moves = near = pawns = captures = 0
    deficit = 0.0
    for move in board.move_stack:
        mover = replay.turn
        if mover == colour:
            piece = replay.piece_type_at(move.from_square)
            enemy_king = replay.king(not colour)
            moves += 1
            captures += replay.is_capture(move)
            pawns += piece == chess.PAWN
            if piece != chess.KING and enemy_king is not None and chess.square_distance(move.to_square, enemy_king) <= 2:
                near += 1
        replay.push(move)
        if mover == colour:
            deficit += max(0, material(replay, not colour) - material(replay, colour))
    return Side(moves, near, pawns, captures, deficit)


def play_game(white: chess.engine.SimpleEngine, black: chess.engine.SimpleEngine, *, nodes: int,
              game_id: str) -> tuple[str, str, chess.Board]:
    """One game at ``nodes`` a move: (result, how it ended, the board with its moves)."""
    board = chess.Board()
    behind = 0
    while not board.is_game_over(claim_draw=True) and board.ply() < MAX_PLIES:
        mover = white if board.turn == chess.WHITE else black
        move = mover.play(board, chess.engine.Limit(nodes=nodes), game=game_id).move
        if move is None:
            break
        board.push(move)
        balance = material(board, chess.WHITE) - material(board, chess.BLACK)
        behind = behind + 1 if abs(balance) >= RESIGN_MARGIN else 0
        if behind >= RESIGN_PLIES:
            return ("1-0" if balance > 0 else "0-1"), "material", board
    outcome = board.outcome(claim_draw=True)
    if outcome is None:
        return "1/2-1/2", f"{MAX_PLIES} plies", board
    return outcome.result(), outcome.termination.name.lower(), board


def configure(engine: chess.engine.SimpleEngine, character: Character | None, level: str) -> None:
    """Set a character (style, book and its level) or the plain engine at ``level``."""
    options: dict[str, str | int | bool] = {name: value for name, value in level_of(level).uci_options().items()}
    neutral: dict[str, str | int | bool] = {"Style Material": 100, "Style KingAttack": 100, "Style Mobility": 100,
               "Style PawnStructure": 100, "Style KingSafety": 100, "Contempt": 0, "Book Lines": ""}
    options.update(neutral)
    options["OwnBook"] = False
    if character is not None:
        options.update(level_of(character.level).uci_options())
        options.update(character.uci_options)
    if not options.get("UCI_LimitStrength"):
        options["UCI_LimitStrength"] = False
    engine.configure(options)


@dataclass
class Record:
    """One saved game."""

    kind: str  # "style" or "rr"
    white: str
    black: str
    result: str
    ending: str
    plies: int
    sides: dict[str, Side]  # by colour name
    moves: str  # UCI, space separated

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "white": self.white, "black": self.black, "result": self.result,
                "ending": self.ending, "plies": self.plies, "moves": self.moves,
                "sides": {k: v.to_json() for k, v in self.sides.items()}}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Record:
        return cls(data["kind"], data["white"], data["black"], data["result"], data["ending"], data["plies"],
                   {k: Side(**v) for k, v in data["sides"].items()}, data["moves"])

    def score(self, colour: str) -> float:
        return {"1-0": 1.0, "0-1": 0.0}.get(self.result, 0.5) if colour == "white" else \
            {"1-0": 0.0, "0-1": 1.0}.get(self.result, 0.5)


def load_state(path: Path) -> list[Record]:
    if not path.exists():
        return []
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            try:
                out.append(Record.from_json(json.loads(line)))
            except (ValueError, KeyError, TypeError):  # a line cut by a kill: that game is replayed
                continue
    return out


def append_state(path: Path, record: Record) -> None:
    with path.open("a", encoding="utf-8") as f:
        f.write(json.dumps(record.to_json()) + "\n")


# -- the figures ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Metrics:
    """A character's style figures over its games (from its own moves)."""

    games: int
    near_king: float  # share of its moves that bring a piece within two squares of the enemy king
    deficit: float  # pawns it is behind after its move, on average (material given for the initiative)
    length: float  # plies per game
    draw_rate: float
    pawn_moves: float  # share of its moves that are pawn moves (pawn-structure changes)
    captures: float  # share of its moves that capture
    score: float


def metrics(records: Iterable[Record], who: str) -> Metrics:
    games = [r for r in records if who in (r.white, r.black)]
    sides = [r.sides["white" if r.white == who else "black"] for r in games]
    moves = max(1, sum(s.moves for s in sides))
    n = max(1, len(games))
    return Metrics(
        games=len(games),
        near_king=sum(s.near_king for s in sides) / moves,
        deficit=sum(s.deficit for s in sides) / moves,
        length=sum(r.plies for r in games) / n,
        draw_rate=sum(r.result == "1/2-1/2" for r in games) / n,
        pawn_moves=sum(s.pawn_moves for s in sides) / moves,
        captures=sum(s.captures for s in sides) / moves,
        score=sum(r.score("white" if r.white == who else "black") for r in games) / n,
    )


@dataclass(frozen=True)
class Claim:
    """``left``'s ``metric`` is at least ``factor`` times ``right``'s (styles by name)."""

    text: str
    left: str
    right: str
    metric: str
    factor: float

    def check(self, by_style: dict[str, Metrics]) -> tuple[bool, str]:
        a, b = getattr(by_style[self.left], self.metric), getattr(by_style[self.right], self.metric)
        ok = a > b and a >= self.factor * b
        return ok, f"{self.left} {a:.3f} vs {self.right} {b:.3f} (needs >= {self.factor:g}x)"


#: What each style promises, as thresholds between styles (the margins are stated here, before
#: any run; a failing claim is reported as such).
CLAIMS = (
    Claim("the attacker moves pieces near the enemy king more than the solid defender", "attacker",
          "solid defender", "near_king", 1.25),
    Claim("the attacker gives up more material than the solid defender", "attacker", "solid defender",
          "deficit", 1.3),
    Claim("the gambiteer gives up more material than the materialist", "gambiteer", "materialist",
          "deficit", 1.5),
    Claim("the endgame grinder plays longer games than the attacker", "endgame grinder", "attacker",
          "length", 1.1),
    Claim("the solid defender draws more often than the attacker", "solid defender", "attacker",
          "draw_rate", 1.2),
    Claim("the beginner who blunders gives away more material than the positional player",
          "beginner who blunders", "positional player", "deficit", 2.0),
)


def spearman(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Spearman's rank correlation, ties given their average rank."""
    def ranks(values: Sequence[float]) -> list[float]:
        order = sorted(range(len(values)), key=lambda i: values[i])
        out = [0.0] * len(values)
        i = 0
        while i < len(order):
            j = i
            while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
                j += 1
            for k in range(i, j + 1):
                out[order[k]] = (i + j) / 2 + 1
            i = j + 1
        return out

    rx, ry = ranks(xs), ranks(ys)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry, strict=True))
    sx = math.sqrt(sum((a - mx) ** 2 for a in rx))
    sy = math.sqrt(sum((b - my) ** 2 for b in ry))
    return cov / (sx * sy) if sx and sy else 0.0


# -- running ----------------------------------------------------------------------------------------

def _run(path: Path, done: list[Record], jobs: list[tuple[str, str, str, Callable[[], None]]],
         engines: tuple[chess.engine.SimpleEngine, chess.engine.SimpleEngine], nodes: int,
         deadline: float) -> None:
    """Play the ``jobs`` (kind, white, black, configure) not yet in ``done``."""
    have: dict[tuple[str, str, str], int] = {}
    for r in done:
        have[(r.kind, r.white, r.black)] = have.get((r.kind, r.white, r.black), 0) + 1
    seen: dict[tuple[str, str, str], int] = {}
    for kind, white, black, setup in jobs:
        key = (kind, white, black)
        seen[key] = seen.get(key, 0) + 1
        if seen[key] <= have.get(key, 0):
            continue
        if time.monotonic() > deadline:
            print("-- stopped at --minutes; run again to resume", flush=True)
            return
        setup()
        started = time.perf_counter()
        result, ending, board = play_game(engines[0], engines[1], nodes=nodes,
                                          game_id=f"{kind}-{white}-{black}-{seen[key]}")
        record = Record(kind, white, black, result, ending, board.ply(),
                        {"white": side_counts(board, chess.WHITE), "black": side_counts(board, chess.BLACK)},
                        " ".join(m.uci() for m in board.move_stack))
        append_state(path, record)
        done.append(record)
        print(f"   {kind} {white} - {black}: {result} ({ending}, {board.ply()} plies, "
              f"{time.perf_counter() - started:.1f} s)", flush=True)


def report(records: list[Record], style_ids: Sequence[str], rr_ids: Sequence[str], opponent: str,
           characters: tuple[Character, ...]) -> int:
    failures = 0
    style_games = [r for r in records if r.kind == "style"]
    by_style: dict[str, Metrics] = {}
    print(f"== style: each character against the engine at level {opponent} (its moves only)")
    print(f"   {'character':<18} {'style':<22} {'games':>5} {'near-king':>9} {'deficit':>7} {'length':>6} "
          f"{'draws':>5} {'pawn':>5} {'capt':>5} {'score':>5}")
    for cid in style_ids:
        c = find_character(cid, characters=characters)
        m = metrics(style_games, c.id)
        if m.games:
            by_style.setdefault(c.style, m)
        print(f"   {c.name:<18} {c.style:<22} {m.games:>5} {m.near_king:>9.3f} {m.deficit:>7.3f} {m.length:>6.1f} "
              f"{m.draw_rate:>5.2f} {m.pawn_moves:>5.3f} {m.captures:>5.3f} {m.score:>5.2f}")
    for claim in CLAIMS:
        if claim.left in by_style and claim.right in by_style:
            ok, detail = claim.check(by_style)
            failures += not ok
            print(f"   {'PASS' if ok else 'FAIL'} {claim.text}: {detail}")
        else:
            print(f"   skip {claim.text}: no games of both styles yet")
    rr = [r for r in records if r.kind == "rr"]
    if rr:
        print("== round robin (each pairing twice, colours swapped)")
        ratings, scores = [], []
        for cid in rr_ids:
            c = find_character(cid, characters=characters)
            m = metrics(rr, c.id)
            ratings.append(float(c.rating))
            scores.append(m.score * m.games)
            print(f"   {c.name:<18} {c.rating:>5} {m.games:>3} games  score {m.score * m.games:>5.1f}")
        rho = spearman(ratings, scores)
        ok = rho >= 0.7
        failures += not ok
        print(f"   {'PASS' if ok else 'FAIL'} Spearman(rating, score) = {rho:.3f} over {len(rr)} games (needs >= 0.7)")
    return failures


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="bench.characters", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=40, help="style games per character (default 40)")
    parser.add_argument("--nodes", type=int, default=1000, help="nodes per move in the style games (default 1000)")
    parser.add_argument("--rr-nodes", type=int, default=1500, help="nodes per move in the round robin (default 1500)")
    parser.add_argument("--opponent-level", default="2000",
                        help="the fixed opponent's level (default 2000: the level of the 1700-rated characters)")
    parser.add_argument("--style", default=",".join(STYLE_SET),
                        help="characters of the style games, by id, or 'all' (default: one per style)")
    parser.add_argument("--round-robin", default=",".join(ROUND_ROBIN_SET),
                        help="characters of the round robin, or 'all', or '' for none")
    parser.add_argument("--state", type=Path, default=STATE, help="saved games (resumed from)")
    parser.add_argument("--minutes", type=float, default=60.0, help="stop starting games after this long")
    parser.add_argument("--report", action="store_true", help="only print the figures of the saved games")
    args = parser.parse_args(argv)
    characters = load_characters()
    every = ",".join(c.id for c in characters)
    style_ids = [find_character(x, characters=characters).id
                 for x in (every if args.style == "all" else args.style).split(",") if x]
    rr_ids = [find_character(x, characters=characters).id
              for x in (every if args.round_robin == "all" else args.round_robin).split(",") if x]
    done = load_state(args.state)
    if not args.report:
        engines = (chess.engine.SimpleEngine.popen_uci(ENGINE_CMD, timeout=300),
                   chess.engine.SimpleEngine.popen_uci(ENGINE_CMD, timeout=300))
        try:
            jobs: list[tuple[str, str, str, Callable[[], None]]] = []
            rr_jobs: list[tuple[str, str, str, Callable[[], None]]] = []
            opponent = f"level-{args.opponent_level}"
            for i in range(args.games):
                for cid in style_ids:
                    c = find_character(cid, characters=characters)
                    white, black = (c, None) if i % 2 == 0 else (None, c)

                    def setup(w: Character | None = white, b: Character | None = black) -> None:
                        configure(engines[0], w, args.opponent_level)
                        configure(engines[1], b, args.opponent_level)

                    jobs.append(("style", white.id if white else opponent, black.id if black else opponent, setup))
            for a in rr_ids:
                for b in rr_ids:
                    if a != b:
                        ca, cb = find_character(a, characters=characters), find_character(b, characters=characters)

                        def setup_rr(w: Character = ca, bl: Character = cb) -> None:
                            configure(engines[0], w, args.opponent_level)
                            configure(engines[1], bl, args.opponent_level)

                        rr_jobs.append(("rr", a, b, setup_rr))
            deadline = time.monotonic() + args.minutes * 60
            _run(args.state, done, jobs, engines, args.nodes, deadline)
            _run(args.state, done, rr_jobs, engines, args.rr_nodes, deadline)
        finally:
            for engine in engines:
                engine.quit()
    return 1 if report(done, style_ids, rr_ids, args.opponent_level, characters) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
