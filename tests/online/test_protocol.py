"""Lichess's lines read once at the edge: the documented forms accepted, anything else refused
with one message naming the line and the field (table-driven)."""

from __future__ import annotations

import contextlib
import copy
import datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from boardctl.online import PayloadError
from boardctl.online.protocol import (
    Challenge,
    ChallengeGone,
    GameFinish,
    GameFull,
    GameStart,
    GameState,
    OpponentGone,
    parse_event_line,
    parse_game_line,
)

STATE: dict[str, Any] = {"type": "gameState", "moves": "e2e4 c7c5", "wtime": 7598040, "btime": 8395220,
                         "winc": 10000, "binc": 10000, "status": "started"}
FULL: dict[str, Any] = {
    "type": "gameFull", "id": "5IrD6Gzz", "rated": True,
    "variant": {"key": "standard", "name": "Standard", "short": "Std"},
    "clock": {"initial": 1200000, "increment": 10000}, "speed": "classical", "perf": {"name": "Classical"},
    "createdAt": 1523825103562,
    "white": {"id": "lovlas", "name": "lovlas", "title": "IM", "rating": 2500, "provisional": False},
    "black": {"id": "leela", "name": "leela", "title": None, "rating": 2390},
    "initialFen": "startpos", "state": dict(STATE),
}
START: dict[str, Any] = {"type": "gameStart", "game": {
    "fullId": "9NaCTu2vz1c4", "gameId": "9NaCTu2v", "fen": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "color": "white", "lastMove": "", "source": "friend", "status": {"id": 20, "name": "started"},
    "variant": {"key": "standard", "name": "Standard"}, "speed": "blitz", "perf": "blitz", "rated": False,
    "hasMoved": False, "opponent": {"id": "mary", "username": "Mary", "rating": 1007}, "isMyTurn": True,
    "secondsLeft": 300, "compat": {"bot": False, "board": True}, "id": "9NaCTu2v"}}
CHALLENGE: dict[str, Any] = {"type": "challenge", "challenge": {
    "id": "7pGLxJ4F", "url": "https://lichess.org/VU0nyvsW", "status": "created",
    "challenger": {"id": "lovlas", "name": "Lovlas", "rating": 2506, "title": "IM", "online": True},
    "destUser": {"id": "thibot", "name": "thibot", "rating": 1500, "provisional": True, "title": "BOT"},
    "variant": {"key": "standard", "name": "Standard", "short": "Std"}, "rated": True, "speed": "rapid",
    "timeControl": {"type": "clock", "limit": 600, "increment": 0, "show": "10+0"}, "color": "random",
    "finalColor": "black", "perf": {"icon": "#", "name": "Rapid"}, "direction": "out"}}


def test_the_documented_examples_are_read() -> None:
    state = parse_game_line(STATE, "l1")
    assert state == GameState(("e2e4", "c7c5"), 7598040, 8395220, 10000, 10000, "started")
    full = parse_game_line(FULL, "l1")
    assert isinstance(full, GameFull)
    assert (full.id, full.white.name, full.black.rating, full.clock_initial, full.rated) == (
        "5IrD6Gzz", "lovlas", 2390, 1200000, True)
    over = parse_game_line({**STATE, "status": "resign", "winner": "black"}, "l2")
    assert isinstance(over, GameState) and over.is_over() and over.winner == "black"
    assert parse_game_line({"type": "opponentGone", "gone": True, "claimWinInSeconds": 8}, "l") == OpponentGone(True, 8)
    assert parse_game_line({"type": "chatLine", "room": "player", "username": "x", "text": "hi"}, "l") is not None
    assert parse_event_line(START, "e1") == GameStart("9NaCTu2v", "white", "Mary")
    assert parse_event_line({"type": "gameFinish", "game": START["game"]}, "e2") == GameFinish("9NaCTu2v")
    challenge = parse_event_line(CHALLENGE, "e3")
    assert challenge == Challenge("7pGLxJ4F", "Lovlas", "out", True, "standard")
    assert parse_event_line({"type": "challengeDeclined", "challenge": CHALLENGE["challenge"]}, "e") == \
        ChallengeGone("7pGLxJ4F", True)


def test_berserk_conversions_are_accepted() -> None:
    """berserk turns wtime/btime/winc/binc into timedelta and createdAt into datetime."""
    converted = {**STATE, "wtime": datetime.timedelta(milliseconds=1500), "binc": datetime.timedelta(0)}
    state = parse_game_line(converted, "l")
    assert isinstance(state, GameState) and state.wtime == 1500 and state.binc == 0
    full = parse_game_line({**FULL, "createdAt": datetime.datetime.now(datetime.UTC)}, "l")
    assert isinstance(full, GameFull)


def test_unknown_line_types_are_left_out() -> None:
    assert parse_game_line({"type": "somethingNew", "x": 1}, "l") is None
    assert parse_event_line({"type": "somethingNew"}, "l") is None


