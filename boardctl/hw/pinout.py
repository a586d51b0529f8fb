"""The pin map (``hardware/pinout.toml``) as typed values, validated with errors naming the key."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from boardctl.errors import ConfigError
from boardctl.events import Button

#: The repository's pin map; installs without a checkout pass ``path`` explicitly (config ``pinout``).
DEFAULT_PATH = Path(__file__).resolve().parents[2] / "hardware" / "pinout.toml"


@dataclass(frozen=True, slots=True)
class Pinout:
    """BCM pins of the gpio variant. ``rows[i]`` is rank i+1, ``columns[j]`` file a+j."""

    rows: tuple[int, ...]
    columns: tuple[int, ...]
    buttons: dict[Button, int] = field(default_factory=dict)
    buzzer: int | None = None
    led_driver: str = "max7219"
    spi_port: int = 0
    spi_device: int = 0
    intensity: int = 4

    def __post_init__(self) -> None:
        if not 1 <= len(self.rows) <= 8 or not 1 <= len(self.columns) <= 8:
            raise ConfigError(
                f"pinout: need 1..8 rows and columns, got {len(self.rows)}x{len(self.columns)}"
            )
        used = [*self.rows, *self.columns, *self.buttons.values()]
        if self.buzzer is not None:
            used.append(self.buzzer)
        dupes = sorted({p for p in used if used.count(p) > 1})
        if dupes:
            raise ConfigError(f"pinout: pin(s) {dupes} used twice")
        if self.led_driver not in ("max7219", "none"):
            raise ConfigError(f"pinout: gpio.leds.driver must be 'max7219' or 'none', got {self.led_driver!r}")
        if not 0 <= self.intensity <= 15:
            raise ConfigError(f"pinout: gpio.leds.intensity must be 0..15, got {self.intensity}")

    @classmethod
    def from_file(cls, path: Path | str | None = None) -> Pinout:
        path = Path(path) if path is not None else DEFAULT_PATH
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ConfigError(f"pinout: {path} not found (set the config key 'pinout')") from None
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"pinout: {path}: {exc}") from None
        return cls.from_dict(data.get("gpio", {}), where=str(path))

    @classmethod
    def from_dict(cls, gpio: dict[str, Any], *, where: str = "pinout") -> Pinout:
        def pins(key: str, value: Any) -> tuple[int, ...]:
            if not isinstance(value, list) or not all(_is_pin(p) for p in value):
                raise ConfigError(f"{where}: gpio.{key} must be a list of BCM pin numbers 0..27")
            return tuple(value)

        buttons: dict[Button, int] = {}
        for name, pin in gpio.get("buttons", {}).items():
            try:
                button = Button(name)
            except ValueError:
                raise ConfigError(f"{where}: gpio.buttons.{name}: unknown button") from None
            if not _is_pin(pin):
                raise ConfigError(f"{where}: gpio.buttons.{name} must be a BCM pin 0..27, got {pin!r}")
            buttons[button] = pin
        buzzer = gpio.get("buzzer")
        if buzzer is not None and not _is_pin(buzzer):
            raise ConfigError(f"{where}: gpio.buzzer must be a BCM pin 0..27, got {buzzer!r}")
        leds = gpio.get("leds", {})
        for key in ("spi_port", "spi_device", "intensity"):
            if key in leds and (not isinstance(leds[key], int) or isinstance(leds[key], bool)):
                raise ConfigError(f"{where}: gpio.leds.{key} must be an integer, got {leds[key]!r}")
        return cls(
            rows=pins("rows", gpio.get("rows")),
            columns=pins("columns", gpio.get("columns")),
            buttons=buttons,
            buzzer=buzzer,
            led_driver=str(leds.get("driver", "none")),
            spi_port=leds.get("spi_port", 0),
            spi_device=leds.get("spi_device", 0),
            intensity=leds.get("intensity", 4),
        )


def _is_pin(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 27
