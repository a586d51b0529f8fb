from __future__ import annotations

from collections.abc import Iterator

import pytest
from gpiozero import Device

from boardctl.hw.mockwiring import WiredMockFactory
from boardctl.hw.pinout import Pinout


class FakeClock:
    """Virtual monotonic time for deterministic debounce tests."""

    def __init__(self, t: float = 100.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def pinout() -> Pinout:
    return Pinout.from_file()


@pytest.fixture
def factory(pinout: Pinout) -> Iterator[WiredMockFactory]:
    # gpiozero's software SPI builds internal devices on the global factory, so swap it in.
    saved = Device.pin_factory
    f = WiredMockFactory(pinout)
    Device.pin_factory = f
    try:
        yield f
    finally:
        Device.pin_factory = saved
        f.close()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "fuzz: a fuzz test of a parser; `make fuzz` runs these longer")


@pytest.fixture
def xiangqi_pinout() -> Pinout:
    from boardctl.hw.pinout import XIANGQI_PATH

    return Pinout.from_file(XIANGQI_PATH)


@pytest.fixture
def xiangqi_factory(xiangqi_pinout: Pinout) -> Iterator[WiredMockFactory]:
    """The 10-row x 9-column xiangqi board's wiring (two chained MAX7219s) on gpiozero's mock."""
    saved = Device.pin_factory
    f = WiredMockFactory(xiangqi_pinout)
    Device.pin_factory = f
    try:
        yield f
    finally:
        Device.pin_factory = saved
        f.close()
