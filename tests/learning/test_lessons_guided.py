"""LessonGuide on a real Session (tracker, LEDs, takebacks), fed the events a hand makes; no engine.

Table-driven over every shipped lesson and both colours: each run follows a line to its end by
the LEDs alone, every lit move is the lesson's, every note shown is the main line's.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import chess
import pytest
from test_daemon_support import move_events

from boardctl.events import Button, ButtonPressed, Code, SquareChanged
from boardctl.learning.guided import LessonGuide
from boardctl.learning.lessons import Lesson, LessonState, Mode
from boardctl.session import Session, Settings
from boardctl.variants.chess.lessons import LESSON_KEYS, load_lesson


class Hand:
    """A session with a lesson guide, and a hand that moves pieces on it (virtual time)."""

    def __init__(self, lesson: Lesson, *, white: bool = True, mode: Mode = Mode.GUIDED, seed: int = 0,
                 play_on: bool = True, practised: dict[str, int] | None = None) -> None:
        self.session = Session(Settings(mode="play", color="white" if white else "black"))
        self.finished: list[LessonState] = []
        self.said: list[str] = []
        self.guide = LessonGuide(lesson, mode=mode, rng=random.Random(seed), on_finished=self.finished.append,
                                 say=self.said.append, play_on=play_on,
                                 practised=(lambda: practised) if practised is not None else None)
        self.session.guide = self.guide
        self.board = chess.Board()
        self.t = 0.0
        self.sounds = list(self.session.tick(0.0).sounds)  # what the daemon would sound, not yet taken

    def state(self) -> dict[str, Any]:
        return self.session.state_line()

    def lit(self, why: str) -> set[str]:
        return {led["square"] for led in self.state()["leds"] if led["why"] == why}

    def events(self, changes: list[tuple[str, bool]]) -> None:
        for square, occupied in changes:
            self.t += 0.1
            self.sounds += self.session.feed(SquareChanged(self.t, chess.parse_square(square), occupied)).sounds
        self.t += 2.5
        self.sounds += self.session.tick(self.t).sounds

    def take_sounds(self) -> list[Code]:
        sounds, self.sounds = self.sounds, []
        return sounds

    def move(self, uci: str) -> dict[str, Any]:
        move = chess.Move.from_uci(uci)
        self.events(move_events(self.board, move))
        self.board.push(move)
        return self.state()

    def unmove(self, uci: str) -> dict[str, Any]:
        """Put a (non-capturing, non-castling) move's piece back by hand."""
        self.events([(uci[2:4], False), (uci[:2], True)])
        return self.state()

    def button(self, name: str) -> dict[str, Any]:
        self.t += 0.1
        self.sounds += self.session.feed(ButtonPressed(self.t, Button(name))).sounds
        return self.state()


def squares(board: chess.Board, uci: str) -> set[str]:
    return {sq for sq, _ in move_events(board, chess.Move.from_uci(uci))}


def follow_line(hand: Hand) -> int:
    """Make every move the LEDs show until the line ends; returns the plies made."""
    plies = 0
    while not (state := hand.state())["lesson"]["ended"]:
        assert plies < 200
        if state["pending"] is not None:
            uci = state["pending"]
            assert hand.lit("engine-move") == squares(hand.board, uci)
        else:
            lesson = state["lesson"]
            assert lesson["your_turn"]
            uci = lesson["next"]["uci"]
            assert hand.lit("lesson-move") == squares(hand.board, uci)
        hand.move(uci)
        plies += 1
        assert hand.state()["moves"] == [m.uci() for m in hand.board.move_stack]
    return plies


@pytest.mark.parametrize("white", [True, False], ids=["white", "black"])
@pytest.mark.parametrize("key", LESSON_KEYS)
def test_every_lesson_runs_to_the_end_of_its_line_by_the_leds(key: str, white: bool) -> None:
    lesson = load_lesson(key)
    hand = Hand(lesson, white=white, seed=LESSON_KEYS.index(key))
    plies = follow_line(hand)
    state = hand.state()["lesson"]
    line = lesson.lines[state["line_index"]]
    assert [m.uci() for m in hand.board.move_stack] == list(line.ucis)
    assert plies == len(line.moves) == state["plies"] == state["ply"]
    assert state["score"] == {"moves": (plies + (1 if white else 0)) // 2, "first_try": (plies + (1 if white else 0)) // 2,
                              "mistakes": 0, "percent": 100}
    assert len(hand.finished) == 1 and hand.finished[0].line.line_id == line.line_id
    assert "ends here" in hand.state()["message"]
    # Every explanation said is a main-line note, in order, and only for main-line prefixes.
    main = [m.note for m in lesson.main.moves]
    shared = next((i for i, (a, b) in enumerate(zip(line.ucis, lesson.main.ucis, strict=False)) if a != b),
                  min(len(line.ucis), len(lesson.main.ucis)))
    assert hand.said == main[:shared]


def test_runs_differ_with_the_seed_and_prefer_lines_not_practised() -> None:
    lesson = load_lesson("spanish")
    picked = {Hand(lesson, seed=seed).state()["lesson"]["line_index"] for seed in range(12)}
    assert len(picked) >= 3
    # Every line but one practised: that one is always picked.
    practised = {line.line_id: 1 for line in lesson.lines[1:]}
    assert {Hand(lesson, seed=s, practised=practised).state()["lesson"]["line_index"] for s in range(5)} == {0}


@dataclass(frozen=True)
class Wrong:
    key: str
    white: bool
    wrong: str  # a legal move no line plays at the user's first or second turn


WRONGS = [
    Wrong("italian", True, "d2d4"),
    Wrong("petrov", False, "b8c6"),
    Wrong("spanish", True, "b1c3"),
    Wrong("philidor", False, "a7a6"),
]


