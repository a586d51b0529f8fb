"""Lessons and replays started from the web page, on whatever daemon serves it (demo, play, record).

``{"lesson": {"name": "italian", "color": "white", "quiz": false}}`` starts an opening lesson as
``boardctl learn`` does; ``{"step": {"record": "<PGN text>", "watch": true}}`` replays a game as
``boardctl games step`` does. Both start a new game led by the guide (boardctl.guide); the
page's New game leaves them, with the settings from before (``settings_before``).
"""

from __future__ import annotations

import logging
import random
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from boardctl.actions import ActionError, LessonAction, StepAction
from boardctl.errors import BoardctlError
from boardctl.learning.lessons import KEY_PATTERN

if TYPE_CHECKING:
    from boardctl.daemon import Daemon

log = logging.getLogger(__name__)

#: Largest record text the page may send (the WebSocket message limit is 64 KiB).
MAX_RECORD_CHARS = 60_000


def _error(message: str) -> Exception:
    from boardctl.web.protocol import WebInputError

    return WebInputError(message)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def validate_guided(kind: str, value: Any) -> LessonAction | StepAction:
    """The checked ``lesson`` or ``step`` action; WebInputError names the field at fault."""
    if kind == "lesson":
        if not isinstance(value, dict) or not {"name", "color"} <= set(value) or set(value) - {"name", "color", "quiz"}:
            raise _error('lesson: expected {"name": "italian", "color": "white"|"black", "quiz": false}')
        name, color, quiz = value["name"], value["color"], value.get("quiz", False)
        if not isinstance(name, str) or not KEY_PATTERN.fullmatch(name):
            raise _error(f"lesson.name: expected a lesson name such as 'italian', got {_short(name)}")
        if color not in ("white", "black"):
            raise _error(f"lesson.color: expected 'white' or 'black', got {_short(color)}")
        if not isinstance(quiz, bool):
            raise _error(f"lesson.quiz: expected true or false, got {_short(quiz)}")
        return LessonAction(name, color, quiz)
    if not isinstance(value, dict) or "record" not in value or set(value) - {"record", "watch"}:
        raise _error('step: expected {"record": "<PGN text>", "watch": true|false}')
    record, watch = value["record"], value.get("watch", False)
    if not isinstance(record, str) or not record.strip():
        raise _error("step.record: expected the text of a PGN")
    if len(record) > MAX_RECORD_CHARS:
        raise _error(f"step.record: longer than {MAX_RECORD_CHARS} characters")
    if not isinstance(watch, bool):
        raise _error(f"step.watch: expected true or false, got {_short(watch)}")
    return StepAction(record, watch)


def start_guided(daemon: Daemon, action: LessonAction | StepAction) -> None:
    """Start the lesson or the replay on ``daemon``'s session now; ActionError says why it cannot."""
    session = daemon.session
    before = getattr(session.guide, "settings_before", None) or session.settings
    now = daemon.now()
    if isinstance(action, LessonAction):
        guide: Any = _lesson_guide(daemon, action)
        settings = replace(before, mode="play", color=action.color, time_control="")
        guide.settings_before = before
        session.guide = guide
        session.new_game(now, settings=settings)
    else:
        from boardctl.stepper import StepGuide, read_game_data

        try:
            game = read_game_data(action.record.encode("utf-8"), source="the uploaded record", name="upload")
        except BoardctlError as exc:
            raise ActionError(str(exc)) from None
        if game.variant != session.variant.name:
            raise ActionError(f"a {game.variant} record; this board plays {session.variant.name}")
        guide = StepGuide(game, session.variant, watch=action.watch)
        guide.settings_before = before
        session.guide = guide
        session.new_game(now, fen=game.fen, settings=replace(before, mode="record", time_control=""))
    session.tick(now)  # the guide takes the new game up (a lesson as Black: the first reply is lit)


def _lesson_guide(daemon: Daemon, action: LessonAction) -> Any:
    from boardctl.learn import progress_path
    from boardctl.learning.guided import LessonGuide
    from boardctl.learning.lessons import LessonError, LessonState, Mode
    from boardctl.learning.progress import ProgressStore
    from boardctl.variants.chess.lessons import load_lesson

    if daemon.session.variant.name != "chess":
        raise ActionError(f"the lessons are chess openings; this board plays {daemon.session.variant.name}")
    try:
        lesson = load_lesson(action.name)
    except LessonError as exc:
        raise ActionError(str(exc)) from None
    store = ProgressStore(progress_path())

    def practised() -> dict[str, int]:
        try:
            return dict(store.get(lesson.key).lines)
        except BoardctlError as exc:
            log.warning("lesson progress not read: %s", exc)
            return {}

    def finished(state: LessonState) -> None:
        try:
            store.record(state)
        except (OSError, BoardctlError) as exc:
            log.error("cannot save lesson progress in %s: %s", store.path, exc)

    return LessonGuide(lesson, mode=Mode.QUIZ if action.quiz else Mode.GUIDED, rng=random.Random(),
                       practised=practised, on_finished=finished, play_on=daemon.engine is not None)
