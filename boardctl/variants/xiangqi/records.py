"""Xiangqi game records: PGN in the Chinese-chess convention (read and written) and XQF (read).

The functions ``boardctl games open`` and ``boardctl games export`` use:

- :func:`read_record` ``(path) -> Record(start_fen, moves, tags)``: a ``.pgn`` or ``.xqf`` file
  (XQF is recognised by its ``XQ`` magic whatever the name). ``moves`` are engine coordinates
  (``h2e2``) of the main line, each checked legal; ``start_fen`` is the set-up (the standard
  start unless the record says otherwise). Any fault raises one :class:`GameFileError` naming
  the file and the line (PGN) or the move (XQF).
- :func:`export` ``(moves, start_fen, notation, *, tags, result) -> str``: a PGN document whose
  moves are written in ``iccs`` (``H2-E2``, ``Format "ICCS"``), ``wxf`` (``C2.5``) or
  ``chinese`` (``炮二平五 马８进７``, Black's digits full-width as Chinese PGN files print them;
  ``chinese-ascii``: ``马8进7``).
- :func:`read_pgn` / :func:`write_pgn` do the same on text.

PGN follows the Chinese-chess convention: the first tag is ``[Game "Chinese Chess"]``, then
``Red``, ``Black``, ``Result`` (``1-0`` = Red won), ``FEN`` for a set-up, ``Format``, then any
others (``Event``, ``Date``, ``Termination``...). The reader takes moves in any notation
(:func:`boardctl.variants.xiangqi.notation.parse_move`), skips comments, variations and NAGs,
and reads UTF-8 or GB18030 (the usual encoding of Chinese PGN files).

XQF, the commonest binary format, is read by :mod:`boardctl.variants.xiangqi.xqf`: the main line
only, in one pass over it, however many variations follow; its moves are checked by our rules.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import NamedTuple, TextIO

from boardctl.core.rules import GameText, ReadGame
from boardctl.errors import GameFileError
from boardctl.records import add_comment
from boardctl.variants.xiangqi.board import STARTING_FEN, IllegalMoveError, XiangqiBoard
from boardctl.variants.xiangqi.notation import NOTATIONS, parse_move, write
from boardctl.variants.xiangqi.xqf import XqfError, move_uci, placement_fen, read_xqf_bytes

#: Records larger than this are refused (a game is a few kilobytes).
MAX_BYTES = 4 * 1024 * 1024
RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
FORMATS = {"iccs": "ICCS", "wxf": "WXF", "chinese": "Chinese", "chinese-ascii": "Chinese", "uci": "UCCI"}


class Record(NamedTuple):
    """A game read from a file: where it starts, its moves (``h2e2``) and its tags."""

    start_fen: str
    moves: tuple[str, ...]
    tags: dict[str, str]


# ---- writing -------------------------------------------------------------------------------


def _tag(name: str, value: str) -> str:
    clean = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ").replace("\r", " ")
    return f'[{name} "{clean}"]'


def write_pgn(
    moves: Iterable[str],
    *,
    start_fen: str | None = None,
    notation: str = "iccs",
    tags: Mapping[str, str] | None = None,
    result: str = "*",
    comments: Mapping[int, str] | None = None,
    clocks: Sequence[float | None] = (),
    final: str = "",
    nags: Mapping[int, Sequence[int]] | None = None,
) -> str:
    """A PGN document of the game ``moves`` (coordinates) from ``start_fen`` in ``notation``.

    ``tags`` may carry ``Red``, ``Black``, ``Event``, ``Date``... (``Game``, ``Result``,
    ``FEN`` and ``Format`` are set here). ``comments[ply]`` follows move ``ply`` (0: before
    the first), ``clocks[ply - 1]`` (seconds left) is written ``[%clk h:mm:ss]`` and ``final``
    after the last move. IllegalMoveError names the first illegal move.
    """
    if result not in RESULTS:
        raise ValueError(f"a PGN result is one of {', '.join(RESULTS)}, got {result!r:.20}")
    if notation not in FORMATS:
        raise ValueError(
            f"unknown xiangqi notation {notation!r:.40}: choose one of {', '.join(NOTATIONS)}"
        )
    board = XiangqiBoard(STARTING_FEN if start_fen is None else start_fen)
    given = dict(tags or {})
    header = {
        "Game": "Chinese Chess",
        "Red": given.pop("Red", "?"),
        "Black": given.pop("Black", "?"),
        "Result": result,
    }
    for key in ("Game", "Result", "FEN", "Format"):
        given.pop(key, None)
    if board.fen() != STARTING_FEN:
        header["FEN"] = board.fen()
    header["Format"] = FORMATS[notation]
    lines = [_tag(k, v) for k, v in header.items()] + [_tag(k, v) for k, v in given.items()]
    notes = dict(comments or {})
    tokens: list[str] = []
    after_comment = False

    def comment(*parts: str) -> None:
        nonlocal after_comment
        text = " ".join(p for p in parts if p).replace("}", ")").strip()
        if text:
            tokens.append("{" + text + "}")
            after_comment = True

    comment(notes.get(0, ""))
    moves = list(moves)
    for i, uci in enumerate(moves):
        try:
            move = board.parse_uci(uci)
        except IllegalMoveError as exc:
            raise IllegalMoveError(f"move {i + 1}: {exc}") from None
        if board.turn:
            tokens.append(f"{board.fullmove_number}.")
        elif not tokens or after_comment or tokens[-1].startswith("{"):
            tokens.append(f"{board.fullmove_number}...")
        after_comment = False
        tokens.append(write(board, move, notation))
        tokens.extend(f"${nag}" for nag in (nags or {}).get(i + 1, ()))  # e.g. $4: ?? (the coach)
        board.push(move)
        clock = clocks[i] if i < len(clocks) else None
        comment(
            _clock(clock) if clock is not None else "",
            notes.get(i + 1, ""),
            final if i == len(moves) - 1 else "",
        )
    if not moves:
        comment(final)
    tokens.append(result)
    text, line = [], ""
    for token in tokens:
        if line and len(line) + 1 + len(token) > 80:
            text.append(line)
            line = token
        else:
            line = f"{line} {token}" if line else token
    text.append(line)
    return "\n".join(lines) + "\n\n" + "\n".join(text) + "\n"


def _clock(seconds: float) -> str:
    whole = max(0, round(seconds))
    return f"[%clk {whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}]"


def write_game(game: GameText) -> str:
    """``Variant.write_pgn``: a game as storage and replay hand it over, in ICCS."""
    result = game.headers.get("Result", "*")
    return write_pgn(
        game.moves,
        start_fen=game.fen,
        tags=game.headers,
        result=result if result in RESULTS else "*",
        comments=game.comments,
        clocks=game.clocks,
        final=game.final,
        nags=game.nags,
    )


def export(
    moves: Sequence[str],
    start_fen: str | None = None,
    notation: str = "iccs",
    *,
    tags: Mapping[str, str] | None = None,
    result: str = "*",
) -> str:
    """``boardctl games export --notation iccs|wxf|chinese|chinese-ascii``: the game as a PGN document."""
    return write_pgn(moves, start_fen=start_fen, notation=notation, tags=tags, result=result)


# ---- reading PGN ---------------------------------------------------------------------------

_TOKEN = re.compile(
    r"""
    (?P<tag>\[(?:[^\]"\n]|"(?:[^"\\\n]|\\.)*"?)*\]?)
  | (?P<comment>\{[^}]*\}?)
  | (?P<rest>;[^\n]*)
  | (?P<open>\()
  | (?P<close>\))
  | (?P<nag>\$\d+)
  | (?P<result>1-0|0-1|1/2-1/2|\*)(?=\s|$|\))
  | (?P<number>\d+\s*\.(?:\s*\.\s*\.)?(?!\d))
  | (?P<word>[^\s(){};\[\]]+)
  | (?P<space>\s+)
    """,
    re.VERBOSE,
)
_TAG = re.compile(r'^\[\s*([A-Za-z0-9_]+)\s+"((?:[^"\\]|\\.)*)"\s*\]$')
_SUFFIX = re.compile(r"[!?]+$")


def _at(source: str, line: int) -> str:
    """Where in a record: ``book.pgn:3``, or ``line 3`` when the record has no name."""
    return f"{source}:{line}" if source else f"line {line}"


def _in(source: str) -> str:
    return f"{source}: " if source else ""


def _decode(data: bytes, source: str) -> str:
    for codec in ("utf-8-sig", "gb18030"):
        try:
            return data.decode(codec)
        except UnicodeDecodeError:
            continue
    raise GameFileError(f"{_in(source)}not text in UTF-8 or GB18030")


def read_pgn(text: str, *, source: str = "<pgn>") -> Record:
    """The first game of a PGN document; GameFileError names ``source`` and the line at fault."""
    tags, start_fen, moves, _ = _parse(text, source, lenient=False)
    return Record(start_fen, moves, tags)


def _parse(
    text: str, source: str, *, lenient: bool, comments: dict[int, str] | None = None
) -> tuple[dict[str, str], str, tuple[str, ...], list[str]]:
    """Tags, start FEN, moves and (when ``lenient``) the faults met, which otherwise raise;
    the main line's comments go into ``comments`` (by the ply they follow) when it is given."""
    errors: list[str] = []

    def fail(message: str) -> None:
        if not lenient:
            raise GameFileError(message)
        errors.append(message)

    if len(text) > MAX_BYTES:
        raise GameFileError(
            f"{_in(source)}{len(text)} characters, more than a record may hold ({MAX_BYTES})"
        )
    text = text.lstrip("\ufeff")  # a byte-order mark read as text
    tags: dict[str, str] = {}
    board: XiangqiBoard | None = None
    start_fen = STARTING_FEN
    moves: list[str] = []
    depth = 0
    line = 1
    pos = 0
    seen_moves = stopped = False
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:  # pragma: no cover - the word pattern takes any other character
            raise GameFileError(f"{_at(source, line)}: cannot read {text[pos : pos + 20]!r}")
        kind, value = m.lastgroup, m.group()
        where = _at(source, line)
        line += value.count("\n")
        pos = m.end()
        if kind in ("space", "rest", "nag", "number"):
            continue
        if kind == "comment":
            if not value.endswith("}"):
                fail(f"{where}: a comment opened with '{{' is never closed")
            elif comments is not None and not depth and not stopped:
                add_comment(comments, len(moves), value)
            continue
        if kind == "tag":
            if seen_moves:
                break  # the next game starts: only the first is read
            parsed = _TAG.match(value)
            if parsed is None:
                fail(f'{where}: a tag is [Name "value"], got {value[:60]!r}')
                continue
            name, raw = parsed.groups()
            tags[name] = re.sub(r"\\(.)", r"\1", raw)
            continue
        if kind == "open":
            depth += 1
            continue
        if kind == "close":
            if depth == 0:
                fail(f"{where}: ')' closes no variation")
            else:
                depth -= 1
            continue
        if depth:
            continue  # inside a variation
        seen_moves = True
        if board is None:
            board = _start(tags, source, where, fail)
            start_fen = board.fen()
        if kind == "result":
            break
        if stopped:
            continue
        word = _SUFFIX.sub("", value)
        try:
            move = parse_move(board, word)
        except IllegalMoveError as exc:
            fail(f"{where}: move {len(moves) + 1}: {exc}")
            stopped = True  # the rest of the line cannot be followed
            continue
        board.push(move)
        moves.append(move.uci())
    if depth:
        fail(f"{_at(source, line)}: a variation opened with '(' is never closed")
    if board is None:
        if not tags:
            raise GameFileError(f"{_in(source)}no game in it (no tags, no moves)")
        board = _start(tags, source, _at(source, line), fail)
        start_fen = board.fen()
    return tags, start_fen, tuple(moves), errors


