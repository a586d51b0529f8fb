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
    Action,
    AppModeAction,
    ButtonAction,
    LessonAction,
    NewGameAction,
    SquareAction,
    StepAction,
)
from boardctl.config import check_level, check_time_control
from boardctl.core.rules import Variant
from boardctl.errors import BoardctlError
from boardctl.events import Button
from boardctl.jsonlimits import JsonInputError, loads, short_repr
from boardctl.positions import board_from_fen
from boardctl.records import MAX_PLIES, RecordError, SeveralGames, read_record
from boardctl.variants import get_variant

#: Largest message accepted from a browser (a PGN upload is the big one).
MAX_MESSAGE_BYTES = 64 * 1024
#: Largest PGN accepted for ``new-game``: a long game with clock comments is about 20 KB.
MAX_PGN_BYTES = 32 * 1024
#: Most main-line moves (plies) read from an uploaded PGN; the longest real games have about 550.
#: Variations are skipped unread, so their size costs only the tokenizer's pass.
MAX_PGN_PLIES = MAX_PLIES

#: The sides a chess game may be started with (a variant's own names otherwise, see :func:`colors`).
COLORS = ("white", "black", "random")
NEW_GAME_KEYS = frozenset({"color", "level", "time-control", "fen", "pgn", "opponent"})
_PIN_RE = re.compile(r"^[0-9]{4,12}$")


class WebInputError(BoardctlError, ValueError):
    """A message from the page is malformed; the text says which field and why.

    ``msg_id`` is the message's ``id`` when it could be read, for the reply."""

    def __init__(self, message: str, *, msg_id: int | None = None) -> None:
        super().__init__(message)
        self.msg_id = msg_id


class PinError(BoardctlError, PermissionError):
    """A state-changing request came from a LAN client without the right PIN."""


@dataclass(frozen=True, slots=True)
class ClientMessage:
    """One validated WebSocket message: the action for the daemon, plus the envelope."""

    action: Action
    id: int | None = None
    pin: str | None = None


