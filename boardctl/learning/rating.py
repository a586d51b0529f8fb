"""Your rating: Elo, starting at 1200, K = 40 for the first 30 rated games and 20 after.

The rating and every rated game (opponent, their rating, score, before, after, K) are kept in
one JSON file, rewritten atomically after each game, so that a power cut leaves the old or the
new state. A game is counted once: recording the same game id again changes nothing, so a
restart that re-reports a finished game cannot rate it twice.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from boardctl.errors import BoardctlError
from boardctl.learning import atomic

START = 1200.0
#: Games rated with the higher K (a new player's rating moves fast).
NEW_PLAYER_GAMES = 30
K_NEW = 40
K_ESTABLISHED = 20
SCORES = (0.0, 0.5, 1.0)
VERSION = 1
#: Ratings outside this range are refused (a typo or a corrupt file, not a chess player).
LOWEST, HIGHEST = 0.0, 4000.0


class RatingError(BoardctlError, ValueError):
    """A rated game that cannot be counted (bad score or rating); the message names the value."""


def expected_score(rating: float, opponent: float) -> float:
    """The Elo expectation of scoring against ``opponent``: 1 / (1 + 10^((opponent - rating)/400))."""
    return 1.0 / (1.0 + math.pow(10.0, (opponent - rating) / 400.0))


def k_factor(games_played: int) -> int:
    """K for the next game after ``games_played`` rated games."""
    return K_NEW if games_played < NEW_PLAYER_GAMES else K_ESTABLISHED


@dataclass(frozen=True)
class RatedGame:
    game_id: str
    opponent: str
    opponent_rating: float
    score: float  # 1 win, 0.5 draw, 0 loss
    before: float
    after: float
    k: int
    when: str  # ISO 8601, UTC

    def to_json(self) -> dict[str, Any]:
        return {
            "game_id": self.game_id,
            "opponent": self.opponent,
            "opponent_rating": self.opponent_rating,
            "score": self.score,
            "before": self.before,
            "after": self.after,
            "k": self.k,
            "when": self.when,
        }

    @classmethod
    def from_json(cls, data: Any, *, where: str) -> RatedGame:
        f = atomic.field
        game = cls(
            game_id=f(data, "game_id", str, where=where),
            opponent=f(data, "opponent", str, where=where),
            opponent_rating=atomic.number(data, "opponent_rating", where=where),
            score=atomic.number(data, "score", where=where),
            before=atomic.number(data, "before", where=where),
            after=atomic.number(data, "after", where=where),
            k=f(data, "k", int, where=where),
            when=f(data, "when", str, where=where),
        )
        if game.score not in SCORES or game.k not in (K_NEW, K_ESTABLISHED):
            raise atomic.FieldError(f"{where}: score {game.score} or K {game.k} is not possible")
        for name in ("opponent_rating", "before", "after"):
            if not LOWEST <= getattr(game, name) <= HIGHEST:
                raise atomic.FieldError(f"{where}.{name}: out of range {LOWEST:g}..{HIGHEST:g}")
        return game


def _check(name: str, value: float) -> None:
    if not (isinstance(value, (int, float)) and math.isfinite(value) and LOWEST <= value <= HIGHEST):
        raise RatingError(f"{name} {value!r} is not a rating between {LOWEST:g} and {HIGHEST:g}")


@dataclass(frozen=True)
class Rating:
    """A rating and the games that made it, oldest first."""

    value: float = START
    history: tuple[RatedGame, ...] = ()

    @property
    def games(self) -> int:
        return len(self.history)

    def has_game(self, game_id: str) -> bool:
        return any(g.game_id == game_id for g in self.history)

    def after_game(
        self, *, game_id: str, opponent: str, opponent_rating: float, score: float, when: str
    ) -> Rating:
        """This rating after one more game; the same ``game_id`` twice is counted once."""
        if score not in SCORES:
            raise RatingError(f"score {score!r} is not 0, 0.5 or 1")
        _check("opponent rating", opponent_rating)
        if self.has_game(game_id):
            return self
        k = k_factor(self.games)
        after = self.value + k * (score - expected_score(self.value, opponent_rating))
        after = min(max(after, LOWEST), HIGHEST)
        game = RatedGame(game_id, opponent, float(opponent_rating), float(score), self.value, after, k, when)
        return Rating(value=after, history=(*self.history, game))

    @property
    def rounded(self) -> int:
        """The rating as shown to people."""
        return round(self.value)


class RatingStore:
    """``rating.json`` in the data folder."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def load(self) -> Rating:
        """The saved rating, or a new player's 1200 when there is no file yet."""
        data = atomic.read_json(self.path)
        if data is None:
            return Rating()
        where = str(self.path)
        try:
            if atomic.field(data, "version", int, where=where) != VERSION:
                raise atomic.FieldError(f"{where}: version {data['version']} is not {VERSION}")
            value = atomic.number(data, "rating", where=where)
            games = atomic.field(data, "history", list, where=where)
            history = tuple(RatedGame.from_json(g, where=f"{where}.history[{i}]") for i, g in enumerate(games))
            if not LOWEST <= value <= HIGHEST:
                raise atomic.FieldError(f"{where}.rating: out of range")
            if history and history[-1].after != value:
                raise atomic.FieldError(f"{where}.rating: {value} is not the last game's result")
        except atomic.FieldError as exc:
            raise atomic.StateFileError(str(exc)) from None
        return Rating(value=value, history=history)

    def save(self, rating: Rating) -> None:
        atomic.write_json(
            self.path,
            {"version": VERSION, "rating": rating.value, "history": [g.to_json() for g in rating.history]},
        )

    def record(self, *, game_id: str, opponent: str, opponent_rating: float, score: float, when: str) -> Rating:
        """Count one rated game and save at once; returns the new rating."""
        before = self.load()
        after = before.after_game(
            game_id=game_id, opponent=opponent, opponent_rating=opponent_rating, score=score, when=when
        )
        if after is not before:
            self.save(after)
        return after


def learning_dir(games_dir: Path | None = None) -> Path:
    """Where a games folder's learning state lives (tournaments): ``<games dir>/learning``."""
    if games_dir is None:
        from boardctl.config import data_dir

        games_dir = data_dir() / "games"
    return games_dir / "learning"


def default_path() -> Path:
    """The user's one rating file, ``$XDG_DATA_HOME/boardctl/rating.json``: the same for every
    rated game, tournament games and ``play --opponent`` alike (``characters.rating_file``)."""
    from boardctl.config import data_dir

    return data_dir() / "rating.json"


def default_store() -> RatingStore:
    return RatingStore(default_path())


def record_rated_game(
    opponent_rating: float,
    score: float,
    *,
    opponent: str = "",
    game_id: str | None = None,
    store: RatingStore | None = None,
    when: str | None = None,
) -> Rating:
    """Count one rated game (a tournament game, a game against a character) and save at once.

    ``score`` is the user's: 1, 0.5 or 0. ``game_id`` (the saved game's id) makes a repeated
    report of the same game count once; without it the time of the call names the game.
    ``store`` says which rating file (default: :func:`default_path`); RatingError names a bad
    score or rating."""
    import datetime as dt

    now = dt.datetime.now(dt.UTC)
    when = when or now.strftime("%Y-%m-%dT%H:%M:%SZ")
    target = store or default_store()
    return target.record(
        game_id=game_id or now.strftime("%Y%m%d-%H%M%S-%f"),
        opponent=opponent,
        opponent_rating=opponent_rating,
        score=score,
        when=when,
    )
