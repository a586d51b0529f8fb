"""The line protocol parser: round trips, and garbage or corruption never slips through."""

from __future__ import annotations

import binascii

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardctl.errors import ProtocolError
from boardctl.hw.protocol import LineFramer, encode_line, parse_line

kinds = st.sampled_from(["HELLO", "S", "C", "B", "E", "?", "L", "T"])
args = st.lists(st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E, exclude_characters="*"), min_size=1, max_size=20), max_size=6)


def test_known_line() -> None:
    body = b"07 C e2 0"
    assert encode_line(7, "C", "e2", "0") == body + b"*%04x\n" % binascii.crc_hqx(body, 0xFFFF)
    line = parse_line(b"07 C e2 0*" + b"%04x" % binascii.crc_hqx(body, 0xFFFF) + b"\r")
    assert (line.seq, line.kind, line.args) == (7, "C", ("e2", "0"))


@settings(deadline=None)
@given(st.integers(0, 255), kinds, args)
def test_round_trip(seq: int, kind: str, a: list[str]) -> None:
    line = parse_line(encode_line(seq, kind, *a)[:-1])
    assert (line.seq, line.kind, line.args) == (seq, kind, tuple(a))


@settings(deadline=None)
@given(st.binary(max_size=200))
def test_garbage_is_rejected_only_with_protocol_error(data: bytes) -> None:
    try:
        line = parse_line(data)
    except ProtocolError:
        return
    assert encode_line(line.seq, line.kind, *line.args)[:-1] == data.rstrip(b"\r")  # only well-formed lines pass


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 255), kinds, args, st.data())
def test_any_single_byte_corruption_is_detected(seq: int, kind: str, a: list[str], data: st.DataObject) -> None:
    raw = bytearray(encode_line(seq, kind, *a)[:-1])
    i = data.draw(st.integers(0, len(raw) - 1))
    new = data.draw(st.integers(0, 255).filter(lambda b: b != raw[i]))
    raw[i] = new
    for piece in bytes(raw).split(b"\n"):  # a corrupted newline splits it: no piece may pass
        with pytest.raises(ProtocolError):
            parse_line(piece)


@settings(deadline=None)
@given(st.lists(st.tuples(st.integers(0, 255), kinds, args), max_size=8), st.data())
def test_framer_splits_any_chunking(lines: list[tuple[int, str, list[str]]], data: st.DataObject) -> None:
    stream = b"".join(encode_line(s, k, *a) for s, k, a in lines)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=10)))
    framer = LineFramer()
    out: list[bytes] = []
    for start, end in zip([0, *cuts], [*cuts, len(stream)], strict=True):
        out += framer.feed(stream[start:end])
    assert [parse_line(raw).seq for raw in out] == [s for s, _, _ in lines]


def test_framer_drops_overlong_lines_and_recovers() -> None:
    framer = LineFramer(max_line=50)
    assert framer.feed(b"x" * 60) == []
    assert framer.feed(b"y" * 60 + b"\n" + encode_line(1, "B", "hint")) == [encode_line(1, "B", "hint")[:-1]]
    assert framer.overflows == 1
