"""Board geometry: files, ranks, point names, bitboard masks and turning the board round.

One value per board shape (``CHESS_8X8``, ``XIANGQI_9X10``). A square (or xiangqi point) is an
``int``: ``rank * files + file``, so ``a1`` (chess) or ``a0`` (xiangqi) is 0. Occupancy is a
bitboard of ``files * ranks`` bits with that numbering, written in hex as ``ceil(points / 4)``
digits (16 for chess, 23 for xiangqi).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

#: A square or point index, ``rank * files + file``.
Square = int

FILE_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def squares_of(mask: int) -> Iterator[Square]:
    """The squares of an occupancy ``mask``, lowest first (any board size)."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


@dataclass(frozen=True, slots=True)
class Geometry:
    """A rectangular board of ``files`` x ``ranks`` squares; rank names start at ``first_rank``."""

    name: str
    files: int
    ranks: int
    first_rank: int = 1
    names: tuple[str, ...] = field(init=False, repr=False, compare=False)
    _index: dict[str, Square] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not 1 <= self.files <= len(FILE_LETTERS) or self.ranks < 1:
            raise ValueError(f"geometry {self.name}: bad size {self.files}x{self.ranks}")
        names = tuple(
            f"{FILE_LETTERS[s % self.files]}{s // self.files + self.first_rank}"
            for s in range(self.files * self.ranks)
        )
        object.__setattr__(self, "names", names)
        object.__setattr__(self, "_index", {n: i for i, n in enumerate(names)})

    @property
    def points(self) -> int:
        """How many squares (chess) or points (xiangqi) the board has."""
        return self.files * self.ranks

    @property
    def all_mask(self) -> int:
        return (1 << self.points) - 1

    @property
    def hex_digits(self) -> int:
        """Digits of an occupancy written in hex: ``ceil(points / 4)``."""
        return (self.points + 3) // 4

    def square(self, file: int, rank: int) -> Square:
        """The square at ``file`` and ``rank``, both counted from 0."""
        if not (0 <= file < self.files and 0 <= rank < self.ranks):
            raise ValueError(f"{self.name}: no square at file {file}, rank {rank}")
        return rank * self.files + file

    def file_of(self, square: Square) -> int:
        return square % self.files

    def rank_of(self, square: Square) -> int:
        return square // self.files

    def is_square(self, square: object) -> bool:
        return (
            isinstance(square, int) and not isinstance(square, bool) and 0 <= square < self.points
        )

    def square_name(self, square: Square) -> str:
        return self.names[square]

    def is_name(self, text: object) -> bool:
        return isinstance(text, str) and text in self._index

    def parse(self, text: str) -> Square:
        """The square named ``text`` (``e4``; ``e0`` in xiangqi); ValueError names the board."""
        try:
            return self._index[text]
        except (KeyError, TypeError):
            first, last = self.names[0], self.names[-1]
            raise ValueError(
                f"not a square name on the {self.name} board ({first}..{last}): {text!r}"
            ) from None

    def turned(self, square: Square) -> Square:
        """The same square seen from the other side (the board turned round by 180 degrees)."""
        return self.points - 1 - square

    def turn_mask(self, mask: int) -> int:
        """A bitboard turned round: bit ``s`` becomes bit ``points - 1 - s``."""
        out = 0
        while mask:
            low = mask & -mask
            out |= 1 << (self.points - low.bit_length())
            mask ^= low
        return out

    def mask(self, squares: Iterable[Square]) -> int:
        out = 0
        for s in squares:
            out |= 1 << s
        return out

    def squares_in(self, mask: int) -> Iterator[Square]:
        """The squares of ``mask``, lowest first."""
        while mask:
            low = mask & -mask
            yield low.bit_length() - 1
            mask ^= low

    def rank_mask(self, rank: int) -> int:
        """The squares of rank ``rank`` (counted from 0)."""
        return ((1 << self.files) - 1) << (rank * self.files)

    def to_hex(self, mask: int) -> str:
        """Occupancy as ``hex_digits`` lower-case hex digits (the state line's ``occupancy``)."""
        return f"{mask & self.all_mask:0{self.hex_digits}x}"

    def from_hex(self, text: str) -> int:
        """Parse :meth:`to_hex`'s form exactly; ValueError says what is wrong."""
        if (
            not isinstance(text, str)
            or len(text) != self.hex_digits
            or not all(c in "0123456789abcdefABCDEF" for c in text)
        ):
            raise ValueError(
                f"occupancy on the {self.name} board must be {self.hex_digits} hex digits, got {text!r:.60}"
            )
        value = int(text, 16)
        if value > self.all_mask:
            raise ValueError(
                f"occupancy {text} has bits beyond the {self.points} squares of the {self.name} board"
            )
        return value


CHESS_8X8 = Geometry("chess", 8, 8, first_rank=1)
XIANGQI_9X10 = Geometry("xiangqi", 9, 10, first_rank=0)

GEOMETRIES: dict[str, Geometry] = {g.name: g for g in (CHESS_8X8, XIANGQI_9X10)}
