"""What the daemon is asked to do from outside the board: the actions, and their JSON checked.

:func:`validate_action` turns an action's JSON (the page's, a script's) into these values, once,
at the edge; the daemon carries them out without checking them again (it only refuses what the
moment forbids, e.g. a virtual-board event when a real board is attached). The web page's
envelope, PIN and size limits stay with the page (:mod:`boardctl.web.protocol`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from boardctl.config import check_level, check_time_control
from boardctl.core.geometry import Square
from boardctl.core.rules import Variant
from boardctl.errors import BoardctlError
from boardctl.events import Button
from boardctl.jsonlimits import short_repr
from boardctl.learning.lessons import KEY_PATTERN
from boardctl.positions import board_from_fen
from boardctl.records import MAX_PLIES, RecordError, SeveralGames, read_record
from boardctl.variants import get_variant


class ActionError(BoardctlError, ValueError):
    """An action the daemon cannot carry out; the message says why."""


class WebInputError(BoardctlError, ValueError):
    """A message from the page is malformed; the text says which field and why.

    ``msg_id`` is the message's ``id`` when it could be read, for the reply."""

    def __init__(self, message: str, *, msg_id: int | None = None) -> None:
        super().__init__(message)
        self.msg_id = msg_id


#: Largest PGN accepted for ``new-game``: a long game with clock comments is about 20 KB.
MAX_PGN_BYTES = 32 * 1024
#: Most main-line moves (plies) read from an uploaded PGN; the longest real games have about 550.
#: Variations are skipped unread, so their size costs only the tokenizer's pass.
MAX_PGN_PLIES = MAX_PLIES

#: The sides a chess game may be started with (a variant's own names otherwise, see :func:`colors`).
COLORS = ("white", "black", "random")
NEW_GAME_KEYS = frozenset({"color", "level", "time-control", "fen", "pgn", "opponent"})


@dataclass(frozen=True, slots=True)
class SquareAction:
    """A lift (``occupied`` False) or a place on the page's virtual board."""

    square: Square
    occupied: bool


@dataclass(frozen=True, slots=True)
class ButtonAction:
    button: Button


@dataclass(frozen=True, slots=True)
class NewGameAction:
    """Start a new game; ``None`` keeps the current setting. ``time_control`` ``""`` is no clock.

    ``fen`` is a checked position of the game being played; ``note`` says where it came from
    (an uploaded record keeps only its final position)."""

    color: str | None = None
    level: str | None = None
    time_control: str | None = None
    fen: str | None = None
    note: str | None = None
    opponent: str | None = None  # a character's id (boardctl/learning/characters.py); "" the plain engine


@dataclass(frozen=True, slots=True)
class LessonAction:
    """Start an opening lesson on the board (as ``boardctl learn``): the lesson's ``name``, the
    user's ``color``, a quiz or not (boardctl.commands.guided)."""

    name: str
    color: str
    quiz: bool = False


@dataclass(frozen=True, slots=True)
class StepAction:
    """Replay a game on the board (as ``boardctl games step``): the record's text (a PGN), watched or made."""

    record: str
    watch: bool = False


@dataclass(frozen=True, slots=True)
class AppModeAction:
    """Switch app mode on or off: the board answers ChessLink apps (``boardctl link``'s face, started
    by the command that built the daemon; docs/chesslink.md)."""

    on: bool


Action = SquareAction | ButtonAction | NewGameAction | LessonAction | StepAction | AppModeAction


# -- the JSON form, checked once ----------------------------------------------------------------


def type_name(value: Any) -> str:
    """How an error message names a JSON value's type."""
    return "null" if value is None else type(value).__name__


def _variant(variant: Variant | None) -> Variant:
    return variant if variant is not None else get_variant("chess")


def colors(variant: Variant | None = None) -> tuple[str, ...]:
    """The sides a new game may give the human: the game's two names, or ``random``."""
    return (*_variant(variant).color_names, "random")


def validate_fen(fen: Any, *, field: str = "fen", variant: Variant | None = None) -> str:
    """A FEN of ``variant`` (chess by default) that describes a position a game can start from."""
    if not isinstance(fen, str) or not fen.strip():
        raise WebInputError(f"{field}: expected a FEN string, got {type_name(fen)}")
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
        raise WebInputError(f"{field}: expected PGN text, got {type_name(text)}")
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
        raise WebInputError(f"new-game: expected an object, got {type_name(params)}")
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
            raise WebInputError(f"new-game.level: expected a level name or an Elo number, got {type_name(level)}")
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
        raise WebInputError(f"action: expected an object, got {type_name(action)}")
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


#: Largest record text the page may send (the WebSocket message limit is 64 KiB).
MAX_RECORD_CHARS = 60_000


def validate_guided(kind: str, value: Any) -> LessonAction | StepAction:
    """The checked ``lesson`` or ``step`` action; WebInputError names the field at fault."""
    if kind == "lesson":
        if not isinstance(value, dict) or not {"name", "color"} <= set(value) or set(value) - {"name", "color", "quiz"}:
            raise WebInputError('lesson: expected {"name": "italian", "color": "white"|"black", "quiz": false}')
        name, color, quiz = value["name"], value["color"], value.get("quiz", False)
        if not isinstance(name, str) or not KEY_PATTERN.fullmatch(name):
            raise WebInputError(f"lesson.name: expected a lesson name such as 'italian', got {_short(name)}")
        if color not in ("white", "black"):
            raise WebInputError(f"lesson.color: expected 'white' or 'black', got {_short(color)}")
        if not isinstance(quiz, bool):
            raise WebInputError(f"lesson.quiz: expected true or false, got {_short(quiz)}")
        return LessonAction(name, color, quiz)
    if not isinstance(value, dict) or "record" not in value or set(value) - {"record", "watch"}:
        raise WebInputError('step: expected {"record": "<PGN text>", "watch": true|false}')
    record, watch = value["record"], value.get("watch", False)
    if not isinstance(record, str) or not record.strip():
        raise WebInputError("step.record: expected the text of a PGN")
    if len(record) > MAX_RECORD_CHARS:
        raise WebInputError(f"step.record: longer than {MAX_RECORD_CHARS} characters")
    if not isinstance(watch, bool):
        raise WebInputError(f"step.watch: expected true or false, got {_short(watch)}")
    return StepAction(record, watch)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
