"""Xiangqi (Chinese chess): rules, the judge, notation and records, with no python-chess.

- :class:`XiangqiBoard` (``board.py``): the position and its legal moves, shaped like
  python-chess's ``Board`` (implements ``boardctl.core.rules.GameBoard``). Points ``a0``..``i9``,
  bit ``rank * 9 + file``; moves in engine coordinates (``h2e2``); FEN with ``w`` (or ``r``)
  for Red; ``generate_legal_moves(from_mask, to_mask)``; ``san`` writes WXF (``C2.5``) and
  ``parse_san``/``push_san`` read any notation. Its pieces are its base class
  :class:`~.base_board.XiangqiBaseBoard`'s; its work is done by plain functions in ``points.py``
  (the tables), ``movegen.py``, ``fen.py`` and ``endings.py``.
- ``outcome()``: no legal move loses (``checkmate``/``stalemate``); bare armies draw
  (``insufficient_material``); repetitions by ``rules``: the Chinese 棋例 (``chinese_rules.py``,
  the default: a forbidden cycle is warned, ``notice()``, then lost; an allowed one is a draw
  only when claimed, ``claimable_draw()``) or the Asian rules (``judge.py``, pyffish); the
  move limit (``move_limit``, 60) draws.
- ``notation.py``: :func:`~.notation.iccs` (``H2-E2``), :func:`~.notation.wxf` (``C2.5``,
  ``R+.3``), :func:`~.notation.chinese` (``炮二平五``, ``马８进７``, ``前车平三``),
  :func:`~.notation.write_line` and :func:`~.notation.parse_move` (any of them).
- ``records.py``, for ``boardctl games open FILE --ply N`` and ``boardctl games export
  --notation iccs|wxf|chinese``:

  - ``read_record(path) -> Record(start_fen, moves, tags)``: PGN (UTF-8 or GB18030, moves in
    any notation) or XQF (its main line only, ``xqf.py``); one ``GameFileError`` naming file and line or move;
  - ``position_after(record, ply)``: the board after ``ply`` moves (default all), moves on
    its stack;
  - ``export(moves, start_fen, notation, *, tags, result) -> str``: a PGN document in the
    Chinese-chess convention (``[Game "Chinese Chess"]`` first, then ``Red``, ``Black``,
    ``Result`` with ``1-0`` = Red won, ``FEN`` for a set-up, ``Format "ICCS"``...).
  - the :class:`~boardctl.core.rules.Variant` hooks: ``write_game`` (a ``GameText``, with
    comments and clocks), ``read_game`` (lenient: faults listed, moves up to the first bad
    one) and ``read_headers``.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import replace

from boardctl.core.geometry import XIANGQI_9X10
from boardctl.core.rules import Capabilities, GameBoard, Variant
from boardctl.variants.xiangqi.board import (
    BLACK,
    RED,
    RULES,
    STARTING_FEN,
    IllegalMoveError,
    Piece,
    XiangqiBoard,
    XiangqiMove,
    perft,
)
from boardctl.variants.xiangqi.notation import chinese, iccs, parse_move, wxf
from boardctl.variants.xiangqi.records import (
    Record,
    export,
    position_after,
    read_game,
    read_headers,
    read_record,
    write_game,
)

__all__ = [
    "BLACK",
    "RED",
    "STARTING_FEN",
    "VARIANT",
    "IllegalMoveError",
    "Piece",
    "Record",
    "XiangqiBoard",
    "XiangqiMove",
    "chinese",
    "export",
    "faults",
    "iccs",
    "parse_move",
    "perft",
    "position_after",
    "read_record",
    "wxf",
]


def _board(fen: str, *, rules: str = "chinese", move_limit: int = 60) -> GameBoard:
    return XiangqiBoard(fen, rules=rules, move_limit=move_limit)


def _adopt(board: GameBoard, *, rules: str | None = None, move_limit: int | None = None) -> GameBoard:
    """A XiangqiBoard of ``board``'s game (its copy, or rebuilt from its root and moves), under
    ``rules`` and ``move_limit`` when given (else the board's own, or the defaults)."""
    if isinstance(board, XiangqiBoard):
        own = board.copy()
    else:
        own = XiangqiBoard(board.root().fen())
        for move in board.move_stack:
            own.push_uci(move.uci())
    if rules is not None:
        own.rules = rules
    if move_limit is not None:
        own.move_limit = move_limit
    return own


def configured(options: Mapping[str, object]) -> Variant:
    """Xiangqi under ``rules`` (``chinese``, the default, or ``asian``) and ``move_limit`` (1-60
    moves a side without a capture); ValueError names a bad one."""
    rules, limit = options.get("rules", "chinese"), options.get("move_limit", 60)
    if rules not in RULES:
        raise ValueError(f"xiangqi rules are {' or '.join(RULES)}, got {rules!r:.20}")
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 60:
        raise ValueError(f"the xiangqi move limit is 1 to 60 moves a side, got {limit!r:.20}")
    rule_set: str = str(rules)
    if (rule_set, limit) == ("chinese", 60):
        return VARIANT  # the defaults: the game itself
    return replace(
        VARIANT,
        board_factory=functools.partial(_board, rules=rule_set, move_limit=limit),
        adopt=functools.partial(_adopt, rules=rule_set, move_limit=limit),
    )


def faults(board: GameBoard) -> list[str]:
    """What is wrong with ``board``'s position as a set-up, in words (empty when it is fine).

    A XiangqiBoard refuses such a FEN already, so this finds faults only in positions reached
    by pushing unchecked moves (or in another game's board)."""
    try:
        XiangqiBoard(board.fen())
    except ValueError as exc:
        return [str(exc).split(": ", 1)[-1]]
    return []


VARIANT = Variant(
    name="xiangqi",
    geometry=XIANGQI_9X10,
    starting_fen=STARTING_FEN,
    color_names=("red", "black"),
    board_factory=_board,
    adopt=_adopt,
    faults=faults,
    write_pgn=write_game,
    read_pgn=read_game,
    read_pgn_headers=read_headers,
    configurator=configured,
    capabilities=Capabilities(
        parts=frozenset({"reading", "spoken", "terminal_moves", "notation", "records"}),
        has_river=True,
    ),
)
