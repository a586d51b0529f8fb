"""Mismatch and restoration: a board no move explains, what must be put back, and its violations.

One completed illegal move is one violation: the states while it is put right are not new ones.
A board that differs from the game for no reason the log gives is shown as a mismatch after
``Timing.mismatch_delay``; squares to put right are lit with the reason (the restore code).
"""

from __future__ import annotations

from collections.abc import Callable

from boardctl.core.geometry import Square, squares_of
from boardctl.core.rules import Move, Variant
from boardctl.core.tracking.game import Game, loss_result
from boardctl.core.tracking.outputs import Forfeit, Output, Violation
from boardctl.core.tracking.readings import Readings, lsb
from boardctl.core.tracking.recognition import Recognizer
from boardctl.core.tracking.touch import TouchMove
from boardctl.events import Code


class Restoration:
    """What the board must be brought back to, why, and the timers of an unexplained board."""

    def __init__(
        self, variant: Variant, game: Game, readings: Readings, recognizer: Recognizer, touch: TouchMove,
        *, mismatch_delay: float, arbiter: bool,
    ) -> None:
        self._variant = variant
        self._name: Callable[[Square], str] = variant.geometry.square_name
        self._game = game
        self._readings = readings
        self._recognizer = recognizer
        self._touch = touch
        self._delay = mismatch_delay
        self._arbiter = arbiter
        self.reset()

    def reset(self) -> None:
        """A new position to judge from: nothing to put back, no timer running."""
        #: Why the board must be put right (its LEDs' code), or None.
        self.restore: Code | None = None
        self.refused: int | None = None  # squares of the refused move being put right
        self.reported_occ: int | None = None
        #: When a mismatch is shown, and whether it is.
        self.mismatch_at: float | None = None
        self.mismatch_shown = False
        #: When a piece in the hand is checked for a capture that pushed its victim off.
        self.capture_at: float | None = None
        #: The move a takeback on the board offers to take back (mode ``offer``).
        self.offer: Move | None = None

    def stop_timers(self) -> None:
        """The board changed: the delays start again once it settles."""
        self.mismatch_at = None
        self.mismatch_shown = False
        self.capture_at = None

    def mismatch_due(self, t: float, out: list[Output]) -> None:
        """The mismatch delay has passed (called once it has): show it, and report it once per reading."""
        self.mismatch_shown = True
        self.restore = self.restore or Code.MISMATCH
        if self.reported_occ != self._readings.occ:
            self.reported_occ = self._readings.occ
            out.append(self._game.violation(t, Code.MISMATCH, self.diff_detail()))

    def refuse(self, t: float, code: Code, detail: str, out: list[Output], *, count: bool) -> None:
        """One completed wrong move, one violation: states while it is put right add none."""
        game = self._game
        board = game.board
        diff = self._readings.occ ^ board.occupied
        if self.refused is not None and not diff & ~self.refused:
            return
        region = board.attempt_region(diff)
        self.refused = region | (self.refused or 0)
        self.restore = code
        self.capture_at = None
        mover = board.turn
        if count:
            game.illegal_counts[mover] += 1
        out.append(game.violation(t, code, detail))
        if count and self._arbiter and game.illegal_counts[mover] >= 2:
            out.append(Forfeit(t, mover, loss_result(board, mover)))
            game.finished = True

    def rook_first(self, t: float, out: list[Output]) -> None:
        """The rook went first and settled, then the king followed: the rook move stands."""
        if self.refused is not None:
            return
        board = self._game.board
        self.refused = self._readings.occ ^ board.occupied
        self.restore = Code.CASTLING_ROOK_FIRST
        color = not board.turn
        out.append(Violation(t, Code.CASTLING_ROOK_FIRST, len(board.move_stack), color, "rook moved before the king; the rook move stands"))

    def diff_detail(self) -> str:
        board = self._game.board
        occ = self._readings.occ
        name = self._name
        missing = list(squares_of(board.occupied & ~occ))
        extra = list(squares_of(occ & ~board.occupied))
        parts = []
        if missing:
            parts.append("empty " + ",".join(name(s) for s in missing))
        if extra:
            parts.append("occupied " + ",".join(name(s) for s in extra))
        return "; ".join(parts) or "board matches"

    def judge_unexplained(self, t: float, out: list[Output]) -> None:
        """The board has settled on no legal move: a move half made, one refused, or a mismatch."""
        game = self._game
        board = game.board
        readings = self._readings
        recognizer = self._recognizer
        occ = readings.occ
        own = board.occupied_co[board.turn]
        missing = board.occupied & ~occ
        extra = occ & ~board.occupied
        own_missing = missing & own
        if any(readings.last_event(sq) is None for sq in squares_of(occ ^ board.occupied)):
            if self.restore not in (None, Code.MISMATCH):
                return  # already guiding a set-up or a restore
            # Changed without events (a resync): only the player can say what happened.
            self.mismatch_at = t + self._delay
            self.mismatch_shown = False
            return
        refilled = (
            recognizer.refilled(missing, occ)
            if own_missing and readings.placed & occ & board.occupied and not extra and own_missing == missing
            and own_missing & (own_missing - 1) == 0 else 0
        )
        if refilled:
            # One own piece off and a square of the other side's refilled since it was lifted, and
            # no legal move tells that story: an illegal capture released, refused as a legal one
            # would be accepted (the tracker cannot tell it from the victim put back in the hand).
            self.refuse(t, Code.ILLEGAL_MOVE, f"{self.diff_detail()}: the piece from {self._name(lsb(own_missing))} cannot take there", out, count=True)
            if self.refused is not None:
                self.refused |= refilled  # its target too: putting it right adds no violation
            return
        castle = recognizer.is_partial(occ)
        if castle is not None:
            if not isinstance(castle, bool):
                self._touch.commit_castle(castle)  # the king released on its castling square
            return  # a move half made: castling's king without its rook, an e.p. pawn beside its victim
        if game.check_over():
            return  # stalemate: clearing up
        # A piece set down where it did not stand, or on a square emptied after a lift: released.
        placed_on_emptied = bool(recognizer.refilled(missing, occ))
        if missing and (extra or placed_on_emptied) and not own_missing and recognizer.is_taking_back(occ):
            pass  # the last move's pieces on their way back: a takeback, not a move out of turn
        elif missing and (extra or placed_on_emptied):
            obligation = self._touch.capture_obligation(t) if own_missing else None
            if obligation is not None:
                self.refuse(t, Code.TOUCH_MOVE, f"{self._name(obligation)} was taken off and must be captured", out, count=False)
            elif own_missing:
                self.refuse(t, Code.ILLEGAL_MOVE, self.diff_detail(), out, count=True)
            else:
                self.refuse(t, Code.ILLEGAL_MOVE, f"{self.diff_detail()}: not {self._variant.color_name(board.turn)}'s piece", out, count=True)
            return
        in_hand = not extra and own_missing.bit_count() <= 1 and (missing & ~own).bit_count() <= 1
        if (in_hand and self.restore is None) or occ == 0 or readings.cleared:
            return  # a piece in the hand, or the board being cleared or set up
        self.mismatch_at = t + self._delay
        self.mismatch_shown = False
        if self.restore is not None and self.restore is not Code.MISMATCH:
            self.mismatch_at = None  # already guiding a restore

    def show(self, lit: dict[Square, Code], *, promoting: bool) -> Code | None:
        """Light the squares to put right with the reason; the reason (None: nothing to restore)."""
        restore = self.restore
        if restore is None and self.mismatch_shown:
            restore = Code.MISMATCH
        if self.offer is not None:
            restore = Code.TAKEBACK
        if self._game.finished and restore is not Code.SETUP:
            restore = None  # clearing up after the result
        if restore is not None and not promoting:
            for square in squares_of(self._readings.occ ^ self._game.board.occupied):
                lit[square] = restore
        return restore

    def idle(self) -> bool:
        """Nothing to restore or show."""
        return self.restore is None and not self.mismatch_shown and self.offer is None
