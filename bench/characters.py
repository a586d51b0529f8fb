"""Do the characters play like their descriptions, and does their strength follow their rating?

``python -m bench characters`` plays two sets of games with our engine over UCI, through the one
engine-against-engine loop (:func:`boardctl.learning.npc_games.play_game`, two engine processes
kept open for all games), at small fixed node budgets (``go nodes``: ``--nodes`` a move in the
style games, ``--rr-nodes`` in the round robin; a character's level may cap it lower) so that a
loaded machine changes the speed, not the moves:

* **style**: every character (``--style all``, the default) plays ``--games`` games (colours
  alternating) against its fixed opponent: the plain engine (no style, no book) at the
  character's own level, so that the games show what its style changes and not its strength
  (``--opponent-level N`` sets one opponent at level N for all instead). From every game the
  character's moves give the style metrics (:class:`Metrics`): how often it moves a piece next
  to the enemy king, the material it is down on average (given up for the initiative), the game
  length, its draw rate, how often it moves a pawn (pawn-structure changes) and how often it
  captures. :data:`CLAIMS` then checks what the styles promise, each with its margin: first
  between the styles (every character of a style pooled), then **each character against its
  style's thresholds**: its figure against the other style's pooled one, with the same margin.
* **round robin**: the chosen characters play each other, each pairing twice with colours
  swapped; the Spearman correlation of rating against score must be at least 0.7.

Games are saved as they finish, one JSON line each, in ``--state`` (default
``bench/characters.jsonl``): an interrupted run resumes where it stopped, and ``--report`` only
prints the figures of what is saved. ``--tables 2`` plays two games at once (two pairs of engine
processes). Run it under ``nice``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import chess

from boardctl.learning import npc_games
from boardctl.learning.characters import Character, find_character, load_characters
from boardctl.learning.npc_games import Npc, Seats
from engine.style import is_near_enemy_king

STATE = Path(__file__).with_name("characters.jsonl")
VALUES = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9}
MAX_PLIES = npc_games.MAX_PLIES  # a game still going here is scored a draw
RESIGN_MARGIN, RESIGN_PLIES = 10, 8  # so many pawns behind for so many plies in a row: lost
#: One character of each style, all rated 1650-1850 but the beginner (``--style set``).
STYLE_SET = ("vera", "hedda", "marta", "oskar", "yuri", "nadia", "ned")
ROUND_ROBIN_SET = ("benny", "gus", "ned", "wanda", "carl", "elsa", "vera", "bertil", "max")
#: The name of the fixed opponent in the saved games: ``level-own`` is the character's own level.
OWN = "own"


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
            moves += 1
            captures += replay.is_capture(move)
            pawns += replay.piece_type_at(move.from_square) == chess.PAWN
            near += is_near_enemy_king(replay, move)
        replay.push(move)
        if mover == colour:
            deficit += max(0, material(replay, not colour) - material(replay, colour))
    return Side(moves, near, pawns, captures, deficit)


class Resign:
    """The benchmark's adjudication (given to ``play_game``): a side :data:`RESIGN_MARGIN` pawns
    behind for :data:`RESIGN_PLIES` plies in a row has lost. One per game: it counts plies."""

    def __init__(self) -> None:
        self.behind = 0

    def __call__(self, board: object) -> tuple[str, str] | None:
        assert isinstance(board, chess.Board)  # the chess variant's board is python-chess's
        balance = material(board, chess.WHITE) - material(board, chess.BLACK)
        self.behind = self.behind + 1 if abs(balance) >= RESIGN_MARGIN else 0
        if self.behind >= RESIGN_PLIES:
            return ("1-0" if balance > 0 else "0-1"), "material"
        return None


def opponent_npc(character: Character, opponent_level: str) -> Npc:
    """The fixed opponent: the plain engine (no style, no book) at the character's own level, or
    at ``opponent_level``."""
    level = character.level if opponent_level == OWN else opponent_level
    return Npc(f"level-{opponent_level}", character.rating, level=level)


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

    @classmethod
    def from_game(cls, kind: str, white: str, black: str, game: npc_games.NpcGame) -> Record:
        board = chess.Board()
        for uci in game.moves:
            board.push_uci(uci)
        return cls(kind, white, black, game.result, game.termination, board.ply(),
                   {"white": side_counts(board, chess.WHITE), "black": side_counts(board, chess.BLACK)},
                   " ".join(game.moves))

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


def metrics(records: Iterable[Record], who: str | Sequence[str]) -> Metrics:
    """The figures of ``who`` (one character id, or several pooled) over its games in ``records``."""
    names = {who} if isinstance(who, str) else set(who)
    games = [r for r in records if r.white in names or r.black in names]
    sides = [r.sides["white" if r.white in names else "black"] for r in games]
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
        score=sum(r.score("white" if r.white in names else "black") for r in games) / n,
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
        return self.compare(by_style[self.left], by_style[self.right])

    def compare(self, left: Metrics, right: Metrics, *, left_name: str = "", right_name: str = "") -> tuple[bool, str]:
        """Whether ``left`` (a character or a style's pool) beats ``right`` by the margin, and the figures."""
        a, b = getattr(left, self.metric), getattr(right, self.metric)
        ok = a > b and a >= self.factor * b
        ratio = f"{a / b:.2f}x" if b else "-"
        return ok, (f"{left_name or self.left} {a:.3f} vs {right_name or self.right} {b:.3f} "
                    f"({ratio}, needs >= {self.factor:g}x)")


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


@dataclass(frozen=True)
class Verdict:
    """One character's result on one claim of its style: its figure against the other style's pool."""

    character: str
    claim: Claim
    ok: bool
    detail: str


def character_verdicts(records: Sequence[Record], characters: Sequence[Character]) -> list[Verdict]:
    """Each character with games against its style's thresholds: for every claim naming its
    style, its own figure against the pooled figure of the claim's other style."""
    by_style: dict[str, list[str]] = {}
    played = [c for c in characters if metrics(records, c.id).games]
    for c in played:
        by_style.setdefault(c.style, []).append(c.id)
    pooled = {style: metrics(records, ids) for style, ids in by_style.items()}
    out: list[Verdict] = []
    for c in played:
        mine = metrics(records, c.id)
        for claim in CLAIMS:
            if c.style == claim.left and claim.right in pooled:
                ok, detail = claim.compare(mine, pooled[claim.right], left_name=c.id, right_name=f"[{claim.right}]")
            elif c.style == claim.right and claim.left in pooled:
                ok, detail = claim.compare(pooled[claim.left], mine, left_name=f"[{claim.left}]", right_name=c.id)
            else:
                continue
            out.append(Verdict(c.id, claim, ok, detail))
    return out


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

@dataclass(frozen=True)
class Job:
    """One game to play: its kind, the saved names of its sides, and the players."""

    kind: str
    white: str
    black: str
    white_npc: Npc
    black_npc: Npc

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.kind, self.white, self.black)


