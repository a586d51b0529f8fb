"""A tournament: players, rounds, results, standings with tie-breaks, and a crosstable.

:class:`Tournament` is a frozen value: pairing a round or entering a result returns a new one,
and :class:`TournamentStore` writes it atomically after every change, so a power cut at any
moment loses at most the result being entered. Pairing numbers are 1-based, by rating
(highest first), as FIDE's pairing systems expect.

Tie-breaks (FIDE C.07): Buchholz is the sum of the opponents' scores; Sonneborn-Berger the sum
of the scores of the opponents beaten plus half those drawn. A bye counts as a game against a
virtual opponent with the player's own score (a simplification of C.07's virtual opponent,
the same for every player with a bye). Round robins rank by points, Sonneborn-Berger, wins;
Swiss by points, Buchholz, Sonneborn-Berger.
"""

from __future__ import annotations

import contextlib
import enum
import fcntl
import logging
import os
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from boardctl.errors import BoardctlError
from boardctl.learning import atomic
from boardctl.learning.pairings import (
    DutchEntry,
    Pairing,
    PairingError,
    Played,
    SwissEntry,
    berger_round,
    dutch_round,
)

log = logging.getLogger(__name__)

VERSION = 1
RESULTS = ("1-0", "0-1", "1/2-1/2")
MAX_PLAYERS = 64
_TIME_CONTROL = re.compile(r"(\d{1,3})\+(\d{1,3})")


class TournamentError(BoardctlError, ValueError):
    """A tournament request that cannot be honoured; the message says which and why."""


class Format(enum.Enum):
    ROUND_ROBIN = "round-robin"
    SWISS = "swiss"


@dataclass(frozen=True)
class Player:
    number: int  # pairing number, 1 = highest rated
    name: str
    rating: int
    is_user: bool = False


@dataclass(frozen=True)
class Game:
    round: int
    white: int
    black: int | None  # None: a bye for ``white``
    result: str | None = None  # "1-0", "0-1", "1/2-1/2"; always "1-0" for a bye
    #: The user's game: the id of its saved game (boardctl.storage), set when it starts, so a
    #: restart resumes that game or takes its result.
    game_id: str | None = None

    @property
    def is_bye(self) -> bool:
        return self.black is None

    def points(self, number: int) -> float:
        """What ``number`` scored in this finished game."""
        if self.result is None or number not in (self.white, self.black):
            return 0.0
        if self.result == "1/2-1/2":
            return 0.5
        return 1.0 if (self.result == "1-0") == (number == self.white) else 0.0

    def opponent(self, number: int) -> int | None:
        return self.black if number == self.white else self.white


def parse_time_control(text: str) -> tuple[int, int]:
    """``"15+10"`` as (minutes, increment seconds); TournamentError names a bad one."""
    match = _TIME_CONTROL.fullmatch(text.strip())
    if not match or int(match[1]) == 0:
        raise TournamentError(f"time control {text[:20]!r}: expected MINUTES+INCREMENT, such as 15+10")
    return int(match[1]), int(match[2])