def read_game(handle: TextIO) -> ReadGame | None:
    """``Variant.read_pgn``: the first game of an open PGN file, read leniently (what cannot be
    followed is listed in ``errors``; the moves stop at the first bad one); None if it holds
    no game. Reads the rest of the file."""
    source = str(getattr(handle, "name", "<pgn>"))
    text = handle.read(MAX_BYTES + 1)
    try:
        tags, fen, moves, errors = _parse(text, source, lenient=True)
    except GameFileError as exc:
        if "no game in it" in str(exc):
            return None
        return ReadGame(headers={}, fen=STARTING_FEN, moves=(), errors=(str(exc),))
    return ReadGame(headers=tags, fen=fen, moves=moves, errors=tuple(errors))


def read_headers(handle: TextIO) -> dict[str, str] | None:
    """``Variant.read_pgn_headers``: the tags of the first game of an open PGN file (the moves
    are not checked), None if it has none."""
    tags: dict[str, str] = {}
    for raw in handle.read(MAX_BYTES + 1).lstrip("\ufeff").splitlines():
        text = raw.strip()
        if not text or text.startswith("%"):
            if tags and not text:
                break
            continue
        parsed = _TAG.match(text)
        if parsed is None:
            if text.startswith("["):
                continue
            break
        tags[parsed.group(1)] = re.sub(r"\\(.)", r"\1", parsed.group(2))
    return tags or None


