"""Scan and debounce the reed matrix. Pins are anything with ``value()`` / ``value(v)``."""


class Matrix:
    """``rows[i]`` is rank i+1 (driven low to select), ``columns[j]`` file a+j (pull-up, low = closed)."""

    def __init__(self, rows, columns, debounce_ms=25, ticks_diff=None):
        self.rows = rows
        self.columns = columns
        self.debounce_ms = debounce_ms
        self.ticks_diff = ticks_diff or (lambda a, b: a - b)
        self.stable = bytearray(64)
        self.last = bytearray(64)
        self.since = [None] * 64
        for row in rows:
            row.value(1)

    def read(self):
        raw = bytearray(64)
        columns = self.columns
        for r, row in enumerate(self.rows):
            row.value(0)
            base = r * 8
            for c, col in enumerate(columns):
                if not col.value():
                    raw[base + c] = 1
            row.value(1)
        return raw

    def prime(self):
        self.stable = self.read()
        self.last = bytearray(self.stable)
        self.since = [None] * 64

    def scan(self, now):
        """One full scan; returns [(square, occupied)] confirmed by ``debounce_ms`` of stability."""
        raw = self.read()
        out = []
        stable, last, since = self.stable, self.last, self.since
        for sq in range(64):
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
        """The stable occupancy as 16 hex digits, bit ``sq`` = square index (rank*8 + file)."""
        out = ""
        for rank in range(7, -1, -1):
            byte = 0
            for file in range(8):
                if self.stable[rank * 8 + file]:
                    byte |= 1 << file
            out += f"{byte:02x}"
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
