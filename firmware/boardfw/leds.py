"""WS2812 LEDs: one per point, animated from the frame the Pi sends (point, blink mask, colour).

Points are named as the game names them: a file letter and a rank number counted from
``first_rank`` (``e2`` on a chess board, files a-h and ranks 1-8; ``e0`` on a xiangqi board,
files a-i and ranks 0-9). Index = rank * files + file.
"""

from boardfw.protocol import is_hex

SQUARES = "abcdefghijklmnopqrstuvwxyz"
DIGITS = "0123456789"
STEP_MS = 62  # 16 steps a second, matching boardctl.hw.leds.STEP


def default_first_rank(files, ranks):
    """How the first rank is numbered when the pin map does not say: 0 on a 9 x 10 (xiangqi)
    board, whose ranks are 0-9 as the engine names them; 1 otherwise (chess: ranks 1-8)."""
    return 0 if (files, ranks) == (9, 10) else 1


def square_index(name, files=8, ranks=8, first_rank=None):
    """'e2' -> 12 (chess); 'e0' -> 4 with files=9, ranks=10 (first rank 0); or raise ValueError."""
    if first_rank is None:
        first_rank = default_first_rank(files, ranks)
    if not 2 <= len(name) <= 3:
        raise ValueError(name)
    file = SQUARES.find(name[0])
    digits = name[1:]
    if not 0 <= file < files or (len(digits) > 1 and digits[0] == "0"):
        raise ValueError(name)
    for ch in digits:
        if ch not in DIGITS:
            raise ValueError(name)
    rank = int(digits) - first_rank
    if not 0 <= rank < ranks:
        raise ValueError(name)
    return rank * files + file


def square_name(sq, files=8, first_rank=1):
    """12 -> 'e2' (chess); 4 -> 'e0' with files=9, first_rank=0."""
    return SQUARES[sq % files] + str(sq // files + first_rank)


def parse_lamp(arg, files=8, ranks=8, first_rank=None):
    """'e2:ffff:0050ff' -> (12, 0xffff, (0, 80, 255)), or raise ValueError."""
    parts = arg.split(":")
    if len(parts) != 3 or not is_hex(parts[1], 4, 4) or not is_hex(parts[2], 6, 6):
        raise ValueError(arg)
    colour = (int(parts[2][0:2], 16), int(parts[2][2:4], 16), int(parts[2][4:6], 16))
    return square_index(parts[0], files, ranks, first_rank), int(parts[1], 16), colour


class Strip:
    """``pixels`` is a NeoPixel (len, item assignment, write()) of ``files * ranks`` LEDs;
    ``order`` 'rows' (a1..h1, a2..h2, ...) or 'serpentine' (a1..h1, h2..a2, a3..h3, ...)."""

    def __init__(self, pixels, order="serpentine", brightness=40, files=8, ranks=8):
        self.pixels = pixels
        self.order = order
        self.brightness = brightness  # of 255: a full-white board would draw almost 4 A
        self.files = files
        self.points = files * ranks
        self.lamps = []
        self.shown = None
        self.step = None

    def index(self, sq):
        files = self.files
        rank, file = sq // files, sq % files
        if self.order == "serpentine" and rank % 2:
            file = files - 1 - file
        return rank * files + file

    def set_frame(self, lamps):
        self.lamps = lamps
        self.shown = None  # force a write

    def render(self, now):
        step = (now // STEP_MS) % 16
        if step == self.step and self.shown is not None:
            return False  # nothing can have changed within a step
        self.step = step
        bit = 1 << step
        n = self.points
        want = [(0, 0, 0)] * n
        k = self.brightness
        for sq, mask, (r, g, b) in self.lamps:
            if mask & bit:
                want[self.index(sq)] = (r * k // 255, g * k // 255, b * k // 255)
        if want != self.shown:
            for i in range(n):
                self.pixels[i] = want[i]
            self.pixels.write()
            self.shown = want
            return True
        return False


#: The RP2040's PWM range at the default 125 MHz system clock (MicroPython raises ValueError outside).
PWM_MIN_HZ = 8
PWM_MAX_HZ = 62500000
#: Longest note, and most notes in one tune, that a ``T`` line may ask for.
MAX_NOTE_MS = 10000
MAX_NOTES = 32


class Tune:
    """Plays (Hz, ms) notes on a PWM pin without blocking; Hz 0 is a rest.

    ``Device`` refuses notes outside the PWM's range before they get here; should the PWM still
    refuse one (another clock), that note is played as a rest and counted in ``faults``.
    """

    def __init__(self, pwm, ticks_diff=None):
        self.pwm = pwm
        self.ticks_diff = ticks_diff or (lambda a, b: a - b)
        self.notes = []
        self.started = None
        self.sounding = False
        self.faults = 0

    def _duty(self, on):
        if on != self.sounding:
            self.pwm.duty_u16(32768 if on else 0)
            self.sounding = on

    def play(self, notes, now):
        self.notes = list(notes)
        self.started = None
        self.poll(now)

    def poll(self, now):
        if self.started is not None and self.notes and self.ticks_diff(now, self.started) >= self.notes[0][1]:
            self.notes.pop(0)
            self.started = None
        if not self.notes:
            self._duty(False)
            return
        if self.started is None:
            self.started = now
            hz = self.notes[0][0]
            if hz > 0:
                try:
                    self.pwm.freq(hz)
                except ValueError:
                    self.faults += 1
                    hz = 0
            self._duty(hz > 0)
