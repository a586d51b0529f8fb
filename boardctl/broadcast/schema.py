"""The broadcast's contract, pure: the broker address, the topic layout and the two messages.

Every board writes under ``boardctl/<event>/<board>/``:

- ``game`` (retained, QoS 1): the whole game so far, numbered by ``seq``. A message is the full
  state, not a difference, so a late subscriber needs only the retained one, and a lost or
  doubled one costs nothing: the relay applies a ``seq`` once and never goes back to a lower one.
- ``status`` (retained, QoS 1): ``online`` true while the board is connected (a heartbeat every
  few seconds), false as its last will when the link drops.

The relay checks every message here (:func:`parse_snapshot`, :func:`parse_status`) before it looks
at the game: a message that is not what this module writes is refused with one line saying why.
"""

from __future__ import annotations

import math
import re
import urllib.parse
from dataclasses import asdict, dataclass, field
from typing import Any

from boardctl import jsonlimits
from boardctl.errors import BoardctlError
from boardctl.variants import NAMES as VARIANTS

#: The messages' format; a relay refuses any other.
VERSION = 1
#: The first level of every topic.
ROOT = "boardctl"
#: The largest message a relay reads (a 300-move game with clocks and notes is about 12 KiB).
MAX_PAYLOAD = 64 * 1024
#: Bounds on a game: far above any real game, low enough that one message costs little.
MAX_MOVES = 1200
MAX_VIOLATIONS = 400
MAX_TEXT = 200
#: An event's or a board's name: one topic level, no wildcards, readable in a URL.
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}")
DEFAULT_PORT = 1883
DEFAULT_TLS_PORT = 8883
#: MQTT keeps one session per client id: 23 characters are all a broker must accept.
_CLIENT_ID_CHARS = re.compile(r"[^A-Za-z0-9_-]")


class BroadcastError(BoardctlError, ValueError):
    """A broadcast address, topic or message that boardctl refuses; the message says why."""


@dataclass(frozen=True)
class BrokerAddress:
    """``mqtt://[USER[:PASSWORD]@]HOST[:PORT]/EVENT[/BOARD][?ca=FILE]`` (``mqtts://`` for TLS)."""

    host: str
    port: int
    event: str
    board: str | None = None
    tls: bool = False
    username: str | None = None
    password: str | None = field(default=None, repr=False)  # never in a log line
    ca_file: str | None = None

    def __str__(self) -> str:
        """The address without its password (what logs and pages may show)."""
        scheme = "mqtts" if self.tls else "mqtt"
        user = f"{self.username}@" if self.username else ""
        path = f"/{self.event}" + (f"/{self.board}" if self.board else "")
        return f"{scheme}://{user}{self.host}:{self.port}{path}"


_PASSWORD = re.compile(r"(//[^:/@]*:)[^@/]*@")


def redacted(text: str) -> str:
    """An address as an error may echo it: any password replaced by ``***``."""
    return _PASSWORD.sub(r"\1***@", text)


def parse_address(text: str, *, board: bool) -> BrokerAddress:
    """Read a broker address; ``board``: whether it must name a board (a board's ``--broadcast``)
    or must not (the relay's, which names only the event)."""
    where = "--broadcast" if board else "relay address"
    shape = "mqtt://BROKER[:PORT]/EVENT/BOARD" if board else "mqtt://BROKER[:PORT]/EVENT"
    if not isinstance(text, str) or len(text) > 500 or any(ord(c) < 33 for c in text):
        raise BroadcastError(f"{where}: must look like {shape}, got {jsonlimits.short_repr(redacted(str(text)))}")
    url = urllib.parse.urlsplit(text)
    if url.scheme not in ("mqtt", "mqtts") or not url.hostname:
        raise BroadcastError(f"{where}: must look like {shape} (mqtts:// for TLS), got "
                             f"{jsonlimits.short_repr(redacted(text))}")
    try:
        port = url.port
    except ValueError:
        raise BroadcastError(f"{where}: the port must be a number from 1 to 65535") from None
    parts = [p for p in url.path.split("/") if p]
    if len(parts) != (2 if board else 1):
        raise BroadcastError(f"{where}: must look like {shape}, got the path {jsonlimits.short_repr(url.path)}")
    for part in parts:
        if not NAME.fullmatch(part):
            raise BroadcastError(f"{where}: {jsonlimits.short_repr(part)} is not a name of letters, digits, "
                                 "'-', '_' or '.' (at most 40, no '+', '#' or '/')")
    query = urllib.parse.parse_qs(url.query)
    unknown = set(query) - {"ca"}
    if unknown:
        raise BroadcastError(f"{where}: unknown option {sorted(unknown)[0]!r} (only ?ca=FILE)")
    tls = url.scheme == "mqtts"
    return BrokerAddress(
        host=url.hostname, port=port or (DEFAULT_TLS_PORT if tls else DEFAULT_PORT), event=parts[0],
        board=parts[1] if board else None, tls=tls,
        username=urllib.parse.unquote(url.username) if url.username else None,
        password=urllib.parse.unquote(url.password) if url.password else None,
        ca_file=query["ca"][-1] if "ca" in query else None,
    )


