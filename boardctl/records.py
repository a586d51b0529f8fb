"""Reading a game record someone hands us: the page's PGN upload and ``boardctl games open``.

A record is read into a :class:`ReadGame` (start position, moves in the engine's coordinates,
tags) by the game's own reader (``boardctl.variants.<game>``), so nothing here knows a notation.
Every fault is one :class:`RecordError` whose text the caller prefixes with where it came from.

Which game a record is of (:func:`read_any_record`): what the record says of itself first (the
XQF format, a ``Game`` or ``Variant`` tag, the number of ranks in its ``FEN`` tag); many published
xiangqi PGNs say none of it, and then the moves decide: the game whose reader reads them.
"""

from __future__ import annotations

import re
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
    #: The main line's comments: ``comments[ply]`` follows move ``ply`` (0: before the first).
    comments: dict[int, str] = field(default_factory=dict)

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


#: A comment's commands (``[%clk 0:05:00]``, ``[%eval 0.3]``): for programs, not for people.
_COMMAND = re.compile(r"\[%[^\]]*\]")
#: Longest comment kept, in characters.
MAX_COMMENT = 2000


def clean_comment(text: str) -> str:
    """A PGN comment as people read it: without its commands and braces, spaces collapsed."""
    return " ".join(_COMMAND.sub(" ", text).strip("{} \n\t").split())[:MAX_COMMENT]


def add_comment(comments: dict[int, str], ply: int, text: str) -> None:
    """Keep ``text`` (cleaned) as the comment after move ``ply``, after any already there."""
    cleaned = clean_comment(text)
    if cleaned:
        comments[ply] = f"{comments[ply]} {cleaned}" if ply in comments else cleaned


def read_record(
    variant: Variant, data: str | bytes, *, max_plies: int = MAX_PLIES
) -> ReadGame:
    """The one game in ``data`` (PGN text; bytes may also be a game's binary format, e.g. XQF)."""
    if not variant.has_part("reading"):
        raise RecordError(f"reading {variant.name} records is not supported yet")
    read: ReadGame = variant.part("reading").read_record(data, max_plies=max_plies)
    return read


#: The games a record may be of, in the order their readers are tried when the record does not say.
GAMES = ("chess", "xiangqi")

_TAG = re.compile(r'^\s*\[\s*([A-Za-z0-9_]+)\s+"((?:[^"\\]|\\.)*)"\s*\]', re.MULTILINE)
_XIANGQI_NAMES = ("chinese chess", "xiangqi", "象棋", "chinesechess")


def _text_head(data: str | bytes, size: int = 16384) -> str:
    if isinstance(data, str):
        return data[:size]
    head = data[:size]
    for codec in ("utf-8-sig", "gb18030"):
        try:
            return head.decode(codec)
        except UnicodeDecodeError as exc:
            if exc.start >= len(head) - 4:  # only the cut at ``size`` split a character
                return head[:exc.start].decode(codec, errors="replace")
    return head.decode("latin-1")


def what_record_says(data: str | bytes) -> tuple[str, str] | None:
    """``(game, why)`` when the record names its game itself: the XQF format, a ``Game`` or
    ``Variant`` tag, or a ``FEN`` tag with 10 ranks (xiangqi) or 8 (chess); None when it says nothing."""
    if isinstance(data, bytes) and data[:2] == b"XQ":
        return "xiangqi", "an XQF file"
    tags: dict[str, str] = {}
    for name, value in _TAG.findall(_text_head(data)):
        tags.setdefault(name.lower(), value.strip())
    for name in ("game", "variant"):
        value = tags.get(name, "")
        if not value:
            continue
        shown = f'its [{name.capitalize()} "{value[:40]}"] tag'
        if any(word in value.lower() for word in _XIANGQI_NAMES):
            return "xiangqi", shown
        if (name == "game" and value.lower() == "chess") or name == "variant":
            return "chess", shown
    fen = tags.get("fen", "")
    ranks = fen.split()[0].count("/") + 1 if fen.strip() else 0
    if ranks in (8, 10):
        return ("chess" if ranks == 8 else "xiangqi"), f"its FEN tag has {ranks} ranks"
    return None


def read_any_record(data: str | bytes, *, named: str | None = None, option: str = "--variant",
                    max_plies: int = MAX_PLIES) -> tuple[Variant, ReadGame]:
    """The game a record is of and its one game. ``named``: the game the user named (``option``
    says where), trusted unless the record itself says otherwise or its moves are only legal in
    the other game; without it, what the record says, else the game whose reader reads it.
    Every refusal names why (the tag, the FEN, the moves)."""
    said = what_record_says(data)
    if said is not None:
        game, why = said
        if named is not None and named != game:
            raise RecordError(f"a {game} record ({why}), but {option} {named} was given")
        return _read_as(game, data, max_plies=max_plies)
    if named is not None:
        try:
            return _read_as(named, data, max_plies=max_plies)
        except SeveralGames:
            raise
        except RecordError as exc:
            for other in GAMES:
                if other == named:
                    continue
                try:
                    _, game_read = _read_as(other, data, max_plies=max_plies)
                except RecordError:
                    continue
                first = " ".join(game_read.moves[:4]) + (" ..." if len(game_read.moves) > 4 else "")
                raise RecordError(f"a {other} record: its moves are legal {other} ({first}), not {named} "
                                  f"(as {named}: {exc}), but {option} {named} was given") from None
            raise
    likely = _looks_like(data)
    faults: list[RecordError] = []
    for game in (likely, *(g for g in GAMES if g != likely)):
        try:
            return _read_as(game, data, max_plies=max_plies)
        except RecordError as exc:
            faults.append(exc)
    raise faults[0]  # what is wrong with it as the game it looks like


#: Xiangqi move text: Chinese (``炮二平五``, ``马８进７``, ``前車進一``), ICCS (``H2-E2``) or WXF
#: (``C2.5``, ``H8+7``, ``R+.3``).
_XIANGQI_MOVES = re.compile(
    "[车马炮相象仕士帅将兵卒俥傌砲帥將車馬包][一二三四五六七八九1-9１-９][进退平進][一二三四五六七八九1-9１-９]"
    r"|\b[A-Ia-i][0-9]-[A-Ia-i][0-9]\b|\b[RHCEAKPN][1-9+\-][+\-.=][1-9]\b")


def _looks_like(data: str | bytes) -> str:
    """The game a record that names none looks like, for which reader's fault to report."""
    return "xiangqi" if _XIANGQI_MOVES.search(_text_head(data)) else "chess"


def _read_as(game: str, data: str | bytes, *, max_plies: int) -> tuple[Variant, ReadGame]:
    from boardctl.variants import get_variant

    variant = get_variant(game)  # a broken import of the game's rules fails loudly
    read = read_record(variant, data, max_plies=max_plies)
    read.board_after(variant)  # every move legal
    return variant, read
