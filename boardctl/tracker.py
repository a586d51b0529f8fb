"""The move tracker: reed-switch events in, moves, LED intents and violations out.

It is pure: no I/O, no threads, no clock. Time comes only from the events and ``tick``. It knows no
game: it speaks :mod:`boardctl.core.rules` (``GameBoard``), so chess and xiangqi go through the very
same machinery; what is chess's alone (castling, en passant, promotion) are the board's hooks.

How it decides, in brief (docs/events.md has the user's view):

- Every occupancy change since the last accepted position goes into a *log*. Two opposite
  changes on one square within ``Timing.brush`` cancel: a brushed piece, or a slid piece passing
  (an occupied square that blinks that way is remembered: a capturer pushing its victim off).
- The board is judged once it has *settled*: no change for ``Timing.settle`` seconds (FIDE's
  "released"), or at the clock button. A legal move is accepted if the occupancy after it equals
  what the switches show and the log tells its story (every square it empties was lifted, the
  square it fills was filled after its piece was lifted). A square emptied and refilled before
  the mover was lifted is therefore never a capture by that story.
- Blitz: a lift of the other side's piece proves the mover let go (FIDE 4.7). When the placement
  explains a legal move once those lifts are set aside, the move is complete at once and the
  lifts belong to the reply.
- A capture whose square never read empty (the victim pushed off) looks like a piece in the hand;
  it completes on the opponent's lift, the clock button, a blink of the captured square or the
  mismatch delay. Several possible victims light ``which-capture`` until the player confirms one.
- Policy ``strict`` (``fide`` is its older name) adds touch-move (FIDE 4.3-4.6; xiangqi's 摸子走子
  and 落子无悔): the first piece touched decides; an opponent's piece kept off past the settle
  time must be captured; a king released on its castling square must castle; touching the rook
  first forbids castling. ``casual`` has none of it.
- One completed illegal move is one violation: the states while it is put right are not new ones.
- After the result (mate, stalemate, a forfeit, or :meth:`Tracker.finish`) moving pieces is
  clearing up: neither a move, a takeback nor a violation.
- Promotions stay open for ``Timing.promotion_window`` after the new piece settles, so the piece
  can be swapped and under-promotion chosen with the promote buttons; then the move is final.

The parts, each in :mod:`boardctl.core.tracking` and each owning its own state: the readings and
their log (``readings``), the game (``game``), move recognition (``recognition``), touch-move
(``touch``), promotion (``promotion``), mismatch and restoration (``restoration``), the reply
starting and captures whose square never read empty (``captures``), and the judgement of a
settled board that ties them together, with the start of a game (``judgement``). The tracker
takes the events in, keeps time, and answers for all of them.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable

from boardctl.core.geometry import Square
from boardctl.core.rules import Color, GameBoard, Move, Variant
from boardctl.core.tracking.game import Game, can_mate, loss_result
from boardctl.core.tracking.judgement import Judgement
from boardctl.core.tracking.outputs import (
    DEFAULT_TIMING,
    Forfeit,
    GameStarted,
    Matched,
    MoveMade,
    MoveTakenBack,
    Output,
    Policy,
    Step,
    TakebackMode,
    TakebackOffered,
    Timing,
    Violation,
)
from boardctl.core.tracking.readings import BIT, Change, Readings
from boardctl.events import (
    Button,
    ButtonPressed,
    Code,
    Event,
    LedIntent,
    Snapshot,
    SquareChanged,
    Tick,
)
from boardctl.variants import get_variant

__all__ = [
    "BIT", "CHESS", "DEFAULT_TIMING", "START_OCCUPANCY", "Forfeit", "GameStarted", "Matched", "MoveMade",
    "MoveTakenBack", "Output", "Policy", "Step", "TakebackMode", "TakebackOffered", "Timing", "Tracker",
    "Violation", "can_mate", "game_board", "loss_result", "move_squares", "occupancy_after",
]

logger = logging.getLogger(__name__)

CHESS = get_variant("chess")

#: Before a lift: the last change, whether that was judged, and the timers.
_BeforeLift = tuple[float, bool, float | None, bool, float | None]

#: Occupancy of the standard chess start position.
START_OCCUPANCY = CHESS.board().occupied


def game_board(board: GameBoard) -> GameBoard:
    """``board`` itself, or a plain python-chess ``Board`` (no core hooks) as a chess game board."""
    if getattr(board, "geometry", None) is None:
        return CHESS.adopt(board)
    return board


def move_squares(board: GameBoard, move: Move) -> int:
    """Every square a hand must touch to make ``move`` on ``board`` (chess: rook and e.p. pawn included)."""
    return game_board(board).move_mask(move)


def occupancy_after(board: GameBoard, move: Move) -> int:
    """The occupancy bitboard after ``move``, without pushing it."""
    return game_board(board).occupied_after(move)


class Tracker:
    """Turns occupancy events into moves under FIDE Article 4 (or casually). See the module docstring."""

    def __init__(
        self,
        board: GameBoard | None = None,
        *,
        policy: Policy = Policy.STRICT,
        timing: Timing = DEFAULT_TIMING,
        takeback: TakebackMode = TakebackMode.APPLY,
        arbiter: bool = False,
        occupancy: int | None = None,
        show_legal_moves: bool = False,
        variant: Variant | None = None,
    ) -> None:
        self._variant = variant = CHESS if variant is None else variant
        self._policy = Policy(policy)
        self._settle, self._brush = timing.settle, timing.brush  # read on every event
        board = variant.adopt(board) if board is not None else variant.board()
        # Each part owns its state and starts it afresh (a new game resets them the same way).
        self._game = game = Game(board)
        self._readings = readings = Readings(board.occupied if occupancy is None else occupancy, timing)
        self._judgement = judgement = Judgement(
            variant, game, readings, policy=self._policy, timing=timing, takeback=TakebackMode(takeback),
            arbiter=arbiter, show_legal_moves=show_legal_moves,
        )
        self._recognizer = judgement.recognizer
        self._touch = judgement.touch
        self._promotions = judgement.promotions
        self._restoration = judgement.restoration
        self._captures = judgement.captures
        self._now = 0.0
        #: Changes younger than the brush time, whose decisions wait until they outlive it.
        self._pending: deque[Change] = deque()
        #: The timers just before each square's last lift (see _unbrush).
        self._before_lift: dict[Square, _BeforeLift] = {}
        if readings.occ != board.occupied:
            self._restoration.restore = Code.MISMATCH  # resuming onto a board that does not match yet

    # -- read-only views -------------------------------------------------------------------

    @property
    def board(self) -> GameBoard:
        """The game so far. Do not mutate it; the tracker owns it."""
        return self._game.board

    @property
    def occupancy(self) -> int:
        return self._readings.occ

    @property
    def policy(self) -> Policy:
        return self._policy

    @property
    def illegal_counts(self) -> dict[Color, int]:
        """Completed illegal moves of each side in this game (FIDE 7.5.5)."""
        return self._game.illegal_counts

    @property
    def expected(self) -> Move | None:
        """The engine's move waiting to be made on the board."""
        return self._touch.expected

    @property
    def hint_move(self) -> Move | None:
        """The hint shown until the next move."""
        return self._judgement.hint

    @property
    def moves(self) -> list[Move]:
        """The game's moves so far."""
        return list(self._game.board.move_stack)

    @property
    def promotion(self) -> Move | None:
        """The promotion waiting for its window to close, if any."""
        return self._promotions.move

    @property
    def which_capture(self) -> tuple[Square, ...]:
        """Squares the lifted piece may have captured on, while the player is asked which."""
        return self._captures.which

    def is_matching(self) -> bool:
        """The switches show exactly the game position, and no move is half made."""
        return self._readings.occ == self._game.board.occupied and self._promotions.window is None

    def is_setting_up(self) -> bool:
        """A new game waits for its pieces to be set up: changes now are the set-up, not moves."""
        return self._restoration.restore is Code.SETUP

    def is_finished(self) -> bool:
        """The game has a result: pieces moved now are cleared up, not moves."""
        return self._game.check_over()

    def leds(self) -> tuple[LedIntent, ...]:
        return self._judgement.leds()

    # -- inputs ----------------------------------------------------------------------------

    def feed(self, event: Event) -> Step:
        out: list[Output] = []
        self._advance(event.t, out)
        if isinstance(event, SquareChanged):
            self._on_square(event, out)
        elif isinstance(event, ButtonPressed):
            self._on_button(event, out)
        elif isinstance(event, Snapshot):
            self._on_snapshot(event, out)
        return Step(tuple(out), self._judgement.leds())  # a tick, or a game-log line: time passes

    def tick(self, t: float) -> Step:
        return self.feed(Tick(t))

    def expect(self, move: Move | None, t: float) -> Step:
        """The engine's move is pending: only it is accepted, and touch-move is off meanwhile."""
        out: list[Output] = []
        self._advance(t, out)
        board = self._game.board
        if move is not None and not board.is_legal(move):
            raise ValueError(f"expected move {move.uci()} is not legal in {board.fen()}")
        self._judgement.new_turn(move, keep=True)
        self._readings.settled_done = False
        self._advance(t, out)
        return Step(tuple(out), self._judgement.leds())

    def hint(self, move: Move | None) -> None:
        """Light ``move`` as a hint until the next move is made."""
        self._judgement.hint = move

    def finish(self) -> None:
        """The game has ended (result decided by the session); a start position now means a new game."""
        self._judgement.finish()

    def take_back(self, plies: int, t: float) -> Step:
        """Remove ``plies`` moves now; LEDs show the squares to restore until the board matches."""
        out: list[Output] = []
        self._advance(t, out)
        self._judgement.take_back(t, plies, out)
        return Step(tuple(out), self._judgement.leds())

    def new_game(self, t: float, board: GameBoard | None = None) -> Step:
        """Start over from ``board`` (default: the start position) and wait for the pieces to match."""
        out: list[Output] = []
        self._advance(t, out)
        self._new_game(t, self._variant.adopt(board) if board is not None else self._variant.board(), out)
        return Step(tuple(out), self._judgement.leds())

    def _new_game(self, t: float, board: GameBoard, out: list[Output]) -> None:
        self._judgement.start_game(t, board, out)
        if self._readings.occ != board.occupied:
            self._restoration.restore = Code.SETUP

    # -- time ------------------------------------------------------------------------------

    def _advance(self, t: float, out: list[Output]) -> None:
        if t < self._now:
            raise ValueError(f"time went backwards: {t} after {self._now}")
        self._now = t
        pending = self._pending
        if pending:
            brush = self._brush
            while pending and pending[0].t + brush < t:
                self._fire(pending.popleft(), out)
        readings = self._readings
        if not readings.settled_done and t >= readings.last_change + self._settle:
            readings.settled_done = True
            self._judgement.evaluate(readings.last_change + self._settle, out)
        window = self._promotions.window
        if window is not None and t >= window.deadline and (not pending or window.deadline < pending[0].t):
            self._promotions.close(out)  # (a change before the deadline is judged first)
        restoration = self._restoration
        if restoration.capture_at is not None and t >= restoration.capture_at:
            at, restoration.capture_at = restoration.capture_at, None
            self._captures.hidden_capture(at, out)
        if (
            restoration.mismatch_at is not None and not restoration.mismatch_shown and t >= restoration.mismatch_at
            and not self._game.finished
        ):
            restoration.mismatch_due(t, out)

    # -- events ----------------------------------------------------------------------------

    def _on_square(self, ev: SquareChanged, out: list[Output]) -> None:
        readings = self._readings
        bit = BIT[ev.square]
        if bool(readings.occ & bit) == ev.occupied:
            logger.debug("ignoring repeated %s at %s", "place" if ev.occupied else "lift", ev.t)
            return
        readings.occ ^= bit
        restoration = self._restoration
        if not ev.occupied:  # the timers before a lift: a brush puts them back (_unbrush)
            self._before_lift[ev.square] = (
                readings.last_change, readings.settled_done, restoration.mismatch_at,
                restoration.mismatch_shown, restoration.capture_at,
            )
        readings.last_change = ev.t
        readings.settled_done = False
        restoration.stop_timers()
        if readings.occ == 0:
            readings.cleared = True
        window = self._promotions.window
        if window is not None and ev.square == window.move.to_square:
            self._promotions.on_square(ev.t, ev.occupied)
        cancelled = readings.cancel_brush(ev.t, ev.square, self._brush)
        if cancelled is not None:
            prev, index = cancelled
            if ev.occupied and not prev.occupied:
                self._unbrush(prev, index, out)
                readings.blinks.append(prev)  # an occupied square blinked: maybe a victim pushed off
            return
        change = readings.append(ev.t, ev.square, ev.occupied)
        # What this change may decide at once (the other side's lift proving the move released,
        # a change elsewhere closing a promotion) waits until it has outlived the brush time:
        # a brush is never a touch (docs/events.md).
        if window is not None:
            if ev.square != window.move.to_square:
                self._pending.append(change)
        elif not self._game.finished:
            board = self._game.board
            theirs = board.occupied_co[not board.turn]
            if (ev.occupied or theirs & bit) and theirs & ~readings.occ:
                self._pending.append(change)

    def _unbrush(self, lift: Change, index: int, out: list[Output]) -> None:
        """A piece brushed (off and back within the brush time; the lift stood at ``index`` in the
        log): no change at all, so the settle time and the delays run on as if it never was (a
        brush then cannot keep a promotion or a pushed-off capture from being judged).

        Other changes may have come while it was off (the mover's hand on the promotion square, the
        reply's first lift). If the board would have settled before the first of them but for the
        brush, it is judged as of then with them taken off, and they are put back after: a brush
        must not turn the swap of a promoted piece into the opponent taking it."""
        saved = self._before_lift
        before = saved.pop(lift.square, None)
        if before is None:
            return
        for square, other in saved.items():
            if other[0] == lift.t:  # lifted while this lift was the last change (brushes that overlap)
                saved[square] = before
        last_change, settled, mismatch_at, mismatch_shown, capture_at = before
        readings, restoration = self._readings, self._restoration
        later = readings.log[index:]  # the changes since the lift that still stand (not brushes)
        if not later:  # the usual case: nothing between the lift and the put-back, or only brushes
            readings.last_change = last_change
            restoration.mismatch_at, restoration.mismatch_shown, restoration.capture_at = (
                mismatch_at, mismatch_shown, capture_at
            )
            # Judged again as of then, now with the blink it left, unless the board matched.
            readings.settled_done = settled and readings.occ == self._game.board.occupied
            return
        readings.last_change = max(last_change, later[-1].t)
        due = last_change + self._settle
        if settled or due > later[0].t:
            return  # the board was judged already, or had not settled before the next change
        self._as_of(index, out, lambda: self._settled_at(last_change, due, out))

    def _settled_at(self, last_change: float, due: float, out: list[Output]) -> None:
        """The board settled at ``due`` after the change at ``last_change``: judge it then."""
        readings = self._readings
        readings.last_change = last_change
        readings.settled_done = True
        self._judgement.evaluate(due, out)

    def _as_of(self, cut: int, out: list[Output], decide: Callable[[], None]) -> None:
        """Run ``decide`` on the board as it was before the log's changes from ``cut`` on: they
        are taken off the board and out of the log, and put back after, into whatever position
        ``decide`` left (a new one: they may decide in it what they could not before)."""
        readings, game = self._readings, self._game
        log = readings.log
        later = log[cut:]
        occ = readings.occ
        for c in later:
            occ ^= BIT[c.square]
        now_occ, last_change = readings.occ, readings.last_change
        board = game.board
        position = (board, len(board.move_stack))
        window = self._promotions.window
        del log[cut:]
        readings.reindex()
        readings.occ = occ
        decide()
        readings.occ = now_occ
        if not later:
            return
        readings.extend(later)
        readings.last_change = max(last_change, readings.last_change)
        readings.settled_done = False
        self._restoration.stop_timers()
        opened = self._promotions.window
        if opened is not None and opened is not window:
            for c in later:  # the hand on the promotion square: the swap (Promotions.on_square)
                if c.square == opened.move.to_square:
                    self._promotions.on_square(c.t, c.occupied)
        if (game.board, len(game.board.move_stack)) != position:
            # A new position: the changes since may decide in it what they could not before.
            waiting = {id(c) for c in self._pending}
            self._pending = deque(sorted([*self._pending, *(c for c in later if id(c) not in waiting)], key=lambda c: c.t))

    def _fire(self, change: Change, out: list[Output]) -> None:
        """Decide, as of ``change`` (now known not to be a brush), what it decided when it came:
        the changes since are taken off the board, the decision made, and they are put back."""
        readings, game = self._readings, self._game
        log = readings.log
        index = len(log) - 1
        window = self._promotions.window
        if index >= 0 and log[index] is change and window is None:
            # The usual case: nothing changed since, so nothing to take off and put back.
            board = game.board
            theirs = board.occupied_co[not board.turn]
            if not game.finished and (change.occupied or theirs & BIT[change.square]) and theirs & ~readings.occ:
                self._captures.reply_started(change.t, out, hidden=False)  # the other side lifting, or a touchdown after it
            return
        while index >= 0 and log[index] is not change:
            index -= 1
        if index < 0:
            return  # cancelled as a brush since, or a new position was taken meanwhile
        board = game.board
        if window is not None:
            if change.square == window.move.to_square:
                return
            cut = index  # the promotion closes before this change, which belongs to the next move
        else:
            cut = index + 1
        if window is None:
            occ = readings.occ
            for c in log[cut:]:
                occ ^= BIT[c.square]
            theirs = board.occupied_co[not board.turn]
            if game.finished or not (change.occupied or theirs & BIT[change.square]) or not theirs & ~occ:
                return  # neither the other side lifting nor a touchdown after its lift
        self._as_of(cut, out, lambda: self._decide_fired(change, window is not None, out))

    def _decide_fired(self, change: Change, promoting: bool, out: list[Output]) -> None:
        """What ``change`` decides as of when it came: it closes the promotion, or starts the reply."""
        if promoting:
            self._promotions.interrupted(out)
            if self._promotions.window is None:
                self._pending.appendleft(change)  # the same change may now start the reply
        else:
            self._captures.reply_started(change.t, out, hidden=False)  # the other side lifting, or a touchdown after it

    def _on_button(self, ev: ButtonPressed, out: list[Output]) -> None:
        button = ev.button
        if self._promotions.on_button(button, ev.t):
            return
        if button is Button.CLOCK:
            # Pressing the clock completes the move at once (FIDE 6.2 / 7.5.5).
            readings = self._readings
            if not readings.settled_done:
                readings.settled_done = True
                self._judgement.evaluate(ev.t, out)
            window = self._promotions.window
            if window is not None and window.deadline != float("inf"):
                self._promotions.close(out)
            if self._recognizer.hidden_from() is not None:
                self._restoration.capture_at = None
                self._captures.hidden_capture(ev.t, out)
            out.append(ev)
            return
        if button is Button.ADJUST:
            self._touch.adjusting = True
            return
        if button is Button.TAKEBACK and self._restoration.offer is not None:
            self._judgement.apply_takeback(ev.t, out)
            return
        out.append(ev)
        if button is Button.NEW_GAME:
            self._new_game(ev.t, self._variant.board(), out)

    def _on_snapshot(self, ev: Snapshot, out: list[Output]) -> None:
        """A resync: compared, never replayed, so no move is ever inferred from it."""
        readings = self._readings
        if ev.occupancy == readings.occ:
            return
        logger.info("resync changed %s squares", (ev.occupancy ^ readings.occ).bit_count())
        readings.occ = ev.occupancy
        readings.log.clear()
        readings.reindex()
        readings.blinks.clear()
        readings.last_change = ev.t
        readings.settled_done = False
        self._restoration.capture_at = None
        if readings.occ != self._game.board.occupied:
            self._restoration.mismatch_at = ev.t
            self._restoration.mismatch_shown = False
