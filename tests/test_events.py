"""The event line format: exact round trips, and clear errors for every malformed line."""

from __future__ import annotations

import contextlib
import dataclasses
import json

import chess
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from boardctl.errors import BoardctlError, EventFormatError
from boardctl.events import (
    Button,
    ButtonPressed,
    Snapshot,
    SquareChanged,
    Tick,
    event_from_json,
    format_event,
    has_time,
    parse_event,
)

times = st.floats(0, 1e6, allow_nan=False).map(lambda t: round(t, 6))
events = st.one_of(
    st.builds(SquareChanged, times, st.integers(0, 63), st.booleans()),
    st.builds(ButtonPressed, times, st.sampled_from(list(Button))),
    st.builds(Tick, times),
    st.builds(Snapshot, times, st.integers(0, chess.BB_ALL)),
)


@given(events)
def test_round_trip(event: object) -> None:
    assert parse_event(format_event(event)) == event  # type: ignore[arg-type]


def test_documented_examples() -> None:
    assert parse_event('{"t": 12.345, "square": "e2", "occupied": false}') == SquareChanged(12.345, chess.E2, False)
    assert parse_event('{"t": 20.000, "button": "hint"}') == ButtonPressed(20.0, Button.HINT)
    assert parse_event('{"t": 25.0}') == Tick(25.0)


def test_unstamped_line_takes_the_readers_time() -> None:
    assert parse_event('{"square": "a1", "occupied": true}', t=3.5) == SquareChanged(3.5, chess.A1, True)
    assert not has_time('{"square": "a1", "occupied": true}')
    assert has_time('{"t": 1, "square": "a1", "occupied": true}')


@pytest.mark.parametrize(("line", "message"), [
    ("not json", "not valid JSON"),
    ("[1, 2]", "expected a JSON object"),
    ('{"square": "e2", "occupied": false}', "missing 't'"),
    ('{"t": -1}', "must not be negative"),
    ('{"t": "1"}', "finite number"),
    ('{"t": true}', "finite number"),
    ('{"t": 1, "square": "e9", "occupied": true}', "square name"),
    ('{"t": 1, "square": "e2", "occupied": 1}', "true or false"),
    ('{"t": 1, "square": "e2"}', "true or false"),
    ('{"t": 1, "occupied": true}', "without 'square'"),
    ('{"t": 1, "button": "fly"}', "unknown button 'fly'"),
    ('{"t": 1, "button": "hint", "square": "e2", "occupied": true}', "one event per line"),
    ('{"t": 1, "snapshot": "zz"}', "64-bit hex"),
    # Exactly the geometry's 16 digits: short, prefixed, spaced or signed forms int() accepts are refused.
    ('{"t": 1, "snapshot": "ffff"}', "16 hex digits"),
    ('{"t": 1, "snapshot": "0xffff00000000ff"}', "16 hex digits"),
    ('{"t": 1, "snapshot": "ffff_0000_0000_ff"}', "16 hex digits"),
    ('{"t": 1, "snapshot": " ffff00000000fff"}', "16 hex digits"),
    ('{"t": 1, "snapshot": "+ffff00000000fff"}', "16 hex digits"),
    ('{"t": 1, "snapshot": "ffff00000000ffff0"}', "16 hex digits"),
    ('{"t": 1, "snapshot": 65535}', "16 hex digits"),
    ('{"t": 1, "colour": "red"}', "unknown key"),
])
def test_malformed_lines_say_what_is_wrong_and_where(line: str, message: str) -> None:
    with pytest.raises(EventFormatError, match=message) as info:
        parse_event(line, where="game.jsonl:7")
    assert str(info.value).startswith("game.jsonl:7: ")
    assert isinstance(info.value, BoardctlError) and isinstance(info.value, ValueError)


@pytest.mark.fuzz
@given(st.text(max_size=60))
def test_arbitrary_text_never_crashes_the_parser(text: str) -> None:
    with contextlib.suppress(EventFormatError):
        parse_event(text, t=0.0)


@given(st.dictionaries(st.sampled_from(["t", "square", "occupied", "button", "snapshot", "x"]),
                       st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=5))))
@example({"t": 1e-7})
@example({"t": 123456789.123456789, "square": "e2", "occupied": True})
def test_arbitrary_objects_parse_or_fail_cleanly(obj: dict[str, object]) -> None:
    try:
        event = event_from_json(obj, t=0.0)
    except EventFormatError:
        return
    # Lines keep time to the microsecond: the event comes back with t rounded so, and then exactly.
    again = parse_event(json.dumps(json.loads(format_event(event))))
    assert again == dataclasses.replace(event, t=round(event.t, 6))
    assert parse_event(format_event(again)) == again


HOSTILE_LINES = [
    ('{"t": 1' + "0" * 400 + "}", "number too long"),  # was an OverflowError as a float
    ('{"t": 1' + "0" * 4400 + "}", "number too long"),  # was Python's int-digit ValueError
    ('{"t": 1, "square": "e2", "occupied": ' + "[" * 1000 + "]" * 1000 + "}", "nested more than"),  # RecursionError
    ("[" * 5000, "nested more than"),
    ('{"t": NaN}', "NaN is not a JSON number"),
    ('{"t": 1e999}', "finite number"),
    ('{"t": 1' + " " * 70_000 + "}", "larger than"),
    ('{"t": 1, "button": "' + "x" * 50_000 + '"}', "unknown button"),
]


@pytest.mark.parametrize(("line", "message"), HOSTILE_LINES)
def test_hostile_lines_are_one_short_error_naming_the_line(line: str, message: str) -> None:
    for data in (line, line.encode()):
        with pytest.raises(EventFormatError, match=message) as info:
            parse_event(data, where="game.jsonl:9")
        assert str(info.value).startswith("game.jsonl:9: ")
        assert len(str(info.value)) < 400
        assert not has_time(data) or message in ("finite number", "unknown button")


def test_invalid_utf8_names_the_line_and_byte() -> None:
    with pytest.raises(EventFormatError, match=r"^stdin:3: not UTF-8 text \(byte 0xff at position 7\)"):
        parse_event(b'{"t": 1\xff}', where="stdin:3")


def test_event_from_json_survives_huge_numbers_from_any_source() -> None:
    for bad in (10**400, -(10**400), float("inf")):
        with pytest.raises(EventFormatError, match="'t' must be a finite number"):
            event_from_json({"t": bad})


@pytest.mark.fuzz
@given(st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8)
    | st.sampled_from(["e2", "hint", "ffff00000000ffff", "takeback"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["t", "square", "occupied", "button", "snapshot", "x"]), inner, max_size=4),
    max_leaves=12,
))
def test_any_decoded_value_is_an_event_or_a_format_error(obj: object) -> None:
    try:
        event = event_from_json(obj, t=1.0, where="x:1")
    except EventFormatError as exc:
        assert str(exc).startswith("x:1: ")
    else:
        assert parse_event(format_event(event)) == event
