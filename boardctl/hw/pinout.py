"""The pin map (``hardware/pinout.toml``) as typed values, validated with errors naming the key."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from boardctl.core.geometry import CHESS_8X8, GEOMETRIES, XIANGQI_9X10, Geometry
from boardctl.errors import ConfigError
from boardctl.events import Button

#: The repository's pin map; installs without a checkout pass ``path`` explicitly (config ``pinout``).
DEFAULT_PATH = Path(__file__).resolve().parents[2] / "hardware" / "pinout.toml"
#: The pin map of the 10-row x 9-column xiangqi board.
XIANGQI_PATH = DEFAULT_PATH.with_name("pinout-xiangqi.toml")

#: Most rows and columns a pin map may have (a xiangqi board needs 10 x 9; the Pi has 28 pins).
MAX_LINES = 16
#: LEDs one MAX7219 drives (8 digits x 8 segments).
MAX7219_LEDS = 64
#: Most MAX7219s in one daisy chain.
MAX_CHIPS = 8


@dataclass(frozen=True, slots=True)
class Pinout:
    """BCM pins of the gpio variant. ``rows[i]`` is the board's rank i (from the first player's
    side), ``columns[j]`` its file j (a, b, ...); fewer lines cover a smaller board from a1 (a0)
    upwards. ``geometry`` is the board the map is for (the ``game`` key, else the smallest known
    board the matrix fits). LEDs: ``chips`` MAX7219s in a daisy chain, LED ``n`` lighting the point
    of bit ``n`` (chip ``n // 64``, digit ``n % 64 // 8``, segment bit ``7 - n % 8``).
    """

    rows: tuple[int, ...]
    columns: tuple[int, ...]
    buttons: dict[Button, int] = field(default_factory=dict)
    buzzer: int | None = None
    led_driver: str = "max7219"
    spi_port: int = 0
    spi_device: int = 0
    intensity: int = 4
    chips: int = 0
    geometry: Geometry = field(default=CHESS_8X8)
    where: str = field(default="pinout", compare=False)

    def __post_init__(self) -> None:
        where = self.where
        if not 1 <= len(self.rows) <= MAX_LINES:
            raise ConfigError(f"{where}: gpio.rows: need 1..{MAX_LINES} pins, got {len(self.rows)}")
        if not 1 <= len(self.columns) <= MAX_LINES:
            raise ConfigError(f"{where}: gpio.columns: need 1..{MAX_LINES} pins, got {len(self.columns)}")
        if len(self.rows) > self.geometry.ranks or len(self.columns) > self.geometry.files:
            raise ConfigError(
                f"{where}: gpio.rows/gpio.columns: a {len(self.rows)}-row x {len(self.columns)}-column matrix does "
                f"not fit the {self.geometry.name} board ({self.geometry.ranks} ranks x {self.geometry.files} files)"
            )
        used = [*self.rows, *self.columns, *self.buttons.values()]
        if self.buzzer is not None:
            used.append(self.buzzer)
        dupes = sorted({p for p in used if used.count(p) > 1})
        if dupes:
            raise ConfigError(f"{where}: pin(s) {dupes} used twice (gpio.rows, gpio.columns, gpio.buttons, gpio.buzzer)")
        if self.led_driver not in ("max7219", "none"):
            raise ConfigError(f"{where}: gpio.leds.driver must be 'max7219' or 'none', got {self.led_driver!r}")
        if not 0 <= self.intensity <= 15:
            raise ConfigError(f"{where}: gpio.leds.intensity must be 0..15, got {self.intensity}")
        need = -(-self.points // MAX7219_LEDS)
        if self.chips == 0:
            object.__setattr__(self, "chips", need)
        elif not need <= self.chips <= MAX_CHIPS:
            raise ConfigError(
                f"{where}: gpio.leds.chips: {self.points} points need {need}..{MAX_CHIPS} chained MAX7219s "
                f"({MAX7219_LEDS} LEDs each), got {self.chips}"
            )

    @property
    def points(self) -> int:
        """Points of the board the map is for (each has a switch place and an LED)."""
        return self.geometry.points

    @property
    def size(self) -> str:
        """``<rows>x<columns>`` of the matrix, as the firmware's ``HELLO`` says it."""
        return f"{len(self.rows)}x{len(self.columns)}"

    def check_game(self, geometry: Geometry) -> None:
        """ConfigError unless this map is for ``geometry``'s board (a chess map cannot run xiangqi)."""
        if geometry != self.geometry:
            raise ConfigError(
                f"{self.where}: this pin map is for a {self.geometry.name} board "
                f"({self.geometry.ranks} x {self.geometry.files}), but the game is {geometry.name} "
                f"({geometry.ranks} x {geometry.files}); give the board's pin map (config key 'pinout')"
            )

    @classmethod
    def from_file(cls, path: Path | str | None = None) -> Pinout:
        path = Path(path) if path is not None else DEFAULT_PATH
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ConfigError(f"pinout: {path} not found (set the config key 'pinout')") from None
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"pinout: {path}: {exc}") from None
        gpio = data.get("gpio", {})
        if not isinstance(gpio, dict):
            raise ConfigError(f"{path}: gpio must be a table")
        return cls.from_dict(gpio, where=str(path), game=data.get("game"))

    @classmethod
    def from_dict(cls, gpio: dict[str, Any], *, where: str = "pinout", game: Any = None) -> Pinout:
        """The ``[gpio]`` table; ``game`` is the file's top-level ``game`` key (None: by the matrix size)."""

        def pins(key: str, value: Any) -> tuple[int, ...]:
            if not isinstance(value, list) or not all(_is_pin(p) for p in value):
                raise ConfigError(f"{where}: gpio.{key} must be a list of BCM pin numbers 0..27, got {value!r:.60}")
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
        if not isinstance(leds, dict):
            raise ConfigError(f"{where}: gpio.leds must be a table")
        for key in ("spi_port", "spi_device", "intensity", "chips"):
            if key in leds and (not isinstance(leds[key], int) or isinstance(leds[key], bool)):
                raise ConfigError(f"{where}: gpio.leds.{key} must be an integer, got {leds[key]!r}")
        rows, columns = pins("rows", gpio.get("rows")), pins("columns", gpio.get("columns"))
        if game is None:
            geometry = _fitting(len(rows), len(columns))
            if geometry is None:
                raise ConfigError(
                    f"{where}: gpio.rows/gpio.columns: a {len(rows)}-row x {len(columns)}-column matrix fits no "
                    f"known board (chess 8 x 8, xiangqi 10 x 9)"
                )
        elif isinstance(game, str) and game in GEOMETRIES:
            geometry = GEOMETRIES[game]
        else:
            raise ConfigError(f"{where}: game must be one of {', '.join(sorted(GEOMETRIES))}, got {game!r:.40}")
        return cls(
            rows=rows,
            columns=columns,
            buttons=buttons,
            buzzer=buzzer,
            led_driver=str(leds.get("driver", "none")),
            spi_port=leds.get("spi_port", 0),
            spi_device=leds.get("spi_device", 0),
            intensity=leds.get("intensity", 4),
            chips=leds.get("chips", 0),
            geometry=geometry,
            where=where,
        )


def default_pinout(geometry: Geometry) -> Path:
    """The repository's pin map for ``geometry``'s board."""
    return XIANGQI_PATH if geometry == XIANGQI_9X10 else DEFAULT_PATH


def _fitting(rows: int, columns: int) -> Geometry | None:
    """The smallest known board a ``rows`` x ``columns`` matrix fits (chess before xiangqi)."""
    for geometry in (CHESS_8X8, XIANGQI_9X10):
        if rows <= geometry.ranks and columns <= geometry.files:
            return geometry
    return None


def _is_pin(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 27
