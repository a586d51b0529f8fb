"""What the switches show, and the log of changes since the last accepted position.

Every occupancy change goes into the log; two opposite changes on one square within the brush
time cancel (a brushed piece, or a slid piece passing), and an occupied square that blinks that
way is remembered (a capturer pushing its victim off). The log is indexed by square, since every
judgement asks when a square was last changed or first lifted.
"""

from __future__ import annotations

from dataclasses import dataclass

from boardctl.core.geometry import Square
from boardctl.core.tracking.outputs import Timing

#: ``BIT[s]`` is the mask of square ``s`` (any board up to 256 squares; faster than a shift).
BIT = tuple(1 << s for s in range(256))


def lsb(mask: int) -> Square:
    """The lowest square of ``mask``."""
    return (mask & -mask).bit_length() - 1


@dataclass(slots=True)
class Change:
    t: float
    square: Square
    occupied: bool


class Readings:
    """The occupancy now, the log since the last position, and when the board last changed."""

    def __init__(self, occ: int, timing: Timing) -> None:
        self.occ = occ
        self._settle, self._knock = timing.settle, timing.knock
        self.log: list[Change] = []
        #: Each square's last change and first lift in the log (looked up on every judgement).
        self.last_at: dict[Square, Change] = {}
        self.first_lift_at: dict[Square, Change] = {}
        self.placed = 0  # squares with a placement in the log
        self.lifted = 0  # squares with a lift in the log (a superset: brushes are not taken out)
        self.blinks: list[Change] = []
        self.last_change = float("-inf")
        #: The settle time since the last change has been judged (or nothing is left to judge).
        self.settled_done = True
        #: The board was emptied since the last position: a start position now is a new game.
        self.cleared = False

    def clear(self) -> None:
        """A new position to judge from: forget the log."""
        self.log.clear()
        self.last_at.clear()
        self.first_lift_at.clear()
        self.placed = 0
        self.lifted = 0
        self.blinks.clear()

    def unsettle(self, t: float) -> None:
        """The board changed at ``t``: it is judged again once it settles."""
        self.last_change = t
        self.settled_done = False

    def cancel_brush(self, t: float, square: Square, brush: float) -> tuple[Change, int] | None:
        """The change on ``square`` that one at ``t`` cancels as a brush (taken out of the log) and
        where it stood in the log (the changes from there on came after it), or None."""
        log = self.log
        for i in range(len(log) - 1, -1, -1):
            prev = log[i]
            if prev.square == square:
                if t - prev.t <= brush:
                    del log[i]  # a brush, or a slid piece passing over
                    self.reindex()
                    return prev, i
                return None
        return None

    def append(self, t: float, square: Square, occupied: bool) -> Change:
        """Log a change (one that cancelled none) and index it."""
        change = Change(t, square, occupied)
        self.log.append(change)
        self.last_at[square] = change
        bit = BIT[square]
        if occupied:
            self.placed |= bit
        else:
            if square not in self.first_lift_at:
                self.first_lift_at[square] = change
            self.lifted |= bit
        return change

    def extend(self, changes: list[Change]) -> None:
        """Put ``changes`` back at the end of the log (their lifts stay lifts)."""
        self.log.extend(changes)
        self.reindex()
        for change in changes:
            if not change.occupied:
                self.lifted |= BIT[change.square]

    def reindex(self) -> None:
        """The log changed other than by appending a change: index it again."""
        last: dict[Square, Change] = {}
        first: dict[Square, Change] = {}
        placed = 0
        for change in self.log:
            last[change.square] = change
            if change.occupied:
                placed |= BIT[change.square]
            elif change.square not in first:
                first[change.square] = change
        self.last_at, self.first_lift_at, self.placed = last, first, placed

    # -- questions about the log -----------------------------------------------------------

    def last_event(self, square: Square) -> Change | None:
        return self.last_at.get(square)

    def first_lift(self, square: Square) -> Change | None:
        return self.first_lift_at.get(square)

    def lift_t(self, square: Square) -> float:
        last = self.last_at.get(square)
        return last.t if last is not None else float("-inf")

    def placed_after(self, square: Square, t: float) -> bool:
        last = self.last_at.get(square)
        return last is not None and last.occupied and last.t > t

    def filled(self) -> int:
        """The squares set down on in the log: a move fills its target."""
        filled = 0
        for change in self.log:
            if change.occupied:
                filled |= BIT[change.square]
        return filled

    def blinked_since(self, t: float) -> int:
        """The squares that blinked (a brush of an occupied square) at ``t`` or later."""
        mask = 0
        for blink in self.blinks:
            if blink.t >= t:
                mask |= BIT[blink.square]  # a square may blink twice: a mask, never a sum
        return mask

    def first_lift_t(self, mask: int) -> float:
        """When a piece on ``mask`` (the side to move's) was first lifted in the log (or inf)."""
        for change in self.log:
            if not change.occupied and mask & BIT[change.square]:
                return change.t
        return float("inf")

    def put_back_quickly(self, index: int) -> bool:
        """Whether the piece lifted at ``self.log[index]`` was set down on its own square again
        within the settle time: an adjustment, not a touch."""
        change = self.log[index]
        back = next((c for c in self.log[index + 1:] if c.square == change.square), None)
        return back is not None and back.t - change.t < self._settle

    def is_knocked(self, index: int) -> bool:
        """Whether the lift at ``self.log[index]`` came within ``Timing.knock`` of a lift of
        another square: pieces knocked over together, which nobody touched deliberately."""
        log = self.log
        change = log[index]
        window = self._knock
        if (index == 0 or change.t - log[index - 1].t > window) and (
            index + 1 == len(log) or log[index + 1].t - change.t > window
        ):
            return False  # (the usual case: no change at all that close)
        for i in range(index - 1, -1, -1):
            other = log[i]
            if change.t - other.t > window:
                break
            if not other.occupied and other.square != change.square:
                return True
        for i in range(index + 1, len(log)):
            other = log[i]
            if other.t - change.t > window:
                break
            if not other.occupied and other.square != change.square:
                return True
        return False

    def knocked_off(self, off: int) -> int:
        """Of the game pieces ``off`` their squares now, those last lifted in a knock (knocked over)."""
        if off & (off - 1) == 0:
            return 0  # a move and a knocked piece leave two squares empty at least
        window = self._knock
        last_lift = float("-inf")
        for change in self.log:
            if not change.occupied:
                if change.t - last_lift <= window:
                    break
                last_lift = change.t
        else:
            return 0  # no two lifts that close: nothing was knocked
        found = 0
        for index, change in enumerate(self.log):
            if off & BIT[change.square] and change is self.last_at.get(change.square) and self.is_knocked(index):
                found |= BIT[change.square]
        return found
