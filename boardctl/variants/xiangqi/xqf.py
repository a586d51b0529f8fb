"""XQF, the commonest binary xiangqi record: its main line only, read in one pass.

The layout is the published one (XQFRW.pas, which cchess follows too): a 1,024-byte header, then
the move records. Header: ``XQ``, the version byte, 13 key bytes (mask, product id, four OR
keys, the key sum, the position, from and to keys), the 32 piece points (Red's rooks, horses,
elephants, advisors, general, advisors, elephants, horses, rooks, cannons, pawns; then Black's),
the result byte at 0x33, Pascal strings for the title (0x50), the event (0xD0), the date (0x110),
the place (0x120), Red's name (0x130) and Black's (0x140). A point is ``file * 10 + rank``, 0xFF
for a piece that is gone. From version 11 the points and every byte after the header are
enciphered with keys derived from the header.

The records store the game tree in pre-order (a move, the line after it, then its alternatives),
so the main line is the first records in a row, up to the first without a next move: it is read
and the variations after it never are. A file of any size costs only its main line (cchess
builds the whole tree first: over a minute for a large file with many variations). Every fault
is one :class:`XqfError` naming the move.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from boardctl.errors import BoardctlError

HEADER = 0x400
#: Most main-line moves read (the longest real games have about 550 plies).
MAX_MOVES = 2000
PIECE_LETTERS = "RNBAKABNRCCPPPPP"
RESULTS = {0: "*", 1: "1-0", 2: "0-1", 3: "1/2-1/2", 4: "1/2-1/2"}
#: Header tags: (tag, offset of the Pascal string, its largest size).
STRINGS = (("Title", 0x50, 63), ("Event", 0xD0, 63), ("Date", 0x110, 15), ("Site", 0x120, 15),
           ("Red", 0x130, 15), ("Black", 0x140, 15))
_PHRASE = b"[(C) Copyright Mr. Dong Shiwei.]"
FILES, RANKS = 9, 10


class XqfError(BoardctlError, ValueError):
    """Not a readable XQF record; the text says what is wrong (without the file's name)."""


@dataclass(frozen=True, slots=True)
class XqfGame:
    """The set-up (a FEN board part, its side to move unknown until the first move), the main
    line as (from, to) points (``file * 10 + rank``), and the header's tags."""

    placement: dict[int, str]
    moves: tuple[tuple[int, int], ...]
    tags: dict[str, str]
    version: int

    def side_to_move(self) -> str:
        """``w`` (Red) or ``b``: whose piece the first move moves (Red when there is none)."""
        first = self.placement.get(_square(self.moves[0][0])) if self.moves else None
        return "b" if first is not None and first.islower() else "w"


@dataclass(frozen=True, slots=True)
class _Keys:
    xy: int
    xyf: int
    xyt: int
    remark: int
    phrase: bytes


def _mix(byte: int, key: int) -> int:
    return (((((byte * byte) * 3 + 9) * 3 + 8) * 2 + 1) * 3 + 8) * key & 0xFF


def _keys(head: bytes) -> _Keys:
    mask, _product, or_a, or_b, or_c, or_d, total, xy, xyf, xyt = struct.unpack("<BIBBBBBBBB", head[3:16])
    key_xy = _mix(xy, xy)
    key_f = _mix(xyf, key_xy)
    key_t = _mix(xyt, key_f)
    remark = ((total * 256 + xy) % 32000 + 767) & 0xFFFF
    four = [(b & mask) | o for b, o in zip((total, xy, xyf, xyt), (or_a, or_b, or_c, or_d), strict=True)]
    phrase = bytes(c & four[i % 4] for i, c in enumerate(_PHRASE))
    return _Keys(key_xy, key_f, key_t, remark, phrase)


class _Body:
    """The records after the header, deciphered only as far as they are read."""

    def __init__(self, data: bytes, keys: _Keys | None) -> None:
        self.data, self.keys, self.at = data, keys, HEADER

    def take(self, size: int, what: str) -> bytes:
        end = self.at + size
        if size < 0 or end > len(self.data):
            raise XqfError(f"{what}: the file ends inside it")
        raw = self.data[self.at:end]
        if self.keys is not None:
            phrase = self.keys.phrase
            raw = bytes((b - phrase[(self.at + i) % 32]) & 0xFF for i, b in enumerate(raw))
        self.at = end
        return raw

    def more(self) -> bool:
        return self.at < len(self.data)


def read_xqf_bytes(data: bytes, *, max_moves: int = MAX_MOVES) -> XqfGame:
    """The set-up, main line and tags of the XQF record ``data``."""
    if data[:2] != b"XQ":
        raise XqfError("not an XQF record (no 'XQ' magic)")
    if len(data) < HEADER:
        raise XqfError(f"shorter ({len(data)} bytes) than an XQF header ({HEADER} bytes)")
    version = data[2]
    keys = _keys(data) if version > 10 else None
    placement = _placement(data[16:48], version, keys)
    body = _Body(data, keys)
    _record(body, version, keys, "the game's comment", root=True)
    moves: list[tuple[int, int]] = []
    has_next = body.more()
    while has_next and body.more():
        if len(moves) >= max_moves:
            raise XqfError(f"more than {max_moves} moves (plies) in the main line")
        frm, to, has_next = _record(body, version, keys, f"move {len(moves) + 1}")
        moves.append((frm, to))
    return XqfGame(placement, tuple(moves), _tags(data), version)


def _placement(raw: bytes, version: int, keys: _Keys | None) -> dict[int, str]:
    points = list(raw)
    if keys is not None:
        if version >= 12:
            points = [0] * 32
            for i, b in enumerate(raw):
                points[(keys.xy + i + 1) & 0x1F] = b
        points = [(p - keys.xy) & 0xFF for p in points]
    placement: dict[int, str] = {}
    for index, point in enumerate(points):
        if point > 89:
            continue  # a piece that is gone
        letter = PIECE_LETTERS[index % 16]
        square = _square(point)
        if square in placement:
            raise XqfError(f"the set-up puts two pieces on one point ({_name(point)})")
        placement[square] = letter if index < 16 else letter.lower()
    return placement


def _record(body: _Body, version: int, keys: _Keys | None, what: str, *, root: bool = False) -> tuple[int, int, bool]:
    """One record: (from point, to point, whether the next record continues this line)."""
    frm, to, flags, _ = body.take(4, what)
    if keys is None:
        has_next = bool(flags & 0xF0)
        (size,) = struct.unpack("<i", body.take(4, what))
        frm, to = (frm - 0x18) & 0xFF, (to - 0x20) & 0xFF
    else:
        has_next = bool(flags & 0x80)
        size = 0
        if flags & 0x20:
            (stored,) = struct.unpack("<i", body.take(4, what))
            size = stored - keys.remark
        frm, to = (frm - 0x18 - keys.xyf) & 0xFF, (to - 0x20 - keys.xyt) & 0xFF
    if size:
        body.take(size, f"{what}'s comment")  # comments are not kept
    if not root and (not _is_point(frm) or not _is_point(to)):
        raise XqfError(f"{what}: not a move between two points of the board ({frm}, {to})")
    return frm, to, has_next


def _is_point(point: int) -> bool:
    return point // 10 < FILES and point % 10 < RANKS


def _square(point: int) -> int:
    """``file * 10 + rank`` -> our square, ``rank * 9 + file``."""
    return (point % 10) * FILES + point // 10


def _name(point: int) -> str:
    return f"{'abcdefghi'[point // 10]}{point % 10}" if _is_point(point) else str(point)


def move_uci(move: tuple[int, int]) -> str:
    """A record's (from, to) points as coordinates, ``h2e2``."""
    return _name(move[0]) + _name(move[1])


def _tags(head: bytes) -> dict[str, str]:
    tags: dict[str, str] = {}
    for tag, offset, size in STRINGS:
        length = min(head[offset], size)
        if not length:
            continue
        try:
            text = head[offset + 1:offset + 1 + length].decode("gb18030").strip("\0 ").strip()
        except UnicodeDecodeError:
            continue
        if text and text.isprintable():
            tags[tag] = text
    tags["Result"] = RESULTS.get(head[0x33], "*")
    return tags


def placement_fen(placement: dict[int, str]) -> str:
    """The board part of a FEN of ``placement`` (Black's back rank first)."""
    rows = []
    for rank in range(RANKS - 1, -1, -1):
        row, empty = "", 0
        for file in range(FILES):
            letter = placement.get(rank * FILES + file)
            if letter is None:
                empty += 1
                continue
            row += (str(empty) if empty else "") + letter
            empty = 0
        rows.append(row + (str(empty) if empty else ""))
    return "/".join(rows)
