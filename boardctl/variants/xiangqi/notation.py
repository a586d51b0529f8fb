"""Xiangqi move notation: ICCS (``H2-E2``), WXF (``C2.5``) and Chinese (``炮二平五``).

Each player counts files 1-9 from their own right, so Red's file ``n`` is our file ``9 - n``
(``a`` = 9) and Black's is ``n - 1`` (``a`` = 1). A straight move (king, rook, cannon, pawn)
names its start file, the direction (``+``/进 forward, ``-``/退 back, ``.``/平 across) and the
number of ranks moved, or the file reached when it moves across; horses, elephants and
advisors always name the file reached.

Two like pieces on one file (tandem) are told apart by front and rear: WXF ``R+.3``/``C--1``
and Chinese 前车平三/后炮退一. Advisors and elephants never need it (their direction tells
which one moves), so they keep their file, as both rule books do. Tandem pawns follow the
WXF table: three on a file are ``P+``, ``P<file>`` (the middle one) and ``P-`` (前兵, 中兵,
后兵); four or five add ``++`` and ``--`` for the outermost (前兵, 二兵, 三兵, 四兵, 后兵 in
Chinese, counted from the front, as cchess writes them); when two files each hold two or more pawns, the file replaces the piece
letter (``7+.6``; Chinese 前七平六).

Chinese uses simplified characters (帅仕相马车炮兵 for Red, 将士象马车炮卒 for Black),
Chinese numerals for Red (一..九) and full-width digits for Black (１..９, ``马８进７``), as Chinese
PGN files and books print them; ``chinese-ascii`` writes ASCII digits (``马8进7``). :func:`parse_move` reads all
of these and also traditional characters (帥俥傌砲將車馬包), full-width digits, ``=`` for
``.``, ``N``/``B`` for horse/elephant and engine coordinates (``h2e2``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from boardctl.core.rules import Move
from boardctl.variants.xiangqi.board import (
    ADVISOR,
    BLACK_BIT,
    ELEPHANT,
    FILES,
    HORSE,
    KING,
    NAMES,
    PAWN,
    IllegalMoveError,
    XiangqiBoard,
    XiangqiMove,
)

NOTATIONS = ("iccs", "wxf", "chinese", "chinese-ascii", "uci")

WXF_LETTERS = "?KAEHRCP"
CHINESE_RED = "?帅仕相马车炮兵"
CHINESE_BLACK = "?将士象马车炮卒"
CHINESE_NUMERALS = "一二三四五六七八九"
_CHINESE_OP = {"+": "进", "-": "退", ".": "平"}
_ICCS = re.compile(r"^([a-iA-I])([0-9])-?([a-iA-I])([0-9])$")


def iccs(move: XiangqiMove) -> str:
    """``h2e2`` -> ``H2-E2``."""
    a, b = NAMES[move.from_square], NAMES[move.to_square]
    return f"{a.upper()}-{b.upper()}"


def _file_number(red: bool, file: int) -> int:
    return FILES - file if red else file + 1


def _parts(board: XiangqiBoard, move: XiangqiMove) -> tuple[int, bool, int, int, str, int, bool]:
    """(piece type, red?, file number, tandem index from the front or -1, direction, target,
    several files with tandem pawns?)."""
    f, t = move.from_square, move.to_square
    p = board._b[f]
    if not p:
        raise IllegalMoveError(f"no piece on {NAMES[f]} for {move.uci()} in {board.fen()}")
    kind, red = p & 7, p < BLACK_BIT
    ff, fr, tf, tr = f % FILES, f // FILES, t % FILES, t // FILES
    ahead = (tr - fr) if red else (fr - tr)
    op = "+" if ahead > 0 else "-" if ahead < 0 else "."
    target = (
        _file_number(red, tf) if op == "." or kind in (HORSE, ELEPHANT, ADVISOR) else abs(ahead)
    )
    index, tandem_files = -1, False
    if kind not in (ADVISOR, ELEPHANT, KING):
        same = [s for s in range(ff, 90, FILES) if board._b[s] == p]
        if len(same) > 1:
            same.sort(reverse=red)  # front first
            index = same.index(f)
            if kind == PAWN:
                files = sum(
                    1
                    for file in range(FILES)
                    if sum(1 for s in range(file, 90, FILES) if board._b[s] == p) > 1
                )
                tandem_files = files > 1
            return (
                kind,
                red,
                _file_number(red, ff),
                index + 100 * len(same),
                op,
                target,
                tandem_files,
            )
    return kind, red, _file_number(red, ff), index, op, target, tandem_files


def wxf(board: XiangqiBoard, move: XiangqiMove) -> str:
    """WXF notation of ``move`` in ``board`` (before it is played): ``C2.5``, ``R+.3``."""
    kind, _red, file, code, op, target, tandem_files = _parts(board, move)
    letter = WXF_LETTERS[kind]
    if code < 0:
        return f"{letter}{file}{op}{target}"
    n, i = divmod(code, 100)
    mark = "+" if i == 0 else "-" if i == n - 1 else str(file)
    if kind != PAWN or (n == 2 and not tandem_files):
        return f"{letter}{mark}{op}{target}"
    if tandem_files:
        return f"{file}{mark}{op}{target}"
    if n == 3:
        return f"P{mark}{op}{target}"
    head = (["++", "P+", "P-", "--"] if n == 4 else ["++", "P+", f"P{file}", "P-", "--"])[i]
    return f"{head}{op}{target}"


#: Black's digits in Chinese notation: full-width (the convention of print and PGN files) or ASCII.
FULL_WIDTH_DIGITS = "１２３４５６７８９"


def chinese(board: XiangqiBoard, move: XiangqiMove, *, ascii_digits: bool = False) -> str:
    """Chinese notation of ``move`` in ``board`` (before it is played): ``炮二平五``, ``马８进７``
    (``ascii_digits``: ``马8进7``)."""
    kind, red, file, code, op, target, tandem_files = _parts(board, move)
    name = (CHINESE_RED if red else CHINESE_BLACK)[kind]

    def num(x: int) -> str:
        return CHINESE_NUMERALS[x - 1] if red else str(x) if ascii_digits else FULL_WIDTH_DIGITS[x - 1]

    tail = _CHINESE_OP[op] + num(target)
    if code < 0:
        return f"{name}{num(file)}{tail}"
    n, i = divmod(code, 100)
    where = "前" if i == 0 else "后" if i == n - 1 else "中" if n == 3 else CHINESE_NUMERALS[i]
    return f"{where}{num(file) if tandem_files else name}{tail}"


def write(board: XiangqiBoard, move: XiangqiMove, notation: str) -> str:
    """``move`` in ``notation`` (``iccs``, ``wxf``, ``chinese``, ``chinese-ascii`` or ``uci``)."""
    if notation == "iccs":
        return iccs(move)
    if notation == "wxf":
        return wxf(board, move)
    if notation in ("chinese", "chinese-ascii"):
        return chinese(board, move, ascii_digits=notation == "chinese-ascii")
    if notation == "uci":
        return move.uci()
    raise ValueError(
        f"unknown xiangqi notation {notation!r:.40}: choose one of {', '.join(NOTATIONS)}"
    )


def write_line(
    moves: Iterable[XiangqiMove | str], notation: str, *, fen: str | None = None
) -> list[str]:
    """Each move of a game from ``fen`` (default the start) in ``notation``; IllegalMoveError
    names the first move that is not legal and its number."""
    board = XiangqiBoard() if fen is None else XiangqiBoard(fen)
    out = []
    for i, m in enumerate(moves):
        try:
            move = board.parse_uci(m) if isinstance(m, str) else m
            if not board.is_legal(move):
                raise IllegalMoveError(f"illegal move {move.uci()} in {board.fen()}")
        except IllegalMoveError as exc:
            raise IllegalMoveError(f"move {i + 1}: {exc}") from None
        out.append(write(board, move, notation))
        board.push(move)
    return out


# ---- reading -------------------------------------------------------------------------------

_TRANSLATE = str.maketrans(
    {
        **{c: "K" for c in "帅帥将將"},
        **{c: "A" for c in "仕士"},
        **{c: "E" for c in "相象"},
        **{c: "H" for c in "马馬傌"},
        **{c: "R" for c in "车車俥伡"},
        **{c: "C" for c in "炮砲包"},
        **{c: "P" for c in "兵卒"},
        "进": "+",
        "進": "+",
        "退": "-",
        "平": ".",
        "=": ".",
        "前": "^",
        "后": "_",
        "後": "_",
        "中": "~",
        **{c: str(i + 1) for i, c in enumerate(CHINESE_NUMERALS)},
        **{chr(0xFF10 + i): str(i) for i in range(10)},
        "＋": "+",
        "－": "-",
        "．": ".",
        "–": "-",
        "—": "-",
        "N": "H",
        "B": "E",
        "n": "H",
        "b": "E",
    }
)


def _normal(text: str) -> str:
    return "".join(text.split()).translate(_TRANSLATE).upper()


def _loose_wxf(board: XiangqiBoard, move: XiangqiMove) -> str:
    """The plain ``<piece><file><dir><n>`` form even for tandem pieces (older books write it)."""
    kind, _red, file, _code, op, target, _tf = _parts(board, move)
    return f"{WXF_LETTERS[kind]}{file}{op}{target}"


def parse_move(board: XiangqiBoard, text: str) -> XiangqiMove:
    """The legal move ``text`` names in ``board``: coordinates (``h2e2``), ICCS (``H2-E2``),
    WXF (``C2.5``) or Chinese (``炮二平五``). IllegalMoveError (a ValueError) says why not."""
    if not isinstance(text, str) or not text.strip() or len(text) > 20:
        raise IllegalMoveError(f"not a xiangqi move: {text!r:.40}")
    coords = _ICCS.match(text.strip())
    if coords:
        a, r1, b, r2 = coords.groups()
        return board.parse_uci(f"{a.lower()}{r1}{b.lower()}{r2}")
    key = _normal(text)
    legal = list(board.generate_legal_moves())
    found = [m for m in legal if key in (_normal(wxf(board, m)), _normal(chinese(board, m)))]
    if not found:
        found = [m for m in legal if key == _loose_wxf(board, m)]
    if len(found) == 1:
        return found[0]
    side = "Red" if board.turn else "Black"
    if found:
        raise IllegalMoveError(
            f"{text!r} is ambiguous for {side} in {board.fen()}: {', '.join(m.uci() for m in found)}"
        )
    raise IllegalMoveError(
        f"{text!r} is not a legal move for {side} in {board.fen()} "
        "(write h2e2, H2-E2, C2.5 or 炮二平五)"
    )


def parse_line(texts: Sequence[str], *, fen: str | None = None) -> list[XiangqiMove]:
    """Moves in any notation played one after another from ``fen`` (default the start);
    IllegalMoveError names the first bad move and its number."""
    board = XiangqiBoard() if fen is None else XiangqiBoard(fen)
    out = []
    for i, text in enumerate(texts):
        try:
            move = parse_move(board, text)
        except IllegalMoveError as exc:
            raise IllegalMoveError(f"move {i + 1}: {exc}") from None
        board.push(move)
        out.append(move)
    return out


def variation(board: XiangqiBoard, moves: Iterable[Move]) -> str:
    """``moves`` from ``board``'s position in WXF, numbered (``1. C2.5 H8+7``); IllegalMoveError
    names the first that is not legal. ``XiangqiBoard.variation_san``."""
    line = board.copy(stack=False)
    out: list[str] = []
    for move in moves:
        if not line.is_legal(move):
            raise IllegalMoveError(f"illegal move {move.uci()} in variation from {board.fen()}")
        number = (
            f"{line.fullmove_number}. "
            if line.turn
            else (f"{line.fullmove_number}... " if not out else "")
        )
        out.append(number + line.san_and_push(move))
    return " ".join(out)