def todo(jobs: Sequence[Job], done: Sequence[Record]) -> list[Job]:
    """The ``jobs`` not yet in ``done`` (a pairing asked for n times and saved m times: n - m left)."""
    have: dict[tuple[str, str, str], int] = {}
    for r in done:
        have[(r.kind, r.white, r.black)] = have.get((r.kind, r.white, r.black), 0) + 1
    seen: dict[tuple[str, str, str], int] = {}
    out = []
    for job in jobs:
        seen[job.key] = seen.get(job.key, 0) + 1
        if seen[job.key] > have.get(job.key, 0):
            out.append(job)
    return out


async def _play(path: Path, done: list[Record], jobs: list[Job], *, nodes: int, tables: int, deadline: float) -> None:
    """Play ``jobs`` on ``tables`` pairs of engines at once, saving each game as it ends."""
    queue = list(jobs)

    async def table() -> None:
        async with Seats(nodes=nodes) as seats:
            while queue and time.monotonic() < deadline:
                job = queue.pop(0)
                game = await npc_games.play_game(job.white_npc, job.black_npc, nodes=nodes, max_plies=MAX_PLIES,
                                                 seats=seats, adjudicate=Resign())
                record = Record.from_game(job.kind, job.white, job.black, game)
                append_state(path, record)
                done.append(record)
                print(f"   {job.kind} {job.white} - {job.black}: {game.result} ({game.termination}, "
                      f"{record.plies} plies, {game.seconds:.1f} s)", flush=True)

    await asyncio.gather(*(table() for _ in range(max(1, tables))))
    if queue:
        print("-- stopped at --minutes; run again to resume", flush=True)


