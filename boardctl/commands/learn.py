"""``boardctl learn LESSON``: an opening lesson on the board (docs/learning.md, "Opening lessons").

The LEDs show each of your moves from the lesson (``lesson-move``); the other side plays one of
the lesson's lines, picked so that each run differs (``--seed`` makes it repeatable); a wrong
move is lit ``lesson-wrong`` with the right one and must be put back. Each main-line move is
explained on the page. When the line ends the engine plays on if you go on (``--no-play-on``:
it does not). ``--quiz`` lights no hints and scores you. Progress per opening is saved in
lessons.json in the data folder. ``boardctl learn --list`` shows the lessons and your progress.
Takes the board, engine and page options of ``boardctl play``.
"""

from __future__ import annotations

import argparse
import logging
import random
import sys
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from boardctl import config
from boardctl.commands import options, root
from boardctl.errors import ConfigError
from boardctl.variants import NAMES, get_variant

if TYPE_CHECKING:
    from boardctl.daemon import Daemon

log = logging.getLogger(__name__)


def progress_path() -> Path:
    """Where lesson progress is kept: ``lessons.json`` in the data folder."""
    return config.data_dir() / "lessons.json"


def lesson_games_dir() -> Path:
    """Where the games of lessons are saved: beside the real ones, never resumed by play."""
    return config.data_dir() / "lesson-games"


def _lessons() -> ModuleType:
    """The opening lessons: the ``lessons`` part of the game that has them (chess)."""
    return next(variant for variant in map(get_variant, NAMES) if variant.has_part("lessons")).part("lessons")


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from boardctl.cli import describe

    keys = _lessons().LESSON_KEYS

    parser = sub.add_parser("learn", help="an opening lesson on the board", description=describe(__doc__))
    parser.add_argument("lesson", nargs="?", metavar="LESSON",
                        help=f"the opening: {', '.join(keys)} (or one of your own with --lessons-dir)")
    lesson = parser.add_argument_group("lesson")
    lesson.add_argument("--list", action="store_true", help="List the lessons and your progress, and exit. Default: run the lesson.")
    lesson.add_argument("--quiz", action="store_true",
                        help="No LED hints: your moves are scored (hint shows the move and costs its point). "
                        "Default: guided.")
    lesson.add_argument("--seed", type=int, default=None, metavar="N",
                        help="Seed the choice of lines, so that runs repeat. Default: a new choice each run.")
    lesson.add_argument("--no-play-on", dest="play_on", action="store_false",
                        help="When the line ends, the engine does not play on. Default: it plays on if you go on.")
    lesson.add_argument("--lessons-dir", type=Path, metavar="DIR", default=None,
                        help="Read the lessons from this folder (TOML files as docs/learning.md describes). "
                        "Default: the lessons shipped with boardctl.")
    lesson.add_argument("--progress", type=Path, metavar="FILE", default=None,
                        help=f"Keep progress in this file. Default: {progress_path()}.")
    lesson.add_argument("--speak", action="store_true",
                        help="Say each move's explanation aloud: the same as --speech (espeak-ng, with the "
                        "speech.* settings: language, voice, events, output). Default: speech.enabled.")
    options.add_arguments(parser, mode="play")


def _list(args: argparse.Namespace) -> int:
    from boardctl.learning.progress import ProgressStore

    lessons = _lessons()
    lesson_names, load_lesson = lessons.lesson_names, lessons.load_lesson
    store = ProgressStore(args.progress or progress_path())
    progress = store.load()
    for key in lesson_names(args.lessons_dir):
        lesson = load_lesson(key, folder=args.lessons_dir)
        done = progress.get(key)
        lines = len(lesson.lines)
        if done is None:
            status = "not started"
        else:
            seen = sum(1 for line in lesson.lines if done.lines.get(line.line_id, 0) > 0)
            quiz = f", quiz last {done.last_quiz} % best {done.best_quiz} %" if done.quiz_runs else ""
            status = f"{done.runs} runs, {done.quiz_runs} quizzes, {seen} of {lines} lines{quiz}"
        sys.stdout.write(f"{key:14} {lesson.eco}  {lesson.title:24} {lines} lines  {status}\n")
    return 0


class NoteVoice:
    """Says the lesson's notes through the daemon's own speaker, the one ``speech.*`` (or
    ``--speech``) configures for the moves: the same language, voice, events (``lesson``) and
    output. Notes that come before the daemon runs wait for it."""

    def __init__(self) -> None:
        self.speaker: Any = None
        self._attached = False
        self._waiting: list[str] = []

    def attach(self, speaker: Any) -> None:
        """The daemon's speaker (None when speech is off: the notes are then only shown)."""
        self.speaker, self._attached = speaker, True
        waiting, self._waiting = self._waiting, []
        for text in waiting:
            self.say(text)

    def say(self, text: str) -> None:
        from boardctl.learning.speech import SpeechEvent

        if self.speaker is not None:
            self.speaker.say(SpeechEvent.from_lesson(text))
        elif not self._attached:
            self._waiting.append(text)


class LessonPlug(root.GuidePlug):
    """The lesson's guide on the session, and its notes said by the daemon's speaker."""

    def __init__(self, guide: Any, voice: NoteVoice) -> None:
        super().__init__(guide)
        self.voice = voice

    async def attach(self, daemon: Daemon, run: root.Run) -> None:
        self.voice.attach(daemon.speaker)


def run(args: argparse.Namespace) -> int:
    from boardctl.learning.guided import LessonGuide
    from boardctl.learning.lessons import LessonState, Mode
    from boardctl.learning.progress import ProgressStore

    load_lesson = _lessons().load_lesson
    if args.list:
        return _list(args)
    if args.lesson is None:
        raise ConfigError("name a lesson (boardctl learn --list shows them)")
    lesson = load_lesson(args.lesson, folder=args.lessons_dir)
    if args.variant not in (None, "chess"):
        raise ConfigError("--variant: the lessons are chess openings")
    if args.fen:
        raise ConfigError("--fen: a lesson starts from the start position")
    store = ProgressStore(args.progress or progress_path())
    store.load()  # a broken progress file is said before the board starts
    voice = NoteVoice()

    def finished(state: LessonState) -> None:
        try:
            done = store.record(state)
        except OSError as exc:
            log.error("cannot save lesson progress in %s: %s", store.path, exc)
            return
        log.info("%s: run counted (%d runs, %d quizzes)", lesson.key, done.runs, done.quiz_runs)

    guide = LessonGuide(
        lesson,
        mode=Mode.QUIZ if args.quiz else Mode.GUIDED,
        rng=random.Random(args.seed),
        practised=lambda: store.get(lesson.key).lines,
        on_finished=finished,
        say=voice.say,
        play_on=args.play_on,
    )
    # The lesson's own settings, over the flags: chess, no clock, its own folder, speech with --speak.
    args.variant = "chess"
    args.time_control = ""  # no clock in a lesson
    if args.games_dir is None:
        args.games_dir = str(lesson_games_dir())
    if args.speak:
        args.speech = True  # --speak is --speech: the notes are one of the events speech says
    # Each lesson is a new run; an unfinished one is abandoned.
    return root.run(options.options_from_args(args, mode="play", new=True), LessonPlug(guide, voice))
