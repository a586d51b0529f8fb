"""The reply starting (FIDE 4.7) and captures whose square never read empty.

Blitz: a lift of the other side's piece proves the mover let go. When the placement explains a
legal move once those lifts are set aside, the move is complete at once and the lifts belong to
the reply. A capture whose square never read empty (the victim pushed off) looks like a piece in
the hand; it completes on the opponent's lift, the clock button, a blink of the captured square
or the mismatch delay. Several possible victims light ``which-capture`` until the player
confirms one (lifting the capturer from one candidate square and putting it back).
"""

from __future__ import annotations

from collections.abc import Callable

from boardctl.core.geometry import Square, squares_of
from boardctl.core.rules import Move
from boardctl.core.tracking.game import Game
from boardctl.core.tracking.outputs import Output
from boardctl.core.tracking.promotion import Promotions
from boardctl.core.tracking.readings import BIT, Readings, lsb
from boardctl.core.tracking.recognition import Recognizer
from boardctl.core.tracking.restoration import Restoration
from boardctl.core.tracking.touch import TouchMove
from boardctl.events import Code

#: Judges a completed move as final (no promotion window): True if it was accepted.
Judge = Callable[[float, Move, list[Output]], bool]


class Captures:
    """The moves the reply's first lifts complete, and the ``which-capture`` question."""

    def __init__(
        self, settle: float, game: Game, readings: Readings, recognizer: Recognizer, touch: TouchMove,
        promotions: Promotions, restoration: Restoration, judge: Judge,
    ) -> None:
        self._settle = settle
        self._game = game
        self._readings = readings
        self._recognizer = recognizer
        self._touch = touch
        self._promotions = promotions
        self._restoration = restoration
        self._judge = judge
        self.new_turn()

    def new_turn(self) -> None:
        """A new move to make: no question asked."""
        #: A capture that pushed its victim off: the capturer's square and the candidate victims.
        self.which_from: Square | None = None
        self.which: tuple[Square, ...] = ()
        self.which_since = 0.0

    def answered(self) -> None:
        """The board matches again: the question is dropped."""
        self.which_from, self.which = None, ()

    # -- the reply starting ----------------------------------------------------------------

    def reply_started(self, t: float, out: list[Output], *, hidden: bool = True) -> bool:
        """The other side lifted a piece (or the mover set down with those lifts already made):
        complete the move they prove released, and keep the lifts for the reply. ``hidden``: also
        a capture that pushed its victim off (only once settled: the mover's piece may still be
        in the hand, about to touch down)."""
        board = self._game.board
        readings = self._readings
        recognizer = self._recognizer
        if self.which or self._restoration.refused is not None:
            return False
        occ = readings.occ
        own_lifted = board.occupied_co[board.turn] & ~occ
        if (not hidden or own_lifted & (own_lifted - 1) == 0) and not board.occupied_co[not board.turn] & ~occ:
            return False  # nothing of the other side's is off, nor (settled) two of the mover's
        eligible = recognizer.set_aside(occ)
        if not eligible and (not hidden or own_lifted.bit_count() < 2):
            return False
        mover_lift = recognizer.mover_lift_t()
        filled = readings.filled()  # a move fills its target
        retaken = recognizer.retaken(occ) if eligible and filled else {}
        also = sum(BIT[sq] for sq in retaken)
        takeback = self._restoration.restore is Code.TAKEBACK
        for move, after in recognizer.legal_after(own_lifted, filled | board.extra_targets()) if filled else ():
            aside = after & ~occ  # what the move leaves standing that is off now: the reply's lifts
            target = board.landing_square(move)
            if occ & ~after or not aside or aside & also & ~BIT[target]:
                continue
            if not hidden and not aside & eligible:
                continue  # before it settles, only the other side's lift proves the mover let go
            placed = retaken.get(target) or readings.last_event(target)
            if placed is None or not recognizer.is_consistent(move, after, placed=placed, takeback=takeback):
                continue
            theirs, own = aside & eligible, aside & ~eligible & ~also
            # Theirs lifted after the mover's lift, or at most ``settle`` before the piece touched down;
            # the mover's own pieces lifted after it touched down, as the reply's victims.
            earliest = min(mover_lift, placed.t - self._settle - 1e-9)  # "up to settle before" includes settle
            if all(readings.lift_t(sq) > earliest for sq in squares_of(theirs)) and (
                not own or recognizer.reply_victims(move, own, placed.t)
            ):
                self._touch.update(t, exclude=aside)
                return self.complete_with_reply(t, move, aside, out)
        if not eligible:
            return False
        # A capture that pushed its victim off, with the reply already under way: the other side
        # lifting, or even setting its piece down (then the mover's piece is surely down too).
        extra = occ & ~board.occupied
        first_reply = min(readings.lift_t(sq) for sq in squares_of(eligible))
        if extra and not all(readings.placed_after(sq, first_reply) for sq in squares_of(extra)):
            return False
        square = recognizer.hidden_from((occ | eligible) & ~extra)
        if square is not None:
            lift = readings.first_lift(square)
            assert lift is not None
            # The piece is down, not in the air, when the board has settled, the reply has set
            # down, or a square it could take blinked (its victim pushed off).
            blinked = readings.blinked_since(lift.t) if readings.blinks else 0
            if not (hidden or extra or blinked):
                return False
            targets = recognizer.capture_targets(square)
            blinked &= targets
            if not (hidden or extra or blinked):
                return False
            # A lift of a piece it could take may be its own victim taken off by hand, unless the
            # reply has set down elsewhere since and a blink says which victim was pushed off (a
            # blink alone may be a brush while the piece is still in the air).
            known = blinked if extra else 0
            if targets and first_reply > lift.t and eligible & ~(known or targets):
                self._touch.update(t, exclude=eligible)
                capture = self.resolve(t, square, targets)
                if capture is not None:
                    return self.complete_with_reply(t, capture, eligible | extra, out)
        return False

    def complete_with_reply(self, t: float, move: Move, aside: int, out: list[Output]) -> bool:
        """Judge ``move`` made; the changes on ``aside`` open the reply."""
        readings = self._readings
        reply = [c for c in readings.log if aside & BIT[c.square] and c is readings.last_event(c.square)]
        if not self._judge(t, self._promotions.chosen(move), out):
            return False
        readings.extend(reply)  # the other side's lifts open the reply
        readings.settled_done = False
        readings.last_change = max(c.t for c in reply)
        return True

    # -- captures whose square never read empty ---------------------------------------------

    def hidden_capture(self, t: float, out: list[Output]) -> None:
        """The mismatch delay or the clock button ends the wait for a capture that pushed its victim off."""
        square = self._recognizer.hidden_from()
        if square is None or self._game.finished or self.which:
            return
        targets = self._recognizer.capture_targets(square)
        if targets:
            move = self.resolve(t, square, targets)
            if move is not None:
                self._judge(t, move, out)

    def resolve(self, t: float, square: Square, targets: int) -> Move | None:
        """The capture to record, or None while the player is asked which (``which-capture``)."""
        lift = self._readings.first_lift(square)
        assert lift is not None
        blinked = self._readings.blinked_since(lift.t) & targets
        if blinked:
            targets = blinked
        if targets.bit_count() == 1:
            return self._capture_move(square, lsb(targets))
        self.which_from, self.which, self.which_since = square, tuple(squares_of(targets)), t
        return None

    def _capture_move(self, from_square: Square, to_square: Square) -> Move:
        """The legal capture from ``from_square`` to ``to_square`` (a promotion: the preselected piece)."""
        move = next(self._game.board.generate_legal_moves(BIT[from_square], BIT[to_square]))
        return self._promotions.chosen(move)

    def which_confirmed(self) -> Move | None:
        """The capturer lifted from one candidate square and put back: that capture."""
        readings = self._readings
        if self.which_from is None or self._recognizer.hidden_from(readings.occ | self._recognizer.set_aside(readings.occ)) != self.which_from:
            return None
        for square in self.which:
            last = readings.last_event(square)
            lift = readings.first_lift(square)
            if last is not None and last.occupied and lift is not None and lift.t >= self.which_since:
                return self._capture_move(self.which_from, square)
        return None
