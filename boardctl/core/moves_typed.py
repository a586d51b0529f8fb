"""Typed moves, game-neutral: what a typed line or a lit move means for hands on the board.

The terminal view (:mod:`boardctl.terminal`) reads lines with these, and each game's own reader
(``boardctl/variants/NAME/terminal_moves.py``) implements :class:`MoveReader` with them: the
position as a state line gives it (:class:`Position`), the hand steps a move takes on wood
(:data:`HandStep`), the game's words, and the refusals in plain words (:class:`InputError`).
Below the faces, so that a game's folder needs nothing from the terminal face.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from boardctl.core.geometry import CHESS_8X8, GEOMETRIES, Geometry, Square
from boardctl.errors import BoardctlError
from boardctl.events import Button

#: Seconds a captured piece stays off before the capturing piece arrives (longer than a brush).
CAPTURE_PAUSE = 0.25


HELP = """\
Moves:   e2e4 (from and to square), or SAN: e4, Nf3, exd5, O-O, e8=Q (a capture takes the piece off first);
         a bare square that is a legal move now, such as e4, plays that pawn move
Pieces:  lift e2 / place e4 move one piece by hand; a bare square that is no move (or while a piece
         is in the air) lifts the piece there, or places one if the square is empty
Buttons: !hint  !takeback  !draw  !claim  !resign (twice: it asks first)  !new-game  !promote-knight
         (also without the !)
Other:   . or an empty line redraws, flip turns the board round, help or ? shows this,
         quit or Ctrl-D stops (the game is saved and resumes next time)"""


HELP_XIANGQI = """\
Moves:   h2e2 (from and to point, files a-i from Red's left, ranks 0-9 from Red's side),
         ICCS H2-E2, WXF C2.5 or Chinese 炮二平五 (a capture takes the piece off first)
Pieces:  lift h2 / place e2 move one piece by hand; so does a bare point such as h2 (it lifts
         the piece there, or places one if the point is empty)
Buttons: !hint  !takeback  !draw  !claim  !resign (twice: it asks first)  !new-game (also without the !)
Other:   . or an empty line redraws, flip turns the board round, help or ? shows this,
         quit or Ctrl-D stops (the game is saved and resumes next time)"""


@dataclass(frozen=True)
class GameWords:
    """How the view speaks of one game: its sides, what a square is called, examples to type."""

    sides: tuple[str, str]
    square: str
    move_example: str
    square_example: str
    help: str


WORDS: dict[str, GameWords] = {
    "chess": GameWords(("White", "Black"), "square", "e2e4 or Nf3", "e2", HELP),
    "xiangqi": GameWords(("Red", "Black"), "point", "h2e2 or C2.5", "h2", HELP_XIANGQI),
}


class InputError(BoardctlError, ValueError):
    """A typed line that is not a command, or a move that cannot be made now; the message says why."""


@dataclass(frozen=True)
class MakeMove:
    """A typed move, in the game's own move type (``from_square``, ``to_square``, ``uci()``);
    ``legal`` is False for a from-to pair the rules refuse (it is still made on the wood, and the
    board says what is wrong, as with real pieces)."""

    move: Any
    legal: bool


@dataclass(frozen=True)
class Lift:
    square: Square


@dataclass(frozen=True)
class Place:
    square: Square


@dataclass(frozen=True)
class Pause:
    seconds: float


@dataclass(frozen=True)
class PressButton:
    button: Button


HandStep = Lift | Place | Pause | PressButton


def check_steps(steps: list[HandStep], occupancy: int, geometry: Geometry = CHESS_8X8) -> str | None:
    """Why ``steps`` cannot be done on a board with ``occupancy`` (logical), or None if they can."""
    occ = occupancy
    for step in steps:
        if isinstance(step, Lift):
            if not occ >> step.square & 1:
                return f"there is no piece on {geometry.square_name(step.square)} to pick up"
            occ &= ~(1 << step.square)
        elif isinstance(step, Place):
            if occ >> step.square & 1:
                return f"{geometry.square_name(step.square)} is occupied"
            occ |= 1 << step.square
    return None


def parse_placement(fen: str, geometry: Geometry) -> dict[Square, str]:
    """A FEN's pieces by square: the first row is the last rank; digits count empty squares.

    Neutral: chess and xiangqi FENs alike (uppercase is the side that moves first). ValueError
    says what is wrong."""
    rows = fen.split(" ")[0].split("/") if isinstance(fen, str) else []
    if len(rows) != geometry.ranks:
        raise ValueError(f"a {geometry.name} FEN has {geometry.ranks} rows, got {len(rows)}: {fen!r:.80}")
    pieces: dict[Square, str] = {}
    for i, row in enumerate(rows):
        rank, file = geometry.ranks - 1 - i, 0
        for run in re.findall(r"[0-9]+|[^0-9]", row):
            if run.isdigit():
                file += int(run)
                continue
            if not run.isalpha() or file >= geometry.files:
                raise ValueError(f"bad row {row!r} in the {geometry.name} FEN {fen!r:.80}")
            pieces[geometry.square(file, rank)] = run
            file += 1
        if file != geometry.files:
            raise ValueError(f"row {row!r} of the {geometry.name} FEN has {file} squares, not {geometry.files}")
    return pieces


def geometry_of(state: Mapping[str, Any]) -> Geometry:
    """The state line's board: its ``variant``, else (an older daemon) chess."""
    return GEOMETRIES.get(str(state.get("variant") or "chess"), CHESS_8X8)


