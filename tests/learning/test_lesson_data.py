"""The shipped opening lessons: legal, named as the Lichess data names them, long enough, explained."""

from __future__ import annotations

import chess
import pytest

from boardctl.learning.lessons import Lesson, Line, read_spec
from boardctl.openings import classify
from boardctl.variants.chess.lessons import LESSON_KEYS, lesson_names, load_lesson, shipped_folder

#: The Lichess family each lesson belongs to (the main line's name contains it).
FAMILY = {
    "italian": "Italian Game",
    "evans": "Italian Game: Evans Gambit",
    "two-knights": "Italian Game: Two Knights Defense",
    "hungarian": "Italian Game: Hungarian Defense",
    "three-knights": "Three Knights Opening",
    "four-knights": "Four Knights Game",
    "spanish": "Ruy Lopez",
    "philidor": "Philidor Defense",
    "petrov": "Petrov's Defense",
}


def _board(line: Line) -> chess.Board:
    board = chess.Board()
    for move in line.moves:
        uci = chess.Move.from_uci(move.uci)
        assert uci in board.legal_moves, (line.name, move)
        assert board.san(uci) == move.san
        board.push(uci)
    return board


@pytest.fixture(scope="module", params=LESSON_KEYS)
def lesson(request: pytest.FixtureRequest) -> Lesson:
    return load_lesson(request.param)


def test_every_named_lesson_ships() -> None:
    assert set(LESSON_KEYS) == set(FAMILY)
    assert set(LESSON_KEYS) <= set(lesson_names())


def test_main_line_is_long_and_explained(lesson: Lesson) -> None:
    moves = lesson.main.moves
    assert len(moves) >= 16, f"{lesson.key}: {len(moves)} plies, fewer than 8 moves a side"
    for i, move in enumerate(moves):
        assert move.note.strip(), f"{lesson.key}: ply {i + 1} has no explanation"
        assert 1 <= len(move.note.splitlines()) <= 2
        assert len(move.note) >= 10


def test_at_least_three_distinct_variations(lesson: Lesson) -> None:
    assert len(lesson.variations) >= 3
    ids = [line.line_id for line in lesson.lines]
    assert len(set(ids)) == len(ids)
    # no line is a mere prefix of another: each one leads somewhere of its own
    for a in ids:
        for b in ids:
            assert a == b or not b.startswith(a + " "), (lesson.key, a, b)


def test_every_line_is_legal_and_named_as_lichess_names_it(lesson: Lesson) -> None:
    for line in lesson.lines:
        found = classify(_board(line))
        assert found is not None, f"{lesson.key}: {line.name} reaches no named position"
        assert found.name == line.name, f"{lesson.key}: declared {line.name!r}, Lichess says {found.name!r}"


def test_every_line_passes_through_the_lessons_opening(lesson: Lesson) -> None:
    family = FAMILY[lesson.key]
    assert lesson.main.name.startswith(family)
    # the first ply at which the main line is named as this family: every line shares it
    board = chess.Board()
    defining = None
    for i, move in enumerate(lesson.main.moves):
        board.push_uci(move.uci)
        opening = classify(board)
        if opening is not None and opening.name.startswith(family):
            defining = i + 1
            break
    assert defining is not None
    for line in lesson.variations:
        assert line.ucis[:defining] == lesson.main.ucis[:defining], (lesson.key, line.name)


def test_eco_matches_the_main_line(lesson: Lesson) -> None:
    found = classify(_board(lesson.main))
    assert found is not None
    assert lesson.eco == found.eco


def test_files_say_where_names_come_from() -> None:
    for key in LESSON_KEYS:
        text = (shipped_folder() / f"{key}.toml").read_text(encoding="utf-8")
        assert "lichess-org/chess-openings" in text
        assert read_spec(shipped_folder() / f"{key}.toml").key == key


@pytest.mark.parametrize("color", [True, False])
def test_following_the_hints_completes_every_line(lesson: Lesson, color: bool) -> None:
    """Runs cover every line (the least practised first), and playing the hinted moves, with a
    wrong try on the way, ends each run on its line with the notes of the main line shown."""
    import random

    from boardctl.learning.lessons import LessonState, Mode, StepKind, Verdict

    practised: dict[str, int] = {}
    rng = random.Random(11)
    for _ in range(len(lesson.lines)):
        state = LessonState.start(lesson, color=color, mode=Mode.GUIDED, rng=rng, practised=practised)
        board = chess.Board()
        forced = 0
        while (step := state.step()).kind is not StepKind.END:
            assert step.move is not None
            if step.kind is StepKind.REPLY:
                _, state = state.reply()
            else:
                legal = [m.uci() for m in board.legal_moves]
                in_lesson = {
                    line.ucis[state.ply]
                    for line in lesson.lines
                    if line.ucis[: state.ply] == state.played and len(line.ucis) > state.ply
                }
                wrong = next((u for u in legal if u not in in_lesson), None)
                if wrong is None:  # a forced move (Kxd8 in the Berlin): nothing to get wrong
                    forced += 1
                    answer = state.play(step.move.uci)
                else:
                    missed = state.play(wrong)
                    assert missed.verdict is Verdict.WRONG and missed.expected == step.move
                    answer = missed.state.play(step.move.uci)
                assert answer.verdict is Verdict.RIGHT
                state = answer.state
            if state.line is lesson.main:
                assert step.move.note
            board.push_uci(step.move.uci)
        practised[state.line.line_id] = practised.get(state.line.line_id, 0) + 1
        assert state.score.mistakes == state.score.moves - forced and state.score.first_try == forced
    assert set(practised) == {line.line_id for line in lesson.lines}
