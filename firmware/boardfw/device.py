"""The device: matrix + buttons + LEDs + buzzer, speaking the protocol over a byte stream.

``write(bytes)`` sends to the Pi; ``feed(bytes, now)`` takes what the Pi sent; ``poll(now)``
runs one loop iteration. ``now`` is milliseconds from ``time.ticks_ms()`` (it wraps: only
``ticks_diff`` compares two of them).
"""

from boardfw import VERSION
from boardfw import protocol as p
from boardfw.leds import parse_lamp

HEARTBEAT_MS = 1000


class Device:
    def __init__(self, matrix, write, strip=None, buttons=None, tune=None, ticks_diff=None, size="8x8"):
        self.matrix = matrix
        self.write = write
        self.strip = strip
        self.buttons = buttons
        self.tune = tune
        self.ticks_diff = ticks_diff or (lambda a, b: a - b)
        self.size = size
        self.seq = 0
        self.framer = p.Framer()
        self.last_beat = None
        self.bad_lines = 0

    def send(self, kind, *args):
        self.write(p.encode(self.seq, kind, args))
        self.seq = (self.seq + 1) & 0xFF

    def boot(self, now):
        """Announce a (re)start, then the whole board: the Pi resyncs from it."""
        self.matrix.prime()
        self.seq = 0
        self.send("HELLO", VERSION, self.size)
        self.send("S", self.matrix.snapshot_hex(), "boot")
        self.last_beat = now

    def feed(self, data, now):
        for raw in self.framer.feed(data):
            self.handle(raw, now)

    def handle(self, raw, now):
        try:
            _seq, kind, args = p.parse(raw)
            if kind == "?":
                self.send("S", self.matrix.snapshot_hex(), "req")
                self.last_beat = now
            elif kind == "L":
                lamps = [parse_lamp(a) for a in args]
                if self.strip is not None:
                    self.strip.set_frame(lamps)
                    self.strip.render(now)
            elif kind == "T":
                notes = []
                for a in args:
                    hz, ms = a.split(":")
                    notes.append((int(hz), int(ms)))
                if self.tune is not None:
                    self.tune.play(notes, now)
            else:
                raise p.BadLine("kind")
        except ValueError as exc:  # BadLine is a ValueError, and so are bad numbers
            self.bad_lines += 1
            reason = exc.args[0] if isinstance(exc, p.BadLine) and exc.args else "argument"
            self.send("E", reason)

    def poll(self, now):
        for sq, occupied in self.matrix.scan(now):
            self.send("C", "abcdefgh"[sq % 8] + str(sq // 8 + 1), "1" if occupied else "0")
        if self.buttons is not None:
            for name in self.buttons.poll(now):
                self.send("B", name)
        if self.last_beat is None or self.ticks_diff(now, self.last_beat) >= HEARTBEAT_MS:
            self.send("S", self.matrix.snapshot_hex(), "beat")
            self.last_beat = now
        if self.strip is not None:
            self.strip.render(now)
        if self.tune is not None:
            self.tune.poll(now)