def client_id(role: str, *names: str) -> str:
    """A stable MQTT client id (the broker keeps a persistent session per id)."""
    return _CLIENT_ID_CHARS.sub("_", "-".join(("bc", role, *names)))[:128]


def game_topic(event: str, board: str) -> str:
    return f"{ROOT}/{event}/{board}/game"


def status_topic(event: str, board: str) -> str:
    return f"{ROOT}/{event}/{board}/status"


def subscriptions(event: str) -> list[str]:
    """What a relay subscribes to: every board's two topics of ``event``."""
    return [f"{ROOT}/{event}/+/game", f"{ROOT}/{event}/+/status"]


def parse_topic(topic: str, event: str) -> tuple[str, str]:
    """``(board, kind)`` of a topic of ``event``; BroadcastError for anything else."""
    parts = topic.split("/")
    if len(parts) != 4 or parts[0] != ROOT or parts[1] != event or parts[3] not in ("game", "status"):
        raise BroadcastError(f"not a topic of event {event}: {jsonlimits.short_repr(topic)}")
    if not NAME.fullmatch(parts[2]):
        raise BroadcastError(f"not a board name: {jsonlimits.short_repr(parts[2])}")
    return parts[2], parts[3]


@dataclass(frozen=True)
class ViolationNote:
    """A rule violation as the board recorded it (``boardctl.storage.Violation``)."""

    ply: int
    code: str
    color: str
    detail: str


@dataclass(frozen=True)
class Snapshot:
    """One board's game as its ``game`` message carries it (docs/broadcast.md)."""

    seq: int
    event: str
    board: str
    game: str
    variant: str
    fen: str
    moves: tuple[str, ...]
    clocks: tuple[float | None, ...]
    result: str
    termination: str
    white: str
    black: str
    time_control: str
    #: The clock when the message was made: ``{first colour: s, second: s, "running": colour|None}``.
    clock: dict[str, Any] | None
    violations: tuple[ViolationNote, ...]
    #: The board's wall-clock time (Unix seconds) when it made the message.
    sent: float

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["moves"] = list(self.moves)
        data["clocks"] = list(self.clocks)
        data["violations"] = [asdict(v) for v in self.violations]
        return {"v": VERSION, **data}

    def same_game_content(self, other: Snapshot) -> bool:
        """Whether ``other`` says the same about the game (``seq``, ``sent`` and the running clock aside)."""
        mine = {k: v for k, v in self.to_json().items() if k not in ("seq", "sent", "clock")}
        theirs = {k: v for k, v in other.to_json().items() if k not in ("seq", "sent", "clock")}
        return mine == theirs


RESULTS = frozenset({"*", "1-0", "0-1", "1/2-1/2"})
_GAME_ID = re.compile(r"[0-9A-Za-z_.-]{1,40}")
_UCI = re.compile(r"[a-i](?:10|[0-9])[a-i](?:10|[0-9])[a-z]?")


def _text(data: dict[str, Any], key: str, *, limit: int = MAX_TEXT) -> str:
    value = data.get(key)
    if not isinstance(value, str) or len(value) > limit or any(ord(c) < 32 for c in value):
        raise BroadcastError(f"{key!r} must be a text of at most {limit} characters, got {jsonlimits.short_repr(value)}")
    return value


