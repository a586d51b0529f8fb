"""What Lichess sends, read into typed values once, at the edge (pure, no I/O).

Two newline-delimited JSON streams (the Lichess API documentation, "Board"):

- ``GET /api/stream/event``: ``gameStart``, ``gameFinish``, ``challenge``, ``challengeCanceled``,
  ``challengeDeclined`` (an empty line every few seconds keeps it alive);
- ``GET /api/board/game/stream/{gameId}``: first ``gameFull`` (immutable facts plus ``state``),
  then ``gameState`` (moves in UCI, ``wtime``/``btime`` in milliseconds, ``status``, draw and
  takeback offers), ``chatLine`` and ``opponentGone``.

``berserk`` decodes each line and turns some fields into ``timedelta``/``datetime``; both forms
are accepted. Anything else (a missing field, a wrong type, a move that is not UCI, an id that is
not one) is refused with one :class:`~boardctl.online.PayloadError` naming the stream, the line
and the field. Line types this module does not know are ignored, as the API may add new ones.
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass
from typing import Any

from boardctl.jsonlimits import short_repr
from boardctl.online import PayloadError

#: Lichess game and challenge ids are 8 letters or digits (a ``fullId`` adds 4 for the player).
_ID = re.compile(r"[A-Za-z0-9]{8}")
_UCI = re.compile(r"[a-h][1-8][a-h][1-8][qrbn]?")
_USER = re.compile(r"[A-Za-z0-9_-]{1,30}")
#: The statuses of a game (GameStatusName); ``created`` and ``started`` mean still going.
STATUSES = frozenset({
    "created", "started", "aborted", "mate", "resign", "stalemate", "timeout", "draw", "outoftime",
    "cheat", "noStart", "unknownFinish", "insufficientMaterialClaim", "variantEnd",
})
#: A game of more moves than this is not a chess game anyone played.
MAX_PLIES = 1200
#: Clock values above this (a month, in milliseconds) are not a clock.
MAX_MILLIS = 31 * 24 * 3600 * 1000


@dataclass(frozen=True)
class GameState:
    """The changing part of a game: the whole move list and both clocks, every time."""

    moves: tuple[str, ...]
    wtime: int  # milliseconds White has left
    btime: int
    winc: int
    binc: int
    status: str
    winner: str | None = None
    wdraw: bool = False
    bdraw: bool = False
    wtakeback: bool = False
    btakeback: bool = False

    def is_over(self) -> bool:
        return self.status not in ("created", "started")


@dataclass(frozen=True)
class Player:
    name: str
    rating: int | None = None
    is_ai: bool = False


@dataclass(frozen=True)
class GameFull:
    """The first line of a game stream: who plays, from where, with which clock."""

    id: str
    white: Player
    black: Player
    initial_fen: str  # "startpos" or a FEN
    rated: bool
    clock_initial: int | None  # milliseconds; None for correspondence
    clock_increment: int | None
    variant: str
    state: GameState


@dataclass(frozen=True)
class ChatLine:
    username: str
    text: str
    room: str


@dataclass(frozen=True)
class OpponentGone:
    gone: bool
    claim_win_in_seconds: int | None = None


@dataclass(frozen=True)
class GameStart:
    """An event-stream ``gameStart``: a game of ours began (or is going on, when the stream opens)."""

    game_id: str
    color: str | None  # our colour, when the event says it
    opponent: str | None = None


@dataclass(frozen=True)
class GameFinish:
    game_id: str


@dataclass(frozen=True)
class Challenge:
    """An event-stream ``challenge``: ``direction`` ``in`` (to us) or ``out`` (ours)."""

    id: str
    challenger: str
    direction: str | None
    rated: bool
    variant: str


@dataclass(frozen=True)
class ChallengeGone:
    """``challengeCanceled`` or ``challengeDeclined``."""

    id: str
    declined: bool


GameLine = GameFull | GameState | ChatLine | OpponentGone
EventLine = GameStart | GameFinish | Challenge | ChallengeGone


class _Fields:
    """One object's fields, each fault named with ``where`` (``game stream line 3``)."""

    def __init__(self, obj: Any, where: str) -> None:
        if not isinstance(obj, dict):
            raise PayloadError(f"{where}: expected a JSON object, got {short_repr(obj)}")
        self.obj: dict[str, Any] = obj
        self.where = where

    def fail(self, key: str, wanted: str) -> PayloadError:
        got = short_repr(self.obj.get(key)) if key in self.obj else "nothing"
        return PayloadError(f"{self.where}: {key!r} must be {wanted}, got {got}")

    def string(self, key: str, *, pattern: re.Pattern[str] | None = None, optional: bool = False,
               limit: int = 200) -> str | None:
        value = self.obj.get(key)
        if value is None and optional:
            return None
        if isinstance(value, str) and len(value) > limit:
            raise self.fail(key, f"a string of at most {limit} characters")
        if not isinstance(value, str) or (pattern is not None and not pattern.fullmatch(value)):
            raise self.fail(key, f"a string{' of the form ' + pattern.pattern if pattern else ''}")
        return value

    def text(self, key: str, *, limit: int = 200) -> str:
        value = self.string(key, limit=limit)
        assert value is not None
        return value

    def millis(self, key: str, *, optional: bool = False) -> int | None:
        value = self.obj.get(key)
        if value is None and optional:
            return None
        if isinstance(value, datetime.timedelta):  # berserk's conversion of wtime, btime, winc, binc
            value = round(value.total_seconds() * 1000)
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_MILLIS:
            raise self.fail(key, f"a whole number of milliseconds from 0 to {MAX_MILLIS}")
        return value

    def flag(self, key: str) -> bool:
        value = self.obj.get(key, False)
        if not isinstance(value, bool):
            raise self.fail(key, "true or false")
        return value

    def child(self, key: str, *, optional: bool = False) -> _Fields | None:
        value = self.obj.get(key)
        if value is None and optional:
            return None
        if not isinstance(value, dict):
            raise self.fail(key, "an object")
        return _Fields(value, f"{self.where}: {key}")


