"""The event model: what the board senses, and the one list of codes used everywhere.

Events travel as JSON lines (see docs/events.md)::

    {"t": 12.345, "square": "e2", "occupied": false}
    {"t": 20.000, "button": "hint"}
    {"t": 25.0}
    {"t": 26.0, "snapshot": "ffff00000000ffff"}

Times are seconds and never decrease. A stream may also leave ``t`` out of every line,
in which case the reader stamps each line itself (``parse_event(..., t=...)``).
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, TypeVar

from boardctl.core.geometry import CHESS_8X8, Geometry, Square
from boardctl.core.rules import Move
from boardctl.errors import EventFormatError
from boardctl.jsonlimits import JsonInputError, loads, short_repr
from boardctl.lines import Overlong, Unterminated

log = logging.getLogger(__name__)

#: A line as the readers hand it over: text, bytes, or an over-long line's mark.
L = TypeVar("L", str, bytes, str | bytes | Overlong)


class Code(StrEnum):
    """Why an LED is lit, why a warning was given, why a state line was sent. One list for all."""

    ENGINE_MOVE = "engine-move"
    HINT = "hint"
    LEGAL_MOVES = "legal-moves"
    LIFTED = "lifted"
    TOUCH_MOVE = "touch-move"
    CASTLING_ROOK_FIRST = "castling-rook-first"
    ILLEGAL_MOVE = "illegal-move"
    MISMATCH = "mismatch"
    TAKEBACK = "takeback"
    NEW_GAME = "new-game"
    PROMOTION = "promotion"
    #: A capture whose victim was pushed off: the squares it may have taken on, until one is confirmed.
    WHICH_CAPTURE = "which-capture"
    SETUP = "setup"
    BLUNDER = "blunder"
    CHECK = "check"
    RESULT = "result"
    DRAW_OFFER = "draw-offer"
    CLOCK = "clock"
    SELFTEST = "selftest"
    #: Saving the game failed (full or read-only disk): the four corners, until a save succeeds.
    STORAGE = "storage"
    #: The other player's move (a board over the network, an online game) to carry out by hand.
    REMOTE_MOVE = "remote-move"
    #: State-line reasons only: an action from the web page, and an engine that failed and restarts.
    WEB = "web"
    ENGINE_ERROR = "engine-error"
    #: State-line reason only: the Lichess server changed the game (boardctl online).
    ONLINE = "online"
    #: The practice coach's better move (boardctl.learning.coach); replaces ``blunder`` there.
    COACH = "coach"
    #: Guided mode (boardctl learn): the lesson's move for you to make; after a wrong move, the
    #: right one (the wrong one shows ``takeback`` until it is put back).
    LESSON_MOVE = "lesson-move"
    LESSON_WRONG = "lesson-wrong"
    #: boardctl games step: the replayed game's next move to make (or, with --watch, the move shown).
    STEP_MOVE = "step-move"
    #: Xiangqi's Chinese rules: the side whose repeated forbidden moves (长将, 长捉...) it must
    #: vary (必须变着), on its general, with the warning; it loses if the cycle goes on.
    MUST_VARY = "must-vary"
    #: boardctl link: a square an app lit through the ChessLink protocol, with the app's own blinking.
    APP = "app"


class Button(StrEnum):
    """Buttons on the board (and on the web page, which sends the same names)."""

    HINT = "hint"
    TAKEBACK = "takeback"
    NEW_GAME = "new-game"
    DRAW = "draw"
    RESIGN = "resign"
    CLAIM = "claim"
    ADJUST = "adjust"
    #: Cycles the promotion piece queen -> rook -> bishop -> knight while the promotion window is open.
    PROMOTE = "promote"
    PROMOTE_QUEEN = "promote-queen"
    PROMOTE_ROOK = "promote-rook"
    PROMOTE_BISHOP = "promote-bishop"
    PROMOTE_KNIGHT = "promote-knight"
    #: The clock button of a player who has just moved (FIDE 6.2); optional.
    CLOCK = "clock"


#: Codes that only ever appear as a state line's ``reason``; they never light an LED.
REASON_ONLY: frozenset[Code] = frozenset({Code.WEB, Code.ENGINE_ERROR, Code.ONLINE})


#: The promotion each button chooses, as the rules name choices (``GameBoard.choices``).
PROMOTION_BUTTONS: dict[Button, str] = {
    Button.PROMOTE_QUEEN: "q",
    Button.PROMOTE_ROOK: "r",
    Button.PROMOTE_BISHOP: "b",
    Button.PROMOTE_KNIGHT: "n",
}


@dataclass(frozen=True, slots=True)
class UciMove:
    """A move read from a log as text (``e7e5``, ``a7a8q``, ``h2e2``); the game's board turns it
    into its own move with ``parse_uci``. Equal to another ``UciMove`` of the same text."""

    text: str
    from_square: Square
    to_square: Square

    def uci(self) -> str:
        return self.text

    @classmethod
    def from_uci(cls, text: str, *, geometry: Geometry = CHESS_8X8) -> UciMove:
        """Two square names and an optional choice letter; ValueError otherwise."""
        for body, choice in ((text, ""), (text[:-1], text[-1:])):
            if choice and choice not in "qrbn":
                continue
            for cut in range(2, len(body) - 1):
                first, second = body[:cut], body[cut:]
                if geometry.is_name(first) and geometry.is_name(second):
                    return cls(text, geometry.parse(first), geometry.parse(second))
        raise ValueError(f"not a move on the {geometry.name} board: {text!r:.20}")


@dataclass(frozen=True, slots=True)
class SquareChanged:
    """A reed switch changed: a piece arrived on or left ``square``."""

    t: float
    square: Square
    occupied: bool


@dataclass(frozen=True, slots=True)
class ButtonPressed:
    t: float
    button: Button


@dataclass(frozen=True, slots=True)
class Tick:
    """Time passes with nothing sensed; lets settle and promotion windows expire."""

    t: float


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The whole board's occupancy at once (a serial resync), compared rather than replayed."""

    t: float
    occupancy: int


