"""The line protocol parser: round trips, and garbage or corruption never slips through."""

from __future__ import annotations

import binascii

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardctl.errors import ProtocolError
from boardctl.hw.protocol import REFUSED_PREFIX, LineFramer, encode_line, parse_line

from .serialdevice import examples

kinds = st.sampled_from(["HELLO", "S", "C", "B", "E", "?", "L", "T"])
args = st.lists(st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E, exclude_characters="*"), min_size=1, max_size=20), max_size=6)


def test_known_line() -> None:
    body = b"07 C e2 0"
    assert encode_line(7, "C", "e2", "0") == body + b"*%04x\n" % binascii.crc_hqx(body, 0xFFFF)
    line = parse_line(b"07 C e2 0*" + b"%04x" % binascii.crc_hqx(body, 0xFFFF) + b"\r")
    assert (line.seq, line.kind, line.args) == (7, "C", ("e2", "0"))


@pytest.mark.fuzz
@settings(max_examples=examples(100), deadline=None)
@given(st.integers(0, 255), kinds, args)
def test_round_trip(seq: int, kind: str, a: list[str]) -> None:
    line = parse_line(encode_line(seq, kind, *a)[:-1])
    assert (line.seq, line.kind, line.args) == (seq, kind, tuple(a))


@pytest.mark.fuzz
@settings(max_examples=examples(200), deadline=None)
@given(st.binary(max_size=200))
def test_garbage_is_rejected_only_with_protocol_error(data: bytes) -> None:
    try:
        line = parse_line(data)
    except ProtocolError:
        return
    assert encode_line(line.seq, line.kind, *line.args)[:-1] == data.rstrip(b"\r")  # only well-formed lines pass


@pytest.mark.fuzz
@settings(max_examples=examples(300), deadline=None)
@given(st.integers(0, 255), kinds, args, st.data())
def test_any_single_byte_corruption_is_detected(seq: int, kind: str, a: list[str], data: st.DataObject) -> None:
    raw = bytearray(encode_line(seq, kind, *a)[:-1])
    i = data.draw(st.integers(0, len(raw) - 1))
    new = data.draw(st.integers(0, 255).filter(lambda b: b != raw[i]))
    raw[i] = new
    for piece in bytes(raw).split(b"\n"):  # a corrupted newline splits it: no piece may pass
        with pytest.raises(ProtocolError):
            parse_line(piece)


@pytest.mark.fuzz
@settings(max_examples=examples(100), deadline=None)
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


@pytest.mark.fuzz
@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.binary(max_size=300), max_size=20), st.integers(1, 200))
def test_framer_holds_at_most_a_line_and_counts_each_refusal(chunks: list[bytes], limit: int) -> None:
    framer = LineFramer(max_line=limit)
    out = [line for chunk in chunks for line in framer.feed(chunk)]
    whole = b"".join(chunks).split(b"\n")[:-1]  # the complete lines
    assert out == [line for line in whole if len(line) <= limit]
    assert framer.overflows >= sum(1 for line in whole if len(line) > limit)
    assert len(framer._buf) <= limit and len(framer.refused) <= REFUSED_PREFIX


def test_framer_is_linear_in_a_flood() -> None:
    """100 MB without a newline, 64 KB at a time: bounded memory, one refusal, then lines again."""
    framer = LineFramer()
    chunk = b"x" * 65536
    for _ in range(1600):
        assert framer.feed(chunk) == []
    assert framer.overflows == 1 and len(framer._buf) == 0
    assert framer.feed(b"\n" + encode_line(1, "B", "hint")) == [encode_line(1, "B", "hint")[:-1]]
