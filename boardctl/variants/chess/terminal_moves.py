"""Chess moves typed in the terminal view: SAN (``Nf3``, ``exd5``, ``O-O``, ``e8=Q``) and from-to
(``e2e4``, ``e1h1`` for castling), and what hands do on wood to make them (the captured piece off
first, the rook after the king, the promotion piece chosen first).

The game-neutral view (:mod:`boardctl.terminal`) asks this reader through the small interface of
:class:`boardctl.core.moves_typed.MoveReader`; everything here knows python-chess.
"""

from __future__ import annotations

import re
from typing import Any

import chess

from boardctl.core.moves_typed import (
    CAPTURE_PAUSE,
    HandStep,
    InputError,
    Lift,
    MakeMove,
    Pause,
    Place,
    Position,
    PressButton,
    check_turn,
    not_a_command,
    not_your_turn,
    side_name,
)
from boardctl.events import Button

PROMOTION_BUTTON: dict[chess.PieceType, Button] = {
    chess.QUEEN: Button.PROMOTE_QUEEN,
    chess.ROOK: Button.PROMOTE_ROOK,
    chess.BISHOP: Button.PROMOTE_BISHOP,
    chess.KNIGHT: Button.PROMOTE_KNIGHT,
}

_SQUARE = re.compile(r"[a-h][1-8]")
_FROM_TO = re.compile(r"([a-h][1-8])-?([a-h][1-8])(?:=?([qrbn]))?")
_SAN_DEST = re.compile(r"([KQRBN])?[a-h]?[1-8]?x?([a-h][1-8])")


def hand_steps(board: chess.Board, move: chess.Move) -> list[HandStep]:
    """What a hand does to play ``move`` on wood (logical squares): the promotion piece chosen
    first, a captured piece taken off first and kept off longer than a brush, the king before the rook."""
    steps: list[HandStep] = []
    if move.promotion is not None and move.promotion in PROMOTION_BUTTON:
        steps.append(PressButton(PROMOTION_BUTTON[move.promotion]))
    if board.is_en_passant(move):
        victim = chess.square(chess.square_file(move.to_square), chess.square_rank(move.from_square))
        steps += [Lift(victim), Pause(CAPTURE_PAUSE)]
    elif board.piece_at(move.to_square) is not None and not board.is_castling(move):
        steps += [Lift(move.to_square), Pause(CAPTURE_PAUSE)]
    if board.is_castling(move):
        rank = chess.square_rank(move.from_square)
        kingside = board.is_kingside_castling(move)
        king_to = chess.square(6 if kingside else 2, rank)
        rook_from = move.to_square if board.chess960 else chess.square(7 if kingside else 0, rank)
        rook_to = chess.square(5 if kingside else 3, rank)
        return [*steps, Lift(move.from_square), Place(king_to), Lift(rook_from), Place(rook_to)]
    return [*steps, Lift(move.from_square), Place(move.to_square)]


def how_to_type(board: chess.Board, move: chess.Move) -> str:
    """What to type for ``move``: SAN and from-to (a pawn push ``e4`` too: a bare square that is
    a legal move plays it)."""
    return f"{board.san(move)} or {move.uci()}"


class ChessMoves:
    """The chess :class:`boardctl.core.moves_typed.MoveReader`."""

    def board(self, fen: str) -> chess.Board:
        return chess.Board(fen)

    def parse_move(self, text: str, position: Position) -> MakeMove:
        match = _FROM_TO.fullmatch(text.strip().lower())
        if match is not None:
            return _from_to(match, position)
        return _san(text.strip(), position)

    def hand_steps(self, position: Position, move: Any) -> list[HandStep]:
        return hand_steps(position.board, move)

    def move_text(self, position: Position, uci: str) -> str | None:
        """The move in SAN, or None when it is not a legal move here."""
        try:
            move = chess.Move.from_uci(uci)
            return position.board.san(move) if position.board.is_legal(move) else None
        except ValueError:
            return None

    def how_to_type(self, position: Position, uci: str) -> str:
        return how_to_type(position.board, chess.Move.from_uci(uci))

    def last_move(self, start_fen: str, moves: list[str]) -> str | None:
        if not moves:
            return None
        board = chess.Board(start_fen)
        for uci in moves[:-1]:
            board.push_uci(uci)
        move = chess.Move.from_uci(moves[-1])
        number = board.fullmove_number
        return f"{number}. {board.san(move)}" if board.turn == chess.WHITE else f"{number}... {board.san(move)}"

    def is_check(self, position: Position) -> bool:
        return bool(position.board.is_check())

    def explain(self, problem: str, move: Any, position: Position, legal: bool) -> str:
        board = position.board
        if not legal:
            target = chess.square_name(move.to_square)
            if "occupied" in problem:
                return (f"{problem[0].upper()}{problem[1:]}: take that piece off first (type {target}), "
                        f"or type the capture in SAN (such as {_capture_example(board, move)})")
            return problem[0].upper() + problem[1:]
        return (f"{problem[0].upper()}{problem[1:]}, so {board.san(move)} cannot be made: "
                "first set the pieces as the game has them (the lit squares)")


