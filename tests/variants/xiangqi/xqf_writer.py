"""A small XQF writer for test fixtures, from the published description of the format (the
XQFRW.pas layout that cchess also follows): a 1,024-byte header, then the move records.

Header: ``XQ``, the version byte, 13 key bytes (mask, product id, four OR keys, the key sum,
the position, from and to keys), the 32 piece points (Red's rooks, horses, elephants,
advisors, general, advisors, elephants, horses, rooks, cannons, pawns; then Black's), the
result byte at 0x33, and Pascal strings for the title (0x50), the event (0xD0), the date, the
place, Red's name (0x130) and Black's (0x140). A point is ``file * 10 + rank``, 0xFF when the
piece is gone. Each record: from and to points (+0x18 and +0x20), a flags byte, a spare byte,
then for versions up to 10 a 4-byte comment length and the comment; from version 11 the flags
say 0x80 next move, 0x40 a variation follows, 0x20 a comment (its length is offset by a key),
and every byte after the header is enciphered with a 32-byte key derived from the header.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from boardctl.variants.xiangqi.board import FILES, XiangqiBoard

ORDER = "RNBAKABNRCCPPPPP"
RESULTS = {"*": 0, "1-0": 1, "0-1": 2, "1/2-1/2": 3}


def _point(square: int) -> int:
    return (square % FILES) * 10 + square // FILES


def piece_points(fen: str) -> list[int]:
    """The 32 header points of a position (0xFF for a missing piece)."""
    board = XiangqiBoard(fen)
    points = [0xFF] * 32
    for side, red in ((0, True), (1, False)):
        taken: set[int] = set()
        for index, letter in enumerate(ORDER):
            for square, piece in sorted(board.piece_map().items()):
                if piece.color == red and piece.symbol().upper() == letter and square not in taken:
                    taken.add(square)
                    points[side * 16 + index] = _point(square)
                    break
    return points


@dataclass
class Keys:
    """The header's key bytes; all zero means no ciphering even for a new version."""

    mask: int = 0
    product: int = 0
    ors: tuple[int, int, int, int] = (0, 0, 0, 0)
    total: int = 0
    xy: int = 0
    xyf: int = 0
    xyt: int = 0
    derived: dict[str, int] = field(default_factory=dict)

    def derive(self) -> tuple[int, int, int, int, bytes]:
        def f(b: int, k: int) -> int:
            return (((((b * b) * 3 + 9) * 3 + 8) * 2 + 1) * 3 + 8) * k & 0xFF

        key_xy = f(self.xy, self.xy)
        key_f = f(self.xyf, key_xy)
        key_t = f(self.xyt, key_f)
        rmk = ((self.total * 256 + self.xy) % 32000 + 767) & 0xFFFF
        parts = (self.total, self.xy, self.xyf, self.xyt)
        four = [(parts[i] & self.mask) | self.ors[i] for i in range(4)]
        phrase = bytearray(b"[(C) Copyright Mr. Dong Shiwei.]")
        for i in range(32):
            phrase[i] &= four[i % 4]
        return key_xy, key_f, key_t, rmk, bytes(phrase)


def _pascal(text: str, size: int) -> bytes:
    raw = text.encode("gb18030")[:size]
    return bytes([len(raw)]) + raw.ljust(size, b"\0")


def write_xqf(
    moves: list[str],
    *,
    fen: str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
    version: int = 10,
    keys: Keys | None = None,
    result: str = "*",
    red: str = "",
    black: str = "",
    title: str = "",
    event: str = "",
    variation: list[str] | None = None,
    comment: str = "",
    variations: dict[int, list[str]] | None = None,
    comments: dict[int, str] | None = None,
) -> bytes:
    """An XQF file of ``moves`` (coordinates) from ``fen``; ``variation`` (an alternative to
    the first move) is stored after it as a side line; ``variations[i]`` is an alternative to
    move ``i`` (0-based), stored as the file stores a tree (each move, then the line after it,
    then its alternatives: so the main line comes first and the side lines after it, the last
    one first); ``comments[i]`` follows main-line move ``i``."""
    variations = dict(variations or {})
    if variation:
        variations[0] = variation
    comments = comments or {}
    keys = keys or Keys()
    key_xy, key_f, key_t, rmk, phrase = keys.derive()
    points = piece_points(fen)
    if version >= 11:
        stored = [0] * 32
        for i in range(32):
            # the reader puts byte i at (key_xy + i + 1) & 31 and subtracts key_xy
            stored[i] = (points[(key_xy + i + 1) & 0x1F] + key_xy) & 0xFF
    else:
        stored = points
    head = bytearray(0x400)
    head[0:2] = b"XQ"
    head[2] = version
    head[3:16] = struct.pack(
        "<BIBBBBBBBB", keys.mask, keys.product, *keys.ors, keys.total, keys.xy, keys.xyf, keys.xyt
    )
    head[16:48] = bytes(stored)
    head[0x33] = RESULTS[result]
    head[0x50 : 0x50 + 64] = _pascal(title, 63)
    head[0xD0 : 0xD0 + 64] = _pascal(event, 63)
    head[0x130 : 0x130 + 16] = _pascal(red, 15)
    head[0x140 : 0x140 + 16] = _pascal(black, 15)

    def record(frm: int, to: int, has_next: bool, has_var: bool, note: str) -> bytes:
        raw = note.encode("gb18030")
        if version <= 10:
            flags = (0xF0 if has_next else 0) | (0x0F if has_var else 0)
            out = bytes([(frm + 0x18) & 0xFF, (to + 0x20) & 0xFF, flags, 0]) + struct.pack(
                "<i", len(raw)
            )
        else:
            flags = (0x80 if has_next else 0) | (0x40 if has_var else 0) | (0x20 if raw else 0)
            out = bytes([(frm + 0x18 + key_f) & 0xFF, (to + 0x20 + key_t) & 0xFF, flags, 0])
            if raw:
                out += struct.pack("<i", len(raw) + rmk)
        return out + raw

    square = XiangqiBoard().geometry.parse
    body = bytearray(record(0, 0, bool(moves), False, comment))  # the start record
    for i, uci in enumerate(moves):
        body += record(_point(square(uci[:2])), _point(square(uci[2:])), i < len(moves) - 1, i in variations,
                       comments.get(i, ""))
    for i in sorted(variations, reverse=True):  # the deepest alternative closes first
        side = variations[i]
        for j, uci in enumerate(side):
            body += record(_point(square(uci[:2])), _point(square(uci[2:])), j < len(side) - 1, False, "")
    if version >= 11:
        body = bytearray((b + phrase[(0x400 + i) % 32]) & 0xFF for i, b in enumerate(body))
    return bytes(head) + bytes(body)
