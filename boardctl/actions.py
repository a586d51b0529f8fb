"""What the daemon is asked to do from outside the board: the web page's actions, checked.

:mod:`boardctl.web.protocol` turns a browser's JSON into these values, once, at the edge; the
daemon carries them out without checking them again (it only refuses what the moment forbids,
e.g. a virtual-board event when a real board is attached).
"""

from __future__ import annotations

from dataclasses import dataclass

from boardctl.core.geometry import Square
from boardctl.errors import BoardctlError
from boardctl.events import Button


class ActionError(BoardctlError, ValueError):
    """An action the daemon cannot carry out; the message says why."""


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
    user's ``color``, a quiz or not (boardctl.guided_actions)."""

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