def _start(
    tags: Mapping[str, str], source: str, where: str, fail: Callable[[str], None]
) -> XiangqiBoard:
    game = tags.get("Game", "Chinese Chess")
    if game.strip().lower() not in ("chinese chess", "xiangqi", "chinesechess", "象棋", "中国象棋"):
        raise GameFileError(f"{where}: the record is a game of {game[:40]!r}, not Chinese chess")
    fen = tags.get("FEN")
    try:
        return XiangqiBoard(fen) if fen else XiangqiBoard()
    except ValueError as exc:
        fail(f"{_in(source)}FEN tag: {exc}")
        return XiangqiBoard()


# ---- reading XQF ---------------------------------------------------------------------------


def read_xqf(path: str | Path, *, source: str | None = None) -> Record:
    """An XQF record's main line; GameFileError names the file (or ``source``, which may be
    empty) and the fault."""
    source = str(path) if source is None else source
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_BYTES + 1)
    except OSError as exc:
        raise GameFileError(f"{_in(source)}cannot read: {exc.strerror or exc}") from None
    return xqf_record(data, source=source)


def xqf_record(data: bytes, *, source: str = "") -> Record:
    """The main line of the XQF record ``data`` (:mod:`boardctl.variants.xiangqi.xqf`: the
    variations after it are never read), each move checked by our rules."""
    if len(data) > MAX_BYTES:
        raise GameFileError(f"{_in(source)}larger than a record may be ({MAX_BYTES} bytes)")
    try:
        game = read_xqf_bytes(data)
    except XqfError as exc:
        raise GameFileError(f"{_in(source)}not a readable XQF record: {exc}") from None
    main = [move_uci(move) for move in game.moves]
    try:
        board = XiangqiBoard(f"{placement_fen(game.placement)} {game.side_to_move()} - - 0 1")
    except ValueError as exc:
        raise GameFileError(f"{_in(source)}the set-up is not a xiangqi position: {exc}") from None
    start_fen = board.fen()
    for i, uci in enumerate(main):
        try:
            board.push_uci(uci)
        except IllegalMoveError as exc:
            raise GameFileError(f"{_in(source)}move {i + 1}: {exc}") from None
    tags = {"Game": "Chinese Chess", **game.tags}
    if start_fen != STARTING_FEN:
        tags["FEN"] = start_fen
    return Record(start_fen, tuple(main), tags)


