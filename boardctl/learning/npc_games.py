"""Games between characters: engine against engine over UCI, a fixed node budget a move, in the background.

Each side is its own engine process (:class:`NodeEngine`, a :class:`~boardctl.engine_client.EngineClient`
that searches ``go nodes N``), set to the character's level (``UCI_Elo``/``Skill Level``, the
level machinery the daemon uses) and its style options. A fixed node budget, not a move time,
keeps the results the same whatever else the machine is doing: strength comes from the level's
own depth and node caps and near-best randomness, which sit under the tournament's budget for
all but the strongest characters (docs/learning.md). The game ends by the rules (mate, stalemate,
insufficient material, the 75-move rule and fivefold repetition, and threefold repetition or
the 50-move rule claimed at once) or is adjudicated a draw after :data:`MAX_PLIES` (a caller may
add its own adjudication, as the characters' benchmark resigns a side far behind).

:func:`play_game` is the one loop that plays engine against engine at a fixed node budget: the
tournament's games, and the benchmarks' (bench/characters.py, bench/tournament.py). A tournament
game starts its two engines and closes them after; a benchmark playing hundreds of games keeps
two :class:`Seats` open and re-seats each game's players there (level and style sent anew, the
options a player does not set put back to their defaults).

:func:`run_round` plays the current round's games between characters one after another, saves
each game's PGN atomically, then enters its result in the tournament under the store's lock.
A game cut off (power cut, kill) is simply played again. ``python -m boardctl.learning.npc_games``
is that runner as a background process: it lowers its own priority (``nice``) first, so the
engines it starts inherit it, and holds a lock so only one runner plays a tournament's games.
This module never imports numba: the engines are subprocesses.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import fcntl
import logging
import os
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from boardctl.core.rules import GameBoard, GameText
from boardctl.engine_client import EngineClient, OptionValue, resolve_command, uci_options
from boardctl.learning import atomic
from boardctl.learning.tournament import Game, Tournament, TournamentError, TournamentStore
from boardctl.variants import get_variant

log = logging.getLogger(__name__)

#: Nodes a move in games between characters (bench/tournament.py measures the time a game takes).
NODES = 15_000
#: A game still going after this many plies is adjudicated a draw.
MAX_PLIES = 200
#: ``nice`` increment of the background runner (and so of its engines).
NICENESS = 15
#: Seconds a search may take before the engine is thought hung (a node search is far quicker).
SEARCH_LIMIT = 60.0


@dataclass(frozen=True)
class Npc:
    """A computer player: its name, rating, level (as ``engine.levels`` reads it) and style options."""

    name: str
    rating: int
    level: str = ""
    uci_options: Mapping[str, OptionValue] = field(default_factory=dict)

    @property
    def engine_level(self) -> str:
        """The level to play at: the character's own, or its rating as an Elo level."""
        return self.level or str(min(max(self.rating, 400), 3200))

    @classmethod
    def from_character(cls, character: Any) -> Npc:
        """An NPC from a ``boardctl.learning.characters.Character`` (name, rating, level, uci_options)."""
        options = getattr(character, "uci_options", {}) or {}
        return cls(
            name=str(character.name),
            rating=int(character.rating),
            level=str(getattr(character, "level", "") or ""),
            uci_options=dict(options),
        )


_WARNED: set[tuple[str, tuple[str, ...]]] = set()


class NodeEngine(EngineClient):
    """An engine client that searches a fixed number of nodes and sends extra (style) options."""

    def __init__(
        self, command: list[str], *, level: str, nodes: int, options: Mapping[str, OptionValue] | None = None
    ) -> None:
        super().__init__(command, level=level, movetime=SEARCH_LIMIT)
        self.nodes = nodes
        self.extra = dict(options or {})

    def go_command(self, movetime: float) -> str:
        return f"go nodes {self.nodes}"

    async def start(self) -> None:
        await super().start()  # also after a crash: the style options are sent again
        wanted = self._offered(self.extra)
        if wanted and self._process is not None:
            await self._configure(self._process, wanted)

    def _offered(self, options: Mapping[str, OptionValue]) -> dict[str, OptionValue]:
        """The options this engine has; the others are named in the log once a process."""
        wanted = {k: v for k, v in options.items() if k in self.options}
        unknown = sorted(set(options) - set(wanted))
        said = (self.name, tuple(unknown))
        if unknown and said not in _WARNED:  # once a process, not at every game
            _WARNED.add(said)
            log.warning("engine %s has no option %s; ignored", self.name, ", ".join(unknown))
        return wanted

    async def seat(self, npc: Npc, *, nodes: int) -> None:
        """Play ``npc`` from the next game on: its level and style, every other style option at
        its default (a player before may have set it), a new game for the engine (``ucinewgame``)."""
        # not at import time: the characters module reads the level table and the data files
        from boardctl.learning.characters import NEUTRAL_OPTIONS

        self.nodes = nodes
        self.level = npc.engine_level
        self.extra = dict(npc.uci_options)
        if not self.is_alive():
            await self.start()  # sends the level and the options
        else:
            options: dict[str, OptionValue] = dict(uci_options(self.level, self.options))
            if "UCI_LimitStrength" in self.options and "UCI_LimitStrength" not in options:
                options["UCI_LimitStrength"] = False  # full strength after a limited player
            options.update({k: v for k, v in NEUTRAL_OPTIONS.items() if k in self.options})
            options.update(self._offered(self.extra))
            async with self._lock:
                process = self._process
                assert process is not None
                await self._exclusive(self._configure(process, options))
        self._last_root = None  # the next search starts with ucinewgame


