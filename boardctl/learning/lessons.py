"""Opening lessons: the data files, and a pure state machine that runs one lesson.

A lesson (``boardctl/data/lessons/<key>.toml``) is a main line with a note on every move, and
variations, each a whole line from the start position. This module reads the file's shape
(:func:`read_spec`) and runs a lesson over move names (UCI strings); turning SAN into moves and
checking legality is the game's job (``boardctl.variants.chess.lessons.resolve``).

The state machine (:class:`LessonState`) is pure: no I/O and no clock; randomness comes from the
caller's seeded ``random.Random``. At the start it picks a target line, preferring lines this
user has practised least, so that runs differ. The user's moves are hinted from the target
(guided mode) or not (quiz); any move that continues some lesson line consistent with the moves
so far is right (the target switches to that line), anything else is wrong: the right move is
lit with ``lesson-wrong`` and the wrong one must be taken back. The other side plays the
target's moves. The run ends when the target line does.
"""

from __future__ import annotations

import enum
import random
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from boardctl.errors import BoardctlError

#: LED codes (boardctl/hw/leds.py): the move to play, a wrong move's right one, the other side's
#: move (made on the board like the engine's); the end of the line lights nothing of its own.
INTENT_HINT = "lesson-move"
INTENT_WRONG = "lesson-wrong"
INTENT_REPLY = "engine-move"
INTENT_END = "lesson-end"

#: Lesson keys are command names: lower case, digits and dashes.
KEY_PATTERN = re.compile(r"[a-z][a-z0-9-]{0,39}")
#: At most this many characters in a note, and at most two lines ("one or two lines").
MAX_NOTE = 240
MAX_NOTE_LINES = 2
MAX_PLIES = 200
MAX_VARIATIONS = 50
MAX_FILE_BYTES = 256 * 1024
_MOVE_NUMBER = re.compile(r"\d+\.(\.\.)?")


class LessonError(BoardctlError, ValueError):
    """A lesson file or a lesson move that cannot be used; the message names the file and key."""


# --------------------------------------------------------------------------- file shape


@dataclass(frozen=True)
class LineSpec:
    """A line as written: its opening name, its moves in SAN and a note per move ("" = none)."""

    name: str
    sans: tuple[str, ...]
    notes: tuple[str, ...]
    where: str  # "main" or "variation[2]", for messages


@dataclass(frozen=True)
class LessonSpec:
    """A lesson file as written, shape-checked but not yet checked against the rules."""

    key: str
    title: str
    eco: str
    summary: str
    main: LineSpec
    variations: tuple[LineSpec, ...]
    source: str  # the file name, for messages


def _text(data: Mapping[str, Any], key: str, *, where: str, limit: int = 200) -> str:
    if key not in data:
        raise LessonError(f"{where}: missing key {key!r}")
    value = data[key]
    if not isinstance(value, str) or not value.strip():
        raise LessonError(f"{where}.{key}: expected a non-empty string")
    if len(value) > limit or any(ord(c) < 32 and c != "\n" for c in value):
        raise LessonError(f"{where}.{key}: longer than {limit} characters or has control characters")
    return value.strip()


def _note(value: Any, *, where: str) -> str:
    if not isinstance(value, str):
        raise LessonError(f"{where}: the note must be a string")
    note = value.strip()
    if len(note) > MAX_NOTE or len(note.splitlines()) > MAX_NOTE_LINES:
        raise LessonError(f"{where}: a note has at most {MAX_NOTE_LINES} lines and {MAX_NOTE} characters")
    if any(ord(c) < 32 and c != "\n" for c in note):
        raise LessonError(f"{where}: the note has control characters")
    return note


def _san_tokens(text: str, *, where: str) -> tuple[str, ...]:
    tokens = tuple(t for t in text.split() if not _MOVE_NUMBER.fullmatch(t))
    for i, token in enumerate(tokens):
        if len(token) > 10 or not token.isascii() or not token.isprintable():
            raise LessonError(f"{where}: move {i + 1} ({token[:12]!r}) is not a SAN move")
    return tokens


def _line(data: Any, *, where: str, main: bool) -> LineSpec:
    if not isinstance(data, dict):
        raise LessonError(f"{where}: expected a table")
    unknown = set(data) - {"name", "moves"}
    if unknown:
        raise LessonError(f"{where}: unknown key {sorted(unknown)[0]!r}")
    name = _text(data, "name", where=where)
    moves = data.get("moves")
    sans: tuple[str, ...]
    notes: tuple[str, ...]
    if isinstance(moves, str):
        if main:
            raise LessonError(f"{where}.moves: the main line needs [move, note] pairs, one per move")
        sans = _san_tokens(moves, where=f"{where}.moves")
        notes = ("",) * len(sans)
    elif isinstance(moves, list):
        pairs: list[tuple[str, str]] = []
        for i, item in enumerate(moves):
            at = f"{where}.moves[{i}]"
            if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], str)):
                raise LessonError(f"{at}: expected [\"SAN\", \"note\"]")
            token = _san_tokens(item[0], where=at)
            if len(token) != 1:
                raise LessonError(f"{at}: expected exactly one move, got {item[0][:20]!r}")
            note = _note(item[1], where=at)
            if main and not note:
                raise LessonError(f"{at}: every main-line move needs a note")
            pairs.append((token[0], note))
        sans = tuple(p[0] for p in pairs)
        notes = tuple(p[1] for p in pairs)
    else:
        raise LessonError(f"{where}.moves: expected a list of [move, note] pairs or a string of moves")
    if not sans:
        raise LessonError(f"{where}.moves: no moves")
    if len(sans) > MAX_PLIES:
        raise LessonError(f"{where}.moves: more than {MAX_PLIES} moves")
    return LineSpec(name=name, sans=sans, notes=notes, where=where)


