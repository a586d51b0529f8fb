"""Hostile JSON and PGN from a page: an error reply every time, never a 500 or a dropped socket;
and the page's parsers fuzzed."""

from __future__ import annotations

import contextlib
import dataclasses
import json

import aiohttp
import chess
import pytest
from fuzzing import examples
from hypothesis import given, settings
from hypothesis import strategies as st
from test_web_server import RecordingDaemon, serve

from boardctl.actions import NewGameAction
from boardctl.web.protocol import (
    MAX_MESSAGE_BYTES,
    WebInputError,
    action_to_json,
    fen_from_pgn,
    parse_action,
    parse_client_message,
    validate_action,
)
from boardctl.web.server import WebServer

#: (body, what the error says). Each was a 500 or a dropped WebSocket before.
HOSTILE = [
    ('{"button": "hint", "x": ' + "[" * 1000 + "]" * 1000 + "}", "nested more than"),
    ("[" * 30_000, "nested more than"),
    ('{"event": {"square": "e2", "occupied": ' + "1" + "0" * 400 + "}}", "number too long"),
    ('{"event": {"square": "e2", "occupied": ' + "1" + "0" * 4400 + "}}", "number too long"),
    ('{"event": {"square": "e2", "occupied": 1.' + "5" * 500 + "}}", "number too long"),
    ('{"button": NaN}', "NaN is not a JSON number"),
    ('{"button": "' + "x" * 30_000 + '"}', "unknown button"),
    ('{"new-game": {"level": ' + "9" * 90 + "}}", "new-game.level"),
]


@pytest.mark.parametrize(("body", "needle"), HOSTILE)
def test_hostile_post_and_websocket_get_an_error_reply(body: str, needle: str) -> None:
    async def scenario(server: WebServer, session: aiohttp.ClientSession, daemon: RecordingDaemon) -> None:
        async with session.post(server.url + "api/action", data=body.encode(),
                                headers={"Content-Type": "application/json"}) as resp:
            assert resp.status == 400
            error = (await resp.json())["error"]
            assert needle in error and len(error) < 400
        async with session.ws_connect(server.url + "ws") as ws:
            await ws.receive_str()  # the state
            message = '{"id": 9, "action": ' + body + "}"
            await ws.send_str(message)
            reply = json.loads(await ws.receive_str())
            assert "error" in reply and needle in reply["error"] and len(reply["error"]) < 400
            await ws.send_str('{"id": 10, "action": {"button": "hint"}}')  # the socket still works
            assert json.loads(await ws.receive_str()) == {"reply": 10, "ok": True}
        assert daemon.actions == [{"button": "hint"}]

    serve(scenario)


json_leaf = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12) | st.sampled_from(
    ["e2", "e4", "hint", "white", "beginner", "15+10", "1500", chess.STARTING_FEN, "1. e4 e5 2. Nf3 *"]
)
json_tree = st.recursive(
    json_leaf,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["event", "button", "new-game", "square", "occupied", "color", "level", "time-control",
                         "fen", "pgn", "id", "pin", "action", "x"]),
        inner, max_size=4),
    max_leaves=15,
)


@pytest.mark.fuzz
@given(json_tree)
def test_any_action_value_is_accepted_or_one_input_error(value: object) -> None:
    try:
        action = validate_action(value)
    except WebInputError as exc:
        assert len(str(exc)) < 600
    else:
        # checked actions are stable: their JSON form reads back to them (an upload's note aside)
        kept = dataclasses.replace(action, note=None) if isinstance(action, NewGameAction) else action
        assert validate_action(action_to_json(action)) == kept


@pytest.mark.fuzz
@settings(max_examples=examples(200))
@given(st.one_of(json_tree.map(lambda v: json.dumps(v)), st.text(max_size=300), st.binary(max_size=300)))
def test_any_message_text_is_parsed_or_one_input_error(text: str | bytes) -> None:
    for parse in (parse_client_message, parse_action):
        try:
            parse(text)  # type: ignore[operator]
        except WebInputError as exc:
            assert len(str(exc)) < 600


pgn_tokens = st.sampled_from([
    "1.", "2.", "1...", "e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "O-O", "O-O-O", "exd5", "e8=Q", "Qxf7#", "+", "!!",
    "?", "(", ")", "{", "}", "{comment}", ";", "\n", " ", "[Event \"x\"]", "[FEN \"8/8/8/8/8/8/8/K1k5 w - - 0 1\"]",
    "[SetUp \"1\"]", "[FEN \"bad\"]", "[Variant \"Atomic\"]", "*", "1-0", "0-1", "1/2-1/2", "$1", "%", "\\", "\"",
    "Z0", "Ke2", "Kxe8", "P@e4", "--", "0000", "\x00", "é",
])


@pytest.mark.fuzz
@settings(max_examples=examples(200), deadline=None)
@given(st.lists(pgn_tokens, max_size=60).map(" ".join) | st.text(max_size=200))
def test_pgn_upload_gives_a_legal_position_or_one_input_error(text: str) -> None:
    try:
        fen = fen_from_pgn(text)
    except WebInputError as exc:
        assert str(exc).startswith("pgn: ") and len(str(exc)) < 600
    else:
        assert chess.Board(fen).is_valid()


def test_pgn_upload_is_bounded_in_size() -> None:
    with pytest.raises(WebInputError, match="larger than"):
        fen_from_pgn("1. e4 e5 " * MAX_MESSAGE_BYTES)
    with contextlib.suppress(WebInputError):
        fen_from_pgn("(" * 20_000 + "1. e4" + ")" * 20_000)  # deep variations: an error or a position, no crash


@pytest.mark.parametrize("text", ["e5 ) !!", ") )", "( ) ) !!"])
def test_pgn_the_reader_trips_on_is_one_input_error(text: str) -> None:
    """Found by the fuzz test above: python-chess's reader raised IndexError on these."""
    with pytest.raises(WebInputError, match=r"^pgn: "):
        fen_from_pgn(text)
