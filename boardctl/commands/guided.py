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

from boardctl.actions import MAX_RECORD_CHARS as MAX_RECORD_CHARS  # re-exported (the page's limit)
from boardctl.actions import ActionError, LessonAction, StepAction
from boardctl.actions import (
    validate_guided as validate_guided,  # re-exported: checked with the other actions
)
from boardctl.errors import BoardctlError

if TYPE_CHECKING:
    from boardctl.daemon import Daemon
    from boardctl.session import Effects

log = logging.getLogger(__name__)

def start_guided(daemon: Daemon, action: LessonAction | StepAction) -> Effects:
    """Start the lesson or the replay on ``daemon``'s session now, and answer with the effects for
    the daemon to carry out; ActionError says why it cannot."""
    session = daemon.session
    before = getattr(session.guide, "settings_before", None) or session.settings
    now = daemon.now()
    if isinstance(action, LessonAction):
        guide: Any = _lesson_guide(daemon, action)
        settings = replace(before, mode="play", color=action.color, time_control="")
        guide.settings_before = before
        session.guide = guide
        effects = session.new_game(now, settings=settings)
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
        effects = session.new_game(now, fen=game.fen, settings=replace(before, mode="record", time_control=""))
    return effects.then(session.tick(now))  # the guide takes the new game up (a lesson as Black: the first reply is lit)


def _lesson_guide(daemon: Daemon, action: LessonAction) -> Any:
    from boardctl.commands.learn import progress_path
    from boardctl.learning.guided import LessonGuide
    from boardctl.learning.lessons import LessonError, LessonState, Mode
    from boardctl.learning.progress import ProgressStore
    variant = daemon.session.variant
    if not variant.has_part("lessons"):
        raise ActionError(f"the lessons are chess openings; this board plays {variant.name}")
    try:
        lesson = variant.part("lessons").load_lesson(action.name)
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
