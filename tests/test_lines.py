"""The capped line splitter: same lines as bytes.split for short lines, bounded for long ones."""

from __future__ import annotations

import io
import itertools
import time

import pytest
from fuzzing import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from boardctl.lines import LineSplitter, Overlong, is_blank, iter_lines


def split_all(chunks: list[bytes], limit: int) -> list[bytes | Overlong]:
    splitter = LineSplitter(limit=limit)
    out: list[bytes | Overlong] = []
    for chunk in chunks:
        out += splitter.feed(chunk)
    return out + splitter.end()


def expected(data: bytes, limit: int) -> list[bytes | str]:
    """The reference: split on newlines; an over-long line becomes the marker "long"."""
    parts = data.split(b"\n")
    if parts and parts[-1] == b"":
        parts.pop()
    return [p if len(p) <= limit else "long" for p in parts]


def rechunk(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts} | {0, len(data)})
    return [data[a:b] for a, b in itertools.pairwise(points)]


@pytest.mark.fuzz
@settings(max_examples=examples(300))
@given(st.lists(st.binary(max_size=12) | st.sampled_from([b"\n", b"\n\n", b"x" * 20]), max_size=30),
       st.lists(st.integers(0, 10_000), max_size=10), st.integers(1, 16))
def test_same_lines_as_split_whatever_the_chunks(pieces: list[bytes], cuts: list[int], limit: int) -> None:
    data = b"".join(pieces)
    got = split_all(rechunk(data, cuts), limit)
    assert [x if isinstance(x, bytes) else "long" for x in got] == expected(data, limit)
    for item in got:
        if isinstance(item, Overlong):
            assert len(item.prefix) == limit + 1 and item.limit == limit
        else:
            assert b"\n" not in item and len(item) <= limit


def test_a_line_of_exactly_the_limit_passes() -> None:
    assert split_all([b"abcd\nabcde\nab"], 4) == [b"abcd", Overlong(b"abcde", 4), b"ab"]


def test_overlong_is_reported_as_soon_as_the_limit_is_passed() -> None:
    splitter = LineSplitter(limit=10)
    assert splitter.feed(b"x" * 8) == []
    (mark,) = splitter.feed(b"y" * 8)
    assert isinstance(mark, Overlong) and "longer than 10 bytes" in str(mark)
    assert splitter.feed(b"z" * 1000) == []  # the rest of it is skipped
    assert splitter.feed(b"zz\nok\n") == [b"ok"]


def test_100_mb_without_a_newline_is_quick_and_small() -> None:
    chunk = b"x" * 65536
    splitter = LineSplitter()
    started = time.perf_counter()
    marks = []
    for _ in range(1600):  # 100 MiB
        marks += splitter.feed(chunk)
        assert len(splitter._pending) <= splitter.limit
    marks += splitter.feed(b"\n{}\n")
    assert time.perf_counter() - started < 5.0
    assert len(marks) == 2 and isinstance(marks[0], Overlong) and marks[1] == b"{}"


def test_iter_lines_reads_a_stream() -> None:
    stream = io.BufferedReader(io.BytesIO(b"one\n" + b"x" * 70_000 + b"\ntwo"))  # type: ignore[arg-type]
    lines = list(iter_lines(stream))
    assert lines[0] == b"one" and isinstance(lines[1], Overlong) and lines[2] == b"two"


@pytest.mark.parametrize(
    ("line", "blank"),
    [(b"", True), (b"  \t", True), ("\xa0".encode(), True), ("\u3000 ", True), (b"{}", False), (b"\xff", False), ("\xa0x", False)],
)
def test_blank_lines_are_unicode_white_space_only(line: str | bytes, blank: bool) -> None:
    assert is_blank(line) is blank
