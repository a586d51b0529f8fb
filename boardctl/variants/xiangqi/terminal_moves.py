"""Xiangqi moves typed in the terminal view: coordinates (``h2e2``), ICCS (``H2-E2``), WXF
(``C2.5``) or Chinese (``炮二平五``), read by the game's own notation; and what hands do on wood
(the captured piece off first, kept off longer than a brush).

The game-neutral view (:mod:`boardctl.terminal`) asks this reader through
:class:`boardctl.core.moves_typed.MoveReader`; the rules are :class:`XiangqiBoard`'s.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from boardctl.core.moves_typed import (
    CAPTURE_PAUSE,
    HandStep,
    InputError,
    Lift,
    MakeMove,
    Pause,
    Place,
    Position,
    check_turn,
    not_a_command,
    not_your_turn,
    side_name,
)
from boardctl.variants.xiangqi.board import IllegalMoveError, XiangqiBoard, XiangqiMove
from boardctl.variants.xiangqi.notation import chinese, parse_move, wxf

_POINTS = re.compile(r"([a-i][0-9])\s*-?\s*([a-i][0-9])")
#: WXF's shape: piece (or + - for tandem pieces), file or + -, direction . + - =, target.
_WXF = re.compile(r"[KAEBHNRCP+\-1-9][1-9+\-.]?[.=+\-][1-9]", re.IGNORECASE)


def _looks_like_notation(text: str) -> bool:
    """WXF-shaped, or written in Chinese characters (炮二平五): worth asking the notation."""
    if _WXF.fullmatch(text):
        return True
    return 0 < len(text) <= 8 and any(unicodedata.east_asian_width(ch) in ("W", "F") for ch in text)


def _turned(board: XiangqiBoard) -> XiangqiBoard:
    """The same placement with the other side to move (to say whose move a text names)."""
    fields = board.fen().split()
    fields[1] = "b" if board.turn else "w"
    return XiangqiBoard(" ".join(fields))


class XiangqiMoves:
    """The xiangqi :class:`boardctl.core.moves_typed.MoveReader`."""

    def board(self, fen: str) -> XiangqiBoard:
        return XiangqiBoard(fen)

    def parse_move(self, text: str, position: Position) -> MakeMove:
        raw = text.strip()
        board: XiangqiBoard = position.board
        match = _POINTS.fullmatch(raw.lower())
        if match is not None:
            if match[1] == match[2]:
                raise InputError(f"{match[1]}{match[2]} goes nowhere: give two different points, such as h2e2")
            move = XiangqiMove.from_uci(match[1] + match[2])
            legal = board.is_legal(move)
            check_turn(move.uci(), legal, position, READER)
            return MakeMove(move, legal)
        if not _looks_like_notation(raw):
            raise not_a_command(raw, position)
        try:
            move = parse_move(board, raw)
        except IllegalMoveError as exc:
            raise self._why_not(raw, str(exc), position) from None
        check_turn(move.uci(), True, position, READER)
        return MakeMove(move, True)

    def _why_not(self, raw: str, why: str, position: Position) -> InputError:
        board: XiangqiBoard = position.board
        mine, theirs = side_name(position, board.turn), side_name(position, not board.turn)
        if "ambiguous" in why:
            options = why.rsplit(": ", 1)[-1]
            return InputError(f"{raw} could be {options.replace(', ', ' or ')}: type the move's two points")
        try:
            parse_move(_turned(board), raw)
        except (IllegalMoveError, ValueError):
            return InputError(f"{raw} is not a legal move for {mine} here")
        if position.human is not None and board.turn != position.human:
            return not_your_turn(position, READER)
        return InputError(f"{raw} is a move for {theirs}, but it is {mine}'s turn")

    def hand_steps(self, position: Position, move: Any) -> list[HandStep]:
        steps: list[HandStep] = []
        if position.board.piece_at(move.to_square) is not None:
            steps += [Lift(move.to_square), Pause(CAPTURE_PAUSE)]
        return [*steps, Lift(move.from_square), Place(move.to_square)]

    def _legal(self, board: XiangqiBoard, uci: str) -> XiangqiMove | None:
        try:
            move = XiangqiMove.from_uci(uci)
        except ValueError:
            return None
        return move if board.is_legal(move) else None

    def move_text(self, position: Position, uci: str) -> str | None:
        """WXF with the Chinese beside it (``C2.5 炮二平五``), or None when not legal here."""
        move = self._legal(position.board, uci)
        if move is None:
            return None
        return f"{wxf(position.board, move)} {chinese(position.board, move)}"

    def how_to_type(self, position: Position, uci: str) -> str:
        move = self._legal(position.board, uci)
        return f"{uci} or {wxf(position.board, move)}" if move is not None else uci

    def last_move(self, start_fen: str, moves: list[str]) -> str | None:
        if not moves:
            return None
        try:
            board = XiangqiBoard(start_fen)
            for uci in moves[:-1]:
                board.push(board.parse_uci(uci))
            move = board.parse_uci(moves[-1])
            text = f"{wxf(board, move)} {chinese(board, move)}"
        except ValueError:
            return None
        number = board.fullmove_number
        return f"{number}. {text}" if board.turn else f"{number}... {text}"

    def is_check(self, position: Position) -> bool:
        return bool(position.board.is_check())

    def explain(self, problem: str, move: Any, position: Position, legal: bool) -> str:
        text = problem[0].upper() + problem[1:]
        if not legal:
            if "occupied" in problem:
                return f"{text}: take that piece off first (type {move.uci()[2:]})"
            return text
        return (f"{text}, so {wxf(position.board, move)} cannot be made: "
                "first set the pieces as the game has them (the lit points)")


READER = XiangqiMoves()
