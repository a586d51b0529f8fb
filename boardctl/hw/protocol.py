"""The serial line protocol (``firmware/PROTOCOL.md``): pure functions over bytes, no I/O.

A line is ``SS KIND arg arg*CCCC\\n``: ``SS`` a two-hex-digit sequence number (per sender,
wrapping 255 -> 0), ``KIND`` a word, space-separated arguments, and ``CCCC`` the
CRC-16/CCITT (poly 0x1021, init 0xFFFF; ``binascii.crc_hqx``) of everything before ``*``.
"""

from __future__ import annotations

import binascii
import re
from dataclasses import dataclass

import chess

from boardctl.errors import ProtocolError
from boardctl.events import Button

MAX_LINE = 1200  # a full 64-square LED frame is about 1 KB
#: How much of a refused (overlong) line is kept to name it in the log.
REFUSED_PREFIX = 40

#: Firmware that speaks this protocol (the first argument of ``HELLO``).
FIRMWARE_VERSIONS = frozenset({"boardfw-2"})

#: Lines the device sends.
DEVICE_KINDS = frozenset({"HELLO", "S", "C", "B", "E"})
#: Lines the host sends (seen coming back only as an echo).
HOST_KINDS = frozenset({"?", "L", "T"})

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


def square_arg(line: Line, i: int) -> chess.Square:
    name = _arg(line, i)
    if name not in chess.SQUARE_NAMES:
        raise ProtocolError(f"{line.kind}: bad square {name!r}")
    return chess.parse_square(name)


def bit_arg(line: Line, i: int) -> bool:
    value = _arg(line, i)
    if value not in ("0", "1"):
        raise ProtocolError(f"{line.kind}: expected 0 or 1, got {value!r}")
    return value == "1"


def bitboard_arg(line: Line, i: int) -> int:
    value = _arg(line, i)
    if not re.fullmatch(r"[0-9a-f]{16}", value):
        raise ProtocolError(f"{line.kind}: expected 16 hex digits, got {value!r}")
    return int(value, 16)


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


def lamp_arg(square: chess.Square, mask: int, colour: tuple[int, int, int]) -> str:
    r, g, b = colour
    return f"{chess.square_name(square)}:{mask:04x}:{r:02x}{g:02x}{b:02x}"


def token_hex(token: int) -> str:
    return f"{token & 0xFFFFFFFF:08x}"


def tone_arg(hz: float, seconds: float) -> str:
    return f"{round(hz)}:{round(seconds * 1000)}"
