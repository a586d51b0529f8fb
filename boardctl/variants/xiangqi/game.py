"""Xiangqi as the tracker, session and storage see it: :class:`XiangqiGameBoard` and its records.

:class:`XiangqiGameBoard` is the rules' :class:`~boardctl.variants.xiangqi.board.XiangqiBoard` with
the core's hooks answered for a game whose every move is one piece from one point to another
(:class:`~boardctl.core.rules.PlainMoves`: no castling, no en passant, no promotion, no draw to
claim: the 60-move rule and the repetition rulings apply by themselves through ``outcome()``).

Records follow the Chinese-chess PGN convention: ``[Game "Chinese Chess"]`` first, then ``Red``,
``Black``, ``Result``, ``FEN`` for a set-up and ``Format "ICCS"``, moves written ``H2-E2``.
"""

from __future__ import annotations

import re
from typing import TextIO

from boardctl.core.geometry import Square
from boardctl.core.rules import GameBoard, GameText, PlainMoves, ReadGame
from boardctl.variants.xiangqi.board import PIECE_NAMES, STARTING_FEN, XiangqiBoard
from boardctl.variants.xiangqi.notation import parse_move, write_line

#: Tags in the order the convention writes them; the rest follow in the order given.
FIRST_TAGS = ("Game", "Event", "Site", "Date", "Round", "Red", "Black", "Result")


class XiangqiGameBoard(PlainMoves, XiangqiBoard):
    """The xiangqi board behind :class:`boardctl.core.rules.GameBoard`."""

    def piece_name(self, square: Square) -> str | None:
        kind = self.piece_type_at(square)
        return PIECE_NAMES[kind] if kind else None


def adopt(board: GameBoard) -> GameBoard:
    """A :class:`XiangqiGameBoard` copy of a xiangqi board (its move stack included)."""
    if isinstance(board, XiangqiGameBoard):
        return board.copy()
    if not isinstance(board, XiangqiBoard):
        raise TypeError(f"not a xiangqi board: {type(board).__name__}")
    own = XiangqiGameBoard(board.root_fen())
    for move in board.move_stack:
        own.push(move)
    return own


def _tag(name: str, value: str) -> str:
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    return f'[{name} "{escaped}"]'


def write_pgn(text: GameText) -> str:
    """The game as a Chinese-chess PGN (ICCS moves); comments in braces after their move."""
    headers = {"Game": "Chinese Chess", **text.headers}
    headers.setdefault("Result", "*")
    if text.fen != STARTING_FEN:
        headers["FEN"] = text.fen
    headers["Format"] = "ICCS"
    ordered = [name for name in FIRST_TAGS if name in headers]
    ordered += [name for name in headers if name not in FIRST_TAGS]
    lines = [_tag(name, headers[name]) for name in ordered]
    moves = write_line(text.moves, "iccs", fen=text.fen)
    first_red = XiangqiBoard(text.fen).turn
    tokens: list[str] = []

    def comment(words: str) -> None:
        if words:
            tokens.append("{" + words.replace("}", ")") + "}")

    comment(text.comments.get(0, ""))
    number = int(text.fen.split()[5]) if len(text.fen.split()) > 5 else 1
    for ply, move in enumerate(moves, start=1):
        red = (ply % 2 == 1) == first_red
        if red:
            tokens.append(f"{number}.")
        elif ply == 1:
            tokens.append(f"{number}...")
        tokens.append(move)
        clock = text.clocks[ply - 1] if ply - 1 < len(text.clocks) else None
        words = " ".join(filter(None, [_clock(clock), text.comments.get(ply, "")]))
        if ply == len(moves):
            words = " ".join(filter(None, [words, text.final]))
        comment(words)
        if not red:
            number += 1
    if not moves:
        comment(text.final)
    tokens.append(headers["Result"])
    return "\n".join(lines) + "\n\n" + _wrap(tokens) + "\n"


def _clock(seconds: float | None) -> str:
    if seconds is None:
        return ""
    whole = int(seconds)
    return f"[%clk {whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}]"


def _wrap(tokens: list[str], width: int = 79) -> str:
    lines: list[str] = []
    line = ""
    for token in tokens:
        if line and len(line) + 1 + len(token) > width:
            lines.append(line)
            line = token
        else:
            line = f"{line} {token}" if line else token
    lines.append(line)
    return "\n".join(lines)


_TAG_RE = re.compile(r'^\[(\w+)\s+"((?:[^"\\]|\\.)*)"\]\s*$')
_TOKEN_RE = re.compile(r"\{[^}]*\}|;[^\n]*|\([^)]*\)|\S+")
_RESULTS = {"1-0", "0-1", "1/2-1/2", "*"}


def read_pgn_headers(handle: TextIO) -> dict[str, str] | None:
    """The tags of the next game in ``handle``, None if there is none."""
    headers: dict[str, str] = {}
    for line in handle:
        match = _TAG_RE.match(line.strip())
        if match:
            headers[match[1]] = match[2].replace('\\"', '"').replace("\\\\", "\\")
        elif line.strip() and headers:
            break
    return headers or None


def read_pgn(handle: TextIO) -> ReadGame | None:
    """The first game in ``handle``: moves in ICCS, WXF, Chinese or engine coordinates; what
    cannot be read is listed in ``errors`` and ends the main line there."""
    headers: dict[str, str] = {}
    body: list[str] = []
    for line in handle:
        match = _TAG_RE.match(line.strip())
        if match and not body:
            headers[match[1]] = match[2].replace('\\"', '"').replace("\\\\", "\\")
        elif line.strip():
            body.append(line)
    if not headers and not body:
        return None
    fen = headers.get("FEN", STARTING_FEN)
    errors: list[str] = []
    try:
        board = XiangqiBoard(fen)
    except ValueError as exc:
        return ReadGame(headers, STARTING_FEN, (), (str(exc),))
    moves: list[str] = []
    for token in _TOKEN_RE.findall(" ".join(body)):
        if token[0] in "{;(" or token in _RESULTS or re.fullmatch(r"\d+\.+", token):
            continue
        token = re.sub(r"^\d+\.+", "", token)
        try:
            move = parse_move(board, token)
        except ValueError as exc:
            errors.append(f"move {len(moves) + 1} {token!r}: {exc}")
            break
        board.push(move)
        moves.append(move.uci())
    return ReadGame(headers, board.root_fen(), tuple(moves), tuple(errors))
