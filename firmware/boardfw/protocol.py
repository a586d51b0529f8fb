"""Device side of the line protocol (see ../PROTOCOL.md).

MicroPython-compatible (the tests run it under MicroPython 1.27 too): no typing, no re, no
dataclasses, nothing outside the builtins.
"""

MAX_LINE = 1200


def line_limit(points):
    """The longest line held: 1200 bytes up to 64 points, else room for a full ``L`` line
    (16 bytes a lamp); the host's ``boardctl.hw.protocol.line_limit`` agrees."""
    return max(MAX_LINE, 16 * points + 64)

#: How much of a refused (overlong) line is kept.
REFUSED_PREFIX = 40
HEX = "0123456789abcdef"
DIGITS = "0123456789"


def _make_table():
    table = []
    for i in range(256):
        crc = i << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
            crc &= 0xFFFF
        table.append(crc)
    return table


_TABLE = _make_table()


def crc16(data):
    """CRC-16/CCITT, poly 0x1021, init 0xFFFF (CPython's ``binascii.crc_hqx(data, 0xFFFF)``)."""
    crc = 0xFFFF
    table = _TABLE
    for b in data:
        crc = ((crc << 8) & 0xFFFF) ^ table[(crc >> 8) ^ b]
    return crc


def encode(seq, kind, args=()):
    body = (f"{seq & 0xFF:02x} {kind}" + "".join(" " + a for a in args)).encode()
    return body + f"*{crc16(body):04x}\n".encode()


class BadLine(ValueError):
    """A line from the Pi that is refused; ``args[0]`` is the reason sent back in ``E``."""


def is_hex(text, lo=1, hi=8):
    """``text`` is ``lo``..``hi`` lower-case hex digits (``int(x, 16)`` alone also takes ``0x``, ``-``, ``_``)."""
    if not lo <= len(text) <= hi:
        return False
    return all(ch in HEX for ch in text)


def uint(text, lo, hi):
    """Decimal digits only, within ``lo``..``hi``, or raise BadLine('argument')."""
    if not 1 <= len(text) <= 10:
        raise BadLine("argument")
    for ch in text:
        if ch not in DIGITS:
            raise BadLine("argument")
    value = int(text)
    if not lo <= value <= hi:
        raise BadLine("argument")
    return value


def parse(raw):
    """Return (seq, kind, args) from one line without its newline, or raise BadLine."""
    if raw.endswith(b"\r"):
        raw = raw[:-1]
    star = raw.rfind(b"*")
    if star < 0 or len(raw) != star + 5:
        raise BadLine("frame")
    try:
        crc = raw[star + 1 :].decode()
    except UnicodeError:
        raise BadLine("frame") from None
    if not is_hex(crc, 4, 4):
        raise BadLine("frame")
    body = raw[:star]
    if int(crc, 16) != crc16(body):
        raise BadLine("checksum")
    try:
        text = body.decode()
    except UnicodeError:
        raise BadLine("grammar") from None
    parts = text.split(" ")
    if len(parts) < 2 or not is_hex(parts[0], 2, 2) or "" in parts:
        raise BadLine("grammar")
    for part in parts:
        for ch in part:
            if not "!" <= ch <= "~":  # printable ASCII, no spaces (the host's grammar)
                raise BadLine("grammar")
    return int(parts[0], 16), parts[1], parts[2:]


class Framer:
    """Bytes in, lines out, never holding more than ``max_line`` bytes.

    A line longer than ``max_line`` is refused as soon as it passes the limit (counted in
    ``overflows``, its first bytes kept in ``refused``) and skipped up to its newline. Only new
    bytes are scanned: any amount of input costs linear time and bounded memory.
    """

    def __init__(self, max_line=MAX_LINE):
        self.buf = b""
        self.max = max_line
        self.skipping = False
        self.overflows = 0
        self.refused = b""

    def feed(self, data):
        out = []
        start = 0
        n = len(data)
        while start < n:
            end = data.find(b"\n", start)
            stop = n if end < 0 else end
            if not self.skipping:
                if stop - start > self.max - len(self.buf):
                    self.overflows += 1
                    self.refused = (self.buf[:REFUSED_PREFIX] + data[start : start + REFUSED_PREFIX])[:REFUSED_PREFIX]
                    self.buf = b""
                    self.skipping = True
                else:
                    self.buf += data[start:stop]
            if end < 0:
                break
            if self.skipping:
                self.skipping = False
            else:
                out.append(self.buf)
                self.buf = b""
            start = end + 1
        return out
