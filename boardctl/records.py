"""Reading a game record someone hands us: the page's PGN upload and ``boardctl games open``.

A record is read into a :class:`ReadGame` (start position, moves in the engine's coordinates,
tags) by the game's own reader (``boardctl.variants.<game>``), so nothing here knows a notation.
Every fault is one :class:`RecordError` whose text the caller prefixes with where it came from.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from boardctl.core.rules import GameBoard, Variant
from boardctl.errors import BoardctlError

#: Most main-line moves (plies) read from a record; the longest real games have about 550.
MAX_PLIES = 1000


class RecordError(BoardctlError, ValueError):
    """A record that cannot be read or set up; the text says what is wrong (without where)."""


class SeveralGames(RecordError):
    """The record holds ``count`` games: which one is meant is not for us to guess."""

    def __init__(self, count: int) -> None:
        super().__init__(f"the file holds {count} games; give a file with the one game to set up")
        self.count = count


@dataclass(frozen=True, slots=True)
class ReadGame:
    """One game of a record: where it starts, its main line, its tags."""

    fen: str
    moves: tuple[str, ...]
    headers: dict[str, str] = field(default_factory=dict)
    #: The record names its start position (a ``FEN`` tag, or a binary record's set-up).
    has_fen: bool = False

    def board_after(self, variant: Variant, plies: int | None = None) -> GameBoard:
        """The position after ``plies`` moves (all by default), with those moves on its stack."""
        count = len(self.moves) if plies is None else plies
        if not 0 <= count <= len(self.moves):
            raise RecordError(f"--ply {count}: the game has {len(self.moves)} plies (0 to {len(self.moves)})")
        board = variant.board(self.fen)
        for ply, uci in enumerate(self.moves[:count], start=1):
            try:
                board.push(board.parse_uci(uci))
            except ValueError:
                raise RecordError(f"ply {ply}: {uci} is not a legal move there") from None
        return board


def read_record(
    variant: Variant, data: str | bytes, *, max_plies: int = MAX_PLIES
) -> ReadGame:
    """The one game in ``data`` (PGN text; bytes may also be a game's binary format, e.g. XQF)."""
    if variant.name == "chess":
        from boardctl.variants.chess.reading import read_record as read_chess

        return read_chess(data, max_plies=max_plies)
    if variant.name == "xiangqi":
        from boardctl.variants.xiangqi.reading import read_record as read_xiangqi

        return read_xiangqi(data, max_plies=max_plies)
    raise RecordError(f"reading {variant.name} records is not supported yet")
