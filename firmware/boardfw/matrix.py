"""Scan and debounce the reed matrix. Pins are anything with ``value()`` / ``value(v)``."""


HEX = "0123456789abcdef"


class Matrix:
    """``rows[i]`` is the board's rank i (driven low to select), ``columns[j]`` its file j (pull-up,
    low = closed). The board has ``files`` x ``ranks`` points (default: the matrix's size), point
    ``rank * files + file``; a smaller matrix covers it from the first point upwards."""

    def __init__(self, rows, columns, debounce_ms=25, ticks_diff=None, files=None, ranks=None):
        self.rows = rows
        self.columns = columns
        self.files = len(columns) if files is None else files
        self.ranks = len(rows) if ranks is None else ranks
        if len(columns) > self.files or len(rows) > self.ranks:
            raise ValueError("matrix larger than the board")
        self.points = self.files * self.ranks
        self.debounce_ms = debounce_ms
        self.ticks_diff = ticks_diff or (lambda a, b: a - b)
        self.stable = bytearray(self.points)
        self.last = bytearray(self.points)
        self.since = [None] * self.points
        for row in rows:
            row.value(1)

    def read(self):
        raw = bytearray(self.points)
        columns = self.columns
        files = self.files
        for r, row in enumerate(self.rows):
            row.value(0)
            base = r * files
            for c, col in enumerate(columns):
                if not col.value():
                    raw[base + c] = 1
            row.value(1)
        return raw

    def prime(self):
        self.stable = self.read()
        self.last = bytearray(self.stable)
        self.since = [None] * self.points

    def scan(self, now):
        """One full scan; returns [(square, occupied)] confirmed by ``debounce_ms`` of stability."""
        raw = self.read()
        out = []
        stable, last, since = self.stable, self.last, self.since
        for sq in range(self.points):
            value = raw[sq]
            if value == stable[sq]:
                since[sq] = None
            elif value != last[sq] or since[sq] is None:
                since[sq] = now
            elif self.ticks_diff(now, since[sq]) >= self.debounce_ms:
                stable[sq] = value
                since[sq] = None
                out.append((sq, value))
        self.last = raw
        return out

    def snapshot_hex(self):
        """The stable occupancy as ceil(points / 4) hex digits (16 for 64 points, 23 for 90), bit
        ``sq`` = point index (rank*files + file); no big integers needed."""
        stable, n = self.stable, self.points
        out = ""
        for digit in range((n + 3) // 4 - 1, -1, -1):
            nibble = 0
            for bit in range(4):
                sq = digit * 4 + bit
                if sq < n and stable[sq]:
                    nibble |= 1 << bit
            out += HEX[nibble]
        return out


class Buttons:
    """Push buttons to ground; a press counts once it has been down ``debounce_ms``."""

    def __init__(self, pins, debounce_ms=30, ticks_diff=None):
        self.pins = pins  # name -> pin
        self.debounce_ms = debounce_ms
        self.ticks_diff = ticks_diff or (lambda a, b: a - b)
        self.down_since = {}
        self.reported = {}

    def poll(self, now):
        out = []
        for name, pin in self.pins.items():
            if pin.value():
                self.down_since.pop(name, None)
                self.reported.pop(name, None)
                continue
            since = self.down_since.setdefault(name, now)
            if name not in self.reported and self.ticks_diff(now, since) >= self.debounce_ms:
                self.reported[name] = True
                out.append(name)
        return out
