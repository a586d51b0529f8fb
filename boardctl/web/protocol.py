"""The web page's messages: pure validation of what a browser sends, before the daemon sees it.

A WebSocket message from the page is one JSON object::

    {"id": 7, "pin": "123456", "action": {"event": {"square": "e2", "occupied": false}}}

``id`` (optional) is echoed in the reply ``{"reply": 7, "ok": true}`` or
``{"reply": 7, "error": "..."}``; ``pin`` is needed only when the server is in LAN mode.
``{"id": 8, "pin": "123456"}`` with no action only gives the PIN: in LAN mode the socket then gets
what only PIN holders see (a hosted network game's ``invite``, docs/network-protocol.md).
``POST /api/action`` takes the bare action as its body and the PIN in ``X-Boardctl-Pin``.

An action is checked here, once, into a typed value of :mod:`boardctl.actions` that the daemon
carries out without checking it again; the JSON forms are:

- ``{"event": {"square": "e2", "occupied": false}}``: a virtual-board lift or place (a square of
  the game being played: ``e0`` in xiangqi);
- ``{"button": "hint"}``: any :class:`boardctl.events.Button` value;
- ``{"new-game": {"color": "white", "level": "beginner", "time-control": "15+10", "fen": "..."}}``,
  every field optional; ``"pgn"`` instead of ``"fen"`` sets up the position a PGN ends in
  (at most :data:`MAX_PGN_BYTES` and :data:`MAX_PGN_PLIES` main-line moves; variations are skipped).

The server reads a message in this order: the lockout, the envelope (:func:`parse_envelope`, for
the PIN), the PIN, and only then the action (:func:`validate_action`; a PGN in a worker thread).

Every check names the field it rejects, so the page can show the message as it is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from boardctl.actions import (
    COLORS,
    MAX_PGN_BYTES,
    MAX_PGN_PLIES,
    NEW_GAME_KEYS,
    Action,
    WebInputError,
    action_to_json,
    colors,
    fen_from_pgn,
    read_pgn_upload,
    type_name,
    validate_action,
    validate_fen,
)
from boardctl.core.rules import Variant
from boardctl.errors import PinError
from boardctl.jsonlimits import JsonInputError, loads

#: The actions' JSON is checked in boardctl.actions; these names stay importable from here.
__all__ = [
    "COLORS",
    "MAX_MESSAGE_BYTES",
    "MAX_PGN_BYTES",
    "MAX_PGN_PLIES",
    "NEW_GAME_KEYS",
    "Action",
    "ClientMessage",
    "Envelope",
    "PinError",
    "WebInputError",
    "action_to_json",
    "colors",
    "decode_json",
    "fen_from_pgn",
    "needs_worker",
    "parse_action",
    "parse_client_message",
    "parse_envelope",
    "parse_json",
    "read_pgn_upload",
    "validate_action",
    "validate_fen",
    "validate_pin_text",
]

#: Largest message accepted from a browser (a PGN upload is the big one).
MAX_MESSAGE_BYTES = 64 * 1024
_PIN_RE = re.compile(r"^[0-9]{4,12}$")


@dataclass(frozen=True, slots=True)
class ClientMessage:
    """One validated WebSocket message: the action for the daemon, plus the envelope."""

    action: Action
    id: int | None = None
    pin: str | None = None


def decode_json(text: str | bytes, *, what: str) -> Any:
    """JSON from the page, within :mod:`boardctl.jsonlimits`' limits (size, nesting, digits):
    a hostile message gets an error reply, never a 500 or a dropped socket."""
    try:
        return loads(text, max_bytes=MAX_MESSAGE_BYTES)
    except JsonInputError as exc:
        raise WebInputError(f"{what}: {exc}") from None


def parse_action(body: str | bytes, *, variant: Variant | None = None) -> Action:
    """The body of ``POST /api/action``: one action, checked as :func:`validate_action` does."""
    return validate_action(decode_json(body, what="action"), variant=variant)


def validate_pin_text(pin: Any, *, field: str = "pin") -> str:
    """A PIN is 4 to 12 digits."""
    if not isinstance(pin, str) or not _PIN_RE.match(pin):
        raise WebInputError(f"{field}: expected 4 to 12 digits")
    return pin


@dataclass(frozen=True, slots=True)
class Envelope:
    """A WebSocket message's envelope: what is needed to check the PIN, with the action unread."""

    action: Any
    id: int | None = None
    pin: str | None = None
    #: ``{"pin": ...}`` with no action: the page gives its PIN (LAN mode) to see what only PIN
    #: holders see (the network game's invitation), and changes nothing.
    pin_only: bool = False


def parse_json(text: str | bytes, *, where: str = "message") -> Any:
    """JSON from a browser, at most :data:`MAX_MESSAGE_BYTES`; any failure (bad syntax or bytes,
    nesting too deep, a number too long) is a :class:`WebInputError` naming ``where``."""
    return decode_json(text, what=where)


def parse_envelope(text: str | bytes) -> Envelope:
    """The envelope of one WebSocket message (see the module docstring); the action is not
    validated, so the server can check the PIN before it spends anything on the action."""
    obj = parse_json(text)
    if not isinstance(obj, dict):
        raise WebInputError(f"message: expected a JSON object, got {type_name(obj)}")
    msg_id = obj.get("id")
    if msg_id is not None and (isinstance(msg_id, bool) or not isinstance(msg_id, int) or abs(msg_id) >= 2**53):
        raise WebInputError(f"message.id: expected an integer below 2**53, got {type_name(msg_id)}")
    unknown = set(obj) - {"id", "pin", "action"}
    if unknown:
        raise WebInputError(f"message: unknown key(s) {', '.join(sorted(map(str, unknown)))[:200]}", msg_id=msg_id)
    pin = obj.get("pin")
    if pin is not None:
        pin = str(pin) if isinstance(pin, int) and not isinstance(pin, bool) and 0 <= pin < 10**12 else pin
        if not isinstance(pin, str):
            raise WebInputError(f"message.pin: expected a string, got {type_name(pin)}", msg_id=msg_id)
    if "action" not in obj:
        if pin is not None:
            return Envelope(None, msg_id, pin, pin_only=True)
        raise WebInputError("message: missing 'action'", msg_id=msg_id)
    return Envelope(obj["action"], msg_id, pin)


def needs_worker(action: Any) -> bool:
    """Whether validating ``action`` parses a PGN (worth a worker thread)."""
    if not isinstance(action, dict):
        return False
    params = action.get("new-game")
    return isinstance(params, dict) and params.get("pgn") not in (None, "")


def parse_client_message(text: str | bytes, *, variant: Variant | None = None) -> ClientMessage:
    """Parse and validate one WebSocket message (see the module docstring)."""
    envelope = parse_envelope(text)
    if envelope.pin_only:
        raise WebInputError("message: missing 'action'", msg_id=envelope.id)
    try:
        action = validate_action(envelope.action, variant=variant)
    except WebInputError as exc:
        raise WebInputError(str(exc), msg_id=envelope.id) from None
    return ClientMessage(action, envelope.id, envelope.pin)
