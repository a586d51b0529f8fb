"""Reading a game record someone hands us: the page's PGN upload and ``boardctl games open``.

A record is read into a :class:`ReadGame` (start position, moves in the engine's coordinates,
tags) by the game's own reader (``boardctl.variants.<game>``), so nothing here knows a notation.
Every fault is one :class:`RecordError` whose text the caller prefixes with where it came from.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from pathlib import Path

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
    variant: Variant, data: str | bytes, *, max_plies: int = MAX_PLIES, path: Path | None = None
) -> ReadGame:
    """The one game in ``data`` (PGN text; bytes may also be a game's binary format, e.g. XQF,
    read from ``path``)."""
    if variant.name == "chess":
        from boardctl.variants.chess.reading import read_record as read_chess

        return read_chess(data, max_plies=max_plies)
    if variant.name == "xiangqi":
        game = _read_xiangqi(data, path=path)
        if len(game.moves) > max_plies:
            raise RecordError(f"more than {max_plies} moves (plies) in the main line")
        return game
    raise RecordError(f"reading {variant.name} records is not supported yet")


def _read_xiangqi(data: str | bytes, *, path: Path | None) -> ReadGame:
    """Through ``boardctl.variants.xiangqi.records`` (PGN in any notation, UTF-8 or GB18030; XQF
    through cchess), whose errors name the source: that prefix is taken off, the caller names it."""
    try:
        records = importlib.import_module("boardctl.variants.xiangqi.records")
    except ImportError:
        raise RecordError("reading xiangqi records needs boardctl.variants.xiangqi.records, "
                          "not in this build yet") from None
    source = str(path) if path is not None else "record"
    try:
        if path is not None:
            record = records.read_record(path)
        else:
            text = data if isinstance(data, str) else data.decode("utf-8", errors="replace")
            record = records.read_pgn(text, source=source)
    except (OSError, ValueError) as exc:  # GameFileError (an OSError), IllegalMoveError (a ValueError)
        raise RecordError(str(exc).removeprefix(f"{source}: ")) from None
    tags = dict(record.tags)
    return ReadGame(fen=record.start_fen, moves=tuple(record.moves), headers=tags, has_fen="FEN" in tags)