class MoveReader(Protocol):
    """One game's typed moves, for :func:`parse` and the view; the board is the reader's own."""

    def board(self, fen: str) -> Any: ...

    def parse_move(self, text: str, position: Position) -> MakeMove: ...

    def hand_steps(self, position: Position, move: Any) -> list[HandStep]: ...

    def move_text(self, position: Position, uci: str) -> str | None: ...

    def how_to_type(self, position: Position, uci: str) -> str: ...

    def last_move(self, start_fen: str, moves: list[str]) -> str | None: ...

    def is_check(self, position: Position) -> bool: ...

    def explain(self, problem: str, move: Any, position: Position, legal: bool) -> str: ...


#: Games whose folder has a reader of their own notation (``boardctl/variants/NAME/terminal_moves.py``).
GAME_READERS = ("chess", "xiangqi")


def reader_for(variant: str, geometry: Geometry) -> MoveReader:
    """The game's own reader (chess: SAN; xiangqi: WXF, ICCS, Chinese), loaded from its folder
    only when that game is shown; any other board reads from-to point pairs."""
    if variant in GAME_READERS:
        module = importlib.import_module(f"boardctl.variants.{variant}.terminal_moves")
        reader: MoveReader = module.READER
        return reader
    return PointMoves(variant, geometry)


@dataclass(frozen=True)
class Position:
    """What :func:`parse` and :func:`render` need from a state line (logical squares)."""

    variant: str
    geometry: Geometry
    reader: MoveReader = field(repr=False, compare=False)
    board: Any = field(repr=False, compare=False)  # the reader's own board (a chess.Board), or None
    fen: str
    pieces: Mapping[Square, str]
    turn: bool  # True: the side that moves first (White, Red)
    occupancy: int  # logical: what the sensors see, in game squares
    human: bool | None  # None in record mode
    pending: str | None  # the engine's move waiting to be made, in the engine's coordinates
    thinking: bool
    result: str
    termination: str
    check: str | None = None

    @property
    def words(self) -> GameWords:
        return WORDS.get(self.variant, WORDS["chess"])

    def at_rest(self) -> bool:
        """The pieces stand where the game has them (no piece in the air, no move half made)."""
        return self.occupancy == sum(1 << square for square in self.pieces)

    @classmethod
    def from_state(cls, state: Mapping[str, Any]) -> Position:
        geometry = geometry_of(state)
        variant = geometry.name
        reader = reader_for(variant, geometry)
        fen = str(state["fen"])
        board = reader.board(fen)
        flipped = state.get("orientation") == "flipped"
        occupancy = int(state.get("occupancy") or "0", 16) & geometry.all_mask
        human = state.get("human")
        pending = state.get("pending")
        fields = fen.split()
        return cls(
            variant=variant,
            geometry=geometry,
            reader=reader,
            board=board,
            fen=fen,
            pieces=parse_placement(fen, geometry),
            turn=(fields[1] if len(fields) > 1 else "w") in ("w", "r"),
            occupancy=geometry.turn_mask(occupancy) if flipped else occupancy,
            human=None if state.get("mode") != "play" or human is None else human in ("white", "red"),
            pending=str(pending) if pending else None,
            thinking=bool(state.get("thinking")),
            result=str(state.get("result") or "*"),
            termination=str(state.get("termination") or ""),
            check=str(state["check"]) if state.get("check") else None,
        )


def side_name(position: Position, color: bool) -> str:
    """``White``/``Black``, or ``Red``/``Black`` in xiangqi."""
    return position.words.sides[0] if color else position.words.sides[1]


def is_first_side(piece: str) -> bool:
    """Uppercase FEN letters are the side that moves first (White, Red)."""
    return piece.isupper()


