"""The board-to-board protocol: JSON text messages over one WebSocket (docs/network-protocol.md).

Pure: text in, a validated message out (or :class:`ProtocolError` naming what is wrong), and
messages out as text. Moves are numbered by ``ply`` (0 is the game's first move), so a message
sent twice is recognised and nothing is applied twice or lost.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from boardctl.errors import BoardctlError

#: The protocol's version; a peer speaking another is refused in ``hello``.
VERSION = 1
#: The longest message accepted (a full game's state is a few kilobytes).
MAX_MESSAGE_BYTES = 65536
#: The most moves a game may have in a ``state`` message.
MAX_MOVES = 2000
_UCI = re.compile(r"[a-i](?:10|[0-9])[a-i](?:10|[0-9])[qrbn]?")
_CODE = re.compile(r"[A-Z2-9]{4,16}")
_TOKEN = re.compile(r"[A-Za-z0-9_-]{16,128}")
_RESULTS = ("*", "1-0", "0-1", "1/2-1/2")
_COLORS = ("white", "black", "red")
REQUESTS = ("draw", "takeback", "resign", "claim", "rematch", "accept", "decline")


class ProtocolError(BoardctlError, ValueError):
    """A message that is not valid JSON of this protocol; the text says what and where."""


@dataclass(frozen=True)
class Hello:
    """Guest -> host, first: the invitation ``code`` (once) or the game's ``token`` (after)."""

    variant: str
    code: str | None = None
    token: str | None = None
    version: int = VERSION
    type: Literal["hello"] = "hello"


@dataclass(frozen=True)
class Welcome:
    """Host -> guest: the game the guest joined, and the token for reconnects and restarts; sent
    again with a new ``game`` (colours swapped, the same token) when a rematch begins."""

    token: str
    game: str
    color: str  # the guest's colour
    variant: str
    fen: str
    white: str
    black: str
    time_control: str
    version: int = VERSION
    type: Literal["welcome"] = "welcome"


@dataclass(frozen=True)
class MoveMsg:
    """Guest -> host: the guest's move number ``ply`` (from 0), made on its board."""

    ply: int
    uci: str
    type: Literal["move"] = "move"


@dataclass(frozen=True)
class State:
    """Host -> guest: the authoritative game: every move, each move's clock, the clocks now."""

    moves: tuple[str, ...]
    clocks: tuple[float | None, ...]
    remaining: dict[str, float] = field(default_factory=dict)
    running: str | None = None
    result: str = "*"
    termination: str = ""
    #: The position after ``moves`` (for a phone's page, which has no rules of its own).
    fen: str = ""
    #: ``moves`` in the game's notation (SAN; WXF in xiangqi), for the phone's page; empty from
    #: a host that does not send them.
    san: tuple[str, ...] = ()
    type: Literal["state"] = "state"


@dataclass(frozen=True)
class Request:
    """Either way: a draw offer, a takeback request, resignation, a claim, a rematch offer (after
    the result), or the answer to an offer."""

    kind: str
    type: Literal["request"] = "request"


@dataclass(frozen=True)
class Takeback:
    """Host -> guest: a takeback was agreed; the game is ``moves`` plies long now."""

    moves: int
    type: Literal["takeback"] = "takeback"


@dataclass(frozen=True)
class Error:
    """Either way: what was refused; ``fatal`` closes the connection (wrong code, other game)."""

    message: str
    fatal: bool = False
    type: Literal["error"] = "error"


Message = Hello | Welcome | MoveMsg | State | Request | Takeback | Error


def dumps(message: Message) -> str:
    data = asdict(message)
    for key in ("moves", "clocks"):
        if isinstance(data.get(key), tuple):
            data[key] = list(data[key])
    return json.dumps({k: v for k, v in data.items() if v is not None or k in ("running",)}, separators=(",", ":"))