def _seconds(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or not 0 <= value < 1e7:
        raise BroadcastError(f"{what} must be a number of seconds from 0, got {jsonlimits.short_repr(value)}")
    return float(value)


def decode(payload: bytes) -> dict[str, Any]:
    """A message's JSON object, within :data:`MAX_PAYLOAD` and the JSON limits of ``jsonlimits``."""
    if len(payload) > MAX_PAYLOAD:
        raise BroadcastError(f"a message of {len(payload)} bytes refused (at most {MAX_PAYLOAD})")
    try:
        data = jsonlimits.loads(payload, max_bytes=MAX_PAYLOAD)
    except jsonlimits.JsonInputError as exc:
        raise BroadcastError(f"not a boardctl message: {exc}") from None
    if not isinstance(data, dict):
        raise BroadcastError(f"not a boardctl message: a JSON object expected, got {jsonlimits.short_repr(data)}")
    if data.get("v") != VERSION:
        raise BroadcastError(f"message version {jsonlimits.short_repr(data.get('v'))} (this relay reads {VERSION})")
    return data


def _header(data: dict[str, Any], *, event: str, board: str) -> int:
    seq = data.get("seq")
    if isinstance(seq, bool) or not isinstance(seq, int) or not 0 < seq < 2**53:
        raise BroadcastError(f"'seq' must be a whole number from 1, got {jsonlimits.short_repr(seq)}")
    if data.get("event") != event or data.get("board") != board:
        raise BroadcastError(f"says it is {jsonlimits.short_repr(data.get('event'))}/"
                             f"{jsonlimits.short_repr(data.get('board'))}, published on {event}/{board}: "
                             "someone else's topic")
    return seq


def parse_snapshot(payload: bytes, *, event: str, board: str) -> Snapshot:
    """A ``game`` message checked for shape and bounds (the moves' legality is the relay's check)."""
    data = decode(payload)
    seq = _header(data, event=event, board=board)
    game = data.get("game")
    if not isinstance(game, str) or not _GAME_ID.fullmatch(game):
        raise BroadcastError(f"'game' must be a game id, got {jsonlimits.short_repr(game)}")
    variant = data.get("variant")
    if variant not in VARIANTS:
        raise BroadcastError(f"'variant' must be one of {', '.join(VARIANTS)}, got {jsonlimits.short_repr(variant)}")
    moves = data.get("moves")
    if not isinstance(moves, list) or len(moves) > MAX_MOVES or not all(
            isinstance(m, str) and _UCI.fullmatch(m) for m in moves):
        raise BroadcastError(f"'moves' must be a list of at most {MAX_MOVES} moves like e2e4")
    clocks = data.get("clocks")
    if not isinstance(clocks, list) or len(clocks) > len(moves):
        raise BroadcastError("'clocks' must be a list with at most one time per move")
    times = tuple(None if c is None else _seconds(c, "a move's clock") for c in clocks)
    result = data.get("result")
    if result not in RESULTS:
        raise BroadcastError(f"'result' must be one of {', '.join(sorted(RESULTS))}, got {jsonlimits.short_repr(result)}")
    violations = data.get("violations")
    if not isinstance(violations, list) or len(violations) > MAX_VIOLATIONS:
        raise BroadcastError(f"'violations' must be a list of at most {MAX_VIOLATIONS}")
    notes = []
    for item in violations:
        if not isinstance(item, dict) or not isinstance(item.get("ply"), int) or isinstance(item.get("ply"), bool) \
                or not 0 <= item["ply"] <= len(moves):
            raise BroadcastError("a violation must have a 'ply' within the game")
        notes.append(ViolationNote(item["ply"], _text(item, "code", limit=40), _text(item, "color", limit=10),
                                   _text(item, "detail")))
    sent = data.get("sent")
    if isinstance(sent, bool) or not isinstance(sent, int | float) or not math.isfinite(sent) or not 0 < sent < 1e11:
        raise BroadcastError(f"'sent' must be a Unix time, got {jsonlimits.short_repr(sent)}")
    return Snapshot(
        seq=seq, event=event, board=board, game=game, variant=variant, fen=_text(data, "fen", limit=120),
        moves=tuple(moves), clocks=times, result=result, termination=_text(data, "termination"),
        white=_text(data, "white", limit=100), black=_text(data, "black", limit=100),
        time_control=_text(data, "time_control", limit=40), clock=_clock(data.get("clock")),
        violations=tuple(notes), sent=float(sent),
    )


def _clock(value: Any) -> dict[str, Any] | None:
    if value is None:
        return None
    if not isinstance(value, dict) or len(value) != 3 or "running" not in value:
        raise BroadcastError("'clock' must be null or {side: seconds, side: seconds, 'running': side or null}")
    sides = [k for k in value if k != "running"]
    checked: dict[str, Any] = {side: _seconds(value[side], f"the {side} clock") for side in sides}
    if value["running"] is not None and value["running"] not in sides:
        raise BroadcastError(f"'clock.running' must be a side or null, got {jsonlimits.short_repr(value['running'])}")
    checked["running"] = value["running"]
    return checked


@dataclass(frozen=True)
class Status:
    """A board's ``status`` message: connected or not, and the ``seq`` of its latest game message."""

    board: str
    online: bool
    seq: int
    sent: float

    def to_json(self, event: str) -> dict[str, Any]:
        return {"v": VERSION, "event": event, "board": self.board, "online": self.online, "seq": self.seq,
                "sent": self.sent}


def parse_status(payload: bytes, *, event: str, board: str) -> Status:
    data = decode(payload)
    seq = data.get("seq")
    if isinstance(seq, bool) or not isinstance(seq, int) or not 0 <= seq < 2**53:
        raise BroadcastError(f"'seq' must be a whole number, got {jsonlimits.short_repr(seq)}")
    if data.get("event") != event or data.get("board") != board:
        raise BroadcastError(f"status says it is {jsonlimits.short_repr(data.get('event'))}/"
                             f"{jsonlimits.short_repr(data.get('board'))}, published on {event}/{board}")
    online = data.get("online")
    if not isinstance(online, bool):
        raise BroadcastError(f"'online' must be true or false, got {jsonlimits.short_repr(online)}")
    sent = data.get("sent")
    if isinstance(sent, bool) or not isinstance(sent, int | float) or not math.isfinite(sent) or not 0 < sent < 1e11:
        raise BroadcastError(f"'sent' must be a Unix time, got {jsonlimits.short_repr(sent)}")
    return Status(board=board, online=online, seq=seq, sent=float(sent))
