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
#: Largest PGN accepted for ``new-game``: a long game with clock comments is about 20 KB.
MAX_PGN_BYTES = 32 * 1024
#: Most main-line moves (plies) read from an uploaded PGN; the longest real games have about 550.
#: Variations are skipped unread, so their size costs only the tokenizer's pass.
MAX_PGN_PLIES = 1000

COLORS = ("white", "black", "random")
NEW_GAME_KEYS = frozenset({"color", "level", "time-control", "fen", "pgn"})
_LEVEL_RE = re.compile(r"^[a-z][a-z0-9-]{0,31}$|^[0-9]{3,4}$")
_TIME_CONTROL_RE = re.compile(r"^[0-9]{1,4}(\.[0-9]+)?\+[0-9]{1,3}$")
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


class _EndBoard(chess.pgn.BoardBuilder):
    """The main line's last position, counting plies (over :data:`MAX_PGN_PLIES` stops the read)
    and keeping the first error instead of raising it; variations are skipped."""

    def begin_game(self) -> None:
        super().begin_game()
        self.board = chess.Board()  # replaced by visit_board; kept when a bad FEN tag never sets one
        self.plies = 0
        self.has_fen = False
        self.white = self.black = "?"
        self.errors: list[Exception] = []

    def visit_header(self, tagname: str, tagvalue: str) -> None:
        super().visit_header(tagname, tagvalue)
        if tagname == "FEN":
            self.has_fen = True
        elif tagname == "White":
            self.white = tagvalue[:60]
        elif tagname == "Black":
            self.black = tagvalue[:60]

    def visit_move(self, board: chess.Board, move: chess.Move) -> None:
        if not self.skip_variation_depth:
            self.plies += 1
            if self.plies > MAX_PGN_PLIES:
                raise _TooLong

    def handle_error(self, error: Exception) -> None:
        self.errors.append(error)


class _TooLong(Exception):
    pass


def fen_from_pgn(text: Any, *, field: str = "pgn") -> str:
    """The position a PGN's main line ends in; rejects illegal moves, empty input, a file of several
    games (which one would be meant is not for us to guess), and input over :data:`MAX_PGN_BYTES`
    or :data:`MAX_PGN_PLIES`. Costs at most some tens of milliseconds."""
    return read_pgn_upload(text, field=field)[0]


def read_pgn_upload(text: Any, *, field: str = "pgn") -> tuple[str, str]:
    """``(fen, note)``: the position an uploaded game ends in, and the note that says so (the new game
    starts there; the moves that led to it are not part of it)."""
    if not isinstance(text, str) or not text.strip():
        raise WebInputError(f"{field}: expected PGN text, got {_type_name(text)}")
    size = len(text.encode("utf-8", errors="replace"))
    if size > MAX_PGN_BYTES:
        raise WebInputError(f"{field}: {size} bytes, larger than the {MAX_PGN_BYTES} bytes accepted")
    made: list[_EndBoard] = []

    def visitor() -> _EndBoard:
        made.append(_EndBoard())
        return made[-1]

    stream = io.StringIO(text)
    try:
        board = chess.pgn.read_game(stream, Visitor=visitor)
        more = 0
        while more < 1000 and chess.pgn.read_game(stream, Visitor=chess.pgn.SkipVisitor) is not None:
            more += 1
    except _TooLong:
        raise WebInputError(f"{field}: more than {MAX_PGN_PLIES} moves (plies) in the main line") from None
    except (ValueError, RecursionError) as exc:
        raise WebInputError(f"{field}: not a readable PGN ({exc})") from None
    if board is None or not made:
        raise WebInputError(f"{field}: no game found")
    if more:
        raise WebInputError(f"{field}: the file holds {more + 1} games; upload a file with the one game to set up")
    end = made[-1]
    if end.errors:
        raise WebInputError(f"{field}: {end.errors[0]}")
    if not end.has_fen and not board.move_stack:
        raise WebInputError(f"{field}: the game has no moves and no FEN tag")
    fen = validate_fen(board.fen(), field=field)
    plies = len(board.move_stack)
    players = f" ({end.white} - {end.black})" if (end.white, end.black) != ("?", "?") else ""
    note = (f"the uploaded game{players} is set up as it stands after "
            f"{plies} half-move{'s' if plies != 1 else ''}; the new game starts there, without those moves")
    return fen, note


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
        out["fen"], out["note"] = read_pgn_upload(params["pgn"], field="new-game.pgn")
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


@dataclass(frozen=True, slots=True)
class Envelope:
    """A WebSocket message's envelope: what is needed to check the PIN, with the action unread."""

    action: Any
    id: int | None = None
    pin: str | None = None


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
        raise WebInputError("message: missing 'action'", msg_id=msg_id)
    return Envelope(obj["action"], msg_id, pin)


def needs_worker(action: Any) -> bool:
    """Whether validating ``action`` parses a PGN (worth a worker thread)."""
    if not isinstance(action, dict):
        return False
    params = action.get("new-game")
    return isinstance(params, dict) and params.get("pgn") not in (None, "")


def parse_client_message(text: str | bytes) -> ClientMessage:
    """Parse and validate one WebSocket message (see the module docstring)."""
    envelope = parse_envelope(text)
    try:
        action = validate_action(envelope.action)
    except WebInputError as exc:
        raise WebInputError(str(exc), msg_id=envelope.id) from None
    return ClientMessage(action, envelope.id, envelope.pin)