READER = ChessMoves()


def _from_to(match: re.Match[str], position: Position) -> MakeMove:
    board: chess.Board = position.board
    start, end = chess.parse_square(match[1]), chess.parse_square(match[2])
    if start == end:
        raise InputError(f"{match[1]}{match[2]} goes nowhere: give two different squares, such as e2e4")
    promotion = chess.Piece.from_symbol(match[3]).piece_type if match[3] else None
    move = chess.Move(start, end, promotion)
    if promotion is None:
        queen = chess.Move(start, end, chess.QUEEN)
        if queen in board.legal_moves:
            move = queen  # the pawn becomes a queen unless another piece is named (e7e8n)
    elif chess.Move(start, end) in board.legal_moves or board.piece_type_at(start) != chess.PAWN:
        raise InputError(f"Only a pawn reaching the last rank is promoted: type {match[1]}{match[2]} without the piece")
    legal = move in board.legal_moves or _is_castling_as_rook_capture(board, move)
    if legal and _is_castling_as_rook_capture(board, move):
        move = _castling_from_rook_square(board, move)
    check_turn(move.uci(), legal, position, READER)
    return MakeMove(move, legal)


def _is_castling_as_rook_capture(board: chess.Board, move: chess.Move) -> bool:
    """``e1h1``: the king onto its own rook, as some programs write castling."""
    return _castling_from_rook_square(board, move) in board.legal_moves


def _castling_from_rook_square(board: chess.Board, move: chess.Move) -> chess.Move:
    king = board.king(board.turn)
    if move.from_square != king or board.piece_at(move.to_square) != chess.Piece(chess.ROOK, board.turn):
        return chess.Move.null()
    rank = chess.square_rank(move.from_square)
    if chess.square_file(move.to_square) == 7:
        return chess.Move(move.from_square, chess.square(6, rank))
    if chess.square_file(move.to_square) == 0:
        return chess.Move(move.from_square, chess.square(2, rank))
    return chess.Move.null()


def _normalise_san(text: str) -> list[str]:
    san = text.strip().rstrip("+#!?")
    castle = san.upper().replace("0", "O")
    if castle in ("O-O", "O-O-O", "OO", "OOO"):
        return ["O-O-O" if castle.count("O") == 3 else "O-O"]
    candidates = [san]
    pawn_like = re.fullmatch(r"[a-h](x[a-h])?[1-8].*", san) is not None  # bxc3 is a pawn capture, never Bxc3
    if san and san[0] in "nrqkb" and len(san) > 2 and not pawn_like:
        candidates.append(san[0].upper() + san[1:])  # nf3 -> Nf3
    if "=" not in san and re.fullmatch(r"[a-h](x[a-h])?[18][qrbnQRBN]", san):
        candidates.append(san[:-1] + "=" + san[-1].upper())  # e8q -> e8=Q
    return candidates


def _san(raw: str, position: Position) -> MakeMove:
    board: chess.Board = position.board
    candidates = _normalise_san(raw)
    ambiguous: str | None = None
    syntax_ok = False
    for san in candidates:
        try:
            move = board.parse_san(san)
        except chess.AmbiguousMoveError:
            ambiguous = san
            syntax_ok = True
            continue
        except chess.IllegalMoveError:
            syntax_ok = True
            continue
        except chess.InvalidMoveError:
            continue
        check_turn(move.uci(), True, position, READER)
        return MakeMove(move, True)
    if ambiguous is not None:
        options = _options(board, ambiguous)
        raise InputError(f"{raw} could be {' or '.join(options)}: say which piece moves" if options
                         else f"{raw} could mean more than one move: say which piece moves")
    if not syntax_ok:
        raise not_a_command(raw, position)
    # A well-formed move that cannot be made: say why in chess terms.
    other = board.copy(stack=False)
    other.turn = not board.turn
    other.ep_square = None
    mine, theirs = side_name(position, board.turn), side_name(position, other.turn)
    for san in candidates:
        try:
            other.parse_san(san)
        except ValueError:
            continue
        if position.human is not None and board.turn != position.human:
            raise not_your_turn(position, READER)
        raise InputError(f"{raw} is a move for {theirs}, but it is {mine}'s turn")
    if board.is_check():
        raise InputError(f"{raw} is not legal: {mine} is in check and must get out of it")
    raise InputError(f"{raw} is not a legal move for {mine} here")


def _options(board: chess.Board, san: str) -> list[str]:
    match = _SAN_DEST.fullmatch(san.replace("=", "")[:6])
    if match is None:
        return []
    piece = chess.Piece.from_symbol(match[1]).piece_type if match[1] else chess.PAWN
    dest = chess.parse_square(match[2])
    return sorted(board.san(m) for m in board.legal_moves
                  if m.to_square == dest and board.piece_type_at(m.from_square) == piece)


def _capture_example(board: chess.Board, move: chess.Move) -> str:
    for legal in board.legal_moves:
        if legal.to_square == move.to_square and board.is_capture(legal):
            return board.san(legal)
    return "exd5"
