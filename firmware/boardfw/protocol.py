"""Device side of the line protocol (see ../PROTOCOL.md). MicroPython-compatible: no typing, no re."""

MAX_LINE = 1200


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
    pass


def parse(raw):
    """Return (seq, kind, args) from one line without its newline, or raise BadLine."""
    if raw.endswith(b"\r"):
        raw = raw[:-1]
    star = raw.rfind(b"*")
    if star < 0 or len(raw) != star + 5:
        raise BadLine("frame")
    try:
        text = raw.decode()
        crc = int(text[star + 1 :], 16)
    except (UnicodeError, ValueError):
        raise BadLine("frame") from None
    if crc != crc16(raw[:star]):
        raise BadLine("checksum")
    parts = text[:star].split(" ")
    if len(parts) < 2 or len(parts[0]) != 2 or "" in parts:
        raise BadLine("grammar")
    try:
        seq = int(parts[0], 16)
    except ValueError:
        raise BadLine("grammar") from None
    return seq, parts[1], parts[2:]


class Framer:
    """Bytes in, lines out; an overlong line is skipped up to its newline."""

    def __init__(self, max_line=MAX_LINE):
        self.buf = b""
        self.max = max_line
        self.skipping = False
        self.overflows = 0

    def feed(self, data):
        out = []
        buf = self.buf + data
        while True:
            i = buf.find(b"\n")
            if i < 0:
                if len(buf) > self.max:
                    buf = b""
                    if not self.skipping:
                        self.overflows += 1
                    self.skipping = True
                self.buf = buf
                return out
            line = buf[:i]
            buf = buf[i + 1 :]
            if self.skipping:
                self.skipping = False
            elif len(line) <= self.max:
                out.append(line)
            else:
                self.overflows += 1
