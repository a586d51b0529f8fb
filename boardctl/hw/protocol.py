"""The serial line protocol (``firmware/PROTOCOL.md``): pure functions over bytes, no I/O.

A line is ``SS KIND arg arg*CCCC\\n``: ``SS`` a two-hex-digit sequence number (per sender,
wrapping 255 -> 0), ``KIND`` a word, space-separated arguments, and ``CCCC`` the
CRC-16/CCITT (poly 0x1021, init 0xFFFF; ``binascii.crc_hqx``) of everything before ``*``.

Sizes follow the board (a ``Geometry``): points are named as the game names them (``e2``;
``e0`` in xiangqi), a snapshot has ``geometry.hex_digits`` hex digits, an ``L`` line at most one
lamp a point, and the longest line allowed grows with the points (``line_limit``).
"""

from __future__ import annotations

import binascii
import re
from dataclasses import dataclass

from boardctl.core.geometry import CHESS_8X8, Geometry, Square
from boardctl.errors import HardwareError, ProtocolError
from boardctl.events import Button

MAX_LINE = 1200  # a full 64-square LED frame is about 1 KB
#: How much of a refused (overlong) line is kept to name it in the log.
REFUSED_PREFIX = 40

#: The protocol this side speaks best (the first argument of ``HELLO``); the firmware's VERSION.
PROTOCOL_VERSION = "boardfw-3"
#: Every protocol version the host can speak: ``boardfw-1`` echoes no request token, and
#: ``boardfw-1``/``boardfw-2`` drive only 8x8 chess boards; ``boardfw-3`` is sized by the pin map.
FIRMWARE_VERSIONS = frozenset({"boardfw-1", "boardfw-2", PROTOCOL_VERSION})
#: Versions that echo request tokens (the older one is taken tokenless, with a warning).
TOKEN_VERSIONS = frozenset({"boardfw-2", PROTOCOL_VERSION})
#: Versions that know only the 8x8 chess board.
CHESS_ONLY_VERSIONS = frozenset({"boardfw-1", "boardfw-2"})

#: Lines the device sends.
DEVICE_KINDS = frozenset({"HELLO", "VERSION", "S", "C", "B", "E"})
#: Lines the host sends (seen coming back only as an echo).
HOST_KINDS = frozenset({"?", "L", "T", "V"})


def line_limit(points: int) -> int:
    """The longest line either side holds: 1200 bytes up to 64 points, else room for a full
    ``L`` line (at most 16 bytes a lamp; a 90-point board needs 1504)."""
    return max(MAX_LINE, 16 * points + 64)


def board_size(geometry: Geometry) -> str:
    """``<rows>x<columns>`` of a board, as ``HELLO`` and ``VERSION`` say it (``10x9`` for xiangqi)."""
    return f"{geometry.ranks}x{geometry.files}"


def check_identity(version: str, size: str, geometry: Geometry) -> None:
    """HardwareError, one line naming the versions or sizes, unless this device can run this game."""
    if version not in FIRMWARE_VERSIONS:
        raise HardwareError(
            f"serial: the board's firmware speaks protocol {version!r:.40}, which this boardctl cannot speak "
            f"(it speaks {', '.join(sorted(FIRMWARE_VERSIONS))}); deploy firmware/ again (firmware/README.md)"
        )
    if version in CHESS_ONLY_VERSIONS and geometry != CHESS_8X8:
        raise HardwareError(
            f"serial: the board's firmware {version} drives only 8x8 chess boards, but the game is "
            f"{geometry.name} ({board_size(geometry)}); deploy firmware/ ({PROTOCOL_VERSION}) with the "
            f"{geometry.name} pin map (firmware/README.md)"
        )
    want = board_size(geometry)
    if version not in CHESS_ONLY_VERSIONS and size != want:
        raise HardwareError(
            f"serial: the board is {size!r:.20} (rows x columns) but the game is {geometry.name}, "
            f"which needs {want}; connect the {geometry.name} board, or deploy its pin map (firmware/README.md)"
        )


def check_snapshot_width(line: Line, geometry: Geometry) -> None:
    """HardwareError if an ``S`` line's occupancy is well-formed hex of another board's width."""
    if not line.args:
        return
    value = line.args[0]
    if value and all(c in "0123456789abcdef" for c in value) and len(value) != geometry.hex_digits:
        raise HardwareError(
            f"serial: the board sends {len(value)}-digit snapshots, but the game is {geometry.name}, "
            f"whose {geometry.points} points need {geometry.hex_digits}; connect the {geometry.name} "
            f"board, or deploy its pin map (firmware/README.md)"
        )

_LINE = re.compile(rb"([0-9a-f]{2}) ([A-Z?]{1,8})((?: [!-)+-~]+)*)\*([0-9a-f]{4})")


def crc16(data: bytes) -> int:
    return binascii.crc_hqx(data, 0xFFFF)


