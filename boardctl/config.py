"""Settings from TOML files and the command line, in one table of keys.

Precedence: command line > user file (``$XDG_CONFIG_HOME/boardctl/config.toml``, default
``~/.config/boardctl/config.toml``) > system file (``/etc/boardctl.toml``) > built-in default.
Every value is checked once, here; a bad one raises :class:`ConfigError` naming the key and
where it came from. ``docs/config.md`` is the same table in prose.
"""

from __future__ import annotations

import codecs
import ipaddress
import os
import re
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from boardctl import levels
from boardctl.errors import ConfigError
from boardctl.jsonlimits import short_repr
from boardctl.tracker import DEFAULT_TIMING

SYSTEM_FILE = Path("/etc/boardctl.toml")

#: The games (``boardctl.variants.NAMES``; not imported, so reading settings loads no game).
VARIANTS = ("chess", "xiangqi")
#: Each game's sides, first to move first (``Variant.color_names``), for ``game.color``.
SIDES = {"chess": ("white", "black"), "xiangqi": ("red", "black")}

# every level rule lives in engine/levels.py (numba-free); config validates through it
NAMED_LEVELS, PRACTICE_LEVELS = levels.NAMED_LEVELS, levels.PRACTICE_LEVELS
MIN_ELO, MAX_ELO = levels.REQUEST_ELO_MIN, levels.REQUEST_ELO_MAX

#: A config file is a page of settings; anything bigger or deeper is refused before parsing.
MAX_FILE_BYTES = 1024 * 1024
MAX_NESTING = 16
MAX_STRING = 4096


def user_file() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "boardctl" / "config.toml"


def data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "boardctl"


@dataclass(frozen=True)
class _Choice:
    """One of a few words; ``aliases`` are other words for them (``fide`` for ``strict``)."""

    choices: tuple[str, ...]
    aliases: Mapping[str, str] = field(default_factory=dict)

    def __call__(self, value: Any) -> Any:
        if isinstance(value, str) and value in self.aliases:
            return self.aliases[value]
        if not isinstance(value, str) or value not in self.choices:
            raise ValueError(f"must be one of {', '.join(self.words)}, got {short_repr(value)}")
        return value

    @property
    def words(self) -> tuple[str, ...]:
        """Every word accepted: the choices, then the aliases (the CLI's ``choices``)."""
        return (*self.choices, *self.aliases)


def _choice(*choices: str, aliases: Mapping[str, str] | None = None) -> _Choice:
    return _Choice(choices, dict(aliases or {}))


def _string(value: Any) -> Any:
    """A string of printable text: a NUL or other control character in a path or URL would only
    fail later, far from the config file."""
    if not isinstance(value, str):
        raise ValueError(f"must be a string, got {short_repr(value)}")
    if len(value) > MAX_STRING:
        raise ValueError(f"must be at most {MAX_STRING} characters, got {len(value)}")
    bad = next((i for i, c in enumerate(value) if ord(c) < 32 or ord(c) == 127 or 0xD800 <= ord(c) <= 0xDFFF), None)
    if bad is not None:
        raise ValueError(f"must not contain control characters, got {value[bad]!r} at position {bad}")
    return value


def _boolean(value: Any) -> Any:
    if not isinstance(value, bool):
        raise ValueError(f"must be true or false, got {short_repr(value)}")
    return value


