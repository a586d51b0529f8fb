"""Boot entry on the Pico. Hold the HINT button while plugging in to get the REPL instead."""

import machine
import micropython
from boardfw import edge, pins

if machine.Pin(pins.BUTTONS["hint"], machine.Pin.IN, machine.Pin.PULL_UP).value():
    micropython.kbd_intr(-1)  # a stray 0x03 from the Pi must not stop the firmware
    edge.run()
