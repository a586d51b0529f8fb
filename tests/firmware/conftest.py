from __future__ import annotations

import sys
import types
from collections.abc import Iterator
from pathlib import Path

import pytest

from . import fake_machine

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware"
if str(FIRMWARE) not in sys.path:
    sys.path.insert(0, str(FIRMWARE))
# The firmware imports these MicroPython modules; under CPython they are our fakes (under
# MicroPython, test_micropython.py writes fake_machine.py as machine.py).
neopixel = types.ModuleType("neopixel")
neopixel.NeoPixel = fake_machine.NeoPixel  # type: ignore[attr-defined]
micropython = types.ModuleType("micropython")
micropython.kbd_intr = lambda char: None  # type: ignore[attr-defined]
sys.modules.setdefault("machine", fake_machine)
sys.modules.setdefault("neopixel", neopixel)
sys.modules.setdefault("micropython", micropython)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "fuzz: a fuzz test of a parser; `make fuzz` runs these longer")


@pytest.fixture
def wiring() -> Iterator[fake_machine.Wiring]:
    from boardfw import pins

    w = fake_machine.WIRING
    w.pins.clear()
    w.rows, w.columns = pins.ROWS, pins.COLUMNS
    w.files = 8
    w.closed = 0
    w.pressed = set()
    yield w
    w.pins.clear()
