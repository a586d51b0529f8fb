"""A tournament against the characters, run: who plays whom next, the background games between
characters, the user's results entered and rated. ``boardctl tournament`` (boardctl/commands/tournament.py)
and the page's tournament panel (boardctl/web/tournament_api.py) both drive it; the pairings and
the saved tournaments themselves are :mod:`boardctl.learning.tournament`.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from boardctl.errors import BoardctlError
from boardctl.learning import npc_games
from boardctl.learning.rating import RatingStore, learning_dir
from boardctl.learning.tournament import (
    Format,
    Tournament,
    TournamentError,
    TournamentStore,
    parse_time_control,
    pick_around,
)

log = logging.getLogger(__name__)

YOU = "You"
#: Seconds the finished game's result stays on the board before ``next`` returns.
LINGER = 3.0
#: Seconds between looks at the background games while ``next`` waits for them.
WAIT_POLL = 1.0


def tournaments_folder(games_dir: Path) -> Path:
    return learning_dir(games_dir) / "tournaments"


def candidates() -> list[tuple[str, int]]:
    """Every character (the user's file included) as (name, rating)."""
    from boardctl.learning import characters

    return [(c.name, int(c.rating)) for c in characters.load_characters()]


def new_tournament(
    store: TournamentStore,
    rating: int,
    *,
    players: int,
    format: Format,
    rounds: int | None,
    time_control: str,
    pool: Sequence[tuple[str, int]],
    name: str = YOU,
    tournament_id: str | None = None,
) -> Tournament:
    """A tournament of you and the ``players - 1`` characters closest to ``rating``, round 1 paired, saved."""
    if not 2 <= players <= 64:
        raise TournamentError(f"--players: 2 to 64, not {players}")
    parse_time_control(time_control)
    opponents = pick_around(rating, [c for c in pool if c[0] != name], players - 1)
    tid = tournament_id or dt.datetime.now(dt.UTC).strftime("%Y%m%d-%H%M%S")
    t = Tournament.new(
        [(n, r, False) for n, r in opponents] + [(name, rating, True)],
        tournament_id=tid,
        format=format,
        rounds=rounds,
        time_control=time_control,
    ).pair_next_round()
    store.save(t)
    return t


def active_id(store: TournamentStore, wanted: str | None) -> str:
    """``wanted``, or the newest unfinished tournament (else the newest one)."""
    if wanted:
        return wanted
    ids = store.ids()
    if not ids:
        raise TournamentError("no tournament yet: start one with boardctl tournament new")
    for tid in reversed(ids):
        with contextlib.suppress(BoardctlError):
            if not store.load(tid).is_finished():
                return tid
    return ids[-1]


# ------------------------------------------------------------------------------ following a game


@dataclass(frozen=True)
class Assignment:
    """The user's game of a round: who plays which colour, against whom."""

    tournament_id: str
    round: int
    white: int  # the board's White pairing number (the game's key in the tournament)
    user_is_white: bool
    opponent: str
    opponent_rating: int
    time_control: str
    game_id: str | None

    @property
    def color(self) -> str:
        return "white" if self.user_is_white else "black"


def assignment(t: Tournament) -> Assignment | None:
    """The user's unfinished game in the current round, or None (a bye, already played)."""
    game = t.user_game()
    user = t.user()
    if game is None or user is None or game.result is not None or game.black is None:
        return None
    is_white = game.white == user.number
    other = t.player(game.black if is_white else game.white)
    return Assignment(t.tournament_id, game.round, game.white, is_white, other.name, other.rating,
                      t.time_control, game.game_id)


def user_score(result: str, *, user_is_white: bool) -> float:
    if result == "1/2-1/2":
        return 0.5
    return 1.0 if (result == "1-0") == user_is_white else 0.0


def enter_result(store: TournamentStore, rating: RatingStore, job: Assignment, game_id: str, result: str) -> Tournament:
    """The user's finished game: into the rating, then the tournament (each counts a game once).

    In this order, a power cut between the two leaves the game without its tournament result,
    so the next run enters it again, and the rating, which knows the game id, counts it once."""
    rating.record(
        game_id=game_id,
        opponent=job.opponent,
        opponent_rating=job.opponent_rating,
        score=user_score(result, user_is_white=job.user_is_white),
        when=dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
    )
    return store.record(job.tournament_id, job.round, job.white, result)


class GameFollower:
    """Watches the daemon's game for the tournament: notes its id when it starts, enters the result
    when it ends (then, with ``linger``, stops the daemon that many seconds later)."""

    def __init__(self, store: TournamentStore, rating: RatingStore, job: Assignment, *, linger: float | None) -> None:
        self.store = store
        self.rating = rating
        self.job = job
        self.linger = linger
        self.game_id: str | None = None
        self.result: str | None = None
        self.task: asyncio.Task[None] | None = None

    def attach(self, daemon: Any, stop: asyncio.Event) -> None:
        """the composition root's hook: called once the daemon holds the tournament game."""
        record = daemon.session.record
        self.game_id = record.id
        self.store.attach_game(self.job.tournament_id, self.job.round, self.job.white, record.id)
        self.task = asyncio.get_running_loop().create_task(self._follow(daemon, stop))

    async def _follow(self, daemon: Any, stop: asyncio.Event) -> None:
        while not stop.is_set():
            record = daemon.session.record
            if record.id != self.game_id:
                log.warning("a new game replaced the tournament game; boardctl tournament next takes it up again")
                return
            if record.result != "*":
                self.result = record.result
                await asyncio.to_thread(enter_result, self.store, self.rating, self.job, record.id, record.result)
                log.warning("tournament round %d: %s", self.job.round, record.result)
                if self.linger is not None:
                    await asyncio.sleep(self.linger)
                    stop.set()
                return
            await asyncio.sleep(0.2)


def ensure_runner(store: TournamentStore, t: Tournament, *, engine: str = "", nodes: int = npc_games.NODES) -> bool:
    """Start the background games of the current round if some are left and no runner plays them."""
    if not npc_games.npc_games(t) or npc_games.is_running(store, t.tournament_id):
        return False
    pid = npc_games.start_background(store, t.tournament_id, engine=engine, nodes=nodes)
    log.info("games between characters: runner pid %d", pid)
    return True


def wait_for_round(store: TournamentStore, tid: str, *, out: TextIO, engine: str = "", poll: float = WAIT_POLL) -> Tournament:
    """Until the current round's other games are finished (restarting their runner if it died)."""
    said = -1
    while True:
        t = store.load(tid)
        left = npc_games.npc_games(t)
        if not left:
            return t
        if len(left) != said:
            out.write(f"Round {t.current_round}: waiting for {len(left)} game(s) between characters\n")
            out.flush()
            said = len(left)
        ensure_runner(store, t, engine=engine)
        time.sleep(poll)


# ------------------------------------------------------------------------------ the command