@dataclass(frozen=True, slots=True)
class GameHeader:
    """A game log's header line: what the game started (or resumed) with, for ``boardctl replay``.

    ``game`` holds ``settings`` (the session's), ``record`` (the state file's JSON at that moment)
    and ``occupancy`` (hex, logical squares). Written by the daemon into game logs; anywhere else
    it senses nothing and is ignored.
    """

    t: float
    game: dict[str, Any]


@dataclass(frozen=True, slots=True)
class EngineReplied:
    """A game log's engine line: the engine's move as shown, and its score (its draw answers follow it)."""

    t: float
    move: Move
    score: int | None


@dataclass(frozen=True, slots=True)
class GameDecided:
    """A game log's result line: a network or online game's result decided by the other side or
    the server (a resignation, an agreed draw, a flag, a claim), which the board's own events
    cannot tell a replay."""

    t: float
    result: str
    termination: str


@dataclass(frozen=True, slots=True)
class RemoteTakeback:
    """A game log's takeback line: a network or online game cut back to ``moves`` plies by the
    authoritative side (an agreed takeback, a move the server refused)."""

    t: float
    moves: int


#: Results of a :class:`GameDecided` line (``*``: the server aborted the game, no result).
RESULTS = ("1-0", "0-1", "1/2-1/2", "*")

#: ``GameHeader``, ``EngineReplied``, ``GameDecided`` and ``RemoteTakeback`` are not sensed: they
#: appear only in the daemon's game logs.
Event = SquareChanged | ButtonPressed | Tick | Snapshot | GameHeader | EngineReplied | GameDecided | RemoteTakeback
#: The game-log lines that sense nothing (replay reads them; everything else ignores them).
LOG_ONLY = (GameHeader, EngineReplied, GameDecided, RemoteTakeback)


@dataclass(frozen=True, slots=True)
class LedIntent:
    """Light ``square`` for reason ``why``; the hardware picks colour and blink pattern from ``why``,
    unless ``mask`` gives the pattern (16 steps of 1/16 s, bit ``i`` = step ``i``: an app's own
    blinking, ``boardctl link``)."""

    square: Square
    why: Code
    mask: int | None = None

    def to_json(self, geometry: Geometry = CHESS_8X8) -> dict[str, str]:
        return {"square": geometry.square_name(self.square), "why": str(self.why)}


