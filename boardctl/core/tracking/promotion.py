"""Promotion: the window after the new piece settles, during which it may be swapped and the piece
chosen with the promote buttons (under-promotion); then the move is final."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from boardctl.core.rules import Move
from boardctl.core.tracking.game import Game
from boardctl.core.tracking.outputs import Output, Timing
from boardctl.core.tracking.readings import BIT, Readings
from boardctl.events import PROMOTION_BUTTONS, Button


@dataclass(slots=True)
class PromotionWindow:
    """A promotion made on the board, final at ``deadline`` (inf while its square is empty)."""

    move: Move
    deadline: float
    placed_t: float


class Promotions:
    """The promotion waiting for its window to close, and the piece chosen before it was made.

    ``accept`` records a move as made (the tracker's): a promotion closing is one.
    """

    def __init__(
        self, timing: Timing, game: Game, readings: Readings, accept: Callable[[float, Move, list[Output]], None]
    ) -> None:
        self._timing = timing
        self._game = game
        self._readings = readings
        self._accept = accept
        self.window: PromotionWindow | None = None
        #: The piece chosen with the buttons before the promotion was made (this turn only).
        self.preselect: str | None = None

    @property
    def move(self) -> Move | None:
        return self.window.move if self.window else None

    def chosen(self, move: Move) -> Move:
        """``move`` with the piece chosen (or the game's first), if it promotes."""
        board = self._game.board
        if board.choice_of(move) is not None:
            move = board.with_choice(move, self.preselect or board.choices()[0])
        return move

    def open(self, t: float, move: Move) -> None:
        """``move`` promotes: it stays open until the window after its piece settles closes."""
        board = self._game.board
        piece = self.preselect or board.choices()[0]
        last = self._readings.last_event(move.to_square)
        placed = last.t if last is not None else t
        self.window = PromotionWindow(board.with_choice(move, piece), t + self._timing.promotion_window, placed)

    def on_button(self, button: Button, t: float) -> bool:
        """A promote button: the piece chosen (for the open promotion, or the next). False for others."""
        if button not in PROMOTION_BUTTONS and button is not Button.PROMOTE:
            return False
        board = self._game.board
        cycle = board.choices()
        if not cycle:
            return True  # a game without promotion
        window = self.window
        current = board.choice_of(window.move) if window else self.preselect
        if button is Button.PROMOTE:
            index = cycle.index(current) if current in cycle else 0
            piece = cycle[(index + 1) % len(cycle)]
        else:
            piece = PROMOTION_BUTTONS[button]
        if window is not None:
            window.move = board.with_choice(window.move, piece)
            if window.deadline != float("inf"):
                window.deadline = t + self._timing.promotion_window
        else:
            self.preselect = piece
        return True

    def on_square(self, t: float, occupied: bool) -> None:
        """The swap on the promotion square: the window restarts once the new piece is down."""
        window = self.window
        assert window is not None
        if occupied:
            window.placed_t = t
            window.deadline = t + self._timing.settle + self._timing.promotion_window
        else:
            window.deadline = float("inf")

    def close(self, out: list[Output]) -> None:
        """The window closes: the move is made, unless the new piece is still in the hand."""
        window = self.window
        assert window is not None
        if not self._readings.occ & BIT[window.move.to_square]:
            return  # the new piece is still in the hand
        self.window = None
        self._accept(window.placed_t + self._timing.settle, window.move, out)

    def interrupted(self, out: list[Output]) -> None:
        """Another square changed: the promotion is final. If its square is empty now, the last
        lift there was the opponent taking the new piece, so it belongs to the next move."""
        window = self.window
        assert window is not None
        readings = self._readings
        to_bit = BIT[window.move.to_square]
        last = readings.last_event(window.move.to_square)
        if readings.occ & to_bit or last is None or last.occupied or last.t < window.placed_t:
            self.close(out)
            self.window = None  # still in the hand: judge again from the log when it settles
            return
        readings.log.remove(last)
        readings.reindex()
        readings.occ |= to_bit
        self.close(out)
        readings.occ &= ~to_bit
        readings.extend([last])
        readings.last_change = last.t
