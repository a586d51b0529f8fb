"""JSON from outside within limits: every hostile document is one clear error, never a traceback."""

from __future__ import annotations

import contextlib
import json
import time

import pytest
from fuzzing import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from boardctl.errors import BoardctlError
from boardctl.jsonlimits import (
    MAX_DEPTH,
    MAX_LINE_BYTES,
    JsonInputError,
    loads,
    nesting_depth,
    short_repr,
)

HOSTILE: list[tuple[str, str]] = [
    ('{"t": 1' + "0" * 400 + "}", "number too long"),
    ('{"t": 1' + "0" * 4400 + "}", "number too long"),
    ('{"t": 1.' + "5" * 500 + "}", "number too long"),
    ('{"t": 1e' + "9" * 200 + "}", "number too long"),
    ('{"t": -' + "9" * 5000 + "}", "number too long"),
    ("[" * 1000 + "]" * 1000, "nested more than"),
    ("[" * 60_000, "nested more than"),
    ('{"a":' * 1000 + "1" + "}" * 1000, "nested more than"),
    ('{"t": 1, "x": ' + "[" * 40 + "]" * 40 + "}", "nested more than"),
    ('{"t": NaN}', "NaN is not a JSON number"),
    ('{"t": Infinity}', "Infinity is not a JSON number"),
    ('{"t": -Infinity}', "-Infinity is not a JSON number"),
    ('{"t": 1' + " " * MAX_LINE_BYTES + "}", "larger than"),
    ("not json", "not valid JSON"),
    ("", "not valid JSON"),
    ("\ufeff{}", "not valid JSON"),
    ('{"t": 1', "not valid JSON"),
]


@pytest.mark.parametrize(("text", "message"), HOSTILE)
def test_hostile_documents_are_one_clear_error(text: str, message: str) -> None:
    for data in (text, text.encode()):
        with pytest.raises(JsonInputError, match=message) as info:
            loads(data)
        assert isinstance(info.value, BoardctlError) and isinstance(info.value, ValueError)
        assert len(str(info.value)) < 300


@pytest.mark.parametrize("data", [b"\xff", b'{"t": 1, "x": "\xc3"}', b"\xfe\xff\x00{", b'{"a": "\xed\xa0\x80"}'])
def test_bytes_that_are_not_utf8_name_the_byte(data: bytes) -> None:
    with pytest.raises(JsonInputError, match=r"not UTF-8 text \(byte 0x[0-9a-f]{2} at position \d+\)"):
        loads(data)


def test_brackets_inside_strings_do_not_count() -> None:
    text = json.dumps({"s": "[" * 5000, "t": r'\"[[[[{{{{'})
    assert loads(text)["s"] == "[" * 5000
    assert nesting_depth(text) == 1
    assert nesting_depth("[" * 5000) == MAX_DEPTH + 1
    assert nesting_depth("[[]]") == 2
    deep = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    assert loads(deep) is not None  # exactly at the limit is fine


def test_ordinary_values_pass_unchanged() -> None:
    values = [{"t": 12.345, "square": "e2", "occupied": False}, [1, -2, 3.5e-7, None, True, "ü"], 10**99, -1e308]
    for value in values:
        assert loads(json.dumps(value)) == value


def test_the_depth_scan_is_fast_on_a_long_line() -> None:
    text = '{"s": "' + "[\\\"" * 20_000 + '"}'
    started = time.perf_counter()
    for _ in range(20):
        with pytest.raises(JsonInputError):
            loads(text + "[" * 40)
    assert time.perf_counter() - started < 2.0


def test_short_repr_never_prints_too_much() -> None:
    assert short_repr("x" * 10_000).endswith("(10002 characters)")
    assert short_repr(10**5000) == "<int too large to show>"
    assert short_repr("e4") == "'e4'"


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=30,
)


@pytest.mark.fuzz
@given(json_values)
def test_any_json_value_round_trips_or_is_refused_cleanly(value: object) -> None:
    text = json.dumps(value)
    try:
        assert loads(text) == value
    except JsonInputError as exc:
        assert "number too long" in str(exc) or "nested" in str(exc)


@pytest.mark.fuzz
@settings(max_examples=examples(300))
@given(st.binary(max_size=200) | st.text(max_size=200).map(lambda s: s.encode("utf-8", "surrogatepass")))
def test_arbitrary_bytes_never_escape_as_anything_else(data: bytes) -> None:
    with contextlib.suppress(JsonInputError):
        loads(data)


@pytest.mark.fuzz
@settings(max_examples=examples(200))
@given(st.lists(st.sampled_from(['[', ']', '{', '}', '"', '\\', ':', ',', '1', '"a"', '1e999', '-0', ' ', 'NaN']), max_size=300))
def test_bracket_soup_never_escapes(tokens: list[str]) -> None:
    text = "".join(tokens)
    with contextlib.suppress(JsonInputError):
        loads(text)
