"""Settings from TOML files and the command line, in one table of keys.

Precedence: command line > user file (``$XDG_CONFIG_HOME/boardctl/config.toml``, default
``~/.config/boardctl/config.toml``) > system file (``/etc/boardctl.toml``) > built-in default.
Every value is checked once, here; a bad one raises :class:`ConfigError` naming the key and
where it came from. ``docs/config.md`` is the same table in prose.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from boardctl.errors import ConfigError
from boardctl.tracker import DEFAULT_TIMING
from engine import levels

SYSTEM_FILE = Path("/etc/boardctl.toml")

# every level rule lives in engine/levels.py (numba-free); config validates through it
NAMED_LEVELS, PRACTICE_LEVELS = levels.NAMED_LEVELS, levels.PRACTICE_LEVELS
MIN_ELO, MAX_ELO = levels.REQUEST_ELO_MIN, levels.REQUEST_ELO_MAX


def user_file() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "boardctl" / "config.toml"


def data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "boardctl"


def _choice(*choices: str) -> Callable[[Any], Any]:
    def check(value: Any) -> Any:
        if not isinstance(value, str) or value not in choices:
            raise ValueError(f"must be one of {', '.join(choices)}, got {value!r}")
        return value

    return check


def _string(value: Any) -> Any:
    if not isinstance(value, str):
        raise ValueError(f"must be a string, got {value!r}")
    return value


def _boolean(value: Any) -> Any:
    if not isinstance(value, bool):
        raise ValueError(f"must be true or false, got {value!r}")
    return value


def _seconds(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 3600:
        raise ValueError(f"must be a number of seconds from 0 to 3600, got {value!r}")
    return float(value)


def _settle(value: Any) -> Any:
    """The release time must outlast a brush, or a brushed piece would count as a move."""
    seconds = _seconds(value)
    if not DEFAULT_TIMING.brush < seconds <= 5.0:
        raise ValueError(f"must be more than the brush time ({DEFAULT_TIMING.brush} s) and at most 5 s, got {value!r}")
    return seconds


def _port(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 65535:
        raise ValueError(f"must be a TCP port number from 0 to 65535, got {value!r}")
    return value


def _path(value: Any) -> Any:
    if not isinstance(value, str) or not value:
        raise ValueError(f"must be a path, got {value!r}")
    return str(Path(value).expanduser())


def _pin(value: Any) -> Any:
    if not isinstance(value, str) or not (value == "" or re.fullmatch(r"[0-9]{4,12}", value)):
        raise ValueError(f'must be a string of 4 to 12 digits (pin = "123456"), got {value!r}')
    return value


def check_level(value: Any) -> Any:
    """A named level (also 初级, 中级, 高级, 大师), ``practice1``-``practice5``, or an Elo number."""
    return levels.check_level(value)


_TIME_CONTROL = re.compile(r"(\d+(?:\.\d+)?)\+(\d+)")


def check_time_control(value: Any) -> Any:
    """``""`` (no clock) or ``minutes+increment_seconds`` such as ``15+10``."""
    if isinstance(value, str) and (value == "" or _TIME_CONTROL.fullmatch(value)):
        if value and float(value.split("+")[0]) <= 0:
            raise ValueError(f"needs a positive number of minutes, got {value!r}")
        return value
    raise ValueError(f"must be minutes+increment like '15+10' or '' for no clock, got {value!r}")


@dataclass(frozen=True)
class Key:
    name: str  # "section.key" in TOML
    check: Callable[[Any], Any]
    default: Any
    flag: str | None
    help: str


KEYS: tuple[Key, ...] = (
    Key("board.backend", _choice("sim", "gpio", "serial"), "sim", "--board", "board hardware"),
    Key("board.serial_url", _string, "/dev/ttyACM0", "--serial-url", "pyserial URL of the microcontroller"),
    Key("board.orientation", _choice("auto", "normal", "flipped"), "auto", "--orientation",
        "normal: White on ranks 1-2 of the board's wiring; flipped: turned round; auto: from White's first move"),
    Key("board.settle", _settle, 0.3, "--settle", "seconds before a placed piece counts as released"),
    Key("board.debounce", _seconds, 0.025, "--debounce", "gpio: seconds a switch must hold a new state"),
    Key("board.pinout", _string, "", "--pinout", "gpio: pin map file; empty: hardware/pinout.toml"),
    Key("engine.path", _string, "", "--engine", "UCI engine executable; empty: the bundled boardctl-engine"),
    Key("engine.level", check_level, "intermediate", "--level", "engine strength"),
    Key("engine.movetime", _seconds, 1.0, "--movetime", "engine thinking time per move, seconds"),
    Key("game.color", _choice("white", "black", "random"), "white", "--color", "the human's colour in play"),
    Key("game.time_control", check_time_control, "", "--time-control", "clock, e.g. 15+10; empty: none"),
    Key("game.policy", _choice("fide", "casual"), "fide", "--policy", "touch-move rules"),
    Key("game.arbiter", _boolean, False, "--arbiter", "FIDE 7.5.5: a first illegal move gives the opponent 2 minutes, a second loses"),
    Key("game.takeback", _choice("apply", "offer", "off"), "apply", "--takeback", "taking moves back"),
    Key("game.legal_moves", _boolean, False, "--legal-moves", "lifting a piece lights its legal destinations"),
    Key("game.blunder_warning", _boolean, False, "--blunder-warning", "warn (LEDs) after a move that loses 2+ pawns"),
    Key("storage.games_dir", _path, "", "--games-dir", "where games are saved; empty: $XDG_DATA_HOME/boardctl/games"),
    Key("web.enabled", _boolean, True, "--no-web", "serve the web page"),
    Key("web.host", _string, "127.0.0.1", "--host", "web page address"),
    Key("web.port", _port, 8080, "--port", "web page port"),
    Key("web.pin", _pin, "", None, "PIN the web page asks for; empty: generated on first start and stored"),
)
KEY_BY_NAME = {key.name: key for key in KEYS}


@dataclass(frozen=True)
class Config:
    """Checked settings. Field names are the keys with the dot replaced by an underscore."""

    board_backend: str
    board_serial_url: str
    board_orientation: str
    board_settle: float
    board_debounce: float
    board_pinout: str
    engine_path: str
    engine_level: str
    engine_movetime: float
    game_color: str
    game_time_control: str
    game_policy: str
    game_arbiter: bool
    game_takeback: str
    game_legal_moves: bool
    game_blunder_warning: bool
    storage_games_dir: str
    web_enabled: bool
    web_host: str
    web_port: int
    web_pin: str

    @property
    def games_dir(self) -> Path:
        return Path(self.storage_games_dir) if self.storage_games_dir else data_dir() / "games"


def _flatten(table: Mapping[str, Any], source: str) -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for section, body in table.items():
        if not isinstance(body, dict):
            raise ConfigError(f"{source}: {section!r} must be a [section] table (known keys: {', '.join(KEY_BY_NAME)})")
        for name, value in body.items():
            flat[f"{section}.{name}"] = value
    return flat


def read_file(path: Path) -> dict[str, Any]:
    """A TOML file as flat ``section.key`` values; a missing file is empty."""
    try:
        with path.open("rb") as f:
            table = tomllib.load(f)
    except FileNotFoundError:
        return {}
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read ({exc.strerror})") from None
    return _flatten(table, str(path))


def load(
    cli: Mapping[str, Any] | None = None,
    *,
    files: Sequence[Path] | None = None,
) -> Config:
    """Merge ``files`` (lowest precedence first; default: system then user file) and ``cli``.

    ``cli`` maps key names to values given on the command line (``None`` means not given).
    """
    layers: list[tuple[str, dict[str, Any]]] = []
    for path in files if files is not None else (SYSTEM_FILE, user_file()):
        layers.append((str(path), read_file(path)))
    layers.append(("command line", {k: v for k, v in (cli or {}).items() if v is not None}))
    values: dict[str, Any] = {key.name: key.default for key in KEYS}
    for source, layer in layers:
        for name, value in layer.items():
            key = KEY_BY_NAME.get(name)
            if key is None:
                raise ConfigError(f"{source}: unknown key {name!r} (known keys: {', '.join(KEY_BY_NAME)})")
            try:
                values[name] = key.check(value)
            except ValueError as exc:
                where = f"{key.flag} ({name})" if source == "command line" and key.flag else name
                raise ConfigError(f"{source}: {where}: {exc}") from None
    return Config(**{name.replace(".", "_"): value for name, value in values.items()})