@pytest.mark.parametrize("case", WRONGS, ids=lambda c: f"{c.key}-{'white' if c.white else 'black'}")
def test_a_wrong_move_is_taken_back_and_the_right_one_lit(case: Wrong) -> None:
    lesson = load_lesson(case.key)
    hand = Hand(lesson, white=case.white, seed=1)
    if not case.white:
        hand.move(hand.state()["pending"])
    first = hand.state()["lesson"]["next"]["uci"]
    hand.move(first)
    hand.move(hand.state()["pending"])
    right = hand.state()["lesson"]["next"]["uci"]
    before = [m.uci() for m in hand.board.move_stack]
    assert Code.LESSON_WRONG not in hand.take_sounds()
    after = hand.move(case.wrong)
    assert Code.LESSON_WRONG in hand.take_sounds()  # the buzzer says it too
    hand.board.pop()
    assert after["moves"] == before  # taken back in the game at once
    assert after["lesson"]["wrong"]["move"] == case.wrong
    assert hand.lit("takeback") == {case.wrong[:2], case.wrong[2:4]}
    # The wrong move and the right one are lit lesson-wrong; the wrong one's squares also takeback.
    assert hand.lit("lesson-wrong") == squares(hand.board, right) | {case.wrong[:2], case.wrong[2:4]}
    assert "not the lesson's move" in after["message"]
    back = hand.unmove(case.wrong)
    assert hand.lit("takeback") == set() and hand.lit("lesson-wrong") == squares(hand.board, right)
    assert back["matching"] is True
    hand.move(right)
    state = hand.state()["lesson"]
    assert state["wrong"] is None and state["score"]["mistakes"] == 1 and state["score"]["first_try"] == 1
    assert follow_line(hand) > 0
    assert hand.finished[0].score.first_try == hand.finished[0].score.moves - 1


def test_quiz_lights_no_hint_and_scores_a_revealed_move_as_missed() -> None:
    lesson = load_lesson("two-knights")
    hand = Hand(lesson, mode=Mode.QUIZ, seed=2)
    state = hand.state()
    assert state["lesson"]["next"] is None and hand.lit("lesson-move") == set()
    line = lesson.lines[state["lesson"]["line_index"]]
    revealed = hand.button("hint")
    assert revealed["lesson"]["next"]["uci"] == line.ucis[0]
    assert hand.lit("lesson-move") == squares(hand.board, line.ucis[0])
    for i, uci in enumerate(line.ucis):
        if i % 2 == 0:
            assert hand.lit("lesson-move") == (squares(hand.board, uci) if i == 0 else set())
        hand.move(uci)
    score = hand.finished[0].score
    assert score.moves == (len(line.ucis) + 1) // 2 and score.first_try == score.moves - 1
    assert f"{score.percent} %" in hand.state()["message"]


def test_takeback_button_rewinds_the_lesson() -> None:
    lesson = load_lesson("four-knights")
    hand = Hand(lesson, seed=0)
    line = lesson.lines[hand.state()["lesson"]["line_index"]]
    for uci in line.ucis[:4]:
        hand.move(uci)
    state = hand.button("takeback")  # your move and the reply: two plies
    assert state["moves"] == list(line.ucis[:2])
    assert state["lesson"]["ply"] == 2
    assert hand.lit("takeback")  # the pieces to put back
    hand.events([(line.ucis[3][2:4], False), (line.ucis[3][:2], True), (line.ucis[2][2:4], False),
                 (line.ucis[2][:2], True)])
    hand.board.pop()
    hand.board.pop()
    assert hand.lit("lesson-move") == squares(hand.board, line.ucis[2])


def test_the_engine_is_asked_only_after_the_line_and_only_to_play_on() -> None:
    lesson = load_lesson("hungarian")
    for play_on in (True, False):
        hand = Hand(lesson, white=False, seed=3, play_on=play_on)
        assert hand.session.engine_request() is None  # the lesson's own reply is already lit
        assert hand.state()["pending"] is not None
        follow_line(hand)
        if hand.board.turn == chess.WHITE:  # the user made the last move: the engine's turn now
            assert (hand.session.engine_request() is not None) == play_on
        else:
            hand.move(next(iter(hand.board.legal_moves)).uci())
            assert (hand.session.engine_request() is not None) == play_on


def test_new_game_starts_another_run() -> None:
    lesson = load_lesson("three-knights")
    hand = Hand(lesson, seed=5)
    hand.move(hand.state()["lesson"]["next"]["uci"])
    assert hand.button("new-game")["lesson"]["run"] == 2
    assert hand.state()["lesson"]["ply"] == 0


def test_another_lines_move_is_right_and_the_lesson_follows_that_line() -> None:
    lesson = load_lesson("italian")
    seed = next(s for s in range(50) if Hand(lesson, seed=s).state()["lesson"]["line_index"] == 0)
    hand = Hand(lesson, seed=seed)
    main = lesson.main.ucis
    for uci in main[:8]:  # 1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. c3 Nf6
        hand.move(uci)
    pianissimo = next(i for i, line in enumerate(lesson.lines) if line.ucis[8] == "d2d3")
    state = hand.move("d2d3")  # not the main line's 5. d4, but the Giuoco Pianissimo's 5. d3
    assert state["moves"][-1] == "d2d3" and state["lesson"]["wrong"] is None
    assert state["lesson"]["line_index"] == pianissimo and state["pending"] == lesson.lines[pianissimo].ucis[9]
    assert state["lesson"]["score"]["first_try"] == 5 and state["lesson"]["score"]["mistakes"] == 0
    follow_line(hand)
    assert hand.finished[0].line.name == lesson.lines[pianissimo].name