def parse_spec(text: str, *, key: str, source: str) -> LessonSpec:
    """The lesson in TOML ``text``; LessonError names ``source`` and the line or key at fault."""
    if not KEY_PATTERN.fullmatch(key):
        raise LessonError(f"{source}: {key[:40]!r} is not a lesson name (lower case, digits, dashes)")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise LessonError(f"{source}: {exc}") from None
    except RecursionError:
        raise LessonError(f"{source}: nested too deeply") from None
    unknown = set(data) - {"title", "eco", "summary", "main", "variation"}
    if unknown:
        raise LessonError(f"{source}: unknown key {sorted(unknown)[0]!r}")
    where = source
    title = _text(data, "title", where=where, limit=80)
    eco = _text(data, "eco", where=where, limit=3)
    if not re.fullmatch(r"[A-E]\d\d", eco):
        raise LessonError(f"{source}.eco: expected an ECO code such as C50")
    summary = _note(data.get("summary", ""), where=f"{source}.summary")
    if "main" not in data:
        raise LessonError(f"{source}: missing table [main]")
    main = _line(data["main"], where=f"{source}: main", main=True)
    raw = data.get("variation", [])
    if not isinstance(raw, list) or not raw:
        raise LessonError(f"{source}: expected [[variation]] tables")
    if len(raw) > MAX_VARIATIONS:
        raise LessonError(f"{source}: more than {MAX_VARIATIONS} variations")
    variations = tuple(
        _line(item, where=f"{source}: variation[{i}]", main=False) for i, item in enumerate(raw)
    )
    return LessonSpec(
        key=key, title=title, eco=eco, summary=summary, main=main, variations=variations, source=source
    )


def read_spec(path: Path) -> LessonSpec:
    """The lesson file at ``path`` (its key is the file's stem)."""
    try:
        with path.open("rb") as f:
            raw = f.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise LessonError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if len(raw) > MAX_FILE_BYTES:
        raise LessonError(f"{path}: larger than {MAX_FILE_BYTES} bytes")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LessonError(f"{path}: not UTF-8 (byte {exc.start})") from None
    return parse_spec(text, key=path.stem, source=path.name)


# --------------------------------------------------------------------------- resolved lessons


@dataclass(frozen=True)
class LessonMove:
    """One move of a line: as the engine and board name it (``uci``), as people say it (``san``)."""

    uci: str
    san: str
    note: str = ""


@dataclass(frozen=True)
class Line:
    name: str
    moves: tuple[LessonMove, ...]

    @property
    def ucis(self) -> tuple[str, ...]:
        return tuple(m.uci for m in self.moves)

    @property
    def line_id(self) -> str:
        """The moves themselves: a stable name for progress, whatever the file's order."""
        return " ".join(self.ucis)


@dataclass(frozen=True)
class Lesson:
    key: str
    title: str
    eco: str
    summary: str
    main: Line
    variations: tuple[Line, ...]

    @property
    def lines(self) -> tuple[Line, ...]:
        """The main line first, then the variations."""
        return (self.main, *self.variations)

    def note_for(self, played: tuple[str, ...]) -> str:
        """The explanation of the last move of ``played`` when the moves are the main line's, else ""."""
        ply = len(played)
        main = self.main.ucis
        if 0 < ply <= len(main) and main[:ply] == played:
            return self.main.moves[ply - 1].note
        return ""


# --------------------------------------------------------------------------- the state machine


class Mode(enum.Enum):
    GUIDED = "guided"  # the LEDs show each of your moves
    QUIZ = "quiz"  # no hints; your moves are scored


class StepKind(enum.Enum):
    YOUR_MOVE = "your-move"
    REPLY = "reply"  # the other side's move, to be made on the board
    END = "end"


@dataclass(frozen=True)
class Step:
    """What happens next. ``move`` is the move to make (the hint, or the reply), None at the end."""

    kind: StepKind
    move: LessonMove | None
    line: Line
    ply: int
    #: The LED intent to show now, if any (no hint in a quiz).
    intent: str | None


class Verdict(enum.Enum):
    RIGHT = "right"  # the target line's move
    ALSO_RIGHT = "also-right"  # another line's move; the lesson follows that line now
    WRONG = "wrong"  # to be taken back


