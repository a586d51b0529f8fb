"""Reading a xiangqi record someone hands us (the page's upload, ``boardctl games open``), in
the shape of :mod:`boardctl.records`' game readers (``read_record(data, *, max_plies)``, as
``boardctl.variants.chess.reading``), so that module can hand xiangqi bytes here as they are.

One game, its main line only, within a ply limit; PGN text (UTF-8 or GB18030, any notation) or
XQF bytes (its main line only). Every fault is one :class:`~boardctl.records.RecordError`
saying what is wrong (the PGN line where there is one), without the file's name.
"""

from __future__ import annotations

import re

from boardctl.errors import GameFileError
from boardctl.records import ReadGame, RecordError, SeveralGames
from boardctl.variants.xiangqi.board import STARTING_FEN
from boardctl.variants.xiangqi.records import MAX_BYTES, Record, _decode, _parse, xqf_record

#: How many tags of a record are kept, and how long a name or value may be.
MAX_TAGS, MAX_NAME, MAX_VALUE = 100, 60, 200

_TAG_LINE = re.compile(r"^\s*\[\s*[A-Za-z0-9_]+\s+\"")
_MOVE_LINE = re.compile(r"\S")


def read_record(data: str | bytes, *, max_plies: int) -> ReadGame:
    """The one game of a xiangqi record: refuses illegal moves, empty input, a file of several
    games, a game with neither moves nor a set-up, and more than ``max_plies`` moves."""
    if len(data) > MAX_BYTES:
        raise RecordError(f"larger than a record may be ({MAX_BYTES} bytes)")
    comments: dict[int, str] = {}
    try:
        if isinstance(data, bytes) and data[:2] == b"XQ":
            record = xqf_record(data)
            has_fen = record.start_fen != STARTING_FEN
        else:
            text = _decode(data, "") if isinstance(data, bytes) else data
            tags, fen, moves, _ = _parse(text, "", lenient=False, comments=comments)
            record = Record(fen, moves, tags)
            has_fen = "FEN" in tags
            more = _games_in(text) - 1
            if more > 0:
                raise SeveralGames(more + 1)
    except GameFileError as exc:
        raise RecordError(str(exc)) from None
    if len(record.moves) > max_plies:
        raise RecordError(f"more than {max_plies} moves (plies) in the main line")
    if not has_fen and not record.moves:
        raise RecordError("the game has no moves and no FEN tag")
    headers = {k[:MAX_NAME]: v[:MAX_VALUE] for k, v in list(record.tags.items())[:MAX_TAGS]}
    return ReadGame(fen=record.start_fen, moves=record.moves, headers=headers, has_fen=has_fen, comments=comments)


def _games_in(text: str) -> int:
    """How many games a PGN text holds: each block of tags (or movetext without tags before
    it) that follows movetext starts one."""
    games = 0
    in_tags = in_moves = False
    for line in text.splitlines():
        if _TAG_LINE.match(line):
            if not in_tags:
                games += 1
            in_tags, in_moves = True, False
        elif _MOVE_LINE.search(line):
            if not in_tags and not in_moves:
                games += 1
            in_tags, in_moves = False, True
    return games
