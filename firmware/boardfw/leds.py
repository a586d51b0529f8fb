"""WS2812 LEDs: one per square, animated from the frame the Pi sends (square, blink mask, colour)."""

from boardfw.protocol import is_hex

SQUARES = "abcdefgh"
STEP_MS = 62  # 16 steps a second, matching boardctl.hw.leds.STEP


def square_index(name):
    """'e2' -> 12, or raise ValueError."""
    if len(name) != 2 or name[0] not in SQUARES or name[1] not in "12345678":
        raise ValueError(name)
    return (ord(name[1]) - 49) * 8 + SQUARES.index(name[0])


def parse_lamp(arg):
    """'e2:ffff:0050ff' -> (12, 0xffff, (0, 80, 255)), or raise ValueError."""
    parts = arg.split(":")
    if len(parts) != 3 or not is_hex(parts[1], 4, 4) or not is_hex(parts[2], 6, 6):
        raise ValueError(arg)
    colour = (int(parts[2][0:2], 16), int(parts[2][2:4], 16), int(parts[2][4:6], 16))
    return square_index(parts[0]), int(parts[1], 16), colour


class Strip:
    """``pixels`` is a NeoPixel (len, item assignment, write()); ``order`` 'rows' or 'serpentine'."""

    def __init__(self, pixels, order="serpentine", brightness=40):
        self.pixels = pixels
        self.order = order
        self.brightness = brightness  # of 255: a full-white board would draw almost 4 A
        self.lamps = []
        self.shown = None
        self.step = None

    def index(self, sq):
        rank, file = sq // 8, sq % 8
        if self.order == "serpentine" and rank % 2:
            file = 7 - file
        return rank * 8 + file

    def set_frame(self, lamps):
        self.lamps = lamps
        self.shown = None  # force a write

    def render(self, now):
        step = (now // STEP_MS) % 16
        if step == self.step and self.shown is not None:
            return False  # nothing can have changed within a step
        self.step = step
        bit = 1 << step
        want = [(0, 0, 0)] * 64
        k = self.brightness
        for sq, mask, (r, g, b) in self.lamps:
            if mask & bit:
                want[self.index(sq)] = (r * k // 255, g * k // 255, b * k // 255)
        if want != self.shown:
            for i in range(64):
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