@dataclass(frozen=True)
class Answer:
    verdict: Verdict
    #: The move the lesson wanted (lit with ``lesson-wrong`` after a wrong move).
    expected: LessonMove
    #: The wrong move to take back, or None.
    takeback: str | None
    state: LessonState

    @property
    def is_right(self) -> bool:
        return self.verdict is not Verdict.WRONG

    @property
    def intent(self) -> str | None:
        return INTENT_WRONG if self.verdict is Verdict.WRONG else None


@dataclass(frozen=True)
class Score:
    """A run's tally: your moves (made, or missed and still to make), how many were right at
    the first try, and wrong tries in all."""

    moves: int
    first_try: int
    mistakes: int

    @property
    def fraction(self) -> float:
        return self.first_try / self.moves if self.moves else 0.0

    @property
    def percent(self) -> int:
        return round(100 * self.fraction)


def choose_line(lesson: Lesson, rng: random.Random, *, practised: Mapping[str, int] | None = None) -> int:
    """An index into ``lesson.lines``: uniformly among the least-practised lines."""
    counts = [(practised or {}).get(line.line_id, 0) for line in lesson.lines]
    least = min(counts)
    candidates = [i for i, c in enumerate(counts) if c == least]
    return rng.choice(candidates)


@dataclass(frozen=True)
class LessonState:
    """One run of one lesson. Pure: every transition returns a new state."""

    lesson: Lesson
    color: bool  # True: the user plays White (who moves first)
    mode: Mode
    target: int  # index into lesson.lines
    played: tuple[str, ...] = ()
    user_moves: int = 0
    first_try: int = 0
    mistakes: int = 0
    missed_this_move: bool = False

    @classmethod
    def start(
        cls,
        lesson: Lesson,
        *,
        color: bool,
        mode: Mode,
        rng: random.Random,
        practised: Mapping[str, int] | None = None,
    ) -> LessonState:
        return cls(lesson=lesson, color=color, mode=mode, target=choose_line(lesson, rng, practised=practised))

    @property
    def line(self) -> Line:
        return self.lesson.lines[self.target]

    @property
    def ply(self) -> int:
        return len(self.played)

    def is_users_turn(self) -> bool:
        return (self.ply % 2 == 0) == self.color

    def is_over(self) -> bool:
        return self.ply >= len(self.line.moves)

    @property
    def score(self) -> Score:
        """The tally so far; a move already missed (a wrong try, or its answer shown in a quiz)
        counts among the moves though not yet made, so that "1 of 1 right, 1 wrong" is never said
        of one right move and a wrong try at the next."""
        tried = self.user_moves + (1 if self.missed_this_move else 0)
        return Score(moves=tried, first_try=self.first_try, mistakes=self.mistakes)

    def step(self) -> Step:
        """What comes next: the user's move (hinted unless a quiz), the other side's, or the end."""
        line = self.line
        if self.is_over():
            return Step(StepKind.END, None, line, self.ply, INTENT_END)
        move = line.moves[self.ply]
        if self.is_users_turn():
            intent = INTENT_HINT if self.mode is Mode.GUIDED else None
            return Step(StepKind.YOUR_MOVE, move, line, self.ply, intent)
        return Step(StepKind.REPLY, move, line, self.ply, INTENT_REPLY)

    def _continuing(self, uci: str) -> int | None:
        """The index of a line that follows the moves so far and then ``uci``, target first."""
        order = [self.target, *(i for i in range(len(self.lesson.lines)) if i != self.target)]
        prefix = self.played
        for i in order:
            ucis = self.lesson.lines[i].ucis
            if len(ucis) > len(prefix) and ucis[: len(prefix)] == prefix and ucis[len(prefix)] == uci:
                return i
        return None

    def play(self, uci: str) -> Answer:
        """Judge the user's move ``uci``. LessonError when it is not the user's turn or the line ended."""
        if self.is_over():
            raise LessonError("the lesson's line has ended")
        if not self.is_users_turn():
            raise LessonError("it is the other side's turn: make the lit move")
        expected = self.line.moves[self.ply]
        found = self._continuing(uci)
        if found is None:
            wrong = replace(self, mistakes=self.mistakes + 1, missed_this_move=True)
            return Answer(Verdict.WRONG, expected, uci, wrong)
        verdict = Verdict.RIGHT if found == self.target else Verdict.ALSO_RIGHT
        right = replace(
            self,
            target=found,
            played=(*self.played, uci),
            user_moves=self.user_moves + 1,
            first_try=self.first_try + (0 if self.missed_this_move else 1),
            missed_this_move=False,
        )
        return Answer(verdict, expected, None, right)

    def rewind(self, ply: int) -> LessonState:
        """The state with the moves after ``ply`` taken back (the score and the target line stay)."""
        if not 0 <= ply <= self.ply:
            raise LessonError(f"cannot rewind to ply {ply} of {self.ply}")
        return replace(self, played=self.played[:ply], missed_this_move=False)

    def reply(self) -> tuple[LessonMove, LessonState]:
        """The other side's move (the target line's) and the state after it."""
        step = self.step()
        if step.kind is not StepKind.REPLY or step.move is None:
            raise LessonError("it is not the other side's turn")
        return step.move, replace(self, played=(*self.played, step.move.uci))
