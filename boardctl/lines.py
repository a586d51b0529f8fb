"""Bytes in, lines out, with a cap on line length: every line reader of input from outside.

A reader that grows one buffer until it sees a newline can be made to hold any amount of memory,
and one that re-splits its whole buffer on every read takes quadratic time: 100 MB without a
newline took minutes. :class:`LineSplitter` looks only at new bytes, keeps at most ``limit``
bytes, and reports an over-long line once, as :class:`Overlong`, as soon as it passes the limit;
the rest of that line, up to its newline, is skipped.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

from boardctl.jsonlimits import MAX_LINE_BYTES

#: How many bytes are read at a time.
CHUNK = 64 * 1024


@dataclass(frozen=True, slots=True)
class Overlong:
    """A line that passed ``limit`` bytes; ``prefix`` is its first ``limit + 1`` bytes."""

    prefix: bytes
    limit: int

    def __str__(self) -> str:
        return f"line longer than {self.limit} bytes refused (the rest of it was skipped)"


class Unterminated(bytes):
    """The last line of the input when it had no newline: a reader may treat it as cut short."""

    __slots__ = ()


Line = bytes | Overlong


def is_blank(line: str | bytes | Overlong) -> bool:
    """A line with nothing but white space (Unicode's, so a pasted no-break space too) is skipped."""
    if isinstance(line, Overlong):
        return False
    text = line.decode("utf-8", "replace") if isinstance(line, bytes) else line
    return not text.strip()


class LineSplitter:
    """Feed it chunks; get back complete lines (without their ``\\n``) and :class:`Overlong` marks."""

    def __init__(self, *, limit: int = MAX_LINE_BYTES) -> None:
        self.limit = limit
        self._pending = bytearray()
        self._skipping = False

    def feed(self, chunk: bytes) -> list[Line]:
        out: list[Line] = []
        start = 0
        while start < len(chunk):
            end = chunk.find(b"\n", start)
            if self._skipping:
                if end < 0:
                    return out
                self._skipping = False
                start = end + 1
                continue
            piece = chunk[start:] if end < 0 else chunk[start:end]
            if len(self._pending) + len(piece) > self.limit:
                room = self.limit + 1 - len(self._pending)
                out.append(Overlong(bytes(self._pending) + piece[:room], self.limit))
                self._pending.clear()
                self._skipping = end < 0
                if end < 0:
                    return out
                start = end + 1
                continue
            if end < 0:
                self._pending += piece
                return out
            out.append(bytes(self._pending) + piece)
            self._pending.clear()
            start = end + 1
        return out

    def end(self) -> list[Line]:
        """At end of input: the last line if it had no newline."""
        tail = bytes(self._pending)
        self._pending.clear()
        skipped, self._skipping = self._skipping, False
        return [Unterminated(tail)] if tail and not skipped else []


def iter_lines(stream: BinaryIO, *, limit: int = MAX_LINE_BYTES) -> Iterator[Line]:
    """The lines of a binary stream, read ``CHUNK`` bytes at a time (``read1`` where there is one,
    so an interactive pipe gives each line as it comes)."""
    splitter = LineSplitter(limit=limit)
    read = getattr(stream, "read1", stream.read)
    while True:
        chunk = read(CHUNK)
        if not chunk:
            break
        yield from splitter.feed(chunk)
    yield from splitter.end()


def read_lines(fd: int, loop: asyncio.AbstractEventLoop, *, name: str) -> asyncio.Queue[Line | None]:
    """Lines from file descriptor ``fd`` (None at EOF), read by a daemon thread with ``os.read``:
    a read blocked on stdin must not keep the process alive after SIGTERM (as an executor thread
    would), nor hold a buffered reader's lock at exit. Lines are capped as :class:`LineSplitter` caps them."""
    queue: asyncio.Queue[Line | None] = asyncio.Queue()

    def put(item: Line | None) -> bool:
        try:
            loop.call_soon_threadsafe(queue.put_nowait, item)
        except RuntimeError:  # the loop has closed
            return False
        return True

    def pump() -> None:
        splitter = LineSplitter()
        while True:
            try:
                chunk = os.read(fd, CHUNK)
            except OSError:
                chunk = b""
            lines = splitter.feed(chunk) if chunk else [*splitter.end(), None]
            for line in lines:
                if not put(line):
                    return
            if not chunk:
                return

    threading.Thread(target=pump, name=name, daemon=True).start()
    return queue