def _where(where: str) -> str:
    return f"{where}: " if where else ""


def _is_finite(number: int | float) -> bool:
    """``math.isfinite`` without its ``OverflowError`` for an int too big for a float."""
    try:
        return math.isfinite(number)
    except OverflowError:
        return False


def event_from_json(obj: Any, *, t: float | None = None, where: str = "", geometry: Geometry = CHESS_8X8) -> Event:
    """Build an event from a decoded JSON object; ``t`` stamps lines that carry none. Square
    names and snapshots are read on ``geometry`` (chess by default)."""
    if not isinstance(obj, dict):
        raise EventFormatError(f"{_where(where)}expected a JSON object, got {type(obj).__name__}")
    unknown = set(obj) - {"t", "square", "occupied", "button", "snapshot", "header", "engine", "score", "result",
                          "termination", "takeback"}
    if unknown:
        raise EventFormatError(f"{_where(where)}unknown key(s) {short_repr(sorted(unknown))}")
    if "t" in obj:
        raw_t = obj["t"]
        if isinstance(raw_t, bool) or not isinstance(raw_t, int | float) or not _is_finite(raw_t):
            raise EventFormatError(f"{_where(where)}'t' must be a finite number, got {short_repr(raw_t)}")
        if raw_t < 0:
            raise EventFormatError(f"{_where(where)}'t' must not be negative, got {short_repr(raw_t)}")
        t = round(float(raw_t), 6)  # the precision events are written with, so a log reads back the same
    elif t is None:
        raise EventFormatError(f"{_where(where)}missing 't'")
    kinds = [k for k in ("square", "button", "snapshot", "header", "engine", "result", "takeback") if k in obj]
    if len(kinds) > 1:
        raise EventFormatError(f"{_where(where)}one event per line, got {' and '.join(kinds)}")
    if "square" in obj:
        name = obj["square"]
        if not geometry.is_name(name):
            example = "e4" if geometry.name == "chess" else geometry.square_name(geometry.square(4, 0))
            raise EventFormatError(f"{_where(where)}'square' must be a square name like '{example}', got {short_repr(name)}")
        occupied = obj.get("occupied")
        if not isinstance(occupied, bool):
            raise EventFormatError(f"{_where(where)}'occupied' must be true or false, got {short_repr(occupied)}")
        return SquareChanged(t, geometry.parse(name), occupied)
    if "occupied" in obj:
        raise EventFormatError(f"{_where(where)}'occupied' without 'square'")
    if "button" in obj:
        name = obj["button"]
        try:
            return ButtonPressed(t, Button(name))
        except ValueError:
            names = ", ".join(b.value for b in Button)
            raise EventFormatError(f"{_where(where)}unknown button {short_repr(name)} (one of {names})") from None
    if "score" in obj and "engine" not in obj:
        raise EventFormatError(f"{_where(where)}'score' without 'engine'")
    if "termination" in obj and "result" not in obj:
        raise EventFormatError(f"{_where(where)}'termination' without 'result'")
    if "result" in obj:
        result, termination = obj["result"], obj.get("termination", "")
        if result not in RESULTS:
            raise EventFormatError(f"{_where(where)}'result' must be one of {', '.join(RESULTS)}, got {short_repr(result)}")
        if not isinstance(termination, str) or len(termination) > 200:
            raise EventFormatError(f"{_where(where)}'termination' must be a text of at most 200 characters")
        return GameDecided(t, result, termination)
    if "takeback" in obj:
        moves = obj["takeback"]
        if isinstance(moves, bool) or not isinstance(moves, int) or not 0 <= moves <= 100000:
            raise EventFormatError(f"{_where(where)}'takeback' must be the game's length in plies, got {short_repr(moves)}")
        return RemoteTakeback(t, moves)
    if "header" in obj:
        if not isinstance(obj["header"], dict):
            raise EventFormatError(f"{_where(where)}'header' must be an object, got {short_repr(obj['header'])}")
        return GameHeader(t, obj["header"])
    if "engine" in obj:
        score = obj.get("score")
        if score is not None and (isinstance(score, bool) or not isinstance(score, int)):
            raise EventFormatError(f"{_where(where)}'score' must be an integer or null, got {short_repr(score)}")
        try:
            move = UciMove.from_uci(str(obj["engine"]), geometry=geometry)
        except ValueError:
            raise EventFormatError(f"{_where(where)}'engine' must be a move in UCI like 'e7e5', got {short_repr(obj['engine'])}") from None
        return EngineReplied(t, move, score)
    if "snapshot" in obj:
        raw = obj["snapshot"]
        try:
            occupancy = geometry.from_hex(raw)
        except ValueError as e:
            raise EventFormatError(f"{_where(where)}'snapshot' must be a {geometry.points}-bit hex bitboard: {e}") from None
        return Snapshot(t, occupancy)
    return Tick(t)