def swiss_rounds(players: int) -> int:
    """The default number of Swiss rounds: half the field (rounded up), at most 5.

    A round can be paired without a rematch as long as each player has met fewer than half the
    field (Dirac: the graph of games not yet played then has a perfect matching); more rounds
    than that can dead-end in a small field (6 players, 4 rounds: a third of simulated events)."""
    return max(1, min(5, (players + 1) // 2))


def pick_around(rating: int, candidates: Sequence[tuple[str, int]], count: int) -> list[tuple[str, int]]:
    """The ``count`` candidates (name, rating) closest to ``rating``, ties to the lower rating."""
    if count > len(candidates):
        raise TournamentError(f"{count} opponents wanted but only {len(candidates)} exist")
    ranked = sorted(candidates, key=lambda c: (abs(c[1] - rating), c[1], c[0]))
    return sorted(ranked[:count], key=lambda c: (-c[1], c[0]))


@dataclass(frozen=True)
class Standing:
    rank: int
    player: Player
    points: float
    buchholz: float
    sonneborn_berger: float
    wins: int
    games: int


@dataclass(frozen=True)
class Tournament:
    tournament_id: str
    format: Format
    rounds: int
    time_control: str
    players: tuple[Player, ...]
    games: tuple[Game, ...] = ()

    # ------------------------------------------------------------------ making one

    @classmethod
    def new(
        cls,
        entrants: Sequence[tuple[str, int, bool]],
        *,
        tournament_id: str,
        format: Format,
        rounds: int | None = None,
        time_control: str = "15+10",
    ) -> Tournament:
        """A tournament of ``entrants`` (name, rating, is_user), numbered by rating."""
        if not 2 <= len(entrants) <= MAX_PLAYERS:
            raise TournamentError(f"a tournament has 2 to {MAX_PLAYERS} players, not {len(entrants)}")
        if len({name for name, _, _ in entrants}) != len(entrants):
            raise TournamentError("two players have the same name")
        if sum(1 for *_, user in entrants if user) > 1:
            raise TournamentError("only one player can be you")
        parse_time_control(time_control)
        ordered = sorted(entrants, key=lambda e: (-e[1], e[0]))
        players = tuple(Player(i + 1, name, rating, user) for i, (name, rating, user) in enumerate(ordered))
        n = len(players)
        full = n - 1 + n % 2
        if format is Format.ROUND_ROBIN:
            if rounds not in (None, full):
                raise TournamentError(f"a round robin of {n} players has {full} rounds, not {rounds}")
            rounds = full
        elif rounds is None or not 1 <= rounds <= full:
            raise TournamentError(f"a Swiss of {n} players needs 1 to {full} rounds, not {rounds}")
        return cls(tournament_id, format, rounds, time_control, players)

    # ------------------------------------------------------------------ questions

    @property
    def current_round(self) -> int:
        """The highest round paired so far (0 before the first)."""
        return max((g.round for g in self.games), default=0)

    def round_games(self, round_number: int) -> list[Game]:
        return [g for g in self.games if g.round == round_number]

    def is_round_complete(self, round_number: int) -> bool:
        games = self.round_games(round_number)
        return bool(games) and all(g.result is not None for g in games)

    def is_finished(self) -> bool:
        return self.current_round == self.rounds and self.is_round_complete(self.rounds)

    def pending(self) -> list[Game]:
        """Games of the current round without a result."""
        return [g for g in self.round_games(self.current_round) if g.result is None]

    def player(self, number: int) -> Player:
        return self.players[number - 1]

    def user(self) -> Player | None:
        return next((p for p in self.players if p.is_user), None)

    def score(self, number: int, *, before_round: int | None = None) -> float:
        return sum(
            g.points(number)
            for g in self.games
            if number in (g.white, g.black) and (before_round is None or g.round < before_round)
        )

    # ------------------------------------------------------------------ changes

    def pair_next_round(self) -> Tournament:
        """This tournament with the next round paired (Berger or Dutch)."""
        now = self.current_round
        if now == self.rounds:
            raise TournamentError("every round has been paired")
        if now and not self.is_round_complete(now):
            raise TournamentError(f"round {now} still has games without a result")
        number = now + 1
        if self.format is Format.ROUND_ROBIN:
            pairings = berger_round(len(self.players), number)
        else:
            pairings = dutch_round(self._dutch_entries(number), total_rounds=self.rounds)
        games = tuple(
            Game(number, p.white, p.black, "1-0" if p.is_bye else None) for p in pairings
        )
        return replace(self, games=self.games + games)

    def ended_early(self) -> Tournament:
        """This tournament ending after its current (complete) round: the next cannot be paired."""
        if not self.current_round or not self.is_round_complete(self.current_round):
            raise TournamentError("only a tournament whose last round is complete can end early")
        return replace(self, rounds=self.current_round)

    def with_result(self, round_number: int, white: int, result: str) -> Tournament:
        """This tournament with the result of ``white``'s game in ``round_number``."""
        if result not in RESULTS:
            raise TournamentError(f"result {result[:10]!r}: expected one of {', '.join(RESULTS)}")
        for i, game in enumerate(self.games):
            if game.round == round_number and game.white == white and not game.is_bye:
                if game.result is not None and game.result != result:
                    raise TournamentError(f"round {round_number}, board of {white}: already {game.result}")
                games = (*self.games[:i], replace(game, result=result), *self.games[i + 1 :])
                return replace(self, games=games)
        raise TournamentError(f"no game in round {round_number} with player {white} as White")

    def with_game_id(self, round_number: int, white: int, game_id: str) -> Tournament:
        """This tournament with the saved game ``game_id`` attached to ``white``'s game in ``round_number``."""
        for i, game in enumerate(self.games):
            if game.round == round_number and game.white == white and not game.is_bye:
                games = (*self.games[:i], replace(game, game_id=game_id), *self.games[i + 1 :])
                return replace(self, games=games)
        raise TournamentError(f"no game in round {round_number} with player {white} as White")

    def user_game(self) -> Game | None:
        """The user's game in the current round (None: no user, not paired yet, or a bye)."""
        user = self.user()
        if user is None:
            return None
        return next(
            (g for g in self.round_games(self.current_round) if user.number in (g.white, g.black) and not g.is_bye),
            None,
        )

    def _dutch_entries(self, round_number: int) -> list[DutchEntry]:
        """Every player's rounds before ``round_number``, for the Dutch pairing program."""
        entries = []
        for p in self.players:
            rounds = []
            for r in range(1, round_number):
                game = next(g for g in self.round_games(r) if p.number in (g.white, g.black))
                opponent = game.opponent(p.number)
                rounds.append(Played(opponent, game.white == p.number and opponent is not None, game.points(p.number)))
            entries.append(DutchEntry(p.number, p.rating, tuple(rounds)))
        return entries

    def _swiss_entries(self, round_number: int) -> list[SwissEntry]:
        """The same history as caissify-pairings' inputs (kept to compare the two libraries)."""
        entries = []
        for p in self.players:
            colors: list[str] = []
            floats: list[str] = []
            byes = 0
            for r in range(1, round_number):
                game = next((g for g in self.round_games(r) if p.number in (g.white, g.black)), None)
                if game is None or game.is_bye:
                    colors.append("none")
                    floats.append("down" if game is not None else "none")
                    byes += game is not None
                    continue
                colors.append("white" if game.white == p.number else "black")
                opponent = game.opponent(p.number)
                assert opponent is not None
                mine, theirs = self.score(p.number, before_round=r), self.score(opponent, before_round=r)
                floats.append("down" if mine > theirs else "up" if mine < theirs else "none")
            entries.append(
                SwissEntry(
                    number=p.number,
                    rating=p.rating,
                    score=self.score(p.number, before_round=round_number),
                    colors=tuple(colors),
                    floats=tuple(floats),
                    byes=byes,
                )
            )
        return entries

    # ------------------------------------------------------------------ tables

    def standings(self) -> list[Standing]:
        """Everyone, best first, with points and tie-breaks over the finished games."""
        points = {p.number: self.score(p.number) for p in self.players}
        rows = []
        for p in self.players:
            buchholz = sb = 0.0
            wins = played = 0
            for g in self.games:
                if g.result is None or p.number not in (g.white, g.black):
                    continue
                scored = g.points(p.number)
                opponent = g.opponent(p.number)
                theirs = points[p.number] if opponent is None else points[opponent]
                buchholz += theirs
                sb += scored * theirs
                wins += scored == 1.0 and not g.is_bye
                played += not g.is_bye
            rows.append(Standing(0, p, points[p.number], buchholz, sb, wins, played))
        if self.format is Format.ROUND_ROBIN:
            rows.sort(key=lambda s: (-s.points, -s.sonneborn_berger, -s.wins, s.player.number))
        else:
            rows.sort(key=lambda s: (-s.points, -s.buchholz, -s.sonneborn_berger, s.player.number))
        return [replace(s, rank=i + 1) for i, s in enumerate(rows)]

    def crosstable(self) -> list[list[str]]:
        """One row per player by pairing number: a cell per opponent ("1", "0", "½", "X" on the diagonal)."""
        n = len(self.players)
        table = [["X" if i == j else "" for j in range(n)] for i in range(n)]
        for g in self.games:
            if g.result is None or g.black is None:
                continue
            for me, them in ((g.white, g.black), (g.black, g.white)):
                mark = {1.0: "1", 0.5: "½", 0.0: "0"}[g.points(me)]
                table[me - 1][them - 1] += mark
        return table

    def crosstable_text(self) -> str:
        """The crosstable as fixed-width text, with points and tie-breaks."""
        n = len(self.players)
        width = max(len(p.name) for p in self.players)
        head = f"{'#':>2} {'Name':<{width}} {'Elo':>4} " + " ".join(f"{j + 1:>2}" for j in range(n))
        head += "   Pts   Bhz    SB"
        by_number = {s.player.number: s for s in self.standings()}
        lines = [head]
        for i, row in enumerate(self.crosstable()):
            p = self.players[i]
            s = by_number[p.number]
            cells = " ".join(f"{c:>2}" for c in row)
            lines.append(
                f"{p.number:>2} {p.name:<{width}} {p.rating:>4} {cells} "
                f"{s.points:5.1f} {s.buchholz:5.1f} {s.sonneborn_berger:5.2f}"
            )
        return "\n".join(lines)

    # ------------------------------------------------------------------ JSON

    def to_json(self) -> dict[str, Any]:
        return {
            "version": VERSION,
            "id": self.tournament_id,
            "format": self.format.value,
            "rounds": self.rounds,
            "time_control": self.time_control,
            "players": [
                {"number": p.number, "name": p.name, "rating": p.rating, "is_user": p.is_user} for p in self.players
            ],
            "games": [
                {"round": g.round, "white": g.white, "black": g.black, "result": g.result}
                | ({"game_id": g.game_id} if g.game_id is not None else {})
                for g in self.games
            ],
        }

    @classmethod
    def from_json(cls, data: Any, *, where: str) -> Tournament:
        """A tournament from its JSON; FieldError or TournamentError names the fault."""
        f = atomic.field
        if f(data, "version", int, where=where) != VERSION:
            raise atomic.FieldError(f"{where}: version {data['version']} is not {VERSION}")
        try:
            fmt = Format(f(data, "format", str, where=where))
        except ValueError:
            raise atomic.FieldError(f"{where}.format: not round-robin or swiss") from None
        players = []
        for i, item in enumerate(f(data, "players", list, where=where)):
            at = f"{where}.players[{i}]"
            player = Player(
                f(item, "number", int, where=at),
                f(item, "name", str, where=at),
                f(item, "rating", int, where=at),
                f(item, "is_user", bool, where=at),
            )
            if not 0 <= player.rating <= 4000:
                raise atomic.FieldError(f"{at}.rating: {player.rating} is outside 0..4000")
            if player.number != i + 1:
                raise atomic.FieldError(f"{at}.number: expected {i + 1}")
            players.append(player)
        n = len(players)
        games = []
        for i, item in enumerate(f(data, "games", list, where=where)):
            at = f"{where}.games[{i}]"
            game = Game(
                f(item, "round", int, where=at),
                f(item, "white", int, where=at),
                f(item, "black", (int, type(None)), where=at),
                f(item, "result", (str, type(None)), where=at),
                f(item, "game_id", str, where=at) if isinstance(item, dict) and "game_id" in item else None,
            )
            if game.game_id is not None and not re.fullmatch(r"[0-9A-Za-z_.-]{1,80}", game.game_id):
                raise atomic.FieldError(f"{at}.game_id: {game.game_id[:40]!r} is not a game id")
            if not (1 <= game.white <= n and (game.black is None or 1 <= game.black <= n)):
                raise atomic.FieldError(f"{at}: a player number outside 1..{n}")
            if game.result is not None and game.result not in RESULTS:
                raise atomic.FieldError(f"{at}.result: {game.result[:10]!r} is not a result")
            games.append(game)
        t = cls(
            tournament_id=f(data, "id", str, where=where),
            format=fmt,
            rounds=f(data, "rounds", int, where=where),
            time_control=f(data, "time_control", str, where=where),
            players=tuple(players),
            games=tuple(games),
        )
        if not 2 <= n <= MAX_PLAYERS or not 1 <= t.rounds <= n or any(not 1 <= g.round <= t.rounds for g in games):
            raise atomic.FieldError(f"{where}: players, rounds or a game's round out of range")
        return t


class TournamentStore:
    """``tournaments/<id>.json`` in the data folder; every change is saved whole and atomically."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def path(self, tournament_id: str) -> Path:
        if not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", tournament_id):
            raise TournamentError(f"{tournament_id[:70]!r} is not a tournament id")
        return self.folder / f"{tournament_id}.json"

    def save(self, tournament: Tournament) -> None:
        atomic.write_json(self.path(tournament.tournament_id), tournament.to_json())

    def load(self, tournament_id: str) -> Tournament:
        path = self.path(tournament_id)
        data = atomic.read_json(path)
        if data is None:
            raise TournamentError(f"no tournament {tournament_id!r} in {self.folder}")
        try:
            return Tournament.from_json(data, where=str(path))
        except atomic.FieldError as exc:
            raise atomic.StateFileError(str(exc)) from None

    def ids(self) -> list[str]:
        return sorted(p.stem for p in self.folder.glob("*.json")) if self.folder.is_dir() else []

    @contextlib.contextmanager
    def locked(self, tournament_id: str) -> Iterator[None]:
        """Hold the tournament's lock (an ``flock`` on ``<id>.lock``): the background runner and
        the player's game change one file, each by read, change, atomic write, one at a time."""
        path = self.path(tournament_id).with_suffix(".lock")
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def update(self, tournament_id: str, change: Callable[[Tournament], Tournament]) -> Tournament:
        """Load, change and save under the lock; returns the saved tournament."""
        with self.locked(tournament_id):
            before = self.load(tournament_id)
            after = change(before)
            if after != before:
                self.save(after)
            return after

    def pair_next_round(self, tournament_id: str) -> Tournament:
        """Pair the next round and save it before anyone plays. A Swiss round that cannot be
        paired (every pairing a rematch) ends the tournament after the last round, and says so."""

        def pair(t: Tournament) -> Tournament:
            try:
                return t.pair_next_round()
            except PairingError as exc:
                if t.format is not Format.SWISS or not t.current_round:
                    raise
                log.warning("tournament %s ends after round %d: %s", t.tournament_id, t.current_round, exc)
                return t.ended_early()

        return self.update(tournament_id, pair)

    def record(self, tournament_id: str, round_number: int, white: int, result: str) -> Tournament:
        """Enter one result and save at once."""
        return self.update(tournament_id, lambda t: t.with_result(round_number, white, result))

    def attach_game(self, tournament_id: str, round_number: int, white: int, game_id: str) -> Tournament:
        """Note which saved game is the user's game of ``round_number``, and save at once."""
        return self.update(tournament_id, lambda t: t.with_game_id(round_number, white, game_id))


__all__ = [
    "Format",
    "Game",
    "Pairing",
    "PairingError",
    "Player",
    "Standing",
    "Tournament",
    "TournamentError",
    "TournamentStore",
    "parse_time_control",
    "pick_around",
    "swiss_rounds",
]
