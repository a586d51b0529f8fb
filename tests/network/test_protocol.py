"""The board-to-board message parser: a table of good and bad messages, round trips, and fuzzing
(whatever the text, a message or one ProtocolError, never anything else)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from boardctl.network import protocol
from boardctl.network.protocol import (
    Error,
    Hello,
    MoveMsg,
    ProtocolError,
    Request,
    State,
    Takeback,
    Welcome,
)

TOKEN = "A" * 43

GOOD: list[protocol.Message] = [
    Hello(variant="chess", code="ABCD2345"),
    Hello(variant="xiangqi", token=TOKEN),
    Welcome(token=TOKEN, game="20260101-120000-000001", color="black", variant="chess",
            fen="rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", white="Host", black="Guest",
            time_control="5+2"),
    MoveMsg(0, "e2e4"),
    MoveMsg(41, "a7a8q"),
    MoveMsg(3, "h2e2"),  # xiangqi
    State(("e2e4", "e7e5"), (297.5, None), {"white": 297.5, "black": 300.0}, "white", "*", ""),
    State((), (), {}, None, "1/2-1/2", "draw agreed"),
    Request("draw"), Request("takeback"), Request("resign"), Request("claim"), Request("accept"), Request("decline"),
    Takeback(4),
    Error("wrong code", fatal=True),
]


@pytest.mark.parametrize("message", GOOD, ids=lambda m: m.type)
def test_messages_round_trip(message: protocol.Message) -> None:
    assert protocol.parse(protocol.dumps(message)) == message


BAD: list[tuple[Any, str]] = [
    ("not json", "not JSON"),
    ("[1, 2]", "not a JSON object"),
    ({"type": "nope"}, "unknown message type"),
    ({"ply": 0, "uci": "e2e4"}, "unknown message type"),
    ({"type": "hello", "version": 2, "variant": "chess", "code": "ABCD2345"}, "version 2"),
    ({"type": "hello", "version": 1, "variant": "chess"}, "either 'code' or 'token'"),
    ({"type": "hello", "version": 1, "variant": "chess", "code": "ABCD2345", "token": TOKEN}, "either 'code' or 'token'"),
    ({"type": "hello", "version": 1, "variant": "chess", "code": "abc"}, "'code' is not valid"),
    ({"type": "hello", "version": 1, "variant": "chess", "token": "short"}, "'token' is not valid"),
    ({"type": "hello", "version": True, "variant": "chess", "code": "ABCD2345"}, "wrong type"),
    ({"type": "move", "ply": -1, "uci": "e2e4"}, "out of range"),
    ({"type": "move", "ply": 1.0, "uci": "e2e4"}, "wrong type"),
    ({"type": "move", "ply": True, "uci": "e2e4"}, "wrong type"),
    ({"type": "move", "ply": 10**9, "uci": "e2e4"}, "out of range"),
    ({"type": "move", "ply": 0, "uci": "e2e4x"}, "not valid"),
    ({"type": "move", "ply": 0, "uci": ["e2e4"]}, "wrong type"),
    ({"type": "move", "ply": 0}, "missing 'uci'"),
    ({"type": "state", "moves": ["e2e4"], "clocks": [], "result": "*", "termination": ""}, "same length"),
    ({"type": "state", "moves": ["e2"], "clocks": [1], "result": "*", "termination": ""}, "not a move"),
    ({"type": "state", "moves": ["e2e4"], "clocks": [-1], "result": "*", "termination": ""}, "not a time"),
    ({"type": "state", "moves": ["e2e4"], "clocks": [float("nan")], "result": "*", "termination": ""}, "not JSON|not a time"),
    ({"type": "state", "moves": [], "clocks": [], "result": "2-0", "termination": ""}, "'result' must be"),
    ({"type": "state", "moves": [], "clocks": [], "remaining": {"blue": 1}, "result": "*", "termination": ""}, "'remaining'"),
    ({"type": "state", "moves": [], "clocks": [], "running": "blue", "result": "*", "termination": ""}, "'running' must be"),
    ({"type": "request", "kind": "abort"}, "'kind' must be"),
    ({"type": "takeback", "moves": "2"}, "wrong type"),
    ({"type": "error", "message": "x", "fatal": "yes"}, "'fatal'"),
    ("x" * (protocol.MAX_MESSAGE_BYTES + 1), "longer than"),
    ("[" * 100000, "longer than|not JSON"),
]


@pytest.mark.parametrize(("text", "why"), BAD, ids=lambda v: str(v)[:40])
def test_bad_messages_are_refused_with_one_clear_error(text: Any, why: str) -> None:
    raw = text if isinstance(text, str) else json.dumps(text)
    with pytest.raises(ProtocolError, match=why):
        protocol.parse(raw, where="test")


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)
_fields = st.fixed_dictionaries(
    {"type": st.sampled_from(["hello", "welcome", "move", "state", "request", "takeback", "error", "x"])},
    optional={k: _json | st.sampled_from(["e2e4", "chess", "ABCD2345", TOKEN, "*", "white"]) | st.integers(-3, 3)
              for k in ("version", "variant", "code", "token", "ply", "uci", "moves", "clocks", "remaining",
                        "running", "result", "termination", "kind", "message", "fatal", "game", "color", "fen")},
)


@given(st.text(max_size=200) | _json.map(json.dumps) | _fields.map(json.dumps))
def test_any_text_is_a_message_or_one_protocol_error(text: str) -> None:
    try:
        message = protocol.parse(text)
    except ProtocolError as exc:
        assert str(exc)
    else:
        assert protocol.parse(protocol.dumps(message)) == message
