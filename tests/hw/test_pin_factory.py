"""The pin factory choice (boardctl/hw/factory.py): by the Pi's model, overridable, and each of
lgpio, RPi.GPIO and gpiozero's native factory really started by gpiozero against a fake of its
library (its calls recorded), as on a Pi 5, a Pi 4 and a Zero 2 W; MockFactory by name."""

from __future__ import annotations

import mmap
import sys
import types
from collections.abc import Iterator
from typing import Any

import pytest
from gpiozero import Device, InputDevice
from gpiozero.pins.native import GPIOMemory

from boardctl.errors import HardwareError
from boardctl.hw import factory
from boardctl.hw.gpio import GpioBoard
from boardctl.hw.pinout import Pinout

PI5, PI4, ZERO2W, PI3B = 0xD04170, 0xC03114, 0x902120, 0xA02082


@pytest.fixture(autouse=True)
def global_factory_restored(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(Device, "pin_factory", None)
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    before = set(sys.modules)
    yield
    if Device.pin_factory is not None:
        Device.pin_factory.close()
    import gpiozero.pins

    for name in set(sys.modules) - before:  # gpiozero's backends imported against a fake: forgotten
        if name in ("gpiozero.pins.lgpio", "gpiozero.pins.rpigpio"):
            del sys.modules[name]
            if hasattr(gpiozero.pins, name.rsplit(".", 1)[1]):
                delattr(gpiozero.pins, name.rsplit(".", 1)[1])


class FakeLibrary(types.ModuleType):
    """A vendor module: every UPPER-CASE name a distinct constant, every other name a function
    that records its call and returns 0 (a handle, a level, a success)."""

    def __init__(self, name: str, **returns: Any) -> None:
        super().__init__(name)
        self.calls: list[tuple[str, tuple[Any, ...]]] = []
        self.returns = returns

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        if name.isupper():
            return 1000 + sum(map(ord, name))

        def call(*args: Any, **kwargs: Any) -> Any:
            self.calls.append((name, args))
            returns = self.returns.get(name, 0)
            return returns(self) if callable(returns) else returns

        return call

    def called(self, name: str) -> list[tuple[Any, ...]]:
        return [args for called, args in self.calls if called == name]


def _as_pi(monkeypatch: pytest.MonkeyPatch, revision: int) -> None:
    monkeypatch.setattr("gpiozero.pins.local.get_pi_revision", lambda: revision)


def _fake_module(monkeypatch: pytest.MonkeyPatch, name: str, backend: str, **returns: Any) -> FakeLibrary:
    fake = FakeLibrary(name, **returns)
    if "." in name:
        parent = types.ModuleType(name.split(".")[0])
        setattr(parent, name.split(".")[1], fake)
        monkeypatch.setitem(sys.modules, name.split(".")[0], parent)
    monkeypatch.setitem(sys.modules, name, fake)
    monkeypatch.delitem(sys.modules, backend, raising=False)  # gpiozero's backend imports the fake afresh
    return fake


@pytest.mark.parametrize(
    ("revision", "order"),
    [(PI5, ("lgpio",)), (PI4, ("lgpio", "rpigpio", "native")), (ZERO2W, ("lgpio", "rpigpio", "native")),
     (PI3B, ("lgpio", "rpigpio", "native")), (None, ("lgpio", "rpigpio", "native"))],
)
def test_auto_order_by_model(revision: int | None, order: tuple[str, ...]) -> None:
    assert factory.auto_order(revision)[0] == order


def test_auto_takes_the_first_that_starts_and_says_why() -> None:
    tried: list[str] = []

    def starter(name: str) -> str:
        tried.append(name)
        if name == "lgpio":
            raise ImportError("No module named 'lgpio'")
        return f"<{name}>"

    chosen = factory.choose("auto", env={}, pi_revision=lambda: PI4, starter=starter)
    assert (chosen.factory, chosen.name, tried) == ("<rpigpio>", "rpigpio", ["lgpio", "rpigpio"])
    assert chosen.describe() == "rpigpio (auto: revision c03114, lgpio then RPi.GPIO then native)"


def test_a_pi5_without_lgpio_is_one_line_naming_it() -> None:
    def starter(name: str) -> str:
        raise ImportError(f"No module named '{name}'")

    with pytest.raises(HardwareError) as caught:
        factory.choose("auto", env={}, pi_revision=lambda: PI5, starter=starter)
    text = str(caught.value)
    assert "RP1" in text and "lgpio: No module named 'lgpio'" in text and "rpigpio" not in text
    assert "boardctl[pi]" in text and "--board sim" in text and "\n" not in text


def test_no_pi_at_all_says_so() -> None:
    with pytest.raises(HardwareError, match=r"no GPIO pins that gpiozero can use .*lgpio: .*rpigpio: .*native: "):
        factory.choose("auto", env={}, pi_revision=lambda: None, starter=lambda name: 1 / 0)


def test_the_config_and_the_environment_override(monkeypatch: pytest.MonkeyPatch) -> None:
    tried: list[str] = []
    chosen = factory.choose("native", env={"GPIOZERO_PIN_FACTORY": "lgpio"}, pi_revision=lambda: PI5,
                            starter=lambda name: tried.append(name) or name)
    assert (chosen.name, chosen.why, tried) == ("native", "board.pin_factory", ["native"])
    chosen = factory.choose("auto", env={"GPIOZERO_PIN_FACTORY": "RPiGPIO"}, pi_revision=lambda: PI5,
                            starter=lambda name: name)
    assert (chosen.name, chosen.why) == ("rpigpio", "GPIOZERO_PIN_FACTORY")
    with pytest.raises(HardwareError, match="GPIOZERO_PIN_FACTORY='pigpio'"):
        factory.choose("auto", env={"GPIOZERO_PIN_FACTORY": "pigpio"}, starter=lambda name: name)
    with pytest.raises(HardwareError, match="pin factory 'wiringpi'"):
        factory.choose("wiringpi", env={})


def test_mock_by_name_runs_a_board(pinout: Pinout) -> None:
    from gpiozero.pins.mock import MockFactory

    with GpioBoard(pinout, pin_factory="mock") as board:
        assert isinstance(Device.pin_factory, MockFactory)
        assert board.pin_factory_name == "mock (board.pin_factory)"
    assert factory.name_of(Device.pin_factory) == "mock"


def test_lgpio_on_a_pi5_opens_gpiochip_and_claims_pins(monkeypatch: pytest.MonkeyPatch) -> None:
    lgpio = _fake_module(monkeypatch, "lgpio", "gpiozero.pins.lgpio")
    _as_pi(monkeypatch, PI5)
    chosen = factory.choose("auto", env={}, pi_revision=lambda: PI5)
    assert chosen.name == "lgpio" and type(chosen.factory).__name__ == "LGPIOFactory"
    assert lgpio.called("gpiochip_open")  # the Pi 5's chip (4 where /dev/gpiochip4 exists, else 0)
    with InputDevice(17, pull_up=True, pin_factory=chosen.factory) as switch:
        switch.value  # noqa: B018  (a read through the library)
    assert (chosen.factory._handle, 17, lgpio.SET_PULL_UP) in lgpio.called("gpio_claim_input")
    assert lgpio.called("gpio_read")
    chosen.factory.close()
    assert lgpio.called("gpiochip_close")


def test_rpigpio_on_a_pi4_sets_bcm_numbering_and_pulls_up(monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_module(monkeypatch, "lgpio", "gpiozero.pins.lgpio")
    monkeypatch.setitem(sys.modules, "lgpio", None)  # not installed: auto falls back to RPi.GPIO
    gpio = _fake_module(monkeypatch, "RPi.GPIO", "gpiozero.pins.rpigpio", gpio_function=lambda lib: lib.IN)
    _as_pi(monkeypatch, PI4)
    chosen = factory.choose("auto", env={}, pi_revision=lambda: PI4)
    assert chosen.name == "rpigpio" and type(chosen.factory).__name__ == "RPiGPIOFactory"
    assert (gpio.BCM,) in gpio.called("setmode")
    with InputDevice(17, pull_up=True, pin_factory=chosen.factory) as switch:
        switch.value  # noqa: B018
    assert any(args[0] == 17 and gpio.PUD_UP in args for args in gpio.called("setup")), gpio.calls
    assert (17,) in gpio.called("input")
    chosen.factory.close()
    assert gpio.called("cleanup")


class FakeGpioMemory(GPIOMemory):
    """gpiozero's native register block, in anonymous memory instead of /dev/gpiomem."""

    def __init__(self, soc: str) -> None:
        self.soc = soc
        self.mem = mmap.mmap(-1, 4096)
        self.reg_fmt = "@I"
        self.written: set[int] = set()

    def close(self) -> None:
        self.mem.close()

    def __setitem__(self, index: int, value: int) -> None:
        self.written.add(index)
        super().__setitem__(index, value)


@pytest.mark.parametrize(("revision", "soc"), [(ZERO2W, "BCM2837"), (PI4, "BCM2711")])
def test_native_writes_the_gpio_registers(monkeypatch: pytest.MonkeyPatch, revision: int, soc: str) -> None:
    monkeypatch.setattr("gpiozero.pins.native.GPIOMemory", FakeGpioMemory)
    _as_pi(monkeypatch, revision)
    chosen = factory.choose("native", env={})
    assert chosen.name == "native" and chosen.factory.mem.soc == soc
    mem = chosen.factory.mem
    with InputDevice(17, pull_up=True, pin_factory=chosen.factory) as switch:
        switch.value  # noqa: B018
        assert 1 in mem.written  # GPFSEL1: pin 17's function (input)
        if soc == "BCM2711":  # the Pi 4's pull register: 2 bits a pin, 01 = up
            assert mem[mem.GPPUPPDN_OFFSET + 1] >> 2 & 3 == 1
        else:  # the older SoCs' GPPUD + GPPUDCLK sequence
            assert {mem.GPPUD_OFFSET, mem.GPPUDCLK_OFFSET} <= mem.written
    chosen.factory.close()


def test_selftest_names_the_factory(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from boardctl.cli import main

    monkeypatch.setenv("XDG_CONFIG_HOME", "/nonexistent")
    code = main(["selftest", "--board", "gpio", "--pin-factory", "mock", "--squares", "e4", "--timeout", "0.1",
                 "--dark-timeout", "0.1"])
    out = capsys.readouterr().out
    assert code == 1  # nobody placed a piece: a dead switch
    assert "gpio pin factory: mock (board.pin_factory)" in out.splitlines()
