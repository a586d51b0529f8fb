"""The device: matrix + buttons + LEDs + buzzer, speaking the protocol over a byte stream.

``write(bytes)`` sends to the Pi; ``feed(bytes, now)`` takes what the Pi sent; ``poll(now)``
runs one loop iteration. ``now`` is milliseconds from ``time.ticks_ms()`` (it wraps: only
``ticks_diff`` compares two of them).

Nothing the Pi sends can stop the device: every line is handled inside its own ``try``, a bad
one is answered with ``E <reason>`` and the next line is read. ``poll`` guards each part of
the board the same way, so a fault in one (say the buzzer) leaves scanning running.
"""

from boardfw import VERSION
from boardfw import protocol as p
from boardfw.leds import (
    MAX_NOTE_MS,
    MAX_NOTES,
    PWM_MAX_HZ,
    PWM_MIN_HZ,
    default_first_rank,
    parse_lamp,
    square_name,
)

try:
    from random import getrandbits
except ImportError:  # a MicroPython built without it

    def getrandbits(bits):
        return 0


HEARTBEAT_MS = 1000
#: At most one ``E internal`` a second, however often something keeps failing.
FAULT_REPORT_MS = 1000
#: Most lamps in an ``L`` line on a chess board (one a point: ``Device.max_lamps`` in general).
MAX_LAMPS = 64


def parse_notes(args):
    """``['880:80', '0:40']`` -> ``[(880, 80), (0, 40)]``; a note the PWM cannot play is refused."""
    if len(args) > MAX_NOTES:
        raise p.BadLine("argument")
    notes = []
    for a in args:
        parts = a.split(":")
        if len(parts) != 2:
            raise p.BadLine("argument")
        hz = p.uint(parts[0], 0, PWM_MAX_HZ)
        if 0 < hz < PWM_MIN_HZ:
            raise p.BadLine("argument")
        notes.append((hz, p.uint(parts[1], 0, MAX_NOTE_MS)))
    return notes


class Device:
    """The board's points come from ``matrix`` (``files`` x ``ranks``); ``first_rank`` is the number
    of the first rank's name (1 in chess, 0 in xiangqi; by default 0 on a 9 x 10 board, else 1). ``size`` (``<ranks>x<files>``) is what
    ``HELLO`` and ``VERSION`` say; every size on the wire follows the board."""

    def __init__(self, matrix, write, strip=None, buttons=None, tune=None, ticks_diff=None, size=None, first_seq=None,
                 first_rank=None):
        self.matrix = matrix
        self.write = write
        self.strip = strip
        self.buttons = buttons
        self.tune = tune
        self.ticks_diff = ticks_diff or (lambda a, b: a - b)
        self.files = matrix.files
        self.ranks = matrix.ranks
        self.first_rank = default_first_rank(self.files, self.ranks) if first_rank is None else first_rank
        self.max_lamps = matrix.points
        self.size = size if size is not None else str(self.ranks) + "x" + str(self.files)
        # Each boot starts counting at a random number, so that a line from before a reset is not
        # the one due after it (the Pi drops lines whose sequence number is not the next one).
        self.first_seq = first_seq
        self.seq = 0
        self.framer = p.Framer(p.line_limit(matrix.points))
        self.last_beat = None
        self.bad_lines = 0
        #: Exceptions caught that were not a bad line (a bug or a hardware fault), and when last told.
        self.faults = 0
        self.last_fault_report = None

    def send(self, kind, *args):
        self.write(p.encode(self.seq, kind, args))
        self.seq = (self.seq + 1) & 0xFF

    def boot(self, now):
        """Announce a (re)start, then the whole board: the Pi resyncs from it."""
        self.matrix.prime()
        self.seq = (getrandbits(8) if self.first_seq is None else self.first_seq) & 0xFF
        self.send("HELLO", VERSION, self.size)
        self.send("S", self.matrix.snapshot_hex(), "boot")
        self.last_beat = now

    def feed(self, data, now):
        overflows = self.framer.overflows
        for raw in self.framer.feed(data):
            self.handle(raw, now)
        if self.framer.overflows != overflows:
            self.bad_lines += self.framer.overflows - overflows
            self.reply_error("long")

    def handle(self, raw, now):
        """One line from the Pi. Never raises: a bad line is answered with ``E <reason>``."""
        try:
            _seq, kind, args = p.parse(raw)
            if kind == "?":
                # The Pi's token, echoed, proves the answer is fresh (not a stale or replayed line).
                if len(args) > 1 or (args and not p.is_hex(args[0], 1, 8)):
                    raise p.BadLine("argument")
                self.send("S", self.matrix.snapshot_hex(), "req", *args)
                self.last_beat = now
            elif kind == "L":
                if len(args) > self.max_lamps:
                    raise p.BadLine("argument")
                lamps = [parse_lamp(a, self.files, self.ranks, self.first_rank) for a in args]
                if self.strip is not None:
                    self.strip.set_frame(lamps)
                    self.strip.render(now)
            elif kind == "T":
                notes = parse_notes(args)
                if self.tune is not None:
                    self.tune.play(notes, now)
            elif kind == "V":  # who are you: the protocol version and the board's size, nothing restarts
                if args:
                    raise p.BadLine("argument")
                self.send("VERSION", VERSION, self.size)
            else:
                raise p.BadLine("kind")
        except ValueError as exc:  # BadLine is a ValueError, and so are bad numbers
            self.bad_lines += 1
            reason = exc.args[0] if isinstance(exc, p.BadLine) and exc.args else "argument"
            self.reply_error(reason)
        except Exception as exc:  # a bug must cost one line, never the loop
            self.fault(exc, now)

    def reply_error(self, reason):
        try:
            self.send("E", reason)
        except Exception:  # the write itself failed: nothing more to say
            self.faults += 1

    def fault(self, exc, now):
        """Count an unexpected exception; tell the Pi at most once a second (``E internal``)."""
        self.faults += 1
        if self.last_fault_report is None or self.ticks_diff(now, self.last_fault_report) >= FAULT_REPORT_MS:
            self.last_fault_report = now
            self.reply_error("internal")

    def poll(self, now):
        """One loop iteration. Never raises: each part is guarded (see the module docstring)."""
        self._guard(self._scan, now)
        if self.buttons is not None:
            self._guard(self._buttons, now)
        self._guard(self._beat, now)
        if self.strip is not None:
            self._guard(self.strip.render, now)
        if self.tune is not None:
            self._guard(self.tune.poll, now)

    def _guard(self, step, now):
        try:
            step(now)
        except Exception as exc:
            self.fault(exc, now)

    def _scan(self, now):
        for sq, occupied in self.matrix.scan(now):
            self.send("C", square_name(sq, self.files, self.first_rank), "1" if occupied else "0")

    def _buttons(self, now):
        for name in self.buttons.poll(now):
            self.send("B", name)

    def _beat(self, now):
        if self.last_beat is None or self.ticks_diff(now, self.last_beat) >= HEARTBEAT_MS:
            self.send("S", self.matrix.snapshot_hex(), "beat")
            self.last_beat = now