def report(records: list[Record], style_ids: Sequence[str], rr_ids: Sequence[str], opponent: str,
           characters: tuple[Character, ...]) -> int:
    failures = 0
    style_games = [r for r in records if r.kind == "style"]
    chosen = [find_character(cid, characters=characters) for cid in style_ids]
    against = "the plain engine at its own level" if opponent == OWN else f"the engine at level {opponent}"
    print(f"== style: each character against {against} (its moves only)")
    print(f"   {'character':<18} {'rating':>6} {'style':<22} {'games':>5} {'near-king':>9} {'deficit':>7} "
          f"{'length':>6} {'draws':>5} {'pawn':>5} {'capt':>5} {'score':>5}")
    for c in chosen:
        m = metrics(style_games, c.id)
        print(f"   {c.name:<18} {c.rating:>6} {c.style:<22} {m.games:>5} {m.near_king:>9.3f} {m.deficit:>7.3f} "
              f"{m.length:>6.1f} {m.draw_rate:>5.2f} {m.pawn_moves:>5.3f} {m.captures:>5.3f} {m.score:>5.2f}")
    by_style: dict[str, list[str]] = {}
    for c in chosen:
        if metrics(style_games, c.id).games:
            by_style.setdefault(c.style, []).append(c.id)
    pooled = {style: metrics(style_games, ids) for style, ids in by_style.items()}
    print("   -- by style (its characters' games pooled)")
    for style, m in pooled.items():
        print(f"   {style:<25} {len(by_style[style]):>2} chars {m.games:>5} {m.near_king:>9.3f} {m.deficit:>7.3f} "
              f"{m.length:>6.1f} {m.draw_rate:>5.2f} {m.pawn_moves:>5.3f} {m.captures:>5.3f} {m.score:>5.2f}")
    for claim in CLAIMS:
        if claim.left in pooled and claim.right in pooled:
            ok, detail = claim.check(pooled)
            failures += not ok
            print(f"   {'PASS' if ok else 'FAIL'} {claim.text}: {detail}")
        else:
            print(f"   skip {claim.text}: no games of both styles yet")
    verdicts = character_verdicts(style_games, chosen)
    if verdicts:
        failed = [v for v in verdicts if not v.ok]
        failures += len(failed)
        print(f"   -- each character against its style's thresholds: {len(verdicts) - len(failed)} of "
              f"{len(verdicts)} pass")
        for v in verdicts:
            print(f"   {'pass' if v.ok else 'FAIL'} {v.character:<8} {v.claim.metric:<9} {v.detail}")
    rr = [r for r in records if r.kind == "rr"]
    if rr and rr_ids:  # saved round-robin games are reported for the characters named (none: skipped)
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


def markdown(records: Sequence[Record], characters: Sequence[Character]) -> list[str]:
    """The style figures as a Markdown table for docs/learning.md: each character with its verdicts
    against its style's thresholds, then each style pooled."""
    games = [r for r in records if r.kind == "style"]
    verdicts = character_verdicts(games, characters)
    out = ["| character | rating | style | games | near king | behind (pawns) | plies | draws | score | "
           "its style's thresholds |", "|---|---|---|---|---|---|---|---|---|---|"]
    for c in characters:
        m = metrics(games, c.id)
        if not m.games:
            continue
        mine = [v for v in verdicts if v.character == c.id]
        failed = [v.claim.metric for v in mine if not v.ok]
        judged = f"{len(mine) - len(failed)}/{len(mine)}" + (f" (fails {', '.join(failed)})" if failed else "")
        out.append(f"| {c.name} | {c.rating} | {c.style} | {m.games} | {m.near_king:.3f} | {m.deficit:.2f} | "
                   f"{m.length:.0f} | {m.draw_rate:.2f} | {m.score:.2f} | {judged} |")
    by_style: dict[str, list[str]] = {}
    for c in characters:
        if metrics(games, c.id).games:
            by_style.setdefault(c.style, []).append(c.id)
    for style, ids in by_style.items():
        m = metrics(games, ids)
        out.append(f"| **{style} (all)** | | | {m.games} | {m.near_king:.3f} | {m.deficit:.2f} | {m.length:.0f} | "
                   f"{m.draw_rate:.2f} | {m.score:.2f} | |")
    return out


