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
"""

from __future__ import annotations

import logging
from collections import deque
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import NamedTuple

from boardctl.core.geometry import Square, squares_of
from boardctl.core.rules import Color, GameBoard, Move, Variant
from boardctl.events import (
    PROMOTION_BUTTONS,
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

logger = logging.getLogger(__name__)

CHESS = get_variant("chess")

#: ``BIT[s]`` is the mask of square ``s`` (any board up to 256 squares; faster than a shift).
BIT = tuple(1 << s for s in range(256))

#: Occupancy of the standard chess start position.
START_OCCUPANCY = CHESS.board().occupied


class Policy(StrEnum):
    """``strict``: touch-move as the game's rules have it (FIDE 4.3-4.7; xiangqi's 摸子走子 and
    落子无悔); ``fide`` is its older name and still accepted. ``casual``: none of it."""

    STRICT = "strict"
    FIDE = "strict"
    CASUAL = "casual"

    @classmethod
    def _missing_(cls, value: object) -> Policy | None:
        return cls.STRICT if value == "fide" else None


class TakebackMode(StrEnum):
    APPLY = "apply"
    OFFER = "offer"
    OFF = "off"


@dataclass(frozen=True, slots=True)
class Timing:
    """Seconds. ``settle`` is "released"; ``brush`` is the longest contact that is not a touch."""

    settle: float = 0.3
    brush: float = 0.1
    #: Two or more pieces lifted within this of each other were knocked (a sleeve, an elbow): no
    #: hand lifts two at once, so none of them is a touch (FIDE 4.3: "deliberately").
    knock: float = 0.06
    promotion_window: float = 2.0
    mismatch_delay: float = 1.0

    def __post_init__(self) -> None:
        if not 0 < self.brush < self.settle:
            raise ValueError(f"need 0 < brush < settle, got brush={self.brush} settle={self.settle}")
        if self.promotion_window < 0 or self.mismatch_delay < 0:
            raise ValueError("promotion_window and mismatch_delay must not be negative")


DEFAULT_TIMING = Timing()


@dataclass(frozen=True, slots=True)
class MoveMade:
    t: float
    move: Move
    san: str
    ply: int


@dataclass(frozen=True, slots=True)
class MoveTakenBack:
    t: float
    move: Move
    ply: int


@dataclass(frozen=True, slots=True)
class TakebackOffered:
    """The board shows the position before ``move``; ``Button.TAKEBACK`` confirms."""

    t: float
    move: Move


@dataclass(frozen=True, slots=True)
class GameStarted:
    t: float
    fen: str


@dataclass(frozen=True, slots=True)
class Violation:
    t: float
    code: Code
    ply: int
    color: Color
    detail: str


@dataclass(frozen=True, slots=True)
class Matched:
    """The board matches the game again (after a mismatch, a refused move, a takeback or a setup)."""

    t: float


@dataclass(frozen=True, slots=True)
class Forfeit:
    """FIDE 7.5.5 with ``arbiter``: a second completed illegal move ends the game."""

    t: float
    loser: Color
    result: str


Output = MoveMade | MoveTakenBack | TakebackOffered | GameStarted | Violation | Matched | Forfeit | ButtonPressed


class Step(NamedTuple):
    """What one event or tick produced: outputs in order, and the complete LED set wanted now.
    (A named tuple: one is made for every event, and a frozen dataclass costs more to make.)"""

    outputs: tuple[Output, ...]
    leds: tuple[LedIntent, ...]

    @property
    def moves(self) -> list[Move]:
        return [o.move for o in self.outputs if isinstance(o, MoveMade)]

    @property
    def violations(self) -> list[Violation]:
        return [o for o in self.outputs if isinstance(o, Violation)]


@dataclass(slots=True)
class _Change:
    t: float
    square: Square
    occupied: bool


@dataclass(slots=True)
class _Promotion:
    move: Move
    deadline: float
    placed_t: float


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


def can_mate(board: GameBoard, color: Color) -> bool:
    """Whether ``color`` could still mate by some legal series of moves (FIDE 6.9, 7.5.5)."""
    return not board.has_insufficient_material(color)


def loss_result(board: GameBoard, loser: Color) -> str:
    """The result when ``loser`` loses on time or by forfeit: a draw if the winner cannot mate."""
    if not can_mate(board, not loser):
        return "1/2-1/2"
    return "0-1" if loser else "1-0"


def _no_moves_left(board: GameBoard) -> bool:
    """Mate or stalemate: the game is over whoever records it (other endings come from the session)."""
    return not any(board.generate_legal_moves())


def _captures(board: GameBoard, move: Move, square: Square) -> bool:
    """Whether ``move`` takes the piece on ``square``."""
    return board.capture_square(move) == square


_START_OCCUPANCY: dict[str, int] = {}


def _start_occupancy(variant: Variant) -> int:
    """The occupancy of ``variant``'s start position (worked out once per game)."""
    known = _START_OCCUPANCY.get(variant.name)
    if known is None:
        known = _START_OCCUPANCY[variant.name] = variant.board().occupied
    return known


def _lsb(mask: int) -> Square:
    return (mask & -mask).bit_length() - 1