class Seats:
    """Two engine processes kept open over many games (white's and black's seat): a benchmark
    plays hundreds of games, and starting two engines for each would cost more than the game."""

    def __init__(self, command: Sequence[str] | None = None, *, nodes: int = NODES) -> None:
        cmd = list(command) if command else resolve_command("")
        self.engines = (NodeEngine(cmd, level="beginner", nodes=nodes), NodeEngine(cmd, level="beginner", nodes=nodes))

    async def seat(self, white: Npc, black: Npc, *, nodes: int) -> tuple[NodeEngine, NodeEngine]:
        await asyncio.gather(self.engines[0].seat(white, nodes=nodes), self.engines[1].seat(black, nodes=nodes))
        return self.engines

    async def close(self) -> None:
        for engine in self.engines:
            await engine.close()

    async def __aenter__(self) -> Seats:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


#: A caller's adjudication, asked after every move: None to play on, or (result, why) to stop.
Adjudicate = Callable[[GameBoard], tuple[str, str] | None]


@dataclass(frozen=True)
class NpcGame:
    """A finished game between two characters."""

    white: str
    black: str
    result: str
    termination: str
    moves: tuple[str, ...]
    seconds: float

    def pgn(self, *, event: str, round_number: int | None = None, nodes: int = NODES) -> str:
        variant = get_variant("chess")
        headers = {
            "Event": event,
            "Site": "boardctl",
            "Date": time.strftime("%Y.%m.%d", time.gmtime()),
            "Round": str(round_number) if round_number is not None else "-",
            "White": self.white,
            "Black": self.black,
            "Result": self.result,
            "Annotator": f"engine against engine, {nodes} nodes a move",
        }
        assert variant.write_pgn is not None
        return variant.write_pgn(
            GameText(variant.starting_fen, self.moves, headers, final=self.termination)
        )


async def play_game(
    white: Npc,
    black: Npc,
    *,
    nodes: int = NODES,
    command: Sequence[str] | None = None,
    max_plies: int = MAX_PLIES,
    seats: Seats | None = None,
    adjudicate: Adjudicate | None = None,
) -> NpcGame:
    """Play one game at ``nodes`` a move and return its moves and result: each side its own
    engine process, started for this game, or the two of ``seats`` (kept open for the next)."""
    variant = get_variant("chess")
    board = variant.board()
    started = time.monotonic()
    async with contextlib.AsyncExitStack() as stack:
        if seats is None:
            seats = await stack.enter_async_context(Seats(command, nodes=nodes))
        engines = await seats.seat(white, black, nodes=nodes)
        result, termination = "1/2-1/2", f"adjudicated a draw after {max_plies} plies"
        while len(board.move_stack) < max_plies:
            outcome = board.outcome(claim_draw=True)
            if outcome is not None:
                result, termination = outcome.result(), outcome.reason
                break
            engine = engines[0] if board.turn else engines[1]
            reply = await engine.play(board)
            board.push(reply.move)
            verdict = adjudicate(board) if adjudicate is not None else None
            if verdict is not None:
                result, termination = verdict
                break
        else:
            outcome = board.outcome(claim_draw=True)
            if outcome is not None:
                result, termination = outcome.result(), outcome.reason
    moves = tuple(m.uci() for m in board.move_stack)
    return NpcGame(white.name, black.name, result, termination, moves, time.monotonic() - started)


# ---------------------------------------------------------------------------- the round runner


def games_folder(store: TournamentStore, tournament_id: str) -> Path:
    """Where a tournament's games between characters are saved as PGN."""
    return store.path(tournament_id).with_suffix("") / "games"