def parse_state(obj: Any, where: str) -> GameState:
    f = _Fields(obj, where)
    moves_text = f.text("moves", limit=MAX_PLIES * 6)
    moves = tuple(moves_text.split())
    if len(moves) > MAX_PLIES:
        raise f.fail("moves", f"at most {MAX_PLIES} moves")
    bad = next((m for m in moves if not _UCI.fullmatch(m)), None)
    if bad is not None:
        raise PayloadError(f"{where}: 'moves' must be UCI moves separated by spaces, got {short_repr(bad)}")
    status = f.text("status", limit=40)
    if status not in STATUSES:
        raise f.fail("status", f"one of {', '.join(sorted(STATUSES))}")
    winner = f.string("winner", optional=True, limit=10)
    if winner not in (None, "white", "black"):
        raise f.fail("winner", "white or black")
    return GameState(
        moves=moves,
        wtime=f.millis("wtime") or 0,
        btime=f.millis("btime") or 0,
        winc=f.millis("winc") or 0,
        binc=f.millis("binc") or 0,
        status=status,
        winner=winner,
        wdraw=f.flag("wdraw"),
        bdraw=f.flag("bdraw"),
        wtakeback=f.flag("wtakeback"),
        btakeback=f.flag("btakeback"),
    )


def _player(f: _Fields, key: str) -> Player:
    p = f.child(key)
    assert p is not None
    if "aiLevel" in p.obj:
        level = p.obj["aiLevel"]
        if isinstance(level, bool) or not isinstance(level, int) or not 1 <= level <= 8:
            raise p.fail("aiLevel", "a level from 1 to 8")
        return Player(f"Stockfish level {level}", None, is_ai=True)
    name = p.string("name", pattern=_USER, optional=True) or p.string("id", pattern=_USER, optional=True)
    if name is None:
        raise p.fail("name", "a Lichess user name")
    rating = p.obj.get("rating")
    if rating is not None and (isinstance(rating, bool) or not isinstance(rating, int) or not 0 <= rating <= 4000):
        raise p.fail("rating", "a rating from 0 to 4000")
    return Player(name, rating)