def parse_event(line: str | bytes, *, t: float | None = None, where: str = "", geometry: Geometry = CHESS_8X8) -> Event:
    """Parse one JSON line. ``where`` (e.g. ``"game.jsonl:12"``) prefixes every error message.

    The line is decoded within :mod:`boardctl.jsonlimits`' limits (length, nesting, digits)."""
    return event_from_json(decode_line(line, where=where), t=t, where=where, geometry=geometry)


def decode_line(line: str | bytes, *, where: str = "") -> Any:
    """One line's JSON value, or an :class:`EventFormatError` naming ``where`` and what is wrong."""
    try:
        return loads(line)
    except JsonInputError as exc:
        raise EventFormatError(f"{_where(where)}{exc}") from None


def has_time(line: str | bytes) -> bool:
    """Whether a raw line carries its own ``t`` (streams must not mix the two kinds)."""
    try:
        obj = loads(line)
    except JsonInputError:
        return False
    return isinstance(obj, dict) and "t" in obj


def event_to_json(event: Event, geometry: Geometry = CHESS_8X8) -> dict[str, Any]:
    match event:
        case GameHeader(t, game):
            return {"t": round(t, 6), "header": game}
        case EngineReplied(t, move, score):
            return {"t": round(t, 6), "engine": move.uci(), "score": score}
        case GameDecided(t, result, termination):
            return {"t": round(t, 6), "result": result, "termination": termination}
        case RemoteTakeback(t, moves):
            return {"t": round(t, 6), "takeback": moves}
        case SquareChanged(t, square, occupied):
            return {"t": round(t, 6), "square": geometry.square_name(square), "occupied": occupied}
        case ButtonPressed(t, button):
            return {"t": round(t, 6), "button": str(button)}
        case Snapshot(t, occupancy):
            return {"t": round(t, 6), "snapshot": geometry.to_hex(occupancy)}
        case Tick(t):
            return {"t": round(t, 6)}
    raise TypeError(event)  # pragma: no cover


def format_event(event: Event, geometry: Geometry = CHESS_8X8) -> str:
    """One JSON line, without the newline."""
    return json.dumps(event_to_json(event, geometry), separators=(", ", ": "))


def whole_lines(lines: Iterable[L], *, name: str = "-") -> Iterator[L]:
    """The lines of an event file, less a last line cut short (a crash or a full disk mid-write).

    A last line without its newline (a ``str`` not ending in one, or :class:`~boardctl.lines.Unterminated`
    bytes) that does not parse is dropped with a warning, so the file reads up to it; any other bad
    line is left for the parser to report.
    """
    previous: L | None = None
    number = 0
    for line in lines:
        number += 1
        if previous is not None:
            yield previous
        previous = line
    if previous is None:
        return
    cut = isinstance(previous, Unterminated) or (isinstance(previous, str) and not previous.endswith("\n"))
    if cut and isinstance(previous, str | bytes) and previous.strip():
        try:
            decode_line(previous)  # a line cut short is no whole JSON value (names are judged later)
        except EventFormatError:
            log.warning("%s:%d: the last line is cut short (a crash or a full disk?); read up to line %d", name, number, number - 1)
            return
    yield previous
