from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from . import fake_machine

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware"
if str(FIRMWARE) not in sys.path:
    sys.path.insert(0, str(FIRMWARE))
# The firmware's edge imports these MicroPython modules; under CPython they are our fakes.
sys.modules.setdefault("machine", fake_machine.machine)
sys.modules.setdefault("neopixel", fake_machine.neopixel)


@pytest.fixture
def wiring() -> Iterator[fake_machine.Wiring]:
    from boardfw import pins

    w = fake_machine.WIRING
    w.pins.clear()
    w.rows, w.columns = pins.ROWS, pins.COLUMNS
    w.closed = 0
    w.pressed = set()
    yield w
    w.pins.clear()
