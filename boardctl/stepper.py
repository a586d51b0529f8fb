"""``boardctl games step``: a game replayed on the board, one move at a time.

The game (a saved one, or any PGN; in xiangqi also XQF) is read into a :class:`ReplayGame`.
The board is first set up as the game starts (LEDs ``setup``); then the buttons step it:
``hint`` forward, ``takeback`` back. Two ways to follow it:

- **on the board** (default): ``hint`` lights the next move (``step-move``) and you make it; a
  move that is not the game's is put back (``takeback`` on its squares, the game's move lit
  ``lesson-wrong``); ``takeback`` undoes the last move (its squares show ``takeback`` until
  the pieces are back). The session is a two-player recording that the guide keeps to the game.
- **watching** (``--watch``): nothing is moved; the LEDs show the move just stepped to
  (``step-move``) and no mismatch is lit. The state line's ``fen`` and ``moves`` are the
  stepped position's; ``occupancy`` is null (the switches are not followed meanwhile).

The state line's ``step`` key carries the game for the page (its moves in SAN, the ply shown,
the tags), which shows it with a slider that steps by the same buttons. :class:`StepGuide` is
pure like the session (boardctl.guide).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from boardctl.core.rules import GameBoard, Move, Variant
from boardctl.errors import GameFileError
from boardctl.events import Button, Code, LedIntent
from boardctl.guide import legal, move_leds, wrong_leds

if TYPE_CHECKING:
    from boardctl.session import Session

log = logging.getLogger(__name__)

#: Largest record read: a PGN of one long game is some tens of kilobytes.
MAX_RECORD_BYTES = 1024 * 1024
#: Tags passed on to the page.
SHOWN_TAGS = ("Event", "Site", "Date", "Round", "White", "Black", "Red", "Result", "Opening")
#: Codes of the tracker's that ask for pieces to be put right: while watching, none is lit.
_RESTORE_CODES = frozenset({Code.MISMATCH, Code.SETUP, Code.TAKEBACK, Code.ILLEGAL_MOVE, Code.TOUCH_MOVE,
                            Code.CASTLING_ROOK_FIRST, Code.LIFTED, Code.LEGAL_MOVES, Code.WHICH_CAPTURE,
                            Code.PROMOTION})


@dataclass(frozen=True)
class ReplayGame:
    """A game to step through: its game, start position, moves (UCI) and tags; ``source`` names it."""

    variant: str
    fen: str
    moves: tuple[str, ...]
    headers: dict[str, str] = field(default_factory=dict)
    source: str = ""
    #: The record's comments on the main line: ``comments[ply]`` follows move ``ply`` (0: before the first).
    comments: dict[int, str] = field(default_factory=dict)

    def boards(self, variant: Variant) -> list[GameBoard]:
        """The position before each move and after the last (``len(moves) + 1`` boards)."""
        board = variant.board(self.fen)
        out = [board.copy()]
        for ply, uci in enumerate(self.moves, start=1):
            move = legal(board, uci)
            if move is None:
                raise GameFileError(f"{self.source}: ply {ply}: {uci} is not a legal move there")
            board.push(move)
            out.append(board.copy())
        return out


def read_game_file(path: Path, *, variant_name: str | None = None) -> ReplayGame:
    """The one game in the record ``path`` (PGN; XQF in xiangqi); GameFileError names the file."""
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_RECORD_BYTES + 1)
    except OSError as exc:
        raise GameFileError(f"{path}: cannot read ({exc.strerror or exc})") from None
    return read_game_data(data, source=str(path), name=path.name, variant_name=variant_name)


def read_game_data(data: bytes, *, source: str, name: str, variant_name: str | None = None) -> ReplayGame:
    """The one game in ``data`` (a record's bytes); GameFileError names ``source``."""
    from boardctl.records import RecordError, read_any_record

    if len(data) > MAX_RECORD_BYTES:
        raise GameFileError(f"{source}: larger than {MAX_RECORD_BYTES} bytes; is it one game?")
    try:
        variant, game = read_any_record(data, named=variant_name)  # every move legal
    except RecordError as exc:
        raise GameFileError(f"{source}: {exc}") from None
    if not game.moves:
        raise GameFileError(f"{source}: the game has no moves to step through")
    headers = {k: v for k, v in game.headers.items() if k in SHOWN_TAGS and v not in ("", "?")}
    return ReplayGame(variant.name, game.fen, tuple(game.moves), headers, source=name, comments=dict(game.comments))


class StepGuide:
    """Keeps a session to ``game``: see the module docstring."""

    #: The mode its games are saved with (boardctl.guide): never an unfinished game to resume.
    record_mode = "replay"

    def __init__(self, game: ReplayGame, variant: Variant, *, watch: bool = False) -> None:
        self.game = game
        self.variant = variant
        self.watch = watch
        self.positions = game.boards(variant)
        self.sans = tuple(self.positions[i].san(self.positions[i + 1].peek()) for i in range(len(game.moves)))
        self.cursor = 0  # watching: the ply shown
        self.shown = False  # on the board: the next move is lit
        self.set_up = False  # the board has matched the start position
        self.wrong: tuple[str, str] | None = None  # (the move made, the game's move)
        self.message: str | None = None
        self._game_id: str | None = None
        self._seen = 0  # on the board: the moves made when last looked at
        self._sounds: list[Code] = []

    @property
    def plies(self) -> int:
        return len(self.game.moves)

    def ply(self, session: Session) -> int:
        return self.cursor if self.watch else len(session.record.moves)

    def _move(self, ply: int) -> Move:
        """The game's move number ``ply`` (0-based) as a move on the position before it."""
        move = legal(self.positions[ply], self.game.moves[ply])
        assert move is not None  # checked by boards()
        return move

    # -- the session's calls ---------------------------------------------------------------------

    def after(self, session: Session, t: float) -> None:
        if session.record.id != self._game_id:  # the start, or new-game: from the beginning
            self._game_id = session.record.id
            self.cursor, self.shown, self.wrong, self.set_up, self._seen = 0, False, None, False, 0
            self.message = "Set up the board as the lit squares show; then hint steps forward, takeback back."
        if not self.set_up and session.tracker.is_matching() and not session.record.moves:
            self.set_up = True
            self.message = f"Set up. Press hint for the first move ({self._san_at(0)})."
        if self.watch:
            return
        moves = session.record.moves
        n = len(moves)
        if n and (n > self.plies or moves[n - 1] != self.game.moves[n - 1]):
            made = moves[n - 1]
            right = self._numbered(n - 1) if n <= self.plies else ""
            session.take_back(t)  # one ply in a recording: the move just made
            self.wrong = (made, self.sans[n - 1] if right else "")
            self._sounds.append(Code.LESSON_WRONG)
            self._seen = n - 1
            self.message = (f"{made} is not the game's move: put it back." +
                            (f" The game goes on {right}." if right else " The game has ended here."))
            return
        if n != self._seen:  # a move made, or taken back
            self._seen = n
            self.shown = False
            self.wrong = None
            self.message = self._after_text(n)

    def _san_at(self, ply: int) -> str:
        return self._numbered(ply) if ply < self.plies else "the end"

    def _numbered(self, ply: int) -> str:
        """``12. Nf3`` or ``12... Nf6``: the move as a score sheet has it."""
        board = self.positions[ply]
        fields = board.fen().split()
        number = fields[5] if len(fields) > 5 else str(ply // 2 + 1)
        dots = "." if board.turn else "..."
        return f"{number}{dots} {self.sans[ply]}"

    def _after_text(self, ply: int) -> str:
        if ply == 0:
            return f"At the start. Press hint for the first move ({self._san_at(0)})."
        last = self._numbered(ply - 1)
        if ply >= self.plies:
            result = self.game.headers.get("Result", "")
            return f"{last}: the end of the game" + (f" ({result})." if result and result != "*" else ".")
        return f"{last}. Next: {self._san_at(ply)} (hint shows it)."

    def on_button(self, session: Session, button: Button, t: float) -> bool:
        ply = self.ply(session)
        if button == Button.HINT:
            if not self.set_up:
                self.message = "Set the pieces as the lit squares show first."
            elif ply >= self.plies:
                self.message = "The end of the game: takeback steps back."
            elif self.watch:
                self.cursor += 1
                self.message = self._after_text(self.cursor)
            elif not session.tracker.is_matching():
                self.message = "Set the pieces as the lit squares show first."
            else:
                self.shown = True
                self.message = f"Make {self._numbered(ply)} on the board."
            return True
        if button == Button.TAKEBACK:
            if self.watch:
                if ply == 0:
                    self.message = "At the start: hint steps forward."
                else:
                    self.cursor -= 1
                    self.message = self._after_text(self.cursor)
                return True
            if self.shown or self.wrong is not None:
                self.shown = False
                self.wrong = None
                self.message = self._after_text(ply)
                return True
            if ply == 0:
                self.message = "At the start: hint steps forward."
                return True
            return False  # the session takes the last move back; its squares show takeback
        if button in (Button.DRAW, Button.RESIGN, Button.CLAIM):
            self.message = "A replay: hint steps forward, takeback back."
            return True
        return False

    def take_sounds(self) -> list[Code]:
        sounds, self._sounds = self._sounds, []
        return sounds

    def may_ask_engine(self, session: Session, kind: str) -> bool:
        return False

    def leds(self, session: Session, intents: list[LedIntent]) -> list[LedIntent]:
        if not self.set_up:
            return [LedIntent(i.square, Code.SETUP) if i.why == Code.MISMATCH else i for i in intents]
        if self.watch:
            if self.cursor == 0:
                return []
            return move_leds(self.positions[self.cursor - 1], self._move(self.cursor - 1), Code.STEP_MOVE)
        ply = len(session.record.moves)
        if ply >= self.plies or ply != len(session.board.move_stack):
            return intents
        if self.wrong is not None:
            return [*intents, *wrong_leds(intents), *move_leds(session.board, self._move(ply), Code.LESSON_WRONG)]
        if self.shown:  # lit while the move is being made too
            return [*intents, *move_leds(session.board, self._move(ply), Code.STEP_MOVE)]
        return intents

    def state(self, session: Session) -> dict[str, Any]:
        ply = self.ply(session)
        info: dict[str, Any] = {
            "ply": ply,
            "plies": self.plies,
            "watch": self.watch,
            "set_up": self.set_up,
            "sans": list(self.sans),
            "next": self.sans[ply] if ply < self.plies and (self.watch or self.shown) else None,
            "wrong": None if self.wrong is None else {"move": self.wrong[0], "right": self.wrong[1]},
            "headers": dict(self.game.headers),
            "source": self.game.source,
            "comment": self.game.comments.get(ply),  # the record's words on the move just made (0: the start)
        }
        out: dict[str, Any] = {"step": info}
        if self.message:
            out["message"] = self.message
        if self.watch and self.set_up:
            board = self.positions[self.cursor]
            out.update(fen=board.fen(), moves=list(self.game.moves[: self.cursor]), occupancy=None,
                       turn=self.variant.color_name(board.turn), matching=True, pending=None)
        return out
