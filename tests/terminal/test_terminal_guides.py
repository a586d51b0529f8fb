"""The terminal teaches what the page teaches (issue 35, finding 9): a lesson's line, next move
and notes, a quiz's question and score, a replay's game, move and the record's comments, and
the guide's message; the terminal showed only ``Lit: lesson-move e2 e4``. Then the score's
words: never "1 of 1 right (100 %), 1 wrong" for one right move and a wrong try at the next."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from test_daemon_support import STOCKFISH, needs_engine
from test_terminal import state as chess_state
from test_terminal_session import Pty, assert_quiet

from boardctl.records import read_any_record
from boardctl.terminal import guide_lines, render

LESSON = {
    "key": "italian", "title": "Italian Game", "eco": "C50", "mode": "guided", "color": "white",
    "line": "Giuoco Piano", "line_index": 0, "lines": 5, "ply": 2, "plies": 10, "your_turn": True,
    "next": {"uci": "g1f3", "san": "Nf3"}, "next_note": "The knight attacks e5 and prepares to castle.",
    "note": "Black answers in the centre.", "note_ply": 2, "say_id": 1, "wrong": None, "ended": False,
    "beyond": False, "run": 1, "score": {"moves": 1, "first_try": 1, "mistakes": 0, "percent": 100},
}
STEP = {"ply": 1, "plies": 3, "watch": True, "set_up": True, "sans": ["e4", "e5", "Nf3"], "next": "e5",
        "wrong": None, "headers": {"White": "Morphy", "Black": "Anderssen", "Event": "Paris", "Date": "1858"},
        "source": "g.pgn", "comment": "The king's pawn two squares."}

#: (the guide's part of the state line, the lines the terminal must show)
CASES: list[tuple[dict[str, Any], list[str]]] = [
    ({"lesson": LESSON}, [
        "Lesson: Italian Game (C50), guided, you play white: Giuoco Piano, move 2 of 10",
        "Lesson: your move Nf3: The knight attacks e5 and prepares to castle.",
        "Lesson note: Black answers in the centre.",
        "Score: 1 of 1 right at the first try (100 %), 0 wrong tries"]),
    ({"lesson": {**LESSON, "mode": "quiz", "next": None, "next_note": None}}, [
        "Lesson: Italian Game (C50), quiz, you play white: Giuoco Piano, move 2 of 10",
        "Lesson: your move (quiz: no hint; !hint shows it)."]),
    ({"lesson": {**LESSON, "wrong": {"move": "d2d4", "right": "Nf3"},
                 "score": {"moves": 2, "first_try": 1, "mistakes": 1, "percent": 50}}}, [
        "Lesson: d2d4 is not the lesson's move: put it back. The lesson plays Nf3.",
        "Score: 1 of 2 right at the first try (50 %), 1 wrong try"]),
    ({"lesson": {**LESSON, "ended": True, "your_turn": False, "ply": 10}}, ["Lesson: the line is over."]),
    ({"step": STEP}, ["Replay: Morphy - Anderssen (Paris, 1858), move 1 of 3, next e5",
                      "Comment: The king's pawn two squares."]),
    ({"step": {**STEP, "next": None, "comment": None, "watch": False}},
     ["Replay: Morphy - Anderssen (Paris, 1858), move 1 of 3, !hint shows the next move, !takeback goes back"]),
    ({"step": {**STEP, "ply": 3, "next": None, "comment": None}},
     ["Replay: Morphy - Anderssen (Paris, 1858), move 3 of 3, the end"]),
    ({"step": {**STEP, "wrong": {"move": "d2d4", "right": "2. Nf3"}}},
     ["Replay: d2d4 is not the game's move: put it back. The game plays 2. Nf3."]),
    ({"message": "Set up. Press hint for the first move (e4)."}, ["Set up. Press hint for the first move (e4)."]),
]


@pytest.mark.parametrize(("extra", "shown"), CASES, ids=[str(i) for i in range(len(CASES))])
def test_the_terminal_shows_the_guides_words(extra: dict[str, Any], shown: list[str]) -> None:
    assert [line for line in guide_lines(extra) if line in shown] == shown, guide_lines(extra)
    drawing = render(chess_state(**extra))
    for line in shown:
        assert line in drawing.splitlines(), drawing


COMMENTED = ('[Event "Paris"]\n[White "Morphy"]\n[Black "Duke Karl"]\n\n'
             "{The Opera game.} 1. e4 {[%clk 0:05:00] The king's pawn.} e5 2. Nf3 d6 {Philidor's defence.} "
             "(2... Nc6 {not played}) 3. d4 *\n")
XQ_COMMENTED = ('[Event "Guangzhou"]\n\n1. 炮二平五 {中炮} 马８进７ 2. 马二进三 {[%clk 0:09:58] 屏风马} '
                '(2. 兵七进一 {变着}) 车９平８ *\n')


@pytest.mark.parametrize(("text", "comments"), [
    (COMMENTED, {0: "The Opera game.", 1: "The king's pawn.", 4: "Philidor's defence."}),
    (XQ_COMMENTED, {1: "中炮", 3: "屏风马"}),
])
def test_the_records_comments_are_read_on_the_main_line(text: str, comments: dict[int, str]) -> None:
    assert read_any_record(text)[1].comments == comments


def _type_until(term: Pty, pattern: str, line: str, tries: int = 5) -> re.Match[str]:
    for _ in range(tries):
        term.type(line)
        try:
            return term.expect(pattern, timeout=5)
        except AssertionError:
            continue
    raise AssertionError(f"no {pattern!r} after typing {line!r}:\n{term.out[-3000:]}")


@pytest.mark.slow
def test_games_step_in_the_terminal_shows_the_comments(tmp_path: Path) -> None:
    record = tmp_path / "opera.pgn"
    record.write_text(COMMENTED, encoding="utf-8")
    term = Pty(tmp_path, "games", "step", str(record), "--watch", "--board", "sim", "--no-web",
               "--games-dir", str(tmp_path / "games"))
    try:
        term.expect(r"Replay: Morphy - Duke Karl \(Paris\), move 0 of 5")
        term.expect(r"Comment: The Opera game\.")
        _type_until(term, r"move 1 of 5, next e5", "!hint")
        term.expect(r"Comment: The king's pawn\.")
        assert "%clk" not in term.out
        term.type("quit")
        assert term.wait() == 0
        assert_quiet(term.out)
    finally:
        term.close()


@pytest.mark.slow
@needs_engine
def test_a_lesson_in_the_terminal_says_its_notes(tmp_path: Path) -> None:
    term = Pty(tmp_path, "learn", "italian", "--seed", "0", "--no-play-on", "--board", "sim", "--no-web",
               "--engine", str(STOCKFISH), "--games-dir", str(tmp_path / "games"))
    try:
        term.expect(r"Lesson: Italian Game \(C5\d\), guided, you play white: .*, move 0 of \d+")
        term.expect(r"Lesson: your move e4")
        term.type("e4")
        term.expect(r"Lesson: .*move [12] of")
        term.expect(r"Score: 1 of 1 right at the first try \(100 %\), 0 wrong tries")
        term.type("quit")
        assert term.wait() == 0
        assert_quiet(term.out)
    finally:
        term.close()


@pytest.mark.parametrize("mode", ["guided", "quiz"])
def test_a_wrong_try_at_the_next_move_is_counted_with_it(mode: str) -> None:
    """A right first move, then a wrong try at the second: 1 of 2, not "1 of 1 right (100 %), 1 wrong"."""
    from learning.test_lessons_guided import Hand

    from boardctl.learning.lessons import Mode
    from boardctl.variants.chess.lessons import load_lesson

    lesson = load_lesson("italian")
    hand = Hand(lesson, mode=Mode.QUIZ if mode == "quiz" else Mode.GUIDED, seed=0)
    line = lesson.lines[hand.state()["lesson"]["line_index"]]
    hand.move(line.ucis[0])
    hand.move(hand.state()["pending"])
    wrong = next(m for m in ("a2a3", "h2h3", "a2a4") if m != line.ucis[2])
    hand.move(wrong)
    score = hand.state()["lesson"]["score"]
    assert score == {"moves": 2, "first_try": 1, "mistakes": 1, "percent": 50}
    assert "Score: 1 of 2 right at the first try (50 %), 1 wrong try" in guide_lines(hand.state())