def style_jobs(chosen: Sequence[Character], games: int, opponent_level: str) -> list[Job]:
    """``games`` games per character against its fixed opponent, colours alternating."""
    jobs = []
    for i in range(games):
        for c in chosen:
            me, them = Npc.from_character(c), opponent_npc(c, opponent_level)
            name = f"level-{opponent_level}"
            jobs.append(Job("style", c.id, name, me, them) if i % 2 == 0 else Job("style", name, c.id, them, me))
    return jobs


def round_robin_jobs(chosen: Sequence[Character]) -> list[Job]:
    """Every pairing of ``chosen`` twice, colours swapped."""
    return [Job("rr", a.id, b.id, Npc.from_character(a), Npc.from_character(b))
            for a in chosen for b in chosen if a.id != b.id]


def _ids(text: str, characters: tuple[Character, ...], named: Sequence[str]) -> list[str]:
    if text == "all":
        return [c.id for c in characters]
    if text == "set":
        return list(named)
    return [find_character(x, characters=characters).id for x in text.split(",") if x]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="bench.characters", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=40, help="style games per character (default 40)")
    parser.add_argument("--nodes", type=int, default=300, help="nodes per move in the style games (default 300)")
    parser.add_argument("--rr-nodes", type=int, default=1500, help="nodes per move in the round robin (default 1500)")
    parser.add_argument("--opponent-level", default=OWN,
                        help="the fixed opponent's level: 'own' (default: the plain engine at the character's own "
                        "level) or one level for all, e.g. 2000")
    parser.add_argument("--style", default="all",
                        help="characters of the style games, by id, 'all' (default) or 'set' (one per style)")
    parser.add_argument("--round-robin", default=",".join(ROUND_ROBIN_SET),
                        help="characters of the round robin, or 'all', or '' for none")
    parser.add_argument("--state", type=Path, default=STATE, help="saved games (resumed from)")
    parser.add_argument("--tables", type=int, default=1, help="games played at once (default 1)")
    parser.add_argument("--minutes", type=float, default=60.0, help="stop starting games after this long")
    parser.add_argument("--report", action="store_true", help="only print the figures of the saved games")
    parser.add_argument("--markdown", action="store_true", help="with --report: the style table in Markdown too")
    args = parser.parse_args(argv)
    characters = load_characters()
    style_ids = _ids(args.style, characters, STYLE_SET)
    rr_ids = _ids(args.round_robin, characters, ROUND_ROBIN_SET)
    done = load_state(args.state)
    if not args.report:
        chosen = [find_character(cid, characters=characters) for cid in style_ids]
        jobs = todo(style_jobs(chosen, args.games, args.opponent_level), done)
        rr_jobs = todo(round_robin_jobs([find_character(cid, characters=characters) for cid in rr_ids]), done)
        deadline = time.monotonic() + args.minutes * 60
        asyncio.run(_play(args.state, done, jobs, nodes=args.nodes, tables=args.tables, deadline=deadline))
        asyncio.run(_play(args.state, done, rr_jobs, nodes=args.rr_nodes, tables=args.tables, deadline=deadline))
    failures = report(done, style_ids, rr_ids, args.opponent_level, characters)
    if args.markdown:
        print("\n".join(markdown(done, [find_character(cid, characters=characters) for cid in style_ids])))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