@dataclass(frozen=True, slots=True)
class Line:
    seq: int
    kind: str
    args: tuple[str, ...]


def encode_line(seq: int, kind: str, *args: str) -> bytes:
    body = " ".join((f"{seq & 0xFF:02x}", kind, *args)).encode("ascii")
    return body + b"*%04x\n" % crc16(body)


def parse_line(raw: bytes) -> Line:
    """One line without its newline (a trailing ``\\r`` is allowed). Raises ``ProtocolError``."""
    raw = raw.rstrip(b"\r")
    m = _LINE.fullmatch(raw)
    if m is None:
        raise ProtocolError(f"malformed line {raw[:60]!r}")
    body = raw[: raw.rindex(b"*")]
    if int(m.group(4), 16) != crc16(body):
        raise ProtocolError(f"checksum mismatch in {raw[:60]!r}")
    args = m.group(3).decode("ascii").split()
    return Line(int(m.group(1), 16), m.group(2).decode("ascii"), tuple(args))


class LineFramer:
    """Bytes in, complete lines out, never holding more than ``max_line`` bytes.

    A line longer than ``max_line`` (garbage, or a flood with no newline) is refused as soon as it
    passes the limit: counted in ``overflows``, its first bytes kept in ``refused`` (for the log),
    and the rest of it skipped up to its newline. Only new bytes are scanned, so any amount of
    input costs linear time.
    """

    def __init__(self, *, max_line: int = MAX_LINE) -> None:
        self._buf = bytearray()
        self._max = max_line
        self._skipping = False
        self.overflows = 0
        #: The first bytes of the last refused line.
        self.refused = b""

    @property
    def max_line(self) -> int:
        return self._max

    def feed(self, data: bytes) -> list[bytes]:
        out: list[bytes] = []
        start, n = 0, len(data)
        while start < n:
            end = data.find(b"\n", start)
            stop = n if end < 0 else end
            if not self._skipping:
                if stop - start > self._max - len(self._buf):
                    self.overflows += 1
                    self.refused = bytes(self._buf[:REFUSED_PREFIX] + data[start : start + REFUSED_PREFIX])[:REFUSED_PREFIX]
                    self._buf.clear()
                    self._skipping = True
                else:
                    self._buf += data[start:stop]
            if end < 0:
                break
            if self._skipping:
                self._skipping = False
            else:
                out.append(bytes(self._buf))
                self._buf.clear()
            start = end + 1
        return out

    def reset(self) -> None:
        self._buf.clear()
        self._skipping = False


# --- argument decoding, each raising ProtocolError naming the line kind ----------------------------


def square_arg(line: Line, i: int, geometry: Geometry = CHESS_8X8) -> Square:
    name = _arg(line, i)
    if not geometry.is_name(name):
        raise ProtocolError(f"{line.kind}: bad square {name!r} (not a point of the {geometry.name} board)")
    return geometry.parse(name)


def bit_arg(line: Line, i: int) -> bool:
    value = _arg(line, i)
    if value not in ("0", "1"):
        raise ProtocolError(f"{line.kind}: expected 0 or 1, got {value!r}")
    return value == "1"


def bitboard_arg(line: Line, i: int, geometry: Geometry = CHESS_8X8) -> int:
    value = _arg(line, i)
    if len(value) != geometry.hex_digits or not re.fullmatch(r"[0-9a-f]+", value):
        raise ProtocolError(f"{line.kind}: expected {geometry.hex_digits} hex digits, got {value!r:.40}")
    occupancy = int(value, 16)
    if occupancy > geometry.all_mask:
        raise ProtocolError(f"{line.kind}: occupancy {value} has bits beyond the {geometry.points} points")
    return occupancy


def button_arg(line: Line, i: int) -> Button:
    value = _arg(line, i)
    try:
        return Button(value)
    except ValueError:
        raise ProtocolError(f"{line.kind}: unknown button {value!r}") from None


def token_arg(line: Line, i: int) -> int | None:
    """The request token a snapshot answer echoes (1-8 hex digits), or None if it has none."""
    if i >= len(line.args):
        return None
    value = line.args[i]
    if not re.fullmatch(r"[0-9a-f]{1,8}", value):
        raise ProtocolError(f"{line.kind}: bad request token {value!r}")
    return int(value, 16)


def _arg(line: Line, i: int) -> str:
    if i >= len(line.args):
        raise ProtocolError(f"{line.kind}: missing argument {i + 1}")
    return line.args[i]


def lamp_arg(square: Square, mask: int, colour: tuple[int, int, int], geometry: Geometry = CHESS_8X8) -> str:
    r, g, b = colour
    return f"{geometry.square_name(square)}:{mask:04x}:{r:02x}{g:02x}{b:02x}"


def token_hex(token: int) -> str:
    return f"{token & 0xFFFFFFFF:08x}"


def tone_arg(hz: float, seconds: float) -> str:
    return f"{round(hz)}:{round(seconds * 1000)}"
