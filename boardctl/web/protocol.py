"""The web page's messages: pure validation of what a browser sends, before the daemon sees it.

A WebSocket message from the page is one JSON object::

    {"id": 7, "pin": "123456", "action": {"event": {"square": "e2", "occupied": false}}}

``id`` (optional) is echoed in the reply ``{"reply": 7, "ok": true}`` or
``{"reply": 7, "error": "..."}``; ``pin`` is needed only when the server is in LAN mode.
``POST /api/action`` takes the bare action as its body and the PIN in ``X-Boardctl-Pin``.

Actions are exactly the daemon's (see ``boardctl.daemon``):

- ``{"event": {"square": "e2", "occupied": false}}``: a virtual-board lift or place;
- ``{"button": "hint"}``: any :class:`boardctl.events.Button` value;
- ``{"new-game": {"color": "white", "level": "beginner", "time-control": "15+10", "fen": "..."}}``,
  every field optional; ``"pgn"`` instead of ``"fen"`` sets up the position a PGN ends in.

Every check names the field it rejects, so the page can show the message as it is.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from typing import Any

import chess
import chess.pgn

from boardctl.errors import BoardctlError
from boardctl.events import Button
from boardctl.jsonlimits import JsonInputError, loads, short_repr

#: Largest message accepted from a browser (a PGN upload is the big one).
MAX_MESSAGE_BYTES = 64 * 1024

COLORS = ("white", "black", "random")
NEW_GAME_KEYS = frozenset({"color", "level", "time-control", "fen", "pgn"})
_LEVEL_RE = re.compile(r"^[a-z][a-z0-9-]{0,31}$|^[0-9]{3,4}$")
_TIME_CONTROL_RE = re.compile(r"^[0-9]{1,4}(\.[0-9]+)?\+[0-9]{1,3}$")
_PIN_RE = re.compile(r"^[0-9]{4,12}$")


class WebInputError(BoardctlError, ValueError):
    """A message from the page is malformed; the text says which field and why."""


class PinError(BoardctlError, PermissionError):
    """A state-changing request came from a LAN client without the right PIN."""


@dataclass(frozen=True, slots=True)
class ClientMessage:
    """One validated WebSocket message: the action for the daemon, plus the envelope."""

    action: dict[str, Any]
    id: int | None = None
    pin: str | None = None


def _type_name(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def validate_fen(fen: Any, *, field: str = "fen") -> str:
    """A FEN that python-chess accepts and that describes a legal position."""
    if not isinstance(fen, str) or not fen.strip():
        raise WebInputError(f"{field}: expected a FEN string, got {_type_name(fen)}")
    if len(fen) > 100:
        raise WebInputError(f"{field}: too long for a FEN ({len(fen)} characters)")
    try:
        board = chess.Board(fen.strip())
    except ValueError as exc:
        raise WebInputError(f"{field}: not a valid FEN ({exc})") from None
    status = board.status()
    if status != chess.STATUS_VALID:
        problems = [flag.name.lower().replace("_", " ") for flag in chess.Status if flag and flag in status and flag.name]
        raise WebInputError(f"{field}: impossible position ({', '.join(problems)})")
    return board.fen()


def fen_from_pgn(text: Any, *, field: str = "pgn") -> str:
    """The position a PGN's main line ends in; rejects illegal moves and empty input."""
    if not isinstance(text, str) or not text.strip():
        raise WebInputError(f"{field}: expected PGN text, got {_type_name(text)}")
    if len(text.encode()) > MAX_MESSAGE_BYTES:
        raise WebInputError(f"{field}: larger than {MAX_MESSAGE_BYTES} bytes")
    try:
        game = chess.pgn.read_game(io.StringIO(text))
    except Exception as exc:  # python-chess's reader trips on some garbage ("e5 ) !!": IndexError)
        raise WebInputError(f"{field}: not a readable PGN ({type(exc).__name__})") from None
    if game is None:
        raise WebInputError(f"{field}: no game found")
    if game.errors:
        raise WebInputError(f"{field}: {game.errors[0]}")
    board = game.end().board()
    if not game.headers.get("FEN") and not board.move_stack and not game.variations:
        raise WebInputError(f"{field}: the game has no moves and no FEN tag")
    return validate_fen(board.fen(), field=field)


