"""Lesson progress: counted per line and per mode, saved atomically, bad files named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from boardctl.learning.atomic import StateFileError
from boardctl.learning.lessons import Lesson, LessonMove, LessonState, Line, Mode
from boardctl.learning.progress import LessonProgress, ProgressStore


def _lesson() -> Lesson:
    def line(name: str, moves: str) -> Line:
        return Line(name, tuple(LessonMove(m, m) for m in moves.split()))

    return Lesson("toy", "Toy", "C50", "", line("m", "a1 b1 a2"), (line("v", "a1 b1 c2"),))


def _finished(mode: Mode, *, target: int = 0, mistakes: int = 0) -> LessonState:
    lesson = _lesson()
    state = LessonState(lesson=lesson, color=True, mode=mode, target=target)
    for _ in range(mistakes):
        state = state.play("zz").state
    state = state.play("a1").state
    _, state = state.reply()
    state = state.play(lesson.lines[target].ucis[2]).state
    assert state.is_over()
    return state


def test_runs_are_counted_and_saved(tmp_path: Path) -> None:
    store = ProgressStore(tmp_path / "lessons.json")
    assert store.load() == {}
    assert store.get("toy") == LessonProgress()
    store.record(_finished(Mode.GUIDED))
    store.record(_finished(Mode.QUIZ, target=1, mistakes=1))  # 1 of 2 at the first try: 50 %
    store.record(_finished(Mode.QUIZ))  # 100 %
    progress = ProgressStore(tmp_path / "lessons.json").get("toy")
    lesson = _lesson()
    assert progress.runs == 1
    assert progress.quiz_runs == 2
    assert progress.last_quiz == 100
    assert progress.best_quiz == 100
    assert progress.lines == {lesson.main.line_id: 2, lesson.variations[0].line_id: 1}
    store.record(_finished(Mode.QUIZ, mistakes=2))
    again = store.get("toy")
    assert (again.last_quiz, again.best_quiz) == (50, 100)
    assert not list(tmp_path.glob(".*tmp"))  # no temporary file left behind


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        ("{", "not valid JSON"),
        ("[]", "expected a JSON object, not list"),
        ('{"version": 2, "lessons": {}}', "version 2"),
        ('{"version": 1}', "missing 'lessons'"),
        ('{"version": 1, "lessons": {"Bad Key": {}}}', "not a lesson name"),
        (
            '{"version": 1, "lessons": {"toy": {"runs": -1, "quiz_runs": 0, "last_quiz": null, "best_quiz": null, "lines": {}}}}',
            "lessons.toy.runs: -1 is out of range",
        ),
        (
            '{"version": 1, "lessons": {"toy": {"runs": 1, "quiz_runs": 0, "last_quiz": 101, "best_quiz": null, "lines": {}}}}',
            "last_quiz: 101",
        ),
        (
            '{"version": 1, "lessons": {"toy": {"runs": true, "quiz_runs": 0, "last_quiz": null, "best_quiz": null, "lines": {}}}}',
            "runs: expected int, got bool",
        ),
        (
            '{"version": 1, "lessons": {"toy": {"runs": 1, "quiz_runs": 0, "last_quiz": null, "best_quiz": null, "lines": {"x": "y"}}}}',
            "lines['x']: expected a count",
        ),
    ],
)
def test_bad_files_are_named(tmp_path: Path, content: str, fragment: str) -> None:
    path = tmp_path / "lessons.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(StateFileError) as info:
        ProgressStore(path).load()
    assert fragment in str(info.value)
    assert str(path) in str(info.value)


def test_the_file_is_plain_json(tmp_path: Path) -> None:
    store = ProgressStore(tmp_path / "sub" / "lessons.json")
    store.record(_finished(Mode.GUIDED))
    data = json.loads((tmp_path / "sub" / "lessons.json").read_text(encoding="utf-8"))
    assert data["version"] == 1 and data["lessons"]["toy"]["runs"] == 1
