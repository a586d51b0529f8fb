"""The rules interface each game implements, shaped like python-chess's ``Board``.

The tracker, session, daemon, storage and page speak only this. ``boardctl.variants.chess``
implements it by subclassing ``chess.Board`` (so chess pays nothing for the indirection);
``boardctl.variants.xiangqi`` implements it from scratch. Colours are booleans as in
python-chess: ``True`` moves first (White, Red).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol, Self

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
class Outcome:
    """How a game ended: ``termination`` is a lower-case reason (``checkmate``, ``perpetual_check``...)."""

    termination: str
    winner: Color | None

    def result(self) -> str:
        return "1/2-1/2" if self.winner is None else ("1-0" if self.winner else "0-1")


class GameBoard(Protocol):
    """A position with its move stack; mirrors the python-chess ``Board`` members we use."""

    @property
    def geometry(self) -> Geometry: ...

    @property
    def turn(self) -> Color: ...

    @property
    def occupied(self) -> int: ...

    def occupied_by(self, color: Color) -> int: ...

    @property
    def move_stack(self) -> Sequence[Move]: ...

    def fen(self) -> str: ...

    def copy(self, *, stack: bool = True) -> Self: ...

    def push(self, move: Move) -> None: ...

    def pop(self) -> Move: ...

    def peek(self) -> Move: ...

    def generate_legal_moves(self, from_mask: int = ..., to_mask: int = ...) -> Iterator[Move]: ...

    def is_legal(self, move: Move) -> bool: ...

    def parse_uci(self, uci: str) -> Move: ...

    def san(self, move: Move) -> str: ...

    def is_check(self) -> bool: ...

    def king(self, color: Color) -> Square | None: ...

    def outcome(self, *, claim_draw: bool = False) -> Outcome | None: ...


@dataclass(frozen=True, slots=True)
class Variant:
    """A game the board can play: its geometry, start position, side names and rules factory."""

    name: str
    geometry: Geometry
    starting_fen: str
    #: ``(first, second)``: ``("white", "black")`` or ``("red", "black")``.
    color_names: tuple[str, str]
    #: Builds a board from a FEN; raises ValueError naming what is wrong.
    board_factory: Callable[[str], GameBoard]

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