def _validate_new_game(params: Any) -> dict[str, Any]:
    if params is None:
        return {}
    if not isinstance(params, dict):
        raise WebInputError(f"new-game: expected an object, got {_type_name(params)}")
    unknown = set(params) - NEW_GAME_KEYS
    if unknown:
        raise WebInputError(
            f"new-game: unknown field(s) {', '.join(sorted(map(str, unknown)))} "
            f"(allowed: {', '.join(sorted(NEW_GAME_KEYS))})"
        )
    out: dict[str, Any] = {}
    color = params.get("color")
    if color is not None:
        if color not in COLORS:
            raise WebInputError(f"new-game.color: expected one of {', '.join(COLORS)}, got {short_repr(color)}")
        out["color"] = color
    level = params.get("level")
    if level is not None and level != "":
        if isinstance(level, bool) or not isinstance(level, str | int):
            raise WebInputError(f"new-game.level: expected a level name or an Elo number, got {_type_name(level)}")
        text = str(level).strip().lower()
        if not _LEVEL_RE.match(text):
            raise WebInputError(
                f"new-game.level: {short_repr(level)} is neither a level name (e.g. 'beginner', 'practice3') "
                "nor an Elo number (e.g. 1500)"
            )
        out["level"] = text
    tc = params.get("time-control")
    if tc == "":
        out["time-control"] = ""  # explicitly no clock
    elif tc is not None:
        if not isinstance(tc, str) or not _TIME_CONTROL_RE.match(tc.strip()):
            raise WebInputError(
                f"new-game.time-control: expected minutes+increment seconds such as '15+10' (or empty for no clock), got {short_repr(tc)}"
            )
        out["time-control"] = tc.strip()
    if params.get("fen") not in (None, "") and params.get("pgn") not in (None, ""):
        raise WebInputError("new-game: give either fen or pgn, not both")
    if params.get("fen") not in (None, ""):
        out["fen"] = validate_fen(params["fen"], field="new-game.fen")
    elif params.get("pgn") not in (None, ""):
        out["fen"] = fen_from_pgn(params["pgn"], field="new-game.pgn")
    return out


def validate_action(action: Any) -> dict[str, Any]:
    """Check one action's shape and values; returns the normalised action for ``daemon.submit``."""
    if not isinstance(action, dict):
        raise WebInputError(f"action: expected an object, got {_type_name(action)}")
    if len(action) != 1:
        raise WebInputError(
            f"action: expected exactly one of event, button, new-game, got {sorted(map(str, action)) or 'nothing'}"
        )
    ((kind, value),) = action.items()
    if kind == "event":
        if not isinstance(value, dict) or set(value) != {"square", "occupied"}:
            raise WebInputError('event: expected {"square": "e2", "occupied": true|false}')
        square, occupied = value["square"], value["occupied"]
        if not isinstance(square, str) or square not in chess.SQUARE_NAMES:
            raise WebInputError(f"event.square: expected a square name like 'e4', got {short_repr(square)}")
        if not isinstance(occupied, bool):
            raise WebInputError(f"event.occupied: expected true or false, got {short_repr(occupied)}")
        return {"event": {"square": square, "occupied": occupied}}
    if kind == "button":
        try:
            return {"button": str(Button(value))}
        except (ValueError, TypeError):
            names = ", ".join(b.value for b in Button)
            raise WebInputError(f"button: unknown button {short_repr(value)} (one of {names})") from None
    if kind == "new-game":
        return {"new-game": _validate_new_game(value)}
    raise WebInputError(f"action: unknown kind {short_repr(kind)} (one of event, button, new-game)")


def decode_json(text: str | bytes, *, what: str) -> Any:
    """JSON from the page, within :mod:`boardctl.jsonlimits`' limits (size, nesting, digits):
    a hostile message gets an error reply, never a 500 or a dropped socket."""
    try:
        return loads(text, max_bytes=MAX_MESSAGE_BYTES)
    except JsonInputError as exc:
        raise WebInputError(f"{what}: {exc}") from None


def parse_action(body: str | bytes) -> dict[str, Any]:
    """The body of ``POST /api/action``: one action, checked as :func:`validate_action` does."""
    return validate_action(decode_json(body, what="action"))


def validate_pin_text(pin: Any, *, field: str = "pin") -> str:
    """A PIN is 4 to 12 digits."""
    if not isinstance(pin, str) or not _PIN_RE.match(pin):
        raise WebInputError(f"{field}: expected 4 to 12 digits")
    return pin


def parse_client_message(text: str | bytes) -> ClientMessage:
    """Parse one WebSocket message from the page (see the module docstring)."""
    obj = decode_json(text, what="message")
    if not isinstance(obj, dict):
        raise WebInputError(f"message: expected a JSON object, got {_type_name(obj)}")
    unknown = set(obj) - {"id", "pin", "action"}
    if unknown:
        raise WebInputError(f"message: unknown key(s) {', '.join(sorted(map(str, unknown)))}")
    msg_id = obj.get("id")
    if msg_id is not None and (isinstance(msg_id, bool) or not isinstance(msg_id, int)):
        raise WebInputError(f"message.id: expected an integer, got {_type_name(msg_id)}")
    pin = obj.get("pin")
    if pin is not None:
        pin = str(pin) if isinstance(pin, int) and not isinstance(pin, bool) else pin
        if not isinstance(pin, str):
            raise WebInputError(f"message.pin: expected a string, got {_type_name(pin)}")
    if "action" not in obj:
        raise WebInputError("message: missing 'action'")
    return ClientMessage(validate_action(obj["action"]), msg_id, pin)