def not_a_command(text: str, position: Position) -> InputError:
    words = position.words
    return InputError(
        f"'{text}' is not a move, a {words.square} or a command. Type a move such as {words.move_example}, "
        f"lift {words.square_example} or place {words.square_example} to move one piece by hand, !hint or !takeback; "
        "help lists everything."
    )


def check_turn(uci: str, legal: bool, position: Position, reader: MoveReader) -> None:
    """Refuse, in plain words, a move that the game cannot take now (the rules are the tracker's).

    A from-to pair the rules refuse is still wood moved by hand (putting a piece back, say) and is
    left to the tracker, except after the game."""
    if position.result != "*":
        why = f", {position.termination}" if position.termination else ""
        raise InputError(f"The game is over ({position.result}{why}): type !new-game to play another")
    if position.human is None or not legal:
        return
    if position.turn != position.human and uci != position.pending:
        raise not_your_turn(position, reader)


def not_your_turn(position: Position, reader: MoveReader) -> InputError:
    if position.pending is not None:
        text = reader.move_text(position, position.pending) or position.pending
        return InputError(f"The engine plays {text}: make that move for it first "
                          f"(type {reader.how_to_type(position, position.pending)}), or press !takeback")
    if position.thinking:
        return InputError("Wait: the engine is thinking about its move")
    return InputError("It is not your turn: the engine moves now")


@dataclass(frozen=True)
class PointMove:
    """A move named by its two points (``h2e2``), for games whose moves need nothing more."""

    from_square: Square
    to_square: Square
    text: str = field(compare=False)

    def uci(self) -> str:
        return self.text


_POINT_PAIR = re.compile(r"([a-z][0-9]{1,2})\s*-?\s*([a-z][0-9]{1,2})")


class PointMoves:
    """Typed moves as from-to point names (``h2e2``, or ICCS ``H2-E2``), for a board whose game
    has no reader of its own.

    Which moves are legal is the tracker's to judge (it lights illegal-move and says why), as for
    pieces moved by hand; here a move counts as the side to move's when its piece is theirs and it
    does not land on one of their own."""

    def __init__(self, variant: str, geometry: Geometry) -> None:
        self.variant = variant
        self.geometry = geometry

    def board(self, fen: str) -> None:
        return None

    def parse_move(self, text: str, position: Position) -> MakeMove:
        geometry = self.geometry
        match = _POINT_PAIR.fullmatch(text.strip().lower())
        if match is None or not (geometry.is_name(match[1]) and geometry.is_name(match[2])):
            raise not_a_command(text.strip(), position)
        start, end = geometry.parse(match[1]), geometry.parse(match[2])
        if start == end:
            raise InputError(f"{match[1]}{match[2]} goes nowhere: give two different {position.words.square}s, "
                             f"such as {position.words.move_example}")
        mover, target = position.pieces.get(start), position.pieces.get(end)
        legal = (mover is not None and is_first_side(mover) == position.turn
                 and (target is None or is_first_side(target) != position.turn))
        uci = match[1] + match[2]
        check_turn(uci, legal, position, self)
        return MakeMove(PointMove(start, end, uci), legal)

    def hand_steps(self, position: Position, move: Any) -> list[HandStep]:
        steps: list[HandStep] = []
        if move.to_square in position.pieces:
            steps += [Lift(move.to_square), Pause(CAPTURE_PAUSE)]
        return [*steps, Lift(move.from_square), Place(move.to_square)]

    def move_text(self, position: Position, uci: str) -> str | None:
        match = _POINT_PAIR.fullmatch(uci)
        return uci if match and self.geometry.is_name(match[1]) and self.geometry.is_name(match[2]) else None

    def how_to_type(self, position: Position, uci: str) -> str:
        return uci

    def last_move(self, start_fen: str, moves: list[str]) -> str | None:
        if not moves:
            return None
        fields = start_fen.split()
        offset = 0 if len(fields) < 2 or fields[1] in ("w", "r") else 1
        first = int(fields[5]) if len(fields) > 5 and fields[5].isdigit() else 1
        ply = len(moves) - 1 + offset
        return f"{first + ply // 2}{'.' if ply % 2 == 0 else '...'} {moves[-1]}"

    def is_check(self, position: Position) -> bool:
        return position.check is not None

    def explain(self, problem: str, move: Any, position: Position, legal: bool) -> str:
        text = problem[0].upper() + problem[1:]
        if "occupied" in problem and not legal:
            return f"{text}: take that piece off first (type {self.geometry.square_name(move.to_square)})"
        if legal:
            return (f"{text}, so {move.uci()} cannot be made: first set the pieces as the game has them "
                    f"(the lit {position.words.square}s)")
        return text
