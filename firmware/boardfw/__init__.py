"""Firmware for the Raspberry Pi Pico (MicroPython): scans the reed matrix, drives WS2812 LEDs.

Only ``boardfw.edge`` (and ``main.py``) import ``machine``; everything else is plain Python that
also runs under CPython, where the tests drive it with a fake ``machine`` module.
"""

#: The protocol version, first word of ``HELLO`` and ``VERSION`` (the host refuses one it cannot speak).
VERSION = "boardfw-3"
