"""Fuzzing the board-to-board protocol (``boardctl/network/protocol.py``) and the guest's check of
the host's game (issue 29); ``make fuzz`` runs these with many more examples. Whatever a peer
sends: a valid message that reads back to itself, or one ProtocolError naming where; never
another exception. The same for a welcome's game: a board, or one "the host sent an invalid game"."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fuzzing import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from boardctl.network import protocol
from boardctl.network.join import InvalidGame, check_welcome
from boardctl.network.protocol import ProtocolError, State, Welcome
from boardctl.variants import get_variant
from network.peers import state, welcome

_json: st.SearchStrategy[Any] = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=16),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=16,
)

GOOD: list[dict[str, Any]] = [
    {"type": "hello", "version": 1, "variant": "chess", "code": "ABCD2345"},
    {"type": "hello", "version": 1, "variant": "xiangqi", "token": "T" * 43},
    welcome(),
    {"type": "move", "ply": 3, "uci": "e7e8q"},
    state(["e2e4", "e7e5"], result="1/2-1/2", termination="draw agreed", remaining={"white": 1.5}, running="white"),
    {"type": "request", "kind": "accept"},
    {"type": "takeback", "moves": 2},
    {"type": "error", "message": "no", "fatal": True},
]


def _parsed_or_one_error(text: str | bytes) -> protocol.Message | None:
    try:
        message = protocol.parse(text, where="peer")
    except ProtocolError as exc:
        assert str(exc).startswith("peer") and len(str(exc)) < 700, str(exc)
        return None
    assert protocol.parse(protocol.dumps(message)) == message  # what is accepted reads back to itself
    if isinstance(message, State):
        assert len(message.moves) == len(message.clocks) <= protocol.MAX_MOVES
        assert all(c is None or 0 <= c < 1e7 for c in message.clocks)
    return message


@pytest.mark.slow
@pytest.mark.fuzz
@settings(max_examples=examples(300))
@given(st.one_of(st.binary(max_size=300), st.text(max_size=300), _json.map(json.dumps)))
def test_any_frame_is_a_message_or_one_protocol_error(text: str | bytes) -> None:
    _parsed_or_one_error(text)


@pytest.mark.slow
@pytest.mark.fuzz
@settings(max_examples=examples(300))
@given(st.sampled_from(GOOD), st.lists(st.tuples(st.sampled_from(
    ["type", "version", "variant", "code", "token", "game", "color", "fen", "white", "black", "time_control",
     "ply", "uci", "moves", "clocks", "remaining", "running", "result", "termination", "kind", "message",
     "fatal", "extra"]), st.one_of(st.none(), _json, st.just("__delete__"))), max_size=4))
def test_a_good_message_mutated_is_still_a_message_or_one_error(good: dict[str, Any],
                                                                edits: list[tuple[str, Any]]) -> None:
    frame = dict(good)
    for key, value in edits:
        if value == "__delete__":
            frame.pop(key, None)
        else:
            frame[key] = value
    _parsed_or_one_error(json.dumps(frame))  # NaN and Infinity too, as Python's JSON writes them


@pytest.mark.fuzz
@settings(max_examples=examples(200), deadline=None)
@given(st.fixed_dictionaries({}, optional={
    "variant": st.sampled_from(["chess", "xiangqi", "shogi", ""]),
    "color": st.sampled_from(["white", "black", "red", "blue"]),
    "fen": st.one_of(st.text(max_size=60), st.sampled_from([
        "8/8/8/8/8/8/8/8 w - - 0 1", "4k3/8/8/8/8/8/8/4K3 w - - 0 1", "4k3/8/8/8/8/8/8/4K3 b - - 0 1",
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
        "rnbakabnrr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
        "K7/8/8/8/8/8/8/7k w KQkq - 0 1", "4k3/8/8/8/8/8/8/4K2R w K - 0 1"])),
    "time_control": st.one_of(st.text(max_size=12), st.sampled_from(["", "5+3", "9999+999", "10000+0", "0+1"])),
    "white": st.text(max_size=20),
    "black": st.text(max_size=20),
}), st.sampled_from(["chess", "xiangqi"]))
def test_any_welcome_is_a_game_to_play_or_one_invalid_game(fields: dict[str, Any], board: str) -> None:
    variant = get_variant(board)
    try:
        message = protocol.parse(json.dumps(welcome(**fields)))
    except ProtocolError:
        return  # refused at the parser already
    assert isinstance(message, Welcome)
    try:
        start = check_welcome(message, variant=variant)
    except InvalidGame as exc:
        assert str(exc).startswith("the host sent an invalid game: ") and "\n" not in str(exc).strip()
    else:
        assert message.variant == variant.name and message.color in variant.color_names
        assert not variant.faults(start)
