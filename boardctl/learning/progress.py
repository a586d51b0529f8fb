"""Progress per opening lesson, kept in one JSON file rewritten atomically after every run.

For each lesson: how often each line was completed (so the next run prefers the others), how
many guided and quiz runs were finished, the last and best quiz scores.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from boardctl.learning import atomic
from boardctl.learning.lessons import KEY_PATTERN, LessonState, Mode

VERSION = 1


@dataclass(frozen=True)
class LessonProgress:
    runs: int = 0
    quiz_runs: int = 0
    last_quiz: int | None = None  # percent
    best_quiz: int | None = None  # percent
    lines: Mapping[str, int] = field(default_factory=dict)  # line_id -> completed runs

    def to_json(self) -> dict[str, Any]:
        return {
            "runs": self.runs,
            "quiz_runs": self.quiz_runs,
            "last_quiz": self.last_quiz,
            "best_quiz": self.best_quiz,
            "lines": dict(sorted(self.lines.items())),
        }

    @classmethod
    def from_json(cls, data: Any, *, where: str) -> LessonProgress:
        runs = atomic.field(data, "runs", int, where=where)
        quiz_runs = atomic.field(data, "quiz_runs", int, where=where)
        last = atomic.field(data, "last_quiz", (int, type(None)), where=where)
        best = atomic.field(data, "best_quiz", (int, type(None)), where=where)
        lines = atomic.field(data, "lines", dict, where=where)
        limits = (("runs", runs, 10**9), ("quiz_runs", quiz_runs, 10**9), ("last_quiz", last, 100), ("best_quiz", best, 100))
        for name, value, top in limits:
            if value is not None and not 0 <= value <= top:
                raise atomic.FieldError(f"{where}.{name}: {value} is out of range 0..{top}")
        for key, count in lines.items():
            if not isinstance(count, int) or isinstance(count, bool) or not 0 <= count <= 10**9:
                raise atomic.FieldError(f"{where}.lines[{key[:40]!r}]: expected a count")
        return cls(runs=runs, quiz_runs=quiz_runs, last_quiz=last, best_quiz=best, lines=dict(lines))

    def after(self, state: LessonState) -> LessonProgress:
        """This progress with the finished run ``state`` counted."""
        line_id = state.line.line_id
        lines = dict(self.lines)
        lines[line_id] = lines.get(line_id, 0) + 1
        if state.mode is Mode.QUIZ:
            percent = state.score.percent
            best = percent if self.best_quiz is None else max(self.best_quiz, percent)
            return replace(self, quiz_runs=self.quiz_runs + 1, last_quiz=percent, best_quiz=best, lines=lines)
        return replace(self, runs=self.runs + 1, lines=lines)


class ProgressStore:
    """The lesson progress file (``lessons.json`` in the data folder)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def load(self) -> dict[str, LessonProgress]:
        """Every lesson's progress; an absent file is no progress. StateFileError names a bad file."""
        data = atomic.read_json(self.path)
        if data is None:
            return {}
        where = str(self.path)
        try:
            if atomic.field(data, "version", int, where=where) != VERSION:
                raise atomic.FieldError(f"{where}: version {data['version']} is not {VERSION}")
            lessons = atomic.field(data, "lessons", dict, where=where)
            out: dict[str, LessonProgress] = {}
            for key, value in lessons.items():
                if not KEY_PATTERN.fullmatch(key):
                    raise atomic.FieldError(f"{where}.lessons: {key[:40]!r} is not a lesson name")
                out[key] = LessonProgress.from_json(value, where=f"{where}.lessons.{key}")
        except atomic.FieldError as exc:
            raise atomic.StateFileError(str(exc)) from None
        return out

    def get(self, key: str) -> LessonProgress:
        return self.load().get(key, LessonProgress())

    def record(self, state: LessonState) -> LessonProgress:
        """Count the finished run ``state`` and save at once; returns the lesson's new progress."""
        everything = self.load()
        key = state.lesson.key
        updated = everything.get(key, LessonProgress()).after(state)
        everything[key] = updated
        atomic.write_json(
            self.path,
            {"version": VERSION, "lessons": {k: v.to_json() for k, v in sorted(everything.items())}},
        )
        return updated