def _type_name(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def _variant(variant: Variant | None) -> Variant:
    return variant if variant is not None else get_variant("chess")


def colors(variant: Variant | None = None) -> tuple[str, ...]:
    """The sides a new game may give the human: the game's two names, or ``random``."""
    return (*_variant(variant).color_names, "random")


def validate_fen(fen: Any, *, field: str = "fen", variant: Variant | None = None) -> str:
    """A FEN of ``variant`` (chess by default) that describes a position a game can start from."""
    if not isinstance(fen, str) or not fen.strip():
        raise WebInputError(f"{field}: expected a FEN string, got {_type_name(fen)}")
    if len(fen) > 100:
        raise WebInputError(f"{field}: too long for a FEN ({len(fen)} characters)")
    try:  # the one check of a set-up (boardctl.positions)
        return board_from_fen(fen, where=field, variant=_variant(variant)).fen()
    except ValueError as exc:
        raise WebInputError(str(exc)) from None


def fen_from_pgn(text: Any, *, field: str = "pgn", variant: Variant | None = None) -> str:
    """The position a PGN's main line ends in; rejects illegal moves, empty input, a file of several
    games (which one would be meant is not for us to guess), and input over :data:`MAX_PGN_BYTES`
    or :data:`MAX_PGN_PLIES`. Costs at most some tens of milliseconds."""
    return read_pgn_upload(text, field=field, variant=variant)[0]


def read_pgn_upload(text: Any, *, field: str = "pgn", variant: Variant | None = None) -> tuple[str, str]:
    """``(fen, note)``: the position an uploaded game ends in, and the note that says so (the new game
    starts there; the moves that led to it are not part of it)."""
    if not isinstance(text, str) or not text.strip():
        raise WebInputError(f"{field}: expected PGN text, got {_type_name(text)}")
    size = len(text.encode("utf-8", errors="replace"))
    if size > MAX_PGN_BYTES:
        raise WebInputError(f"{field}: {size} bytes, larger than the {MAX_PGN_BYTES} bytes accepted")
    game = _variant(variant)
    try:
        record = read_record(game, text, max_plies=MAX_PGN_PLIES)
        end = record.board_after(game)
    except SeveralGames as exc:
        raise WebInputError(
            f"{field}: the file holds {exc.count} games; upload a file with the one game to set up"
        ) from None
    except RecordError as exc:
        raise WebInputError(f"{field}: {exc}") from None
    fen = validate_fen(end.fen(), field=field, variant=game)
    plies = len(record.moves)
    white, black = (record.headers.get(tag, "?")[:60] for tag in (_first_tag(game), "Black"))
    players = f" ({white} - {black})" if (white, black) != ("?", "?") else ""
    note = (f"the uploaded game{players} is set up as it stands after "
            f"{plies} half-move{'s' if plies != 1 else ''}; the new game starts there, without those moves")
    return fen, note


def _first_tag(variant: Variant) -> str:
    """The tag naming the side that moves first: ``White``, or ``Red`` in xiangqi."""
    return variant.color_names[0].capitalize()


def _validate_new_game(params: Any, variant: Variant) -> NewGameAction:
    if params is None:
        return NewGameAction()
    if not isinstance(params, dict):
        raise WebInputError(f"new-game: expected an object, got {_type_name(params)}")
    unknown = set(params) - NEW_GAME_KEYS
    if unknown:
        raise WebInputError(
            f"new-game: unknown field(s) {', '.join(sorted(map(str, unknown)))} "
            f"(allowed: {', '.join(sorted(NEW_GAME_KEYS))})"
        )
    color = params.get("color")
    sides = colors(variant)
    if color is not None and color not in sides:
        raise WebInputError(f"new-game.color: expected one of {', '.join(sides)}, got {short_repr(color)}")
    level = params.get("level")
    if level == "":
        level = None  # the current level
    elif level is not None:
        if isinstance(level, bool) or not isinstance(level, str | int):
            raise WebInputError(f"new-game.level: expected a level name or an Elo number, got {_type_name(level)}")
        try:  # the one level rule (engine/levels.py), after trimming what a hand may add
            level = check_level(level.strip().lower() if isinstance(level, str) else level)
        except ValueError as exc:
            raise WebInputError(f"new-game.level: {exc}") from None
    tc = params.get("time-control")
    if tc is not None:
        try:
            tc = check_time_control(tc.strip() if isinstance(tc, str) else tc)
        except ValueError as exc:
            raise WebInputError(f"new-game.time-control: {exc}") from None
    if params.get("fen") not in (None, "") and params.get("pgn") not in (None, ""):
        raise WebInputError("new-game: give either fen or pgn, not both")
    fen = note = None
    if params.get("fen") not in (None, ""):
        fen = validate_fen(params["fen"], field="new-game.fen", variant=variant)
    elif params.get("pgn") not in (None, ""):
        fen, note = read_pgn_upload(params["pgn"], field="new-game.pgn", variant=variant)
    opponent = params.get("opponent")
    if opponent not in (None, ""):
        from boardctl.learning.characters import check_opponent

        try:
            opponent = check_opponent(opponent, variant=variant.name)
        except ValueError as exc:
            raise WebInputError(f"new-game.opponent: {exc}") from None
        if level is not None:
            raise WebInputError("new-game: give either level or opponent, not both")
    return NewGameAction(color=color, level=level, time_control=tc, fen=fen, note=note, opponent=opponent)


def validate_action(action: Any, *, variant: Variant | None = None) -> Action:
    """Check one action's shape and values for the game ``variant`` plays (chess by default);
    returns the typed action for ``daemon.submit``, which checks nothing again."""
    game = _variant(variant)
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
        if not game.geometry.is_name(square):
            example = f"e{game.geometry.first_rank + 3}"  # e4 in chess, e3 in xiangqi
            raise WebInputError(f"event.square: expected a square name like {example!r}, got {short_repr(square)}")
        if not isinstance(occupied, bool):
            raise WebInputError(f"event.occupied: expected true or false, got {short_repr(occupied)}")
        return SquareAction(game.geometry.parse(square), occupied)
    if kind == "button":
        try:
            return ButtonAction(Button(value))
        except (ValueError, TypeError):
            names = ", ".join(b.value for b in Button)
            raise WebInputError(f"button: unknown button {short_repr(value)} (one of {names})") from None
    if kind == "new-game":
        return _validate_new_game(value, game)
    if kind == "app-mode":  # the board answers ChessLink apps (docs/chesslink.md)
        if not isinstance(value, bool):
            raise WebInputError(f"app-mode: expected true or false, got {short_repr(value)}")
        return AppModeAction(value)
    if kind in ("lesson", "step"):  # boardctl learn and games step from the page
        from boardctl.guided_actions import validate_guided

        return validate_guided(kind, value)
    raise WebInputError(f"action: unknown kind {short_repr(kind)} (one of event, button, new-game)")


def action_to_json(action: Action, *, variant: Variant | None = None) -> dict[str, Any]:
    """The JSON form of a checked action (what the page sends); ``validate_action`` reads it back."""
    if isinstance(action, SquareAction):
        return {"event": {"square": _variant(variant).geometry.square_name(action.square), "occupied": action.occupied}}
    if isinstance(action, ButtonAction):
        return {"button": action.button.value}
    if isinstance(action, LessonAction):
        return {"lesson": {"name": action.name, "color": action.color, "quiz": action.quiz}}
    if isinstance(action, StepAction):
        return {"step": {"record": action.record, "watch": action.watch}}
    if isinstance(action, AppModeAction):
        return {"app-mode": action.on}
    params: dict[str, Any] = {}
    for key, value in (("color", action.color), ("level", action.level),
                       ("time-control", action.time_control), ("fen", action.fen),
                       ("opponent", action.opponent)):
        if value is not None:
            params[key] = value
    return {"new-game": params}


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
        raise WebInputError(f"message: expected a JSON object, got {_type_name(obj)}")
    msg_id = obj.get("id")
    if msg_id is not None and (isinstance(msg_id, bool) or not isinstance(msg_id, int) or abs(msg_id) >= 2**53):
        raise WebInputError(f"message.id: expected an integer below 2**53, got {_type_name(msg_id)}")
    unknown = set(obj) - {"id", "pin", "action"}
    if unknown:
        raise WebInputError(f"message: unknown key(s) {', '.join(sorted(map(str, unknown)))[:200]}", msg_id=msg_id)
    pin = obj.get("pin")
    if pin is not None:
        pin = str(pin) if isinstance(pin, int) and not isinstance(pin, bool) and 0 <= pin < 10**12 else pin
        if not isinstance(pin, str):
            raise WebInputError(f"message.pin: expected a string, got {_type_name(pin)}", msg_id=msg_id)
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