@dataclass(frozen=True, slots=True)
class _Turn:
    """Everything that belongs to the move being made; replaced whole when a move completes."""

    #: The first own piece deliberately lifted that has a legal move (FIDE 4.3), and when.
    touched: Square | None = None
    touched_t: float = float("inf")
    #: The first opponent's piece kept off past the settle time that can be captured, and when.
    victim: Square | None = None
    victim_t: float = float("inf")
    #: Castling the player is committed to: the king was released on its castling square (4.4).
    castle: Move | None = None
    expected: Move | None = None
    hint: Move | None = None
    preselect: str | None = None
    adjusting: bool = False
    #: A capture that pushed its victim off: the capturer's square and the candidate victims.
    which_from: Square | None = None
    which: tuple[Square, ...] = ()
    which_since: float = 0.0


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
        self._geometry = variant.geometry
        self._name = variant.geometry.square_name
        self._all = variant.geometry.all_mask
        self._start_occ = _start_occupancy(variant)
        self._board = variant.adopt(board) if board is not None else variant.board()
        self._policy = Policy(policy)
        self._timing = timing
        self._settle, self._brush = timing.settle, timing.brush  # read on every event
        self._takeback = TakebackMode(takeback)
        self._arbiter = arbiter
        self._show_legal_moves = show_legal_moves
        self._occ = self._board.occupied if occupancy is None else occupancy
        self.illegal_counts: dict[Color, int] = {True: 0, False: 0}
        self._now = 0.0
        self._log: list[_Change] = []
        #: Each square's last change and first lift in the log (looked up on every judgement).
        self._last_at: dict[Square, _Change] = {}
        self._first_lift_at: dict[Square, _Change] = {}
        self._placed = 0  # squares with a placement in the log
        #: Changes younger than the brush time, whose decisions wait until they outlive it.
        self._pending: deque[_Change] = deque()
        self._seq = 0  # square events seen
        #: The sequence number of the last lift and the timers just before it (see _unbrush).
        self._before_lift: tuple[int, float, bool, float | None, bool, float | None] = (
            -1, 0.0, True, None, False, None
        )
        self._lifted = 0  # squares with a lift in the log (a superset: brushes are not taken out)
        self._blinks: list[_Change] = []
        self._movable: dict[Square, bool] = {}  # squares with a legal move, in this position
        self._last_change = float("-inf")
        self._settled_done = True
        self._turn = _Turn()
        self._promotion: _Promotion | None = None
        self._restore: Code | None = None
        self._refused: int | None = None  # squares of the refused move being put right
        self._reported_occ: int | None = None
        self._mismatch_at: float | None = None
        self._mismatch_shown = False
        self._capture_at: float | None = None
        self._offer: Move | None = None
        self._cleared = False
        self._finished = _no_moves_left(self._board)
        self._over_unknown = False  # True after a move until mate or stalemate is ruled out
        if self._occ != self._board.occupied:
            self._restore = Code.MISMATCH  # resuming onto a board that does not match yet

    # -- read-only views -------------------------------------------------------------------

    @property
    def board(self) -> GameBoard:
        """The game so far. Do not mutate it; the tracker owns it."""
        return self._board

    @property
    def occupancy(self) -> int:
        return self._occ

    @property
    def policy(self) -> Policy:
        return self._policy

    @property
    def expected(self) -> Move | None:
        """The engine's move waiting to be made on the board."""
        return self._turn.expected

    @property
    def hint_move(self) -> Move | None:
        """The hint shown until the next move."""
        return self._turn.hint

    @property
    def moves(self) -> list[Move]:
        """The game's moves so far."""
        return list(self._board.move_stack)

    @property
    def promotion(self) -> Move | None:
        """The promotion waiting for its window to close, if any."""
        return self._promotion.move if self._promotion else None

    @property
    def which_capture(self) -> tuple[Square, ...]:
        """Squares the lifted piece may have captured on, while the player is asked which."""
        return self._turn.which

    def is_matching(self) -> bool:
        """The switches show exactly the game position, and no move is half made."""
        return self._occ == self._board.occupied and self._promotion is None

    def is_setting_up(self) -> bool:
        """A new game waits for its pieces to be set up: changes now are the set-up, not moves."""
        return self._restore is Code.SETUP

    def is_finished(self) -> bool:
        """The game has a result: pieces moved now are cleared up, not moves."""
        return self._check_over()

    def _check_over(self) -> bool:
        """Whether the game is over; mate or stalemate is looked for once per position, and only
        when needed (most positions are left by a legal move long before)."""
        if self._over_unknown:
            self._over_unknown = False
            if _no_moves_left(self._board):
                self._finished = True
        return self._finished

    def leds(self) -> tuple[LedIntent, ...]:
        return self._leds()

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
        return Step(tuple(out), self._leds())  # a tick, or a game-log line: time passes

    def tick(self, t: float) -> Step:
        return self.feed(Tick(t))

    def expect(self, move: Move | None, t: float) -> Step:
        """The engine's move is pending: only it is accepted, and touch-move is off meanwhile."""
        out: list[Output] = []
        self._advance(t, out)
        if move is not None and not self._board.is_legal(move):
            raise ValueError(f"expected move {move.uci()} is not legal in {self._board.fen()}")
        self._turn = _Turn(expected=move, hint=self._turn.hint, preselect=self._turn.preselect)
        self._settled_done = False
        self._advance(t, out)
        return Step(tuple(out), self._leds())

    def hint(self, move: Move | None) -> None:
        """Light ``move`` as a hint until the next move is made."""
        self._turn = replace(self._turn, hint=move)

    def finish(self) -> None:
        """The game has ended (result decided by the session); a start position now means a new game."""
        self._finished = True
        self._promotion = None
        self._turn = _Turn()
        self._reset_window()

    def take_back(self, plies: int, t: float) -> Step:
        """Remove ``plies`` moves now; LEDs show the squares to restore until the board matches."""
        out: list[Output] = []
        self._advance(t, out)
        self._promotion = None
        for _ in range(min(plies, len(self._board.move_stack))):
            ply = len(self._board.move_stack)
            move = self._board.pop()
            out.append(MoveTakenBack(t, move, ply))
        self._reset_window()
        self._turn = _Turn()
        self._finished = False
        self._over_unknown = False
        if self._occ != self._board.occupied:
            self._restore = Code.TAKEBACK
        return Step(tuple(out), self._leds())

    def new_game(self, t: float, board: GameBoard | None = None) -> Step:
        """Start over from ``board`` (default: the start position) and wait for the pieces to match."""
        out: list[Output] = []
        self._advance(t, out)
        self._start_game(t, board if board is not None else self._variant.board(), out)
        if self._occ != self._board.occupied:
            self._restore = Code.SETUP
        return Step(tuple(out), self._leds())

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
        if not self._settled_done and t >= self._last_change + self._settle:
            self._settled_done = True
            self._evaluate(self._last_change + self._settle, out)
        if self._promotion is not None and t >= self._promotion.deadline and (
            not pending or self._promotion.deadline < pending[0].t
        ):
            self._close_promotion(out)  # (a change before the deadline is judged first)
        if self._capture_at is not None and t >= self._capture_at:
            at, self._capture_at = self._capture_at, None
            self._hidden_capture(at, out)
        if self._mismatch_at is not None and not self._mismatch_shown and t >= self._mismatch_at and not self._finished:
            self._mismatch_shown = True
            self._restore = self._restore or Code.MISMATCH
            if self._reported_occ != self._occ:
                self._reported_occ = self._occ
                out.append(self._violation(t, Code.MISMATCH, self._diff_detail()))

    # -- events ----------------------------------------------------------------------------

    def _on_square(self, ev: SquareChanged, out: list[Output]) -> None:
        bit = BIT[ev.square]
        if bool(self._occ & bit) == ev.occupied:
            logger.debug("ignoring repeated %s at %s", "place" if ev.occupied else "lift", ev.t)
            return
        self._occ ^= bit
        self._seq += 1
        if not ev.occupied:  # the timers before a lift: a brush puts them back (_unbrush)
            self._before_lift = (
                self._seq, self._last_change, self._settled_done, self._mismatch_at, self._mismatch_shown, self._capture_at
            )
        self._last_change = ev.t
        self._settled_done = False
        self._mismatch_at = None
        self._mismatch_shown = False
        self._capture_at = None
        if self._occ == 0:
            self._cleared = True
        promotion = self._promotion
        if promotion is not None and ev.square == promotion.move.to_square:
            # The swap on the promotion square: the window restarts once the new piece is down.
            if ev.occupied:
                promotion.placed_t = ev.t
                promotion.deadline = ev.t + self._timing.settle + self._timing.promotion_window
            else:
                promotion.deadline = float("inf")
        for i in range(len(self._log) - 1, -1, -1):
            prev = self._log[i]
            if prev.square == ev.square:
                if ev.t - prev.t <= self._brush:
                    del self._log[i]  # a brush, or a slid piece passing over
                    self._reindex()
                    if ev.occupied and not prev.occupied:
                        self._blinks.append(prev)  # an occupied square blinked: maybe a victim pushed off
                        self._unbrush()
                    return
                break
        change = _Change(ev.t, ev.square, ev.occupied)
        self._log.append(change)
        self._last_at[ev.square] = change
        if ev.occupied:
            self._placed |= bit
        elif ev.square not in self._first_lift_at:
            self._first_lift_at[ev.square] = change
        if not ev.occupied:
            self._lifted |= bit
        # What this change may decide at once (the other side's lift proving the move released,
        # a change elsewhere closing a promotion) waits until it has outlived the brush time:
        # a brush is never a touch (docs/events.md).
        if promotion is not None:
            if ev.square != promotion.move.to_square:
                self._pending.append(change)
        elif not self._finished:
            board = self._board
            theirs = board.occupied_co[not board.turn]
            if (ev.occupied or theirs & bit) and theirs & ~self._occ:
                self._pending.append(change)

    def _unbrush(self) -> None:
        """A piece brushed (off and back within the brush time, nothing else between): no change
        at all, so the settle time and the delays run on as if it never was (a brush then cannot
        keep a promotion or a pushed-off capture from being judged)."""
        seq, last_change, settled, mismatch_at, mismatch_shown, capture_at = self._before_lift
        if seq == self._seq - 1:
            self._last_change, self._mismatch_at, self._mismatch_shown, self._capture_at = (
                last_change, mismatch_at, mismatch_shown, capture_at
            )
            # Judged again as of then, now with the blink it left, unless the board matched.
            self._settled_done = settled and self._occ == self._board.occupied

    def _fire(self, change: _Change, out: list[Output]) -> None:
        """Decide, as of ``change`` (now known not to be a brush), what it decided when it came:
        the changes since are taken off the board, the decision made, and they are put back."""
        log = self._log
        index = len(log) - 1
        promotion = self._promotion
        if index >= 0 and log[index] is change and promotion is None:
            # The usual case: nothing changed since, so nothing to take off and put back.
            board = self._board
            theirs = board.occupied_co[not board.turn]
            if not self._finished and (change.occupied or theirs & BIT[change.square]) and theirs & ~self._occ:
                self._reply_started(change.t, out, hidden=False)  # the other side lifting, or a touchdown after it
            return
        while index >= 0 and log[index] is not change:
            index -= 1
        if index < 0:
            return  # cancelled as a brush since, or a new position was taken meanwhile
        board = self._board
        if promotion is not None:
            if change.square == promotion.move.to_square:
                return
            cut = index  # the promotion closes before this change, which belongs to the next move
        else:
            cut = index + 1
        later = log[cut:] if cut < len(log) else []
        occ = self._occ
        for c in later:
            occ ^= BIT[c.square]
        if promotion is None:
            theirs = board.occupied_co[not board.turn]
            if self._finished or not (change.occupied or theirs & BIT[change.square]) or not theirs & ~occ:
                return  # neither the other side lifting nor a touchdown after its lift
        now_occ, last_change = self._occ, self._last_change
        position = (self._board, len(board.move_stack))
        del log[cut:]
        self._reindex()
        self._occ = occ
        if promotion is not None:
            self._promotion_interrupted(out)
            if self._promotion is None:
                self._pending.appendleft(change)  # the same change may now start the reply
        else:
            self._reply_started(change.t, out, hidden=False)  # the other side lifting, or a touchdown after it
        self._occ = now_occ
        if later:
            if self._log is not log:
                log = self._log
            log.extend(later)
            self._reindex()
            for c in later:
                if not c.occupied:
                    self._lifted |= BIT[c.square]
            self._last_change = max(last_change, self._last_change)
            self._settled_done = False
            self._mismatch_at = None
            self._mismatch_shown = False
            self._capture_at = None
            if (self._board, len(self._board.move_stack)) != position:
                # A new position: the changes since may decide in it what they could not before.
                waiting = {id(c) for c in self._pending}
                self._pending = deque(sorted([*self._pending, *(c for c in later if id(c) not in waiting)], key=lambda c: c.t))

    def _on_button(self, ev: ButtonPressed, out: list[Output]) -> None:
        button = ev.button
        if button in PROMOTION_BUTTONS or button is Button.PROMOTE:
            board = self._board
            cycle = board.choices()
            if not cycle:
                return  # a game without promotion
            current = board.choice_of(self._promotion.move) if self._promotion else self._turn.preselect
            if button is Button.PROMOTE:
                index = cycle.index(current) if current in cycle else 0
                piece = cycle[(index + 1) % len(cycle)]
            else:
                piece = PROMOTION_BUTTONS[button]
            if self._promotion is not None:
                self._promotion.move = board.with_choice(self._promotion.move, piece)
                if self._promotion.deadline != float("inf"):
                    self._promotion.deadline = ev.t + self._timing.promotion_window
            else:
                self._turn = replace(self._turn, preselect=piece)
            return
        if button is Button.CLOCK:
            # Pressing the clock completes the move at once (FIDE 6.2 / 7.5.5).
            if not self._settled_done:
                self._settled_done = True
                self._evaluate(ev.t, out)
            if self._promotion is not None and self._promotion.deadline != float("inf"):
                self._close_promotion(out)
            if self._hidden_from() is not None:
                self._capture_at = None
                self._hidden_capture(ev.t, out)
            out.append(ev)
            return
        if button is Button.ADJUST:
            self._turn = replace(self._turn, adjusting=True)
            return
        if button is Button.TAKEBACK and self._offer is not None:
            self._apply_takeback(ev.t, out)
            return
        if button is Button.NEW_GAME:
            out.append(ev)
            self._start_game(ev.t, self._variant.board(), out)
            if self._occ != self._board.occupied:
                self._restore = Code.SETUP
            return
        out.append(ev)

    def _on_snapshot(self, ev: Snapshot, out: list[Output]) -> None:
        """A resync: compared, never replayed, so no move is ever inferred from it."""
        if ev.occupancy == self._occ:
            return
        logger.info("resync changed %s squares", (ev.occupancy ^ self._occ).bit_count())
        self._occ = ev.occupancy
        self._log.clear()
        self._reindex()
        self._blinks.clear()
        self._last_change = ev.t
        self._settled_done = False
        self._capture_at = None
        if self._occ != self._board.occupied:
            self._mismatch_at = ev.t
            self._mismatch_shown = False

    # -- the log ---------------------------------------------------------------------------

    def _legal_after(self, from_mask: int | None = None, to_mask: int | None = None) -> list[tuple[Move, int]]:
        """Legal moves from ``from_mask`` to ``to_mask``, each with the occupancy after it."""
        board = self._board
        every = self._all
        after = board.occupied_after
        return [
            (m, after(m))
            for m in board.generate_legal_moves(every if from_mask is None else from_mask, every if to_mask is None else to_mask)
        ]

    def _has_legal_move_from(self, square: Square) -> bool:
        known = self._movable.get(square)
        if known is None:
            known = self._movable[square] = any(self._board.generate_legal_moves(BIT[square]))
        return known

    def _last_event(self, square: Square) -> _Change | None:
        return self._last_at.get(square)

    def _first_lift(self, square: Square) -> _Change | None:
        return self._first_lift_at.get(square)

    def _reindex(self) -> None:
        """The log changed other than by appending a change: index it again."""
        last: dict[Square, _Change] = {}
        first: dict[Square, _Change] = {}
        placed = 0
        for change in self._log:
            last[change.square] = change
            if change.occupied:
                placed |= BIT[change.square]
            elif change.square not in first:
                first[change.square] = change
        self._last_at, self._first_lift_at, self._placed = last, first, placed

    def _passed_home_lift(self, occ: int) -> _Change | None:
        """While a takeback is being restored, a piece carried back may pass its home square within a
        brush and go straight on to its next move (put back and played at blitz speed), so its home
        square has no event. Its lift is then the one from where it stood off the game's position."""
        if self._restore is not Code.TAKEBACK:
            return None
        board = self._board
        seen = 0
        for change in self._log:
            bit = BIT[change.square]
            if seen & bit:
                continue
            seen |= bit
            if not change.occupied and not (board.occupied | occ) & bit:
                return change  # occupied when the takeback was made, off the position, empty now
        return None

    def _is_consistent(self, move: Move, occ: int, *, placed: _Change | None = None) -> bool:
        """The log tells the story of ``move``: its piece lifted, its target filled afterwards
        (``placed``: the target's filling, when it has been lifted again since)."""
        board = self._board
        lift = self._first_lift(move.from_square)
        passed_home = lift is None and self._passed_home_lift(occ)
        if passed_home:
            lift = passed_home
        if lift is None:
            return False
        for square in squares_of(occ ^ board.occupied):
            if self._last_event(square) is None and not (passed_home and square == move.from_square):
                return False
        last = placed or self._last_event(board.landing_square(move))
        # A capture's square, like any target, must be filled after the mover was lifted: a square
        # emptied and refilled before that (a phantom capture) does not qualify.
        return last is not None and last.occupied and last.t >= lift.t

    def _explained(self, occ: int) -> list[Move]:
        """Legal moves whose occupancy is ``occ`` and whose story the log tells."""
        board = self._board
        filled = 0
        for change in self._log:
            if change.occupied:
                filled |= BIT[change.square]
        if not filled:
            return []  # nothing set down since the last position: no move's target was filled
        own_lifted = board.occupied_co[board.turn] & ~occ
        # A target is a square set down on; castling is generated by its rook's square.
        targets = filled & occ | board.extra_targets()
        return [m for m, after in self._legal_after(own_lifted, targets) if after == occ and self._is_consistent(m, occ)]

    def _set_aside(self, occ: int) -> int:
        """The other side's pieces off their squares now, lifted since the mover lifted a piece:
        the hands of the reply (FIDE 4.7: the mover has let go)."""
        board = self._board
        theirs_off = board.occupied_co[not board.turn] & ~occ
        if not theirs_off:
            return 0
        if self._mover_lift_t() == float("inf"):
            return 0
        aside = 0
        for square in squares_of(theirs_off):
            last = self._last_event(square)
            if last is not None and not last.occupied:
                aside |= BIT[square]
        return aside

    def _retaken(self, occ: int) -> dict[Square, _Change]:
        """Squares set down on after the mover's lift and lifted again, empty now: the piece
        just moved, being taken by the reply. Each with its placement."""
        own = self._board.occupied_co[self._board.turn]
        first_own = next((c.t for c in self._log if not c.occupied and own & BIT[c.square]), None)
        found: dict[Square, _Change] = {}
        if first_own is None:
            return found
        for i in range(len(self._log) - 1, 0, -1):
            change = self._log[i]
            bit = BIT[change.square]
            if change.occupied or occ & bit or change.square in found or self._last_event(change.square) is not change:
                continue
            before = next((c for c in reversed(self._log[:i]) if c.square == change.square), None)
            if before is not None and before.occupied and before.t >= first_own:
                found[change.square] = before
        return found

    # -- the reply starting ----------------------------------------------------------------

    def _reply_started(self, t: float, out: list[Output], *, hidden: bool = True) -> bool:
        """The other side lifted a piece (or the mover set down with those lifts already made):
        complete the move they prove released, and keep the lifts for the reply. ``hidden``: also
        a capture that pushed its victim off (only once settled: the mover's piece may still be
        in the hand, about to touch down)."""
        board = self._board
        if self._turn.which or self._refused is not None:
            return False
        occ = self._occ
        own_lifted = board.occupied_co[board.turn] & ~occ
        if (not hidden or own_lifted & (own_lifted - 1) == 0) and not board.occupied_co[not board.turn] & ~occ:
            return False  # nothing of the other side's is off, nor (settled) two of the mover's
        eligible = self._set_aside(occ)
        if not eligible and (not hidden or own_lifted.bit_count() < 2):
            return False
        mover_lift = self._mover_lift_t()
        filled = 0
        for change in self._log:
            if change.occupied:
                filled |= BIT[change.square]  # a move fills its target
        retaken = self._retaken(occ) if eligible and filled else {}
        also = sum(BIT[sq] for sq in retaken)
        for move, after in self._legal_after(own_lifted, filled | board.extra_targets()) if filled else ():
            aside = after & ~occ  # what the move leaves standing that is off now: the reply's lifts
            target = board.landing_square(move)
            if occ & ~after or not aside or aside & also & ~BIT[target]:
                continue
            if not hidden and not aside & eligible:
                continue  # before it settles, only the other side's lift proves the mover let go
            placed = retaken.get(target) or self._last_event(target)
            if placed is None or not self._is_consistent(move, after, placed=placed):
                continue
            theirs, own = aside & eligible, aside & ~eligible & ~also
            # Theirs lifted after the mover's lift, or at most ``settle`` before the piece touched down;
            # the mover's own pieces lifted after it touched down, as the reply's victims.
            earliest = min(mover_lift, placed.t - self._timing.settle - 1e-9)  # "up to settle before" includes settle
            if all(self._lift_t(sq) > earliest for sq in squares_of(theirs)) and (
                not own or self._reply_victims(move, own, placed.t)
            ):
                self._update_touch(t, exclude=aside)
                return self._complete_with_reply(t, move, aside, out)
        if not eligible:
            return False
        # A capture that pushed its victim off, with the reply already under way: the other side
        # lifting, or even setting its piece down (then the mover's piece is surely down too).
        extra = occ & ~board.occupied
        first_reply = min(self._lift_t(sq) for sq in squares_of(eligible))
        if extra and not all(self._placed_after(sq, first_reply) for sq in squares_of(extra)):
            return False
        square = self._hidden_from((occ | eligible) & ~extra)
        if square is not None:
            lift = self._first_lift(square)
            assert lift is not None
            # The piece is down, not in the air, when the board has settled, the reply has set
            # down, or a square it could take blinked (its victim pushed off).
            blinked = self._blinked_since(lift.t) if self._blinks else 0
            if not (hidden or extra or blinked):
                return False
            targets = self._capture_targets(square)
            blinked &= targets
            if not (hidden or extra or blinked):
                return False
            # A lift of a piece it could take may be its own victim taken off by hand, unless the
            # reply has set down elsewhere since and a blink says which victim was pushed off (a
            # blink alone may be a brush while the piece is still in the air).
            known = blinked if extra else 0
            if targets and first_reply > lift.t and eligible & ~(known or targets):
                self._update_touch(t, exclude=eligible)
                capture = self._resolve_hidden(t, square, targets, out)
                if capture is not None:
                    return self._complete_with_reply(t, capture, eligible | extra, out)
        return False

    def _blinked_since(self, t: float) -> int:
        """The squares that blinked (a brush of an occupied square) at ``t`` or later."""
        mask = 0
        for blink in self._blinks:
            if blink.t >= t:
                mask |= BIT[blink.square]  # a square may blink twice: a mask, never a sum
        return mask

    def _placed_after(self, square: Square, t: float) -> bool:
        last = self._last_event(square)
        return last is not None and last.occupied and last.t > t

    def _reply_victims(self, move: Move, squares: int, placed_t: float) -> bool:
        """The mover's pieces on ``squares`` were lifted after ``move`` touched down, and the
        reply could capture each: the opponent taking them, not the mover touching another piece."""
        board = self._board
        if any(self._lift_t(sq) < placed_t or self._first_lift(sq) is not self._last_event(sq) for sq in squares_of(squares)):
            return False
        board.push(move)
        try:
            every = self._all
            return all(any(board.generate_legal_moves(every, BIT[sq])) for sq in squares_of(squares))
        finally:
            board.pop()

    def _mover_lift_t(self) -> float:
        """When the side to move first lifted a piece of its own since the last position (or inf)."""
        own = self._board.occupied_co[self._board.turn]
        for change in self._log:
            if not change.occupied and own & BIT[change.square]:
                return change.t
        return float("inf")

    def _lift_t(self, square: Square) -> float:
        last = self._last_event(square)
        return last.t if last is not None else float("-inf")

    def _complete_with_reply(self, t: float, move: Move, aside: int, out: list[Output]) -> bool:
        reply = [c for c in self._log if aside & BIT[c.square] and c is self._last_event(c.square)]
        board = self._board
        if board.choice_of(move) is not None:
            move = board.with_choice(move, self._turn.preselect or board.choices()[0])
        if not self._judge_move(t, move, out, final=True):
            return False
        self._log.extend(reply)  # the other side's lifts open the reply
        self._reindex()
        for change in reply:
            if not change.occupied:
                self._lifted |= BIT[change.square]
        self._settled_done = False
        self._last_change = max(c.t for c in reply)
        return True

    # -- captures whose square never read empty ---------------------------------------------

    def _hidden_from(self, occ: int | None = None) -> Square | None:
        """The one own piece lifted, nothing else changed: a piece in the hand, or a capture
        that pushed its victim off. Its square, or None."""
        board = self._board
        occ = self._occ if occ is None else occ
        missing = board.occupied ^ occ
        if occ & ~board.occupied or missing.bit_count() != 1 or not missing & board.occupied_co[board.turn]:
            return None
        square = _lsb(missing)
        return square if self._first_lift(square) is not None else None

    def _capture_targets(self, square: Square) -> int:
        board = self._board
        cycle = board.choices()
        default = cycle[0] if cycle else None
        return sum(
            BIT[m.to_square]
            for m in board.generate_legal_moves(BIT[square], board.occupied_co[not board.turn])
            if board.choice_of(m) in (None, default)
        )

    def _hidden_capture(self, t: float, out: list[Output]) -> None:
        """The mismatch delay or the clock button ends the wait for a capture that pushed its victim off."""
        square = self._hidden_from()
        if square is None or self._finished or self._turn.which:
            return
        targets = self._capture_targets(square)
        if targets:
            move = self._resolve_hidden(t, square, targets, out)
            if move is not None:
                self._judge_move(t, move, out, final=True)

    def _resolve_hidden(self, t: float, square: Square, targets: int, out: list[Output]) -> Move | None:
        """The capture to record, or None while the player is asked which (``which-capture``)."""
        lift = self._first_lift(square)
        assert lift is not None
        blinked = self._blinked_since(lift.t) & targets
        if blinked:
            targets = blinked
        if targets.bit_count() == 1:
            return self._capture_move(square, _lsb(targets))
        self._turn = replace(self._turn, which_from=square, which=tuple(squares_of(targets)), which_since=t)
        return None

    def _capture_move(self, from_square: Square, to_square: Square) -> Move:
        """The legal capture from ``from_square`` to ``to_square`` (a promotion: the preselected piece)."""
        board = self._board
        move = next(board.generate_legal_moves(BIT[from_square], BIT[to_square]))
        if board.choice_of(move) is not None:
            move = board.with_choice(move, self._turn.preselect or board.choices()[0])
        return move

    def _which_confirmed(self) -> Move | None:
        """The capturer lifted from one candidate square and put back: that capture."""
        turn = self._turn
        if turn.which_from is None or self._hidden_from(self._occ | self._set_aside(self._occ)) != turn.which_from:
            return None
        for square in turn.which:
            last = self._last_event(square)
            lift = self._first_lift(square)
            if last is not None and last.occupied and lift is not None and lift.t >= turn.which_since:
                return self._capture_move(turn.which_from, square)
        return None

    # -- judgement -------------------------------------------------------------------------

    def _update_touch(self, t: float, *, exclude: int = 0) -> None:
        """The first piece of each colour touched deliberately, as FIDE 4.3 counts them
        (``exclude``: the other side's lifts that belong to the reply)."""
        turn = self._turn
        if self._policy is not Policy.STRICT or turn.expected is not None or turn.adjusting:
            return  # casual, the engine's move, or "j'adoube" announced
        if turn.touched is not None and turn.victim is not None:
            return
        board = self._board
        own = board.occupied_co[board.turn]
        theirs = board.occupied_co[not board.turn]
        if not self._lifted & (theirs & ~exclude if turn.touched is not None else board.occupied):
            return  # nothing new to find: no piece (no opponent's piece, once the own one is known) lifted
        seen = 0
        touched, touched_t = turn.touched, turn.touched_t
        victim, victim_t = turn.victim, turn.victim_t
        for index, change in enumerate(self._log):
            bit = BIT[change.square]
            if change.occupied or seen & bit:
                continue
            if own & bit and touched is None and not board.move_stack and self._put_back_quickly(index):
                continue  # straightened before the first move: the game has not begun; a later lift counts
            seen |= bit
            if touched is not None and own & bit:
                continue
            if own & bit:
                if touched is None and self._has_legal_move_from(change.square) and not (
                    len(self._log) > 1 and self._is_knocked(index)
                ):
                    touched, touched_t = change.square, change.t
            elif theirs & bit & ~exclude and victim is None:
                back = next((c.t for c in self._log[index + 1:] if c.square == change.square), t)
                if back - change.t >= self._timing.settle and not self._is_knocked(index) and self._can_capture(change.square):
                    victim, victim_t = change.square, change.t
        if (touched, victim) != (turn.touched, turn.victim):
            self._turn = _Turn(
                touched, touched_t, victim, victim_t, turn.castle, turn.expected, turn.hint, turn.preselect,
                turn.adjusting, turn.which_from, turn.which, turn.which_since,
            )

    def _put_back_quickly(self, index: int) -> bool:
        """Whether the piece lifted at ``self._log[index]`` was set down on its own square again
        within the settle time: an adjustment, not a touch."""
        change = self._log[index]
        back = next((c for c in self._log[index + 1:] if c.square == change.square), None)
        return back is not None and back.t - change.t < self._timing.settle

    def _is_knocked(self, index: int) -> bool:
        """Whether the lift at ``self._log[index]`` came within ``Timing.knock`` of a lift of
        another square: pieces knocked over together, which nobody touched deliberately."""
        log = self._log
        change = log[index]
        window = self._timing.knock
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

    def _knocked_off(self) -> int:
        """Game pieces off their squares now, last lifted in a knock (pieces knocked over)."""
        off = self._board.occupied & ~self._occ
        if off & (off - 1) == 0:
            return 0  # a move and a knocked piece leave two squares empty at least
        window = self._timing.knock
        last_lift = float("-inf")
        for change in self._log:
            if not change.occupied:
                if change.t - last_lift <= window:
                    break
                last_lift = change.t
        else:
            return 0  # no two lifts that close: nothing was knocked
        found = 0
        for index, change in enumerate(self._log):
            if off & BIT[change.square] and change is self._last_event(change.square) and self._is_knocked(index):
                found |= BIT[change.square]
        return found

    def _can_capture(self, square: Square) -> bool:
        """Whether some legal move of the side to move takes the piece on ``square``."""
        board = self._board
        to_mask = board.capture_to_mask(square)
        return any(_captures(board, m, square) for m in board.generate_legal_moves(self._all, to_mask))

    def _evaluate(self, t: float, out: list[Output]) -> None:
        board = self._board
        occ = self._occ
        if self._finished:
            if occ == board.occupied:
                self._settle_matched(t, out)
            elif occ == self._start_occ and (board.move_stack or self._cleared or board.fen() != self._variant.starting_fen):
                self._start_game(t, self._variant.board(), out)
            return  # clearing up after the result
        if self._promotion is None and occ != board.occupied and self._reply_started(t, out):
            return
        self._update_touch(t)
        if occ == board.occupied:
            if self._promotion is None:
                self._settle_matched(t, out)
            return
        if self._promotion is not None:
            return
        confirmed = self._which_confirmed()
        if confirmed is not None:
            aside = board.occupied & ~occ & ~BIT[confirmed.from_square]
            if aside:
                self._complete_with_reply(t, confirmed, aside, out)  # the opponent already lifting
            else:
                self._judge_move(t, confirmed, out, final=True)
            return
        candidates = self._explained(occ)
        off = board.occupied & ~occ
        if not candidates and off & (off - 1):  # a move and a knocked piece leave two squares empty
            knocked = self._knocked_off()
            if knocked:
                candidates = self._explained(occ | knocked)  # the move, with pieces knocked over aside
        if candidates:
            self._judge_move(t, candidates[0], out)
            return
        castle = board.compound_after(occ) if board.move_stack else None
        if castle is not None:
            return self._castling_after_rook(t, castle, out)
        if self._takeback is not TakebackMode.OFF and board.move_stack and self._is_takeback(occ):
            if self._check_over():
                return self._evaluate(t, out)  # stalemate: moving back is clearing up
            move = board.peek()
            if self._takeback is TakebackMode.APPLY:
                self._apply_takeback(t, out)
            elif self._offer != move:
                self._offer = move
                out.append(TakebackOffered(t, move))
            return
        self._offer = None
        if occ == self._start_occ and self._cleared:
            self._start_game(t, self._variant.board(), out)
            return
        hidden = self._hidden_from()
        if hidden is not None and not self._turn.which:
            lift = self._first_lift(hidden)
            assert lift is not None
            blinked = self._blinked_since(lift.t) if self._blinks else 0
            targets = self._capture_targets(hidden) if blinked else 0
            if blinked & targets:
                # A square it could take blinked and all has been still since: its victim pushed
                # off. (A brush of such a square while the piece is held longer than the settle
                # time reads the same: docs/events.md.)
                capture = self._resolve_hidden(t, hidden, targets, out)
                if capture is not None:
                    self._judge_move(t, capture, out, final=True)
                return
            self._capture_at = t + self._timing.mismatch_delay  # it checks for a capture then
        self._judge_unexplained(t, out)

    def _settle_matched(self, t: float, out: list[Output]) -> None:
        was_off = self._restore is not None or self._mismatch_shown or self._offer is not None
        self._reset_window()
        self._cleared = False
        if self._turn.which:
            self._turn = replace(self._turn, which_from=None, which=())
        if was_off:
            out.append(Matched(t))

    def _touch_refusal(self, move: Move) -> tuple[Code, str] | None:
        """Why FIDE 4.3-4.4 forbids ``move`` now, or None."""
        board = self._board
        turn = self._turn
        if turn.castle is not None and move != turn.castle:
            king = self._name(board.landing_square(turn.castle))
            return Code.TOUCH_MOVE, f"{board.san(move)} but the king was released on {king}: castling {board.san(turn.castle)} is due"
        own, victim = turn.touched, turn.victim
        if own is not None and victim is not None:
            pair = [m for m in board.generate_legal_moves(BIT[own]) if _captures(board, m, victim)]
            if pair:
                if move.from_square == own and _captures(board, move, victim):
                    return None
                return Code.TOUCH_MOVE, f"{board.san(move)} but {self._name(own)} must capture {self._name(victim)}"
            if turn.touched_t <= turn.victim_t:
                victim = None
            else:
                own = None
        if own is not None and move.from_square != own:
            if board.touch_first_forbids(move, own):
                return Code.CASTLING_ROOK_FIRST, f"rook {self._name(own)} touched before the king"
            return Code.TOUCH_MOVE, f"{board.san(move)} but {self._name(own)} was touched first"
        if victim is not None and own is None and not _captures(board, move, victim):
            return Code.TOUCH_MOVE, f"{board.san(move)} but {self._name(victim)} was taken off and must be captured"
        return None

    def _judge_move(self, t: float, move: Move, out: list[Output], *, final: bool = False) -> bool:
        """Accept ``move`` (or open its promotion window), or refuse it; True if accepted."""
        board = self._board
        expected = self._turn.expected
        if expected is not None:
            if (move.from_square, move.to_square) != (expected.from_square, expected.to_square):
                self._refuse(t, Code.ILLEGAL_MOVE, f"{board.san(move)} instead of the engine's {board.san(expected)}", out, count=False)
                return False
            self._accept(t, expected, out)
            return True
        refusal = self._touch_refusal(move)
        if refusal is not None:
            self._refuse(t, refusal[0], refusal[1], out, count=False)
            return False
        if board.choice_of(move) is not None and not final:
            piece = self._turn.preselect or board.choices()[0]
            last = self._last_event(move.to_square)
            placed = last.t if last is not None else t
            self._promotion = _Promotion(
                board.with_choice(move, piece), t + self._timing.promotion_window, placed
            )
            return True
        self._accept(t, move, out)
        return True

    def _promotion_interrupted(self, out: list[Output]) -> None:
        """Another square changed: the promotion is final. If its square is empty now, the last
        lift there was the opponent taking the new piece, so it belongs to the next move."""
        promo = self._promotion
        assert promo is not None
        to_bit = BIT[promo.move.to_square]
        last = self._last_event(promo.move.to_square)
        if self._occ & to_bit or last is None or last.occupied or last.t < promo.placed_t:
            self._close_promotion(out)
            self._promotion = None  # still in the hand: judge again from the log when it settles
            return
        self._log.remove(last)
        self._reindex()
        self._occ |= to_bit
        self._close_promotion(out)
        self._occ &= ~to_bit
        self._log.append(last)
        self._reindex()
        self._lifted |= to_bit
        self._last_change = last.t

    def _close_promotion(self, out: list[Output]) -> None:
        promo = self._promotion
        assert promo is not None
        if not self._occ & BIT[promo.move.to_square]:
            return  # the new piece is still in the hand
        self._promotion = None
        self._accept(promo.placed_t + self._timing.settle, promo.move, out)

    def _accept(self, t: float, move: Move, out: list[Output]) -> None:
        board = self._board
        ply = len(board.move_stack) + 1
        san = board.san_and_push(move)
        out.append(MoveMade(t, move, san, ply))
        self._turn = _Turn()
        self._reset_window()
        # Mate (or, looked for later, no move at all): what follows is clearing up.
        if board.notation_marks_mate:  # the notation already says: "#" mate, "+" check
            self._finished = san.endswith("#")
            self._over_unknown = not self._finished and not san.endswith("+")
        elif board.is_check():
            self._finished = _no_moves_left(board)
            self._over_unknown = False
        else:
            self._finished = False
            self._over_unknown = True
        # Pieces that moved after the move completed (e.g. the opponent already lifting) stay in play.
        self._settled_done = self._occ == board.occupied

    def _reset_window(self) -> None:
        """A new position to judge from: forget the log and what was shown about the old one."""
        self._log.clear()
        self._last_at.clear()
        self._first_lift_at.clear()
        self._placed = 0
        self._lifted = 0
        self._blinks.clear()
        self._movable.clear()
        self._offer = None
        self._reported_occ = None
        self._refused = None
        self._mismatch_at = None
        self._mismatch_shown = False
        self._capture_at = None
        self._restore = None

    def _refuse(self, t: float, code: Code, detail: str, out: list[Output], *, count: bool) -> None:
        """One completed wrong move, one violation: states while it is put right add none."""
        board = self._board
        diff = self._occ ^ board.occupied
        if self._refused is not None and not diff & ~self._refused:
            return
        region = board.attempt_region(diff)
        self._refused = region | (self._refused or 0)
        self._restore = code
        self._capture_at = None
        mover = board.turn
        if count:
            self.illegal_counts[mover] += 1
        out.append(self._violation(t, code, detail))
        if count and self._arbiter and self.illegal_counts[mover] >= 2:
            out.append(Forfeit(t, mover, loss_result(board, mover)))
            self._finished = True

    def _violation(self, t: float, code: Code, detail: str) -> Violation:
        return Violation(t, code, len(self._board.move_stack) + 1, self._board.turn, detail)

    def _is_takeback(self, occ: int) -> bool:
        board = self._board
        last = board.peek()
        if not occ & BIT[last.from_square]:
            return False  # the moved piece is not back where it came from
        move = board.pop()
        try:
            before = board.occupied
        finally:
            board.push(move)
        if occ != before:
            return False
        return all(self._last_event(sq) is not None for sq in squares_of(occ ^ board.occupied))

    def _is_taking_back(self, occ: int) -> bool:
        """Every square that differs belongs to the last move: its pieces are being moved back."""
        board = self._board
        if not board.move_stack:
            return False
        move = board.pop()
        try:
            squares = board.move_mask(move)
        finally:
            board.push(move)
        return not (occ ^ board.occupied) & ~squares

    def _apply_takeback(self, t: float, out: list[Output]) -> None:
        ply = len(self._board.move_stack)
        move = self._board.pop()
        out.append(MoveTakenBack(t, move, ply))
        self._turn = _Turn()
        self._finished = False
        self._over_unknown = False
        self._reset_window()
        self._settled_done = self._occ == self._board.occupied

    def _castling_after_rook(self, t: float, castle: Move, out: list[Output]) -> None:
        """The rook went first and settled (a completed rook move), then the king followed
        (the chess rules' :meth:`~boardctl.core.rules.GameBoard.compound_after`)."""
        board = self._board
        rook_move = board.peek()
        if self._policy is Policy.CASUAL:
            ply = len(board.move_stack)
            board.pop()
            out.append(MoveTakenBack(t, rook_move, ply))
            self._accept(t, castle, out)
            return
        if self._refused is not None:
            return
        self._refused = self._occ ^ board.occupied
        self._restore = Code.CASTLING_ROOK_FIRST
        color = not board.turn
        out.append(Violation(t, Code.CASTLING_ROOK_FIRST, len(board.move_stack), color, "rook moved before the king; the rook move stands"))

    def _judge_unexplained(self, t: float, out: list[Output]) -> None:
        board = self._board
        occ = self._occ
        own = board.occupied_co[board.turn]
        missing = board.occupied & ~occ
        extra = occ & ~board.occupied
        own_missing = missing & own
        if any(self._last_event(sq) is None for sq in squares_of(occ ^ board.occupied)):
            if self._restore not in (None, Code.MISMATCH):
                return  # already guiding a set-up or a restore
            # Changed without events (a resync): only the player can say what happened.
            self._mismatch_at = t + self._timing.mismatch_delay
            self._mismatch_shown = False
            return
        refilled = (
            self._refilled(missing, occ)
            if own_missing and self._placed & occ & board.occupied and not extra and own_missing == missing
            and own_missing & (own_missing - 1) == 0 else 0
        )
        if refilled:
            # One own piece off and a square of the other side's refilled since it was lifted, and
            # no legal move tells that story: an illegal capture released, refused as a legal one
            # would be accepted (the tracker cannot tell it from the victim put back in the hand).
            self._refuse(t, Code.ILLEGAL_MOVE, f"{self._diff_detail()}: the piece from {self._name(_lsb(own_missing))} cannot take there", out, count=True)
            if self._refused is not None:
                self._refused |= refilled  # its target too: putting it right adds no violation
            return
        castle = self._is_partial(occ)
        if castle is not None:
            if not isinstance(castle, bool) and self._policy is Policy.STRICT and self._turn.expected is None:
                self._turn = replace(self._turn, castle=castle)  # the king released on its castling square
            return  # a move half made: castling's king without its rook, an e.p. pawn beside its victim
        if self._check_over():
            return  # stalemate: clearing up
        # A piece set down where it did not stand, or on a square emptied after a lift: released.
        placed_on_emptied = bool(self._refilled(missing, occ))
        if missing and (extra or placed_on_emptied) and not own_missing and self._is_taking_back(occ):
            pass  # the last move's pieces on their way back: a takeback, not a move out of turn
        elif missing and (extra or placed_on_emptied):
            obligation = self._capture_obligation(t) if own_missing else None
            if obligation is not None:
                self._refuse(t, Code.TOUCH_MOVE, f"{self._name(obligation)} was taken off and must be captured", out, count=False)
            elif own_missing:
                self._refuse(t, Code.ILLEGAL_MOVE, self._diff_detail(), out, count=True)
            else:
                self._refuse(t, Code.ILLEGAL_MOVE, f"{self._diff_detail()}: not {self._variant.color_name(board.turn)}'s piece", out, count=True)
            return
        in_hand = not extra and own_missing.bit_count() <= 1 and (missing & ~own).bit_count() <= 1
        if (in_hand and self._restore is None) or occ == 0 or self._cleared:
            return  # a piece in the hand, or the board being cleared or set up
        self._mismatch_at = t + self._timing.mismatch_delay
        self._mismatch_shown = False
        if self._restore is not None and self._restore is not Code.MISMATCH:
            self._mismatch_at = None  # already guiding a restore

    def _refilled(self, missing: int, occ: int) -> int:
        """Squares set down on after the first lift of a ``missing`` piece that were emptied in
        this window and stand in the game: where a missing piece may have captured. (A square
        whose piece no missing piece could take is a piece put back: a knocked or straightened
        piece being restored, not a move.)"""
        board = self._board
        first_lift: float | None = None
        placed = False
        for change in self._log:
            if change.occupied:
                placed = True
            elif first_lift is None and missing & BIT[change.square]:
                first_lift = change.t
        if first_lift is None or not placed:
            return 0
        refilled = 0
        standing = board.occupied & occ
        for change in self._log:
            if not (change.occupied and standing & BIT[change.square] and change.t > first_lift):
                continue
            if not missing & board.occupied_co[not board.color_at(change.square)]:
                continue
            lift = self._first_lift(change.square)
            if lift is not None and not self._is_knocked(self._log.index(lift)):
                refilled |= BIT[change.square]
        return refilled

    def _is_partial(self, occ: int) -> Move | bool | None:
        """Every difference from the game position belongs to one legal move, not yet finished:
        the castling move whose king stands on its square, True for another, else None."""
        board = self._board
        diff = occ ^ board.occupied
        lifted_own = diff & ~occ & board.occupied_co[board.turn]
        if not lifted_own:
            return None  # nothing of the mover's has left its square
        if diff == lifted_own and diff & (diff - 1) == 0:
            # One piece in the hand: a move being made (with or without a legal move, it waits).
            return True if self._first_lift(_lsb(diff)) is not None else None
        for move, after in self._legal_after(lifted_own, diff | board.extra_targets()):
            changed = (board.occupied ^ after) | BIT[move.to_square]
            if not diff & ~changed and self._first_lift(move.from_square) is not None:
                if board.commits_to(move, occ):
                    return move
                return True
        return None

    def _capture_obligation(self, t: float) -> Square | None:
        """An opponent's piece kept off past the settle time, while a legal move would have matched."""
        if self._policy is not Policy.STRICT or self._turn.expected is not None:
            return None
        board = self._board
        theirs = board.occupied_co[not board.turn]
        off = theirs & ~self._occ
        for square in squares_of(off):
            lift = self._first_lift(square)
            if lift is None or t - lift.t < self._timing.settle or self._is_knocked(self._log.index(lift)):
                continue
            with_victim = self._occ | BIT[square]
            if any(after == with_victim for _, after in self._legal_after()):
                return square
        return None

    def _diff_detail(self) -> str:
        board = self._board
        missing = list(squares_of(board.occupied & ~self._occ))
        extra = list(squares_of(self._occ & ~board.occupied))
        parts = []
        if missing:
            parts.append("empty " + ",".join(self._name(s) for s in missing))
        if extra:
            parts.append("occupied " + ",".join(self._name(s) for s in extra))
        return "; ".join(parts) or "board matches"

    def _start_game(self, t: float, board: GameBoard, out: list[Output]) -> None:
        self._board = self._variant.adopt(board)
        self.illegal_counts = {True: 0, False: 0}
        self._turn = _Turn()
        self._promotion = None
        self._finished = _no_moves_left(self._board)
        self._over_unknown = False
        self._cleared = False
        self._reset_window()
        self._settled_done = self._occ == self._board.occupied
        out.append(GameStarted(t, self._board.fen()))

    # -- LEDs ------------------------------------------------------------------------------

    def _leds(self) -> tuple[LedIntent, ...]:
        board = self._board
        turn = self._turn
        if (
            self._restore is None and not self._mismatch_shown and self._offer is None and self._promotion is None
            and not self._show_legal_moves and not turn.which and turn.touched is None and turn.victim is None
            and turn.expected is None and turn.hint is None
        ):
            return ()  # the usual case: nothing to show
        lit: dict[Square, Code] = {}
        diff = self._occ ^ board.occupied
        restore = self._restore
        if restore is None and self._mismatch_shown:
            restore = Code.MISMATCH
        if self._offer is not None:
            restore = Code.TAKEBACK
        if self._finished and restore is not Code.SETUP:
            restore = None  # clearing up after the result
        if restore is not None and diff and self._promotion is None:
            for square in squares_of(diff):
                lit[square] = restore
        for square in turn.which:
            lit.setdefault(square, Code.WHICH_CAPTURE)
        if turn.touched is not None and turn.expected is None and self._occ & BIT[turn.touched]:
            lit.setdefault(turn.touched, Code.TOUCH_MOVE)  # put back: a reminder that it must move
        if turn.victim is not None and turn.expected is None and self._occ & BIT[turn.victim]:
            lit.setdefault(turn.victim, Code.TOUCH_MOVE)  # put back: it must still be captured
        if self._promotion is not None:
            lit[self._promotion.move.to_square] = Code.PROMOTION
        if turn.expected is not None:
            for square in squares_of(board.move_mask(turn.expected)):
                lit.setdefault(square, Code.ENGINE_MOVE)
        if turn.hint is not None and board.is_legal(turn.hint):
            for square in squares_of(board.move_mask(turn.hint)):
                lit.setdefault(square, Code.HINT)
        if self._show_legal_moves and restore is None and turn.expected is None:
            own_missing = board.occupied_co[board.turn] & ~self._occ
            if own_missing.bit_count() == 1:
                for move in board.generate_legal_moves(own_missing):
                    lit.setdefault(move.to_square, Code.LEGAL_MOVES)
        return tuple(LedIntent(square, why) for square, why in sorted(lit.items()))