def read_record(path: str | Path) -> Record:
    """A xiangqi record from ``path``: XQF (by its magic) or PGN. GameFileError names the
    file and the line or move at fault."""
    source = str(path)
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_BYTES + 1)
    except OSError as exc:
        raise GameFileError(f"{source}: cannot read: {exc.strerror or exc}") from None
    if len(data) > MAX_BYTES:
        raise GameFileError(f"{source}: larger than a record may be ({MAX_BYTES} bytes)")
    if data[:2] == b"XQ":
        return read_xqf(path)
    if Path(source).suffix.lower() == ".xqf":
        raise GameFileError(f"{source}: not an XQF record (no 'XQ' magic)")
    return read_pgn(_decode(data, source), source=source)


def position_after(record: Record, ply: int | None = None) -> XiangqiBoard:
    """The board after ``ply`` moves of ``record`` (default: all), its moves on the stack, for
    ``boardctl games open FILE --ply N``; ValueError if the record has fewer."""
    count = len(record.moves) if ply is None else ply
    if not 0 <= count <= len(record.moves):
        raise ValueError(f"ply {ply} is outside the record, which has {len(record.moves)} moves")
    board = XiangqiBoard(record.start_fen)
    for uci in record.moves[:count]:
        board.push_uci(uci)
    return board


__all__ = [
    "FORMATS",
    "MAX_BYTES",
    "RESULTS",
    "Record",
    "export",
    "position_after",
    "read_game",
    "read_headers",
    "read_pgn",
    "read_record",
    "read_xqf",
    "write_game",
    "write_pgn",
]