def parse_full(obj: Any, where: str) -> GameFull:
    f = _Fields(obj, where)
    game_id = f.string("id", pattern=_ID)
    assert game_id is not None
    variant = f.child("variant")
    assert variant is not None
    key = variant.text("key", limit=40)
    if key not in ("standard", "fromPosition"):
        raise PayloadError(f"{where}: variant {short_repr(key)}: the board plays standard chess only")
    clock = f.child("clock", optional=True)
    initial_fen = f.text("initialFen", limit=100) if "initialFen" in f.obj else "startpos"
    rated = f.flag("rated")
    state = f.child("state")
    assert state is not None
    return GameFull(
        id=game_id,
        white=_player(f, "white"),
        black=_player(f, "black"),
        initial_fen=initial_fen,
        rated=rated,
        clock_initial=None if clock is None else clock.millis("initial"),
        clock_increment=None if clock is None else clock.millis("increment"),
        variant=key,
        state=parse_state(state.obj, state.where),
    )


def parse_game_line(obj: Any, where: str) -> GameLine | None:
    """One line of a game stream; None for a type this module does not know."""
    f = _Fields(obj, where)
    kind = f.text("type", limit=40)
    if kind == "gameFull":
        return parse_full(obj, where)
    if kind == "gameState":
        return parse_state(obj, where)
    if kind == "chatLine":
        return ChatLine(f.text("username", limit=40), f.text("text", limit=400), f.text("room", limit=20))
    if kind == "opponentGone":
        seconds = f.obj.get("claimWinInSeconds")
        if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, int) or seconds < 0):
            raise f.fail("claimWinInSeconds", "a whole number of seconds")
        return OpponentGone(f.flag("gone"), seconds)
    return None


def parse_event_line(obj: Any, where: str) -> EventLine | None:
    """One line of the event stream; None for a type this module does not know."""
    f = _Fields(obj, where)
    kind = f.text("type", limit=40)
    if kind in ("gameStart", "gameFinish"):
        game = f.child("game")
        assert game is not None
        game_id = game.string("gameId", pattern=_ID, optional=True) or game.string("id", pattern=_ID)
        assert game_id is not None
        if kind == "gameFinish":
            return GameFinish(game_id)
        color = game.string("color", optional=True, limit=10)
        if color not in (None, "white", "black"):
            raise game.fail("color", "white or black")
        opponent = game.child("opponent", optional=True)
        name = None if opponent is None else opponent.string("username", pattern=_USER, optional=True)
        return GameStart(game_id, color, name)
    if kind == "challenge":
        c = f.child("challenge")
        assert c is not None
        challenge_id = c.string("id", pattern=_ID)
        assert challenge_id is not None
        who = c.child("challenger")
        assert who is not None
        name = who.string("name", pattern=_USER, optional=True) or who.string("id", pattern=_USER)
        assert name is not None
        direction = c.string("direction", optional=True, limit=20)
        if direction not in (None, "in", "out"):
            raise c.fail("direction", "in or out")
        variant = c.child("variant")
        assert variant is not None
        return Challenge(challenge_id, name, direction, c.flag("rated"), variant.text("key", limit=40))
    if kind in ("challengeCanceled", "challengeDeclined"):
        c = f.child("challenge")
        assert c is not None
        challenge_id = c.string("id", pattern=_ID)
        assert challenge_id is not None
        return ChallengeGone(challenge_id, kind == "challengeDeclined")
    return None


def is_game_id(text: str) -> bool:
    return bool(_ID.fullmatch(text))


def is_username(text: str) -> bool:
    return bool(_USER.fullmatch(text))