def _seconds(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 3600:
        raise ValueError(f"must be a number of seconds from 0 to 3600, got {short_repr(value)}")
    return float(value)


def _settle(value: Any) -> Any:
    """The release time must outlast a brush, or a brushed piece would count as a move."""
    seconds = _seconds(value)
    if not DEFAULT_TIMING.brush < seconds <= 5.0:
        raise ValueError(
            f"must be more than the brush time ({DEFAULT_TIMING.brush} s) and at most 5 s, got {short_repr(value)}"
        )
    return seconds


def _port(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 65535:
        raise ValueError(f"must be a TCP port number from 0 to 65535, got {short_repr(value)}")
    return value


def _link_port(value: Any) -> Any:
    """A TCP port number (as an integer or text) or a serial port's path or pyserial URL, or ""."""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(_port(value))
    if not isinstance(_string(value), str) or len(value) > 200:
        raise ValueError(f"must be a TCP port or a serial port, got {short_repr(value)}")
    return value


def _path(value: Any) -> Any:
    if not isinstance(value, str) or not value:
        raise ValueError(f"must be a path, got {short_repr(value)}")
    return str(Path(_string(value)).expanduser())


_HOSTNAME = re.compile(r"(?=.{1,253}\.?$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?", re.ASCII)


def _host(value: Any) -> Any:
    """An address to bind: an IP address, a host name, or "" (every interface)."""
    if not isinstance(value, str):
        raise ValueError(f"must be a string, got {short_repr(value)}")
    if value == "":
        return value
    try:
        ipaddress.ip_address(value)
    except ValueError:
        if not _HOSTNAME.fullmatch(value):
            raise ValueError(
                "must be an IP address (127.0.0.1, ::1, 0.0.0.0) or a host name such as localhost, "
                f"got {short_repr(value)}"
            ) from None
    return value


def _pin(value: Any) -> Any:
    if not isinstance(value, str) or not (value == "" or re.fullmatch(r"[0-9]{4,12}", value)):
        raise ValueError(f'must be a string of 4 to 12 digits (pin = "123456"), got {short_repr(value)}')
    return value


def _token(value: Any) -> Any:
    """A Lichess API token (``lip_...``) or "" (none yet). The message never shows the value: a
    token must not reach a log or a terminal (docs/online.md)."""
    if not isinstance(value, str) or not re.fullmatch(r"[A-Za-z0-9_]{0,200}", value):
        raise ValueError("must be a Lichess API token (letters, digits and _; the value is not shown)")
    return value


def _url(value: Any) -> Any:
    """An http(s) address without control characters (the Lichess server, or a stand-in)."""
    if not isinstance(_string(value), str) or not re.fullmatch(r"https?://[^\s/]+(/\S*)?", value):
        raise ValueError(f"must be an http:// or https:// address, got {short_repr(value)}")
    return value


def _broadcast_url(value: Any) -> Any:
    """"" (off) or a board's broker address, ``mqtt://BROKER[:PORT]/EVENT/BOARD`` (docs/broadcast.md)."""
    if value == "":
        return value
    from boardctl.broadcast.schema import BroadcastError, parse_address

    try:
        parse_address(value, board=True)
    except BroadcastError as exc:
        raise ValueError(str(exc).removeprefix("--broadcast: ")) from None
    return value


def check_level(value: Any) -> Any:
    """A named level (also 初级, 中级, 高级, 大师), ``practice1``-``practice5``, or an Elo number."""
    return levels.check_level(value)


_TIME_CONTROL = re.compile(r"([0-9]{1,4}(?:\.[0-9]{1,3})?)\+([0-9]{1,3})")


def check_time_control(value: Any) -> Any:
    """``""`` (no clock) or ``minutes+increment_seconds`` such as ``15+10`` (at most 9999+999)."""
    if isinstance(value, str) and (value == "" or _TIME_CONTROL.fullmatch(value)):
        if value and float(value.split("+")[0]) <= 0:
            raise ValueError(f"needs a positive number of minutes, got {value!r}")
        return value
    raise ValueError(f"must be minutes+increment like '15+10' or '' for no clock, got {short_repr(value)}")


def _coach_seconds(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0.05 <= value <= 30:
        raise ValueError(f"must be a number of seconds from 0.05 to 30, got {short_repr(value)}")
    return float(value)


def _voice(value: Any) -> Any:
    if not isinstance(value, str) or len(value) > 40 or not all(c.isascii() and (c.isalnum() or c in "-_+") for c in value):
        raise ValueError(f"must be an espeak-ng voice name (letters, digits, - _ +), got {short_repr(value)}")
    return value


SPEECH_EVENTS = ("move", "result", "touch-move", "illegal", "lesson")


def _speech_events(value: Any) -> Any:
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) and v in SPEECH_EVENTS for v in value):
        raise ValueError(f"must be a list among {', '.join(SPEECH_EVENTS)}, got {short_repr(value)}")
    return tuple(dict.fromkeys(value))


def _move_limit(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 60:
        raise ValueError(f"must be a whole number of moves a side from 1 to 60, got {short_repr(value)}")
    return value


def _speech_rate(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, int) or not 80 <= value <= 450:
        raise ValueError(f"must be a whole number of words per minute from 80 to 450, got {short_repr(value)}")
    return value


#: The commands that read the settings; a key's flag is on each unless it says otherwise.
COMMANDS = frozenset({"play", "record", "demo"})
#: Commands against the engine (``engine.*`` and ``game.color`` make sense only there).
ENGINE_COMMANDS = frozenset({"play", "demo"})
#: The ``--help`` groups of the flags, in order.
GROUPS = ("board", "engine", "game", "files and web")


@dataclass(frozen=True)
class Key:
    """One setting: its TOML name, check, default, and its command-line flag.

    The CLI's options are made from this table (``boardctl.commands.options.add_arguments``): the flag's
    type follows the default (a boolean is ``--x/--no-x``, or ``--no-x`` alone when ``flag``
    says so), its choices the check's, its sentence ``flag_help`` or ``help``, its default
    ``shown_default`` or the value."""

    name: str  # "section.key" in TOML
    check: Callable[[Any], Any]
    default: Any
    flag: str | None
    help: str
    group: str = "board"
    commands: frozenset[str] = COMMANDS
    metavar: str | None = None
    #: The flag's sentence, when it says more than ``help`` (the table's short wording).
    flag_help: str | None = None
    #: The default as the flag's help shows it, when not the value itself.
    shown_default: str | None = None

    @property
    def choices(self) -> tuple[str, ...] | None:
        """The words the value may be, for a key that takes one of a few."""
        return self.check.words if isinstance(self.check, _Choice) else None

    @property
    def dest(self) -> str | None:
        """The flag's attribute in the parsed arguments (``--no-web`` -> ``web``)."""
        if self.flag is None:
            return None
        return self.flag.removeprefix("--").removeprefix("no-").replace("-", "_")


def _level_sentence() -> str:
    practice = f"{PRACTICE_LEVELS[0]} to {PRACTICE_LEVELS[-1]}"
    return f"engine strength: {', '.join(NAMED_LEVELS)}, {practice}, or an Elo number from {MIN_ELO} to {MAX_ELO}"


KEYS: tuple[Key, ...] = (
    Key("board.backend", _choice("sim", "gpio", "serial"), "sim", "--board", "board hardware",
        flag_help="board hardware: sim (no hardware), gpio (the Pi scans the switches) or serial (a Pico does)"),
    Key("board.serial_url", _string, "/dev/ttyACM0", "--serial-url", "pyserial URL of the microcontroller",
        metavar="URL", flag_help="serial: the port of the board's microcontroller (a pyserial URL)"),
    Key("board.serial_wait", _boolean, False, "--serial-wait",
        "serial: at start, wait as long as it takes for the board to answer, instead of giving up within 10 s"),
    Key("board.orientation", _choice("auto", "normal", "flipped"), "auto", "--orientation",
        "normal: White on ranks 1-2 of the board's wiring; flipped: turned round; auto: from White's first move",
        flag_help="which way round the board stands: normal (White on ranks 1-2 of its wiring), "
        "flipped (turned round), or auto (from White's first move)"),
    Key("board.settle", _settle, 0.3, "--settle", "seconds before a placed piece counts as released", metavar="SECONDS"),
    Key("board.debounce", _seconds, 0.025, "--debounce", "gpio: seconds a switch must hold a new state",
        metavar="SECONDS"),
    Key("board.pinout", _string, "", "--pinout", "gpio: pin map file; empty: hardware/pinout.toml", metavar="FILE"),
    Key("board.pin_factory", _choice("auto", "lgpio", "rpigpio", "native", "mock"), "auto", "--pin-factory",
        "gpio: gpiozero's pin factory; auto: lgpio on a Pi 5, else lgpio, RPi.GPIO, native (the first that starts)",
        flag_help="gpio: the pin library: auto (by the Pi's model), lgpio, rpigpio (RPi.GPIO, Pi 4 and older), "
        "native (gpiozero's own) or mock (no hardware)"),
    Key("engine.path", _string, "", "--engine", "UCI engine executable; empty: the bundled boardctl-engine",
        group="engine", commands=ENGINE_COMMANDS, metavar="COMMAND"),
    Key("engine.level", check_level, "intermediate", "--level", "engine strength", group="engine",
        commands=ENGINE_COMMANDS, metavar="LEVEL", flag_help=_level_sentence()),
    Key("engine.movetime", _seconds, 1.0, "--movetime", "engine thinking time per move, seconds", group="engine",
        commands=ENGINE_COMMANDS, metavar="SECONDS"),
    Key("game.color", _choice("white", "red", "black", "random"), "white", "--color",
        "the human's side in play: white, black or random in chess; red, black or random in xiangqi "
        "(the default white is red in xiangqi)",
        group="engine", commands=ENGINE_COMMANDS,
        flag_help="the human's side in play: white, black or random in chess; red, black or random in xiangqi",
        shown_default="white (red in xiangqi)"),
    Key("game.variant", _choice(*VARIANTS), "chess", "--variant",
        "the game on the board: chess, or xiangqi (Chinese chess, on a board of 9 x 10 points)", group="game"),
    Key("xiangqi.rules", _choice("chinese", "asian"), "chinese", "--xiangqi-rules",
        "xiangqi repetitions: chinese (the competition rules' 棋例) or asian (pyffish, Fairy-Stockfish's AXF rules)",
        group="game", flag_help="xiangqi repetitions ruled by the Chinese competition rules (chinese, 棋例) or the "
        "Asian rules (asian, pyffish)"),
    Key("xiangqi.move_limit", _move_limit, 60, "--xiangqi-move-limit",
        "xiangqi: moves by each side without a capture that draw (自然限着, 1-60)", group="game", metavar="MOVES"),
    Key("game.time_control", check_time_control, "", "--time-control", "clock, e.g. 15+10; empty: none",
        group="game", metavar="MIN+INC", flag_help="chess clock as minutes+increment seconds, e.g. 15+10",
        shown_default="none, no clock"),
    Key("game.policy", _choice("strict", "casual", aliases={"fide": "strict"}), "strict", "--policy",
        "touch-move rules", group="game",
        flag_help="touch-move rules: strict (also called fide) enforces them (in xiangqi: a touched piece "
        "must be moved, a released piece stays), casual lets any piece be touched"),
    Key("game.arbiter", _boolean, False, "--arbiter",
        "FIDE 7.5.5: a first illegal move gives the opponent 2 minutes, a second loses", group="game"),
    Key("game.takeback", _choice("apply", "offer", "off"), "apply", "--takeback", "taking moves back", group="game",
        flag_help="a move reversed by hand is taken back (apply), needs the takeback button (offer), "
        "or counts as a mismatch (off)"),
    Key("game.legal_moves", _boolean, False, "--legal-moves", "lifting a piece lights its legal destinations",
        group="game"),
    Key("game.blunder_warning", _boolean, False, "--blunder-warning", "warn (LEDs) after a move that loses 2+ pawns",
        group="game"),
    Key("storage.games_dir", _path, "", "--games-dir", "where games are saved; empty: $XDG_DATA_HOME/boardctl/games",
        group="files and web", metavar="DIR"),
    Key("web.enabled", _boolean, True, "--no-web", "serve the web page", group="files and web",
        flag_help="do not serve the web page", shown_default="served"),
    Key("web.host", _host, "127.0.0.1", "--host", "web page address", group="files and web",
        flag_help="address the web page listens on; anything but 127.0.0.1/localhost is LAN mode and needs the PIN"),
    Key("web.port", _port, 8080, "--port", "web page port", group="files and web",
        flag_help="port of the web page (0: any free port)"),
    Key("link.transport", _choice("off", "tcp", "serial", "ble"), "off", None,
        "play, record and demo also serve ChessLink apps over this transport (docs/chesslink.md); boardctl "
        "link is the command for it alone", group="files and web"),
    Key("link.port", _link_port, "", None, "the ChessLink app's TCP port or serial port (pyserial URL); empty: "
        "37000 for tcp, /dev/ttyGS0 for serial", group="files and web"),
    Key("link.host", _host, "0.0.0.0", None, "the address ChessLink over TCP listens on", group="files and web"),
    Key("terminal.pieces", _choice("unicode", "letters"), "unicode", "--pieces",
        "how the sim's terminal view draws pieces: unicode figurines or letters (KQRBNP, lower case for Black)"),
    Key("web.pin", _pin, "", None, "PIN the web page asks for; empty: generated on first start and stored"),
    Key("lichess.token", _token, "", None, "Lichess API token with scope board:play (boardctl online --set-token; "
        "never logged)", commands=frozenset()),
    Key("lichess.url", _url, "https://lichess.org", None, "the Lichess server boardctl online plays on",
        commands=frozenset()),
    Key("coach.enabled", _boolean, False, "--coach",
        "a full-strength coach judges your moves and lights a better one (when not set: on at "
        "practice1-practice5 only; false or --no-coach: never)",
        group="engine", commands=ENGINE_COMMANDS),
    Key("coach.movetime", _coach_seconds, 0.4, "--coach-movetime",
        "seconds of the coach's search per position (its verdict follows your move within about this)",
        group="engine", commands=ENGINE_COMMANDS, metavar="SECONDS"),
    Key("speech.enabled", _boolean, False, "--speech", "say moves, checks, results, touch-move and illegal moves "
        "aloud (espeak-ng)", group="game"),
    Key("speech.language", _choice("en", "zh"), "en", "--speech-language",
        "language of speech: en (English) or zh (Chinese, espeak-ng's cmn voice)", group="game"),
    Key("speech.voice", _voice, "", "--voice", "espeak-ng voice; empty: the language's own (en, cmn)",
        group="game", metavar="VOICE"),
    Key("speech.events", _speech_events, ("move", "result", "touch-move", "illegal", "lesson"), None,
        "which events are spoken: a list among move, result, touch-move, illegal, lesson", group="game"),
    Key("speech.sounds", _boolean, False, "--speech-sounds", "short sounds instead of spoken words", group="game"),
    Key("speech.output", _choice("play", "files"), "play", "--speech-output",
        "play: through the audio output (aplay); files: only write WAV files (in the data directory's speech/)",
        group="game"),
    Key("speech.rate", _speech_rate, 160, None, "speaking rate, words per minute (80-450)", group="game"),
    Key("broadcast.url", _broadcast_url, "", "--broadcast",
        "publish the game live to an MQTT broker, mqtt://BROKER[:PORT]/EVENT/BOARD (docs/broadcast.md); empty: off",
        group="files and web", metavar="URL"),
)
KEY_BY_NAME = {key.name: key for key in KEYS}


@dataclass(frozen=True)
class Config:
    """Checked settings. Field names are the keys with the dot replaced by an underscore."""

    board_backend: str
    board_serial_url: str
    board_serial_wait: bool
    board_orientation: str
    board_settle: float
    board_debounce: float
    board_pinout: str
    board_pin_factory: str
    engine_path: str
    engine_level: str
    engine_movetime: float
    game_color: str
    game_variant: str
    game_time_control: str
    game_policy: str
    game_arbiter: bool
    game_takeback: str
    game_legal_moves: bool
    game_blunder_warning: bool
    xiangqi_rules: str
    xiangqi_move_limit: int
    storage_games_dir: str
    web_enabled: bool
    web_host: str
    web_port: int
    link_transport: str
    link_port: str
    link_host: str
    terminal_pieces: str
    web_pin: str
    lichess_token: str = field(repr=False)  # never in a log line, not even the config's repr
    lichess_url: str
    coach_enabled: bool | None  # None: not set anywhere, so on at the practice levels only
    coach_movetime: float
    speech_enabled: bool
    speech_language: str
    speech_voice: str
    speech_events: tuple[str, ...]
    speech_sounds: bool
    speech_output: str
    speech_rate: int
    broadcast_url: str = field(repr=False)  # may hold a board's broker password

    @property
    def games_dir(self) -> Path:
        return Path(self.storage_games_dir) if self.storage_games_dir else data_dir() / "games"


def _known_keys(name: str) -> str:
    """The keys of ``name``'s section, or the sections when it names none (a short hint: the
    whole table, docs/config.md, no longer fits in one line)."""
    section = name.split(".", 1)[0]
    keys = [key for key in KEY_BY_NAME if key.split(".", 1)[0] == section]
    if keys:
        return f"known keys in [{section}]: {', '.join(keys)}"
    sections = dict.fromkeys(key.split(".", 1)[0] for key in KEY_BY_NAME)
    return f"known sections: {', '.join(sections)}; see docs/config.md"


def _flatten(table: Mapping[str, Any], source: str) -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for section, body in table.items():
        if not isinstance(body, dict):
            raise ConfigError(
                f"{source}: {short_repr(section)} must be a [section] table ({_known_keys(str(section))})"
            )
        for name, value in body.items():
            flat[f"{section}.{name}"] = value
    return flat


def _line_of(data: bytes | str, index: int) -> str:
    before = data[:index]
    newline = b"\n" if isinstance(before, bytes) else "\n"
    line = before.count(newline) + 1  # type: ignore[arg-type]
    column = index - (before.rfind(newline) + 1)  # type: ignore[arg-type]
    return f"line {line}, column {column + 1}"


def _decode(data: bytes, source: str) -> str:
    """The file as text: TOML is UTF-8 without a byte-order mark, and each other case is named."""
    for boms, name in (
        ((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE), "UTF-32"),
        ((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE), "UTF-16"),
    ):
        if data.startswith(boms):
            raise ConfigError(f"{source}: line 1: the file is {name} text; save it as UTF-8")
    if data.startswith(codecs.BOM_UTF8):
        raise ConfigError(
            f"{source}: line 1: the file starts with a UTF-8 byte-order mark (BOM), which TOML does not allow; "
            "save it as UTF-8 without BOM"
        )
    if len(data) >= 2 and b"\x00" in data[:2]:
        raise ConfigError(f"{source}: line 1: the file looks like UTF-16 text (NUL bytes); save it as UTF-8")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"{source}: {_line_of(data, exc.start)}: not UTF-8 text (byte 0x{data[exc.start]:02x}); save it as UTF-8"
        ) from None


# Strings and comments (whose brackets do not nest), brackets and newlines; unrolled for speed.
_TOML_TOKENS = re.compile(
    r'"""(?:[^"\\]|\\.|"(?!""))*"""|\'\'\'(?:[^\']|\'(?!\'\'))*\'\'\''
    r'|"[^"\\\n]*(?:\\.[^"\\\n]*)*"|\'[^\'\n]*\'|#[^\n]*|[0-9_]{101,}|[\[\]{}]|\n',
    re.DOTALL,
)


def _check_nesting(text: str, source: str) -> None:
    """Refuse arrays or inline tables nested deeper than MAX_NESTING, and numbers of more than
    100 digits, naming the line, before tomllib sees them (5,000 deep is a RecursionError there,
    5,000 digits a ValueError from Python's int limit)."""
    if text.count("[") + text.count("{") <= MAX_NESTING and not re.search(r"[0-9_]{101}", text):
        return
    depth, line = 0, 1
    for match in _TOML_TOKENS.finditer(text):
        token = match.group()
        if token == "\n":
            line += 1
        elif token[0] in "0123456789_":
            raise ConfigError(f"{source}: line {line}: a number of {len(token)} digits (at most 100)")
        elif token in "[{":
            depth += 1
            if depth > MAX_NESTING:
                raise ConfigError(f"{source}: line {line}: arrays or tables nested more than {MAX_NESTING} deep")
        elif token in "]}":
            depth = max(0, depth - 1)
        else:
            line += token.count("\n")


def read_file(path: Path) -> dict[str, Any]:
    """A TOML file as flat ``section.key`` values; a missing file is empty.

    Every fault is one :class:`ConfigError` naming the file and the line: unreadable, too big,
    not UTF-8 (UTF-16, a BOM, a stray byte), nested too deep, or not TOML.
    """
    try:
        with path.open("rb") as f:
            data = f.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read ({exc.strerror or exc})") from None
    except ValueError as exc:  # e.g. a NUL byte in the path given with --config
        raise ConfigError(f"{short_repr(str(path))}: cannot read ({exc})") from None
    if len(data) > MAX_FILE_BYTES:
        raise ConfigError(f"{path}: larger than {MAX_FILE_BYTES} bytes; is it a config file?")
    text = _decode(data, str(path))
    _check_nesting(text, str(path))
    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from None
    except (ValueError, RecursionError) as exc:  # e.g. an integer past Python's digit limit
        raise ConfigError(f"{path}: not valid TOML ({type(exc).__name__}: {short_repr(str(exc), 200)})") from None
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
    given: dict[str, str] = {}  # key -> where its value came from
    for source, layer in layers:
        for name, value in layer.items():
            given[name] = source
            key = KEY_BY_NAME.get(name)
            if key is None:
                raise ConfigError(f"{source}: unknown key {short_repr(name)} ({_known_keys(name)})")
            try:
                values[name] = key.check(value)
            except (ValueError, TypeError, OverflowError) as exc:
                where = f"{key.flag} ({name})" if source == "command line" and key.flag else name
                raise ConfigError(f"{source}: {where}: {exc}") from None
    _check_side(values, given)
    if "coach.enabled" not in given:
        values["coach.enabled"] = None  # neither true nor false was asked for: the practice levels decide
    return Config(**{name.replace(".", "_"): value for name, value in values.items()})


def _check_side(values: dict[str, Any], given: dict[str, str]) -> None:
    """``game.color`` names a side of ``game.variant``; the default (white) is the first side."""
    game, color = values["game.variant"], values["game.color"]
    sides = SIDES[game]
    if color in (*sides, "random"):
        return
    if "game.color" not in given:
        values["game.color"] = sides[0]
        return
    source = given["game.color"]
    key = KEY_BY_NAME["game.color"]
    where = f"{key.flag} (game.color)" if source == "command line" else "game.color"
    raise ConfigError(
        f"{source}: {where}: {color} is not a side in {game}; choose {sides[0]}, {sides[1]} or random"
    )
