"""The edge: real pins, NeoPixels, PWM and USB serial. The only module importing ``machine``."""

import select
import sys

import machine
import neopixel

from boardfw import pins
from boardfw.device import Device
from boardfw.leds import Strip, Tune
from boardfw.matrix import Buttons, Matrix

try:
    from time import sleep_ms, ticks_diff, ticks_ms
except ImportError:  # CPython, under the tests
    import time

    def ticks_ms():
        return int(time.monotonic() * 1000) & 0x3FFFFFFF

    def ticks_diff(a, b):
        return ((a - b + 0x20000000) & 0x3FFFFFFF) - 0x20000000

    def sleep_ms(ms):
        time.sleep(ms / 1000)


def build(write):
    """The device on this Pico's pins (``boardfw/pins.py``, generated from hardware/pinout.toml)."""
    Pin = machine.Pin
    # The board's size and naming (pins.py of a pin map from before boardfw-3 has none: its matrix).
    files = getattr(pins, "FILES", len(pins.COLUMNS))
    ranks = getattr(pins, "RANKS", len(pins.ROWS))
    first_rank = getattr(pins, "FIRST_RANK", None)  # None: 0 on a 9 x 10 board, else 1
    rows = [Pin(n, Pin.OUT, value=1) for n in pins.ROWS]
    columns = [Pin(n, Pin.IN, Pin.PULL_UP) for n in pins.COLUMNS]
    buttons = {name: Pin(n, Pin.IN, Pin.PULL_UP) for name, n in pins.BUTTONS.items()}
    strip = Strip(neopixel.NeoPixel(Pin(pins.WS2812, Pin.OUT), files * ranks), pins.LED_ORDER, files=files, ranks=ranks)
    pwm = machine.PWM(Pin(pins.BUZZER))
    pwm.duty_u16(0)
    return Device(
        Matrix(rows, columns, ticks_diff=ticks_diff, files=files, ranks=ranks),
        write,
        strip=strip,
        buttons=Buttons(buttons, ticks_diff=ticks_diff),
        tune=Tune(pwm, ticks_diff=ticks_diff),
        ticks_diff=ticks_diff,
        first_rank=first_rank,
    )


def run(stream=None, reader=None, writer=None, should_stop=None, period_ms=2, device=None, poller=None):
    """Serve forever over USB serial (stdin/stdout), or over the streams/device/poller given (tests).

    Nothing stops the loop but ``should_stop``: ``Device`` answers a bad line with ``E`` and
    guards its own polling, and anything that still escapes (a read error, a bug) is counted in
    ``device.faults`` and the loop goes on with the next byte.
    """
    stream = stream if stream is not None else sys.stdin
    reader = reader if reader is not None else sys.stdin.buffer
    writer = writer if writer is not None else sys.stdout.buffer
    if device is None:
        device = build(writer.write)
    if poller is None:
        poller = select.poll()
        poller.register(stream, select.POLLIN)
    device.boot(ticks_ms())
    while should_stop is None or not should_stop():
        now = ticks_ms()
        try:
            while poller.poll(0):
                data = reader.read(1)
                if not data:
                    break
                device.feed(data, now)
        except Exception as exc:
            device.fault(exc, now)
        try:
            device.poll(now)
        except Exception as exc:
            device.fault(exc, now)
        sleep_ms(period_ms)
    return device
