"""Which gpiozero pin factory drives the board's pins: lgpio, RPi.GPIO or gpiozero's native one.

``board.pin_factory = "auto"`` (the default) chooses by the Raspberry Pi's model, from its
revision code: a Pi 5 (and the other boards with the RP1 chip: CM5, Pi 500) has only lgpio,
since RPi.GPIO and the native factory poke the old SoC's registers, which the RP1 does not
have; older Pis try lgpio, then RPi.GPIO, then native, gpiozero's own order without pigpio
(which needs its daemon). ``GPIOZERO_PIN_FACTORY`` in the environment, as gpiozero reads it,
is honoured under ``auto``; any other value of the setting names the one factory to use
(``mock``: gpiozero's MockFactory, no hardware). A factory that cannot start says why, and
when none can, one line lists each reason and what to install.

Like every vendor library, gpiozero's backends are imported only here, when a board opens.
"""

from __future__ import annotations

import importlib
import os
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from boardctl.errors import HardwareError

#: The setting's values: ``auto`` or one factory, by gpiozero's names for them.
FACTORIES: dict[str, str] = {
    "lgpio": "gpiozero.pins.lgpio:LGPIOFactory",
    "rpigpio": "gpiozero.pins.rpigpio:RPiGPIOFactory",
    "native": "gpiozero.pins.native:NativeFactory",
    "mock": "gpiozero.pins.mock:MockFactory",
}
CHOICES = ("auto", *FACTORIES)
#: The revision code's board types with the RP1 I/O chip (Pi 5, CM5, Pi 500, CM5 Lite).
RP1_TYPES = frozenset({0x17, 0x18, 0x19, 0x1A})
OLDER_PI_ORDER = ("lgpio", "rpigpio", "native")
RP1_ORDER = ("lgpio",)
INSTALL_HINT = "On a Raspberry Pi, install the pi extra (pip install 'boardctl[pi]'); without a board, use --board sim."


@dataclass(frozen=True)
class Chosen:
    """The factory that started, its name (a key of :data:`FACTORIES`) and why it was chosen."""

    factory: Any
    name: str
    why: str

    def describe(self) -> str:
        return f"{self.name} ({self.why})"


def revision() -> int | None:
    """The Pi's revision code (from the device tree or /proc/cpuinfo), None when not a Pi."""
    from gpiozero.pins.local import get_pi_revision

    try:
        return int(get_pi_revision())
    except Exception:  # PinUnknownPi, or no /proc at all
        return None


def has_rp1(code: int) -> bool:
    """Whether a new-style revision code names a board with the RP1 chip (a Pi 5 or kin)."""
    return bool(code & 0x800000) and (code >> 4) & 0xFF in RP1_TYPES


def auto_order(code: int | None) -> tuple[tuple[str, ...], str]:
    """The factories to try under ``auto`` for the Pi with revision ``code``, and the reason."""
    if code is None:
        return OLDER_PI_ORDER, "auto: no Raspberry Pi revision found, gpiozero's order"
    if has_rp1(code):
        return RP1_ORDER, f"auto: revision {code:x} has the RP1 chip (Pi 5), lgpio only"
    return OLDER_PI_ORDER, f"auto: revision {code:x}, lgpio then RPi.GPIO then native"


def start(name: str) -> Any:
    """A new factory by name; whatever it raises (a missing library, no such chip) propagates.
    ``mock`` has PWM pins, as the board's buzzer needs."""
    if name == "mock":
        from gpiozero.pins.mock import MockFactory, MockPWMPin

        return MockFactory(pin_class=MockPWMPin)
    module, cls = FACTORIES[name].split(":")
    return getattr(importlib.import_module(module), cls)()


def choose(
    setting: str = "auto",
    *,
    env: Mapping[str, str] | None = None,
    pi_revision: Callable[[], int | None] = revision,
    starter: Callable[[str], Any] = start,
) -> Chosen:
    """The pin factory for ``setting`` (a value of :data:`CHOICES`); raises HardwareError with
    one line saying why none could start."""
    env = os.environ if env is None else env
    setting = setting.lower()
    if setting == "auto" and env.get("GPIOZERO_PIN_FACTORY"):
        setting, why = env["GPIOZERO_PIN_FACTORY"].lower(), "GPIOZERO_PIN_FACTORY"
        if setting not in FACTORIES:
            raise HardwareError(f"gpio: GPIOZERO_PIN_FACTORY={setting!r}: expected one of {', '.join(FACTORIES)}")
        order: tuple[str, ...] = (setting,)
    elif setting == "auto":
        order, why = auto_order(pi_revision())
    elif setting in FACTORIES:
        order, why = (setting,), "board.pin_factory"
    else:
        raise HardwareError(f"gpio: pin factory {setting!r}: expected one of {', '.join(CHOICES)}")
    failures = []
    for name in order:
        try:
            with warnings.catch_warnings():  # a failure is reported below, in one line
                warnings.simplefilter("ignore")
                return Chosen(starter(name), name, why)
        except Exception as exc:  # each library fails in its own way: ImportError, RuntimeError, OSError...
            failures.append(f"{name}: {exc}" if str(exc) else f"{name}: {type(exc).__name__}")
    reasons = "; ".join(failures)
    if why.startswith("auto: no Raspberry Pi"):
        raise HardwareError(f"gpio: this machine has no GPIO pins that gpiozero can use ({reasons}). {INSTALL_HINT}")
    raise HardwareError(f"gpio: no pin factory could start ({why}): {reasons}. {INSTALL_HINT}")


def name_of(factory: Any) -> str:
    """The name of a factory made elsewhere (a test's MockFactory subclass, Device.pin_factory)."""
    cls = type(factory)
    for name, path in FACTORIES.items():
        module, cls_name = path.split(":")
        if any(c.__module__ == module and c.__name__ == cls_name for c in cls.__mro__):
            return name
    return cls.__name__