def _with(base: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    obj = copy.deepcopy(base)
    *parents, key = path.split(".")
    target = obj
    for part in parents:
        target = target[part]
    if value is _DELETE:
        del target[key]
    else:
        target[key] = value
    return obj


_DELETE = object()

HOSTILE_GAME: list[tuple[Any, str]] = [
    ([1, 2], "expected a JSON object"),
    ("gameState", "expected a JSON object"),
    ({"moves": ""}, "'type' must be a string"),
    (_with(STATE, "moves", _DELETE), "'moves' must be a string"),
    (_with(STATE, "moves", "e2e4 e7e9"), "'moves' must be UCI moves"),
    (_with(STATE, "moves", "e2e4; rm -rf /"), "'moves' must be UCI moves"),
    (_with(STATE, "moves", " ".join(["e2e4"] * 1300)), "at most 1200 moves"),
    (_with(STATE, "moves", "e2e4" * 2000), "at most 7200 characters"),
    (_with(STATE, "moves", 42), "'moves' must be a string"),
    (_with(STATE, "wtime", -1), "'wtime' must be a whole number of milliseconds"),
    (_with(STATE, "wtime", "300000"), "'wtime' must be a whole number"),
    (_with(STATE, "btime", 1e300), "'btime' must be a whole number"),
    (_with(STATE, "btime", True), "'btime' must be a whole number"),
    (_with(STATE, "winc", 10**40), "'winc' must be a whole number"),
    (_with(STATE, "binc", _DELETE), "'binc' must be a whole number"),
    (_with(STATE, "status", "won"), "'status' must be one of"),
    (_with(STATE, "status", None), "'status' must be a string"),
    (_with(STATE, "winner", "red"), "'winner' must be white or black"),
    (_with(STATE, "wdraw", "yes"), "'wdraw' must be true or false"),
    (_with(STATE, "btakeback", 1), "'btakeback' must be true or false"),
    (_with(FULL, "id", "../../etc"), "'id' must be a string of the form"),
    (_with(FULL, "id", "abc"), "'id' must be a string of the form"),
    (_with(FULL, "id", "x" * 300), "'id' must be a string of at most 200 characters"),
    (_with(FULL, "variant", "standard"), "'variant' must be an object"),
    (_with(FULL, "variant.key", "crazyhouse"), "the board plays standard chess only"),
    (_with(FULL, "white", None), "'white' must be an object"),
    (_with(FULL, "white.name", "<script>alert(1)</script>"), "'name' must be a string of the form"),
    (_with(FULL, "black.rating", "2000"), "'rating' must be a rating"),
    (_with(FULL, "clock.initial", -5), "clock: 'initial' must be a whole number"),
    (_with(FULL, "state", "started"), "'state' must be an object"),
    (_with(FULL, "state.moves", "e2e4 zz"), "state: 'moves' must be UCI moves"),
    (_with(FULL, "rated", "true"), "'rated' must be true or false"),
    ({"type": "opponentGone", "gone": "yes"}, "'gone' must be true or false"),
    ({"type": "opponentGone", "gone": True, "claimWinInSeconds": -3}, "'claimWinInSeconds' must be"),
    ({"type": "chatLine", "room": "player", "username": "x", "text": "y" * 5000}, "'text' must be a string of at most"),
]


@pytest.mark.parametrize(("obj", "message"), HOSTILE_GAME, ids=[m for _, m in HOSTILE_GAME])
def test_hostile_game_lines_are_refused_with_one_message(obj: Any, message: str) -> None:
    with pytest.raises(PayloadError) as info:
        parse_game_line(obj, "game stream line 7")
    text = str(info.value)
    assert text.startswith("game stream line 7") and message in text
    assert len(text) < 400 and "\n" not in text


HOSTILE_EVENTS: list[tuple[Any, str]] = [
    ({"type": "gameStart"}, "'game' must be an object"),
    (_with(START, "game.gameId", "x" * 9), "'gameId' must be a string of the form"),
    (_with(_with(START, "game.gameId", _DELETE), "game.id", _DELETE), "'id' must be a string"),
    (_with(START, "game.color", "green"), "'color' must be white or black"),
    (_with(START, "game.opponent.username", "a b"), "'username' must be a string of the form"),
    (_with(CHALLENGE, "challenge.id", 12345678), "'id' must be a string"),
    (_with(CHALLENGE, "challenge.challenger", "Lovlas"), "'challenger' must be an object"),
    (_with(CHALLENGE, "challenge.direction", "sideways"), "'direction' must be in or out"),
    (_with(CHALLENGE, "challenge.rated", None), "'rated' must be true or false"),
    ({"type": "challengeCanceled", "challenge": {}}, "'id' must be a string"),
]


@pytest.mark.parametrize(("obj", "message"), HOSTILE_EVENTS, ids=[m for _, m in HOSTILE_EVENTS])
def test_hostile_event_lines_are_refused_with_one_message(obj: Any, message: str) -> None:
    with pytest.raises(PayloadError) as info:
        parse_event_line(obj, "the event stream line 2")
    assert str(info.value).startswith("the event stream line 2") and message in str(info.value)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=20,
)


@pytest.mark.slow
@given(st.dictionaries(st.sampled_from(["type", "moves", "wtime", "btime", "winc", "binc", "status", "id",
                                        "state", "white", "black", "variant", "game", "challenge", "gone"]),
                       json_values, max_size=8)
       | json_values)
def test_any_value_is_a_line_or_a_payload_error(obj: Any) -> None:
    for parse in (parse_game_line, parse_event_line):
        with contextlib.suppress(PayloadError):
            parse(obj, "fuzz")
