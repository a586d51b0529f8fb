"""Human-like switch events for a move: the orders, slides, brushes and pauses real hands make.

Used by the tests (every generated game must come back exactly), the benchmarks and demos.
Timings are drawn so that a completed move is always released for longer than the settle time,
and brushes and passing touches always last less than the brush time.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import chess

from boardctl.events import PROMOTION_BUTTONS, Button, ButtonPressed, Event, SquareChanged
from boardctl.tracker import (
    DEFAULT_TIMING,
    Policy,
    Timing,
    castling_rook_squares,
    en_passant_victim,
)

_BUTTON_FOR_PIECE = {piece: button for button, piece in PROMOTION_BUTTONS.items()}


@dataclass
class Hand:
    """Makes events for moves, keeping the clock and the occupancy it has produced so far."""

    rng: random.Random
    timing: Timing = DEFAULT_TIMING
    policy: Policy = Policy.FIDE
    t: float = 0.0
    brushes: bool = True
    adjusts: bool = True

    def _pause(self, low: float, high: float) -> None:
        self.t += self.rng.uniform(low, high)

    def _lift(self, out: list[Event], square: chess.Square) -> None:
        out.append(SquareChanged(round(self.t, 4), square, False))

    def _place(self, out: list[Event], square: chess.Square) -> None:
        out.append(SquareChanged(round(self.t, 4), square, True))

    def _contact(self) -> float:
        return self.rng.uniform(0.01, self.timing.brush * 0.8)

    def _released(self) -> None:
        """Wait past the settle time, so the last placement counts as released."""
        self._pause(self.timing.settle + 0.02, self.timing.settle + 0.9)

    def _in_hand(self) -> None:
        self._pause(self.timing.brush + 0.05, 0.8)

    def brush(self, board: chess.Board, out: list[Event]) -> None:
        """Knock a piece for a moment; it never leaves its square for longer than the brush time."""
        square = self.rng.choice(list(chess.SquareSet(board.occupied)))
        self._lift(out, square)
        self._pause(0.005, self.timing.brush * 0.8)
        self._place(out, square)
        self._pause(0.05, 0.3)

    def adjust(self, out: list[Event], square: chess.Square) -> None:
        """Lift a piece past the brush time and set it back within the settle time: its owner
        straightening it. (Kept off longer, FIDE 4.3 would make the side to move capture it.)"""
        self._lift(out, square)
        self._pause(self.timing.brush + 0.02, self.timing.settle - 0.03)
        self._place(out, square)
        self._released()

    def _travel(self, out: list[Event], board: chess.Board, start: chess.Square, end: chess.Square) -> None:
        """Carry the piece from ``start`` to ``end``, sliding over empty squares when it is a slider."""
        piece = board.piece_at(start)
        path = chess.SquareSet(chess.between(start, end)) if piece is not None and piece.piece_type in (chess.BISHOP, chess.ROOK, chess.QUEEN) else chess.SquareSet()
        if path and not path & board.occupied and self.rng.random() < 0.5:
            squares = sorted(path, key=lambda s: chess.square_distance(s, start))
            for square in squares:
                self._pause(0.01, 0.06)
                self._place(out, square)
                self._pause(0.01, self.timing.brush * 0.8)
                self._lift(out, square)
            self._pause(0.01, 0.06)
        else:
            self._in_hand()

    def move(self, board: chess.Board, move: chess.Move, *, promote_by: str = "choose") -> list[Event]:
        """Events that make ``move`` on ``board`` (not pushed). ``promote_by`` picks the promotion gesture."""
        out: list[Event] = []
        rng = self.rng
        if self.brushes and rng.random() < 0.15:
            self.brush(board, out)
        if self.adjusts and rng.random() < 0.1:
            theirs = board.occupied_co[not board.turn]
            self.adjust(out, rng.choice(list(chess.SquareSet(theirs))))
        if board.is_castling(move):
            self._castle(out, board, move)
        elif board.is_en_passant(move):
            victim = en_passant_victim(board, move)
            if rng.random() < 0.5:
                self._lift(out, victim)
                self._in_hand()
                self._lift(out, move.from_square)
                self._in_hand()
                self._place(out, move.to_square)
            else:
                self._lift(out, move.from_square)
                self._in_hand()
                self._place(out, move.to_square)
                self._pause(0.02, 0.8)
                self._lift(out, victim)
        elif move.promotion is not None:
            self._promote(out, board, move, promote_by)
            return out
        elif board.is_capture(move):
            if rng.random() < 0.5:
                self._lift(out, move.to_square)
                self._in_hand()
                self._lift(out, move.from_square)
            else:
                self._lift(out, move.from_square)
                self._in_hand()
                self._lift(out, move.to_square)
            self._in_hand()
            self._place(out, move.to_square)
        else:
            self._lift(out, move.from_square)
            self._travel(out, board, move.from_square, move.to_square)
            self._place(out, move.to_square)
        self._released()
        if self.adjusts and rng.random() < 0.1:
            self.adjust(out, move.to_square)  # the mover straightens the piece it just set down
        return out

    def _castle(self, out: list[Event], board: chess.Board, move: chess.Move) -> None:
        rook_from, rook_to = castling_rook_squares(board, move)
        king_to = chess.square(6 if board.is_kingside_castling(move) else 2, chess.square_rank(move.from_square))
        rook_first = self.policy is Policy.CASUAL and self.rng.random() < 0.5
        order = [(rook_from, rook_to), (move.from_square, king_to)] if rook_first else [(move.from_square, king_to), (rook_from, rook_to)]
        for index, (start, end) in enumerate(order):
            self._lift(out, start)
            self._in_hand()
            self._place(out, end)
            if index == 0:
                self._pause(0.02, 0.8)

    def _promote(self, out: list[Event], board: chess.Board, move: chess.Move, promote_by: str) -> None:
        rng = self.rng
        capture = board.is_capture(move)
        victim_first = capture and rng.random() < 0.5
        if victim_first:
            self._lift(out, move.to_square)
            self._in_hand()
        self._lift(out, move.from_square)
        self._in_hand()
        if capture and not victim_first:
            self._lift(out, move.to_square)
            self._in_hand()
        swap = rng.random() < 0.5
        self._place(out, move.to_square)  # the pawn set down first, or the new piece straight away
        if swap:
            self._pause(self.timing.settle + 0.05, 0.8)
            self._lift(out, move.to_square)
            self._in_hand()
            self._place(out, move.to_square)
        piece = move.promotion
        assert piece is not None
        if piece != chess.QUEEN:
            self._pause(0.1, self.timing.settle)
            if promote_by == "cycle":
                for _ in range([chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT].index(piece)):
                    out.append(ButtonPressed(round(self.t, 4), Button.PROMOTE))
                    self._pause(0.1, 0.4)
            else:
                out.append(ButtonPressed(round(self.t, 4), _BUTTON_FOR_PIECE[piece]))
        # Leave the window to close by itself, or let the next move close it.
        if rng.random() < 0.5:
            self._pause(self.timing.settle + self.timing.promotion_window + 0.05, self.timing.settle + self.timing.promotion_window + 0.5)
        else:
            self._released()


def random_game(rng: random.Random, *, max_plies: int = 80, bias: bool = True, board: chess.Board | None = None) -> list[chess.Move]:
    """A random legal game, biased towards castling, en passant, promotions and captures."""
    board = board.copy() if board is not None else chess.Board()
    moves: list[chess.Move] = []
    while len(moves) < max_plies and not board.is_game_over():
        legal = list(board.legal_moves)
        weights = []
        for move in legal:
            weight = 1.0
            if bias:
                if board.is_castling(move) or board.is_en_passant(move):
                    weight = 60.0
                elif move.promotion is not None:
                    weight = 40.0
                elif board.piece_type_at(move.from_square) == chess.PAWN:
                    weight = 4.0
                elif board.is_capture(move):
                    weight = 3.0
            weights.append(weight)
        move = rng.choices(legal, weights)[0]
        moves.append(move)
        board.push(move)
    return moves


def events_for_game(
    moves: list[chess.Move], hand: Hand, *, board: chess.Board | None = None
) -> list[Event]:
    """Events for a whole game, each move made by ``hand`` in one of its human orders."""
    board = board.copy() if board is not None else chess.Board()
    out: list[Event] = []
    for move in moves:
        out.extend(hand.move(board, move, promote_by=hand.rng.choice(["choose", "cycle"])))
        board.push(move)
    return out