def _need(obj: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if key not in obj:
        raise ProtocolError(f"{where}: missing {key!r}")
    value = obj[key]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise ProtocolError(f"{where}: {key!r} has the wrong type ({type(value).__name__})")
    return value


def _string(obj: dict[str, Any], key: str, where: str, *, pattern: re.Pattern[str] | None = None,
            choices: tuple[str, ...] | None = None, limit: int = 200, optional: bool = False) -> str | None:
    if optional and obj.get(key) is None:
        return None
    value = _need(obj, key, str, where)
    if len(value) > limit:
        raise ProtocolError(f"{where}: {key!r} is too long")
    if pattern is not None and not pattern.fullmatch(value):
        raise ProtocolError(f"{where}: {key!r} is not valid: {value[:40]!r}")
    if choices is not None and value not in choices:
        raise ProtocolError(f"{where}: {key!r} must be one of {', '.join(choices)}, got {value[:40]!r}")
    return str(value)


def _ply(obj: dict[str, Any], key: str, where: str) -> int:
    value = _need(obj, key, int, where)
    if not 0 <= value <= MAX_MOVES:
        raise ProtocolError(f"{where}: {key!r} out of range: {value}")
    return int(value)


def _seconds(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or not 0 <= value < 1e7:
        raise ProtocolError(f"{where}: not a time in seconds: {str(value)[:40]!r}")
    return float(value)


def parse(text: str | bytes, *, where: str = "message") -> Message:
    """One message, validated; ProtocolError says what is wrong (never anything else)."""
    if len(text) > MAX_MESSAGE_BYTES:
        raise ProtocolError(f"{where}: longer than {MAX_MESSAGE_BYTES} bytes")
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError):
        raise ProtocolError(f"{where}: not JSON") from None
    if not isinstance(obj, dict):
        raise ProtocolError(f"{where}: not a JSON object")
    kind = obj.get("type")
    where = f"{where} ({str(kind)[:20]})" if isinstance(kind, str) else where
    if kind == "hello":
        version = _need(obj, "version", int, where)
        if version != VERSION:
            raise ProtocolError(f"{where}: protocol version {version}, this board speaks {VERSION}")
        code = _string(obj, "code", where, pattern=_CODE, optional=True)
        token = _string(obj, "token", where, pattern=_TOKEN, optional=True)
        if (code is None) == (token is None):
            raise ProtocolError(f"{where}: give either 'code' or 'token'")
        return Hello(variant=str(_string(obj, "variant", where, limit=20)), code=code, token=token)
    if kind == "welcome":
        return Welcome(
            token=str(_string(obj, "token", where, pattern=_TOKEN)),
            game=str(_string(obj, "game", where, pattern=re.compile(r"[A-Za-z0-9._-]{1,64}"))),
            color=str(_string(obj, "color", where, choices=_COLORS)),
            variant=str(_string(obj, "variant", where, limit=20)),
            fen=str(_string(obj, "fen", where)),
            white=str(_string(obj, "white", where, limit=100)),
            black=str(_string(obj, "black", where, limit=100)),
            time_control=str(_string(obj, "time_control", where, limit=20)),
        )
    if kind == "move":
        return MoveMsg(ply=_ply(obj, "ply", where), uci=str(_string(obj, "uci", where, pattern=_UCI)))
    if kind == "state":
        moves = _need(obj, "moves", list, where)
        clocks = _need(obj, "clocks", list, where)
        if len(moves) > MAX_MOVES or len(clocks) != len(moves):
            raise ProtocolError(f"{where}: 'moves' and 'clocks' must be lists of the same length (at most {MAX_MOVES})")
        for i, move in enumerate(moves):
            if not isinstance(move, str) or not _UCI.fullmatch(move):
                raise ProtocolError(f"{where}: moves[{i}] is not a move: {str(move)[:40]!r}")
        times = tuple(None if c is None else _seconds(c, f"{where}: clocks[{i}]") for i, c in enumerate(clocks))
        remaining_raw = obj.get("remaining", {})
        if not isinstance(remaining_raw, dict) or not set(remaining_raw) <= set(_COLORS):
            raise ProtocolError(f"{where}: 'remaining' must map colours to seconds")
        remaining = {str(k): _seconds(v, f"{where}: remaining") for k, v in remaining_raw.items()}
        running = _string(obj, "running", where, choices=_COLORS, optional=True)
        result = _string(obj, "result", where, choices=_RESULTS)
        termination = _string(obj, "termination", where, limit=200)
        fen = _string(obj, "fen", where, limit=200, optional=True) or ""
        san = obj.get("san", [])
        if not isinstance(san, list) or (san and len(san) != len(moves)) or not all(
                isinstance(text, str) and 0 < len(text) <= 20 and text.isprintable() for text in san):
            raise ProtocolError(f"{where}: 'san' must be the moves' names, one per move (at most 20 characters each)")
        return State(tuple(moves), times, remaining, running, str(result), str(termination), fen, tuple(san))
    if kind == "request":
        return Request(kind=str(_string(obj, "kind", where, choices=REQUESTS)))
    if kind == "takeback":
        return Takeback(moves=_ply(obj, "moves", where))
    if kind == "error":
        fatal = obj.get("fatal", False)
        if not isinstance(fatal, bool):
            raise ProtocolError(f"{where}: 'fatal' must be true or false")
        return Error(message=str(_string(obj, "message", where, limit=500)), fatal=fatal)
    raise ProtocolError(f"{where}: unknown message type {str(kind)[:20]!r}")
