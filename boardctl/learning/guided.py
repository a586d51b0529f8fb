"""A lesson on the board: :class:`LessonGuide` leads a session through one opening lesson.

The session plays as against the engine (``mode="play"``, the user's colour), and the guide
(:mod:`boardctl.guide`) does the rest:

- your move from the lesson is lit (``lesson-move``), unless it is a quiz (then ``hint`` shows
  it, and it no longer counts as right at the first try);
- a move that is no lesson line's is taken back at once: its squares show ``takeback`` until
  the piece is back, and the right move is lit ``lesson-wrong``;
- the other side's move is the lesson's (the target line, chosen among the lines so that runs
  differ), shown like the engine's move for you to make on the board;
- each main-line move's explanation is in the state line (``lesson.note``) and handed to the
  ``say`` callback for speech;
- when the line ends the run is counted (``on_finished``: progress is saved there) and the
  engine plays on from the position, unless ``play_on`` is off. ``new-game`` starts another run.

The guide is pure (no I/O, no clock); randomness is the caller's seeded ``random.Random``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from boardctl.events import Button, Code, LedIntent
from boardctl.guide import legal, move_leds, wrong_leds
from boardctl.learning.lessons import Lesson, LessonMove, LessonState, Mode
from boardctl.reply import Reply

if TYPE_CHECKING:
    from boardctl.session import Session


class LessonGuide:
    """One lesson, run again with every new game (``new-game``); see the module docstring."""

    #: The mode its games are saved with (boardctl.guide): never an unfinished game to resume.
    record_mode = "lesson"

    def __init__(
        self,
        lesson: Lesson,
        *,
        mode: Mode,
        rng: random.Random,
        practised: Callable[[], Mapping[str, int]] | None = None,
        on_finished: Callable[[LessonState], None] | None = None,
        say: Callable[[str], None] | None = None,
        play_on: bool = True,
    ) -> None:
        self.lesson = lesson
        self.mode = mode
        self.rng = rng
        self.practised = practised or dict
        self.on_finished = on_finished
        self.say = say
        self.play_on = play_on
        self.current: LessonState | None = None
        self.runs = 0
        self._game: str | None = None
        self._reset()
        self._busy = False
        self._own_request = False
        self._sounds: list[Code] = []

    def _reset(self) -> None:
        self.wrong: tuple[str, LessonMove] | None = None  # the wrong move (UCI) and the right one
        self.revealed = False  # quiz: the hint button showed this move
        self.finished = False  # this run is counted
        self.beyond = False  # the game left the lesson (after its end, or by a takeback of the reply)
        self.note = ""
        self.note_ply = 0
        self.said = 0
        self.message: str | None = None

    # -- what the lesson is at -------------------------------------------------------------------

    def _in_line(self) -> bool:
        return self.current is not None and not self.beyond and not self.current.is_over()

    def _your_move(self) -> LessonMove | None:
        """The lesson's move for the user now, or None (the other side's turn, the line over)."""
        state = self.current
        if state is None or not self._in_line() or not state.is_users_turn():
            return None
        return state.line.moves[state.ply]

    def _start(self, session: Session) -> None:
        color = session.record.human == session.variant.color_names[0]
        self.current = LessonState.start(self.lesson, color=color, mode=self.mode, rng=self.rng,
                                       practised=self.practised())
        self._game = session.record.id
        self.runs += 1
        self._reset()
        side = session.variant.color_name(color)
        hints = "the LEDs show your moves" if self.mode is Mode.GUIDED else "a quiz: no hints; hint shows the move and costs the point"
        self.message = f"{self.lesson.title}: you play {side}; {hints}."

    def _set_note(self, played: tuple[str, ...]) -> None:
        note = self.lesson.note_for(played)
        if note:
            self.note, self.note_ply = note, len(played)
            self.said += 1
            if self.say is not None:
                self.say(note)

    # -- the session's calls ---------------------------------------------------------------------

    def after(self, session: Session, t: float) -> None:
        if self._busy:
            return
        self._busy = True
        try:
            if self.current is None or session.record.id != self._game:
                self._start(session)
            self._follow(session, t)
            self._reply(session, t)
        finally:
            self._busy = False

    def _follow(self, session: Session, t: float) -> None:
        """Bring the lesson up to the game's moves: judge a new move, follow a takeback."""
        state = self.current
        assert state is not None
        moves = tuple(session.record.moves)
        if len(moves) < state.ply and moves == state.played[: len(moves)]:
            self.current = state = state.rewind(len(moves))  # taken back (the button, or by hand)
            self.wrong = None
            self.beyond = False
        while not self.beyond and len(moves) > state.ply:
            if moves[: state.ply] != state.played or state.is_over():
                self.beyond = True
                break
            uci = moves[state.ply]
            if state.is_users_turn():
                answer = state.play(uci)
                self.current = answer.state
                if not answer.is_right:
                    self.wrong = (uci, answer.expected)
                    self._sounds.append(Code.LESSON_WRONG)
                    name = uci
                    if len(moves) == state.ply + 1:  # the last move made: put back at once
                        name = _san_before(session, uci)
                        session.take_back(t)
                    self.message = f"{name} is not the lesson's move: put it back. The lesson plays {answer.expected.san}."
                    return
                self.wrong = None
                self.revealed = False
            else:
                expected = state.line.moves[state.ply]
                if uci != expected.uci:
                    self.beyond = True
                    break
                _, self.current = state.reply()
            state = self.current
            self._set_note(state.played)
            self.message = None
        if self.current is not None and self.current.is_over() and not self.finished:
            self.finished = True
            if self.on_finished is not None:
                self.on_finished(self.current)
            self.message = self._end_text(session)

    def _end_text(self, session: Session) -> str:
        state = self.current
        assert state is not None
        text = f"The lesson's line ends here ({state.line.name})."
        if self.mode is Mode.QUIZ:
            score = state.score
            text += f" Quiz: {score.first_try} of {score.moves} moves right at the first try ({score.percent} %)."
        if self.play_on:
            text += " The engine plays on from here if you go on; new-game starts another line."
        else:
            text += " Press new-game for another line."
        return text

    def _reply(self, session: Session, t: float) -> None:
        """The other side's lesson move, shown on the LEDs for the user to make (as the engine's)."""
        state = self.current
        if state is None or not self._in_line() or state.is_users_turn() or session.pending is not None:
            return
        self._own_request = True
        try:
            request = session.engine_request()
        finally:
            self._own_request = False
        if request is None or request.kind != "move":
            return
        move = legal(session.board, state.line.moves[state.ply].uci)
        if move is None:  # cannot happen with a checked lesson: leave it to the engine
            self.beyond = True
            return
        session.engine_replied(request, Reply(move=move, score=None), t)

    def on_button(self, session: Session, button: Button, t: float) -> bool:
        if button != Button.HINT or not self._in_line():
            return False
        move = self._your_move()
        if move is None:
            self.message = "The other side's move is lit: make it on the board."
            return True
        if self.mode is Mode.QUIZ and not self.revealed:
            self.revealed = True
            assert self.current is not None
            self.current = replace(self.current, missed_this_move=True)
        note = self.lesson.note_for((*self.current.played, move.uci)) if self.current else ""
        self.message = f"The lesson plays {move.san}." + (f" {note}" if note else "")
        return True

    def take_sounds(self) -> list[Code]:
        sounds, self._sounds = self._sounds, []
        return sounds

    def may_ask_engine(self, session: Session, kind: str) -> bool:
        if self._own_request:
            return True
        if self.current is None or self._in_line():
            return False  # the lesson answers itself; hints come from the lesson
        return self.play_on

    def leds(self, session: Session, intents: list[LedIntent]) -> list[LedIntent]:
        move = self._your_move()
        if move is None or session.pending is not None or session.is_over():
            return intents
        played = legal(session.board, move.uci)
        if played is None:
            return intents
        if self.wrong is not None:
            return [*intents, *wrong_leds(intents), *move_leds(session.board, played, Code.LESSON_WRONG)]
        if self.mode is Mode.GUIDED or self.revealed:
            return [*intents, *move_leds(session.board, played, Code.LESSON_MOVE)]
        return intents

    def state(self, session: Session) -> dict[str, Any]:
        state = self.current
        if state is None:
            return {}
        move = self._your_move()
        shown = move is not None and (self.mode is Mode.GUIDED or self.revealed or self.wrong is not None)
        next_note = self.lesson.note_for((*state.played, move.uci)) if move is not None and shown else ""
        score = state.score
        info: dict[str, Any] = {
            "key": self.lesson.key,
            "title": self.lesson.title,
            "eco": self.lesson.eco,
            "mode": self.mode.value,
            "color": session.variant.color_name(state.color),
            "line": state.line.name,
            "line_index": state.target,
            "lines": len(self.lesson.lines),
            "ply": state.ply,
            "plies": len(state.line.moves),
            "your_turn": move is not None,
            "next": None if move is None or not shown else {"uci": move.uci, "san": move.san},
            "next_note": next_note or None,
            "note": self.note or None,
            "note_ply": self.note_ply,
            "say_id": self.said,
            "wrong": None if self.wrong is None else {"move": self.wrong[0], "right": self.wrong[1].san},
            "ended": state.is_over(),
            "beyond": self.beyond,
            "run": self.runs,
            "score": {"moves": score.moves, "first_try": score.first_try, "mistakes": score.mistakes,
                      "percent": score.percent},
        }
        out: dict[str, Any] = {"lesson": info}
        if self.message:
            out["message"] = self.message
        return out


def _san_before(session: Session, uci: str) -> str:
    """``uci`` (the game's last move) in the game's notation, from the position before it."""
    board = session.board.copy()
    if not board.move_stack or board.peek().uci() != uci:
        return uci
    move = board.pop()
    return board.san(move)
