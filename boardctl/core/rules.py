"""The rules interface each game implements, shaped like python-chess's ``Board``.

The tracker, session, daemon, storage and page speak only this. ``boardctl.variants.chess``
implements it by subclassing ``chess.Board`` (so chess pays nothing for the indirection);
``boardctl.variants.xiangqi`` implements it from scratch. Colours are booleans as in
python-chess: ``True`` moves first (White, Red).

Moves are opaque to the core: it reads ``from_square``, ``to_square`` and ``uci()`` and hands a
move back only to the board (or a copy of it) that produced it. A game's board may therefore
take its own move class in its methods; the chess board declares the core :class:`Move` in its
signatures for the type checker and receives ``chess.Move`` objects at run time, which is the
only kind its moves ever are (no wrapper, no narrowing cost on the tracker's hot path).

Beside python-chess's own members, :class:`GameBoard` has *hooks* for what the tracker must know
about moves that are more than "one piece from one square to another" (chess: castling, en
passant, promotion). :class:`PlainMoves` answers them for a game without such moves (xiangqi), so
a game only overrides the hooks it needs.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Protocol, Self, TextIO

from boardctl.core.geometry import Geometry, Square

#: ``True`` for the side that moves first (White in chess, Red in xiangqi).
Color = bool
FIRST: Color = True
SECOND: Color = False


class Move(Protocol):
    """A move as the rules produce it; compare and hash moves only from the same rules."""

    @property
    def from_square(self) -> Square: ...

    @property
    def to_square(self) -> Square: ...

    def uci(self) -> str: ...


@dataclass(frozen=True, slots=True)
class Notice:
    """What the rules say while the game goes on: ``must_vary`` is the side that must change
    its moves or lose (xiangqi's 必须变着); None: a draw either player may claim."""

    text: str
    must_vary: Color | None = None


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended: ``termination`` is a lower-case reason (``checkmate``, ``perpetual_check``...)."""

    termination: str
    winner: Color | None

    def result(self) -> str:
        return "1/2-1/2" if self.winner is None else ("1-0" if self.winner else "0-1")

    @property
    def reason(self) -> str:
        """The termination in words: ``perpetual_check`` -> ``perpetual check``."""
        return self.termination.replace("_", " ")


class GameBoard(Protocol):
    """A position with its move stack; mirrors the python-chess ``Board`` members we use.

    Masks are bitboards over :attr:`geometry`'s squares (bit ``rank * files + file``).
    """

    # -- the position ------------------------------------------------------------------------

    @property
    def geometry(self) -> Geometry: ...

    @property
    def turn(self) -> Color: ...

    @property
    def occupied(self) -> int: ...

    def occupied_by(self, color: Color) -> int: ...

    @property
    def occupied_co(self) -> Sequence[int]:
        """``occupied_co[color]`` is :meth:`occupied_by` (python-chess's form: an index, not a call,
        on the tracker's hot path)."""
        ...

    def piece_name(self, square: Square) -> str | None:
        """The piece on ``square`` in plain English (``knight``, ``cannon``), None if empty."""
        ...

    def color_at(self, square: Square) -> Color | None: ...

    def king(self, color: Color) -> Square | None: ...

    def is_check(self) -> bool: ...

    def fen(self) -> str: ...

    # -- the move stack ----------------------------------------------------------------------

    @property
    def move_stack(self) -> Sequence[Move]: ...

    def copy(self, *, stack: bool = True) -> Self: ...

    def root(self) -> Self:
        """The position before the first move of the stack."""
        ...

    def push(self, move: Move) -> None: ...

    def pop(self) -> Move: ...

    def peek(self) -> Move: ...

    # -- legal moves and notation ------------------------------------------------------------

    def generate_legal_moves(self, from_mask: int = ..., to_mask: int = ...) -> Iterator[Move]: ...

    def is_legal(self, move: Move) -> bool: ...

    def parse_uci(self, uci: str) -> Move:
        """The legal move written ``uci``; ValueError (a subclass) if it is not one."""
        ...

    def san(self, move: Move) -> str:
        """The move in the game's usual notation (SAN for chess)."""
        ...

    def san_and_push(self, move: Move) -> str: ...

    @property
    def notation_marks_mate(self) -> bool:
        """Whether :meth:`san` ends a mating move with ``#`` and a check with ``+`` (as SAN does),
        so that the tracker need not look for mate again after a move."""
        ...

    def variation_san(self, moves: Sequence[Move]) -> str:
        """Moves from this position written as the game prints a line (``1. e4 e5``)."""
        ...

    # -- the end of the game -----------------------------------------------------------------

    def outcome(self, *, claim_draw: bool = False) -> Outcome | None:
        """The game's end by the rules alone (mate, no move, a ruling); claims only if asked."""
        ...

    def claimable_draw(self) -> str | None:
        """The draw the side to move may claim now, in words (``threefold repetition``), or None."""
        ...

    def notice(self) -> Notice | None:
        """What the rules call for now without ending the game (a side that must vary), or None."""
        ...

    def has_insufficient_material(self, color: Color) -> bool:
        """``color`` can no longer win by any series of legal moves (FIDE 6.9)."""
        ...

    # -- hooks for moves of more than one piece or with a choice -----------------------------

    def occupied_after(self, move: Move) -> int:
        """The occupancy after ``move``, without pushing it (hot: keep it cheap)."""
        ...

    def move_mask(self, move: Move) -> int:
        """Every square a hand touches to make ``move`` (chess: castling's rook, e.p.'s pawn)."""
        ...

    def landing_square(self, move: Move) -> Square:
        """Where the moved piece lands (castling: the king's square, not the rook's)."""
        ...

    def capture_square(self, move: Move) -> Square | None:
        """The square of the piece ``move`` takes (e.p.: beside the target), None if no capture."""
        ...

    def capture_to_mask(self, square: Square) -> int:
        """The targets of the moves that may take the piece on ``square`` (e.p. adds one)."""
        ...

    def extra_targets(self) -> int:
        """Squares to add to a ``to_mask`` so that moves named by another square than where
        their piece lands are generated (chess castling is named by its rook's square)."""
        ...

    def attempt_region(self, diff: int) -> int:
        """``diff`` (squares differing from the position) and the squares that will still change
        in the same attempt (a king two files over: its castling rook)."""
        ...

    def compound_after(self, occupancy: int) -> Move | None:
        """The last move was the first half of a move of several pieces made out of order (the
        rook before castling) and ``occupancy`` shows the whole move done: that move, which is
        legal in the position before the last move. None in games without such moves."""
        ...

    def commits_to(self, move: Move, occupancy: int) -> bool:
        """``move`` is half made and ``occupancy`` binds the player to finish it (FIDE 4.4: the
        king released on its castling square must castle)."""
        ...

    def touch_first_forbids(self, move: Move, touched: Square) -> bool:
        """Touching the piece on ``touched`` first forbids ``move`` by a special rule rather
        than plain touch-move (FIDE 4.4b: the rook touched before castling)."""
        ...

    def choices(self) -> tuple[str, ...]:
        """The choices a move may carry, in the order the promote button cycles, the default
        first (chess ``q r b n``; none in xiangqi)."""
        ...

    def choice_of(self, move: Move) -> str | None:
        """The choice ``move`` carries (the promotion piece), or None."""
        ...

    def with_choice(self, move: Move, choice: str) -> Move:
        """``move`` with another of :meth:`choices` (under-promotion)."""
        ...


class _Position(Protocol):
    @property
    def turn(self) -> Color: ...

    @property
    def occupied(self) -> int: ...

    def occupied_by(self, color: Color) -> int: ...


class PlainMoves:
    """Hook answers for a game whose every move is one piece from one square to another.

    Mix it into a board class (before nothing else: it only fills what the board lacks).
    """

    def occupied_after(self: _Position, move: Move) -> int:
        return (self.occupied & ~(1 << move.from_square)) | (1 << move.to_square)

    def move_mask(self, move: Move) -> int:
        return (1 << move.from_square) | (1 << move.to_square)

    def landing_square(self, move: Move) -> Square:
        return move.to_square

    def capture_square(self: _Position, move: Move) -> Square | None:
        return move.to_square if self.occupied_by(not self.turn) >> move.to_square & 1 else None

    def capture_to_mask(self, square: Square) -> int:
        return 1 << square

    def extra_targets(self) -> int:
        return 0

    def attempt_region(self, diff: int) -> int:
        return diff

    def compound_after(self, occupancy: int) -> Move | None:
        return None

    def commits_to(self, move: Move, occupancy: int) -> bool:
        return False

    def touch_first_forbids(self, move: Move, touched: Square) -> bool:
        return False

    def choices(self) -> tuple[str, ...]:
        return ()

    def choice_of(self, move: Move) -> str | None:
        return None

    def with_choice(self, move: Move, choice: str) -> Move:
        raise ValueError(f"no choice {choice!r:.20} for {move.uci()} in this game")

    def claimable_draw(self) -> str | None:
        return None

    def notice(self) -> Notice | None:
        return None

    @property
    def notation_marks_mate(self) -> bool:
        return False


@dataclass(frozen=True, slots=True)
class GameText:
    """A game as its record is written (PGN): what storage and replay hand to ``Variant.write_pgn``."""

    #: The position the game started from.
    fen: str
    #: The moves in the engine's coordinates (``e2e4``, ``h2e2``).
    moves: tuple[str, ...]
    #: Tags in order (the game adds what its convention requires, e.g. ``FEN`` for a set-up).
    headers: dict[str, str]
    #: Comments by ply (0: before the first move), already in words.
    comments: dict[int, str] = field(default_factory=dict)
    #: The mover's time left after each move, where known.
    clocks: tuple[float | None, ...] = ()
    #: A comment after the last move (the detailed reason the game ended).
    final: str = ""
    #: Numeric annotation glyphs by ply (1: the first move), e.g. 2 for ``?``, 4 for ``??``.
    nags: dict[int, tuple[int, ...]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ReadGame:
    """A game read from a record file: its tags, start position, moves (engine coordinates) and
    what the reader could not make sense of."""

    headers: dict[str, str]
    fen: str
    moves: tuple[str, ...]
    errors: tuple[str, ...] = ()


def _copy_board(board: GameBoard) -> GameBoard:
    return board.copy()


#: The parts a game's folder may have (``boardctl/variants/<game>/<part>.py``), each imported only
#: when asked for: ``reading`` (``read_record``: its PGN and other record files), ``spoken``
#: (``words()``: its moves read aloud), ``terminal_moves`` (``READER``: moves typed in its own
#: notation), ``tactics`` (the coach's motifs), ``lessons``, ``notation`` (a notation of its own
#: the page also shows, ``chinese``/``write_line``), ``records`` (``export``: its other record
#: formats).
PARTS = frozenset({"reading", "spoken", "terminal_moves", "tactics", "lessons", "notation", "records"})


@dataclass(frozen=True, slots=True)
class Capabilities:
    """What a game takes part in beyond its rules, declared once in its folder (as python-chess's
    variant classes carry their facts), so that no caller tests a game's name."""

    #: Which of :data:`PARTS` the game's folder has.
    parts: frozenset[str] = frozenset()
    #: Rated: the player's rating against the characters, and tournaments.
    is_rated: bool = False
    #: Playable on Lichess (``boardctl online``).
    is_online: bool = False
    #: Offered to chess apps as a Millennium ChessLink board (``boardctl link``).
    has_app_link: bool = False
    #: A river drawn between the sides (its rank count halved), as on a xiangqi board.
    has_river: bool = False

    def __post_init__(self) -> None:
        unknown = self.parts - PARTS
        if unknown:
            raise ValueError(f"unknown game parts {sorted(unknown)}: the parts are {sorted(PARTS)}")


def _no_faults(board: GameBoard) -> list[str]:
    return []


@dataclass(frozen=True, slots=True)
class Variant:
    """A game the board can play: its geometry, start position, side names and rules factory,
    and the few things about it written for people (PGN, piece names, position faults)."""

    name: str
    geometry: Geometry
    starting_fen: str
    #: ``(first, second)``: ``("white", "black")`` or ``("red", "black")``.
    color_names: tuple[str, str]
    #: Builds a board from a FEN; raises ValueError naming what is wrong.
    board_factory: Callable[[str], GameBoard]
    #: The game's own board copied from a board of this game (e.g. a plain ``chess.Board``).
    adopt: Callable[[GameBoard], GameBoard] = field(default=_copy_board)
    #: What is wrong with a set-up position in words (empty when it is fine to play from).
    faults: Callable[[GameBoard], list[str]] = field(default=_no_faults)
    #: The PGN text of a game in the game's convention.
    write_pgn: Callable[[GameText], str] | None = None
    #: The first game of a PGN file (None if it holds none); its tags only, for listings.
    read_pgn: Callable[[TextIO], ReadGame | None] | None = None
    read_pgn_headers: Callable[[TextIO], dict[str, str] | None] | None = None
    #: The game with its rule options (xiangqi: ``rules``, ``move_limit``); None: it has none.
    configurator: Callable[[Mapping[str, object]], Variant] | None = None
    #: What else the game offers (its folder's parts, the features it takes part in).
    capabilities: Capabilities = field(default_factory=Capabilities)

    def has_part(self, part: str) -> bool:
        """Whether the game's folder has ``part`` (one of :data:`PARTS`)."""
        if part not in PARTS:
            raise ValueError(f"unknown game part {part!r:.40}: the parts are {sorted(PARTS)}")
        return part in self.capabilities.parts

    def part(self, part: str) -> ModuleType:
        """The game's module ``part`` (``boardctl.variants.<game>.<part>``), imported on first use;
        LookupError when the game has none."""
        if not self.has_part(part):
            raise LookupError(f"{self.name} has no {part.replace('_', ' ')}")
        return importlib.import_module(f"boardctl.variants.{self.name}.{part}")

    def configure(self, **options: object) -> Variant:
        """This game under ``options`` (a game ignores options it does not have)."""
        return self if self.configurator is None else self.configurator(options)

    def board(self, fen: str | None = None) -> GameBoard:
        return self.board_factory(self.starting_fen if fen is None else fen)

    def color_name(self, color: Color) -> str:
        return self.color_names[0] if color else self.color_names[1]

    def parse_color(self, name: str) -> Color:
        """``white``/``red`` -> True, ``black`` -> False; ValueError otherwise."""
        if name == self.color_names[0]:
            return FIRST
        if name == self.color_names[1]:
            return SECOND
        raise ValueError(
            f"a side in {self.name} is {self.color_names[0]!r} or {self.color_names[1]!r}, got {name!r:.60}"
        )