def pgn_path(store: TournamentStore, tournament_id: str, game: Game) -> Path:
    return games_folder(store, tournament_id) / f"r{game.round:02d}-{game.white:02d}-{game.black or 0:02d}.pgn"


def npc_games(tournament: Tournament) -> list[Game]:
    """The current round's games without a result in which neither player is the user."""
    user = tournament.user()
    mine = user.number if user is not None else None
    return [g for g in tournament.pending() if mine not in (g.white, g.black)]


async def run_round(
    store: TournamentStore,
    tournament_id: str,
    npcs: Mapping[str, Npc],
    *,
    nodes: int = NODES,
    command: Sequence[str] | None = None,
    max_plies: int = MAX_PLIES,
) -> int:
    """Play the current round's games between characters; each result is saved as it comes.

    Returns how many games were played. ``npcs`` by player name; a player without one plays at
    its tournament rating with no style options."""
    played = 0
    while True:
        t = store.load(tournament_id)
        todo = npc_games(t)
        if not todo:
            return played
        game = todo[0]
        assert game.black is not None
        white, black = t.player(game.white), t.player(game.black)
        npc_w = npcs.get(white.name, Npc(white.name, white.rating))
        npc_b = npcs.get(black.name, Npc(black.name, black.rating))
        log.info("round %d: %s - %s", game.round, white.name, black.name)
        finished = await play_game(npc_w, npc_b, nodes=nodes, command=command, max_plies=max_plies)
        path = pgn_path(store, tournament_id, game)
        atomic.write_atomically(path, finished.pgn(event=f"boardctl tournament {tournament_id}", round_number=game.round, nodes=nodes))
        try:
            store.record(tournament_id, game.round, game.white, finished.result)
        except TournamentError as exc:  # the round was changed under us (a new tournament of that id)
            log.warning("result of %s - %s not entered: %s", white.name, black.name, exc)
            return played
        played += 1
        log.info("round %d: %s - %s %s (%s, %.1f s)", game.round, white.name, black.name,
                 finished.result, finished.termination, finished.seconds)


@contextlib.contextmanager
def runner_lock(store: TournamentStore, tournament_id: str) -> Iterator[bool]:
    """Whether this process is the tournament's one runner (an ``flock``, freed when it dies)."""
    path = store.path(tournament_id).with_suffix(".runner.lock")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(fd)


def is_running(store: TournamentStore, tournament_id: str) -> bool:
    """Whether a runner is playing this tournament's games now."""
    with runner_lock(store, tournament_id) as mine:
        return not mine


def start_background(
    store: TournamentStore, tournament_id: str, *, nodes: int = NODES, engine: str = "", log_file: Path | None = None
) -> int:
    """Start the runner as a detached low-priority process; returns its pid."""
    import subprocess

    args = [sys.executable, "-m", "boardctl.learning.npc_games", "--folder", str(store.folder),
            "--tournament", tournament_id, "--nodes", str(nodes)]
    if engine:
        args += ["--engine", engine]
    log_path = log_file or store.path(tournament_id).with_suffix(".runner.log")
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with log_path.open("ab") as out:
        proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=out, stderr=out, start_new_session=True)
    return proc.pid


def load_npcs(names: Sequence[str] | None = None) -> dict[str, Npc]:
    """The characters (boardctl.learning.characters, the user's file included) as NPCs by name."""
    from boardctl.learning import characters

    found = {c.name: Npc.from_character(c) for c in characters.load_characters()}
    return found if names is None else {n: found[n] for n in names if n in found}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m boardctl.learning.npc_games", description=__doc__)
    parser.add_argument("--folder", type=Path, required=True, help="the tournaments folder")
    parser.add_argument("--tournament", required=True)
    parser.add_argument("--nodes", type=int, default=NODES)
    parser.add_argument("--engine", default="", help="engine command (default: the bundled engine)")
    parser.add_argument("--nice", type=int, default=NICENESS)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    with contextlib.suppress(OSError):
        os.nice(args.nice)
    store = TournamentStore(args.folder)
    with runner_lock(store, args.tournament) as mine:
        if not mine:
            log.info("another runner plays tournament %s", args.tournament)
            return 0
        command = resolve_command(args.engine)
        try:
            played = asyncio.run(run_round(store, args.tournament, load_npcs(), nodes=args.nodes, command=command))
        except (TournamentError, atomic.StateFileError) as exc:
            log.error("%s", exc)
            return 2
        log.info("tournament %s: %d games played", args.tournament, played)
    return 0


if __name__ == "__main__":
    sys.exit(main())
