"""The move tracker: reed-switch events in, chess moves, LED intents and violations out.

It is pure: no I/O, no threads, no clock. Time comes only from the events and ``tick``.

How it decides, in brief (docs/events.md has the user's view):

- Every occupancy change since the last accepted position goes into a *log*. Two opposite
  changes on one square within ``Timing.brush`` cancel: a brushed piece, or a slid piece passing.
- The board is judged only once it has *settled*: no change for ``Timing.settle`` seconds.
  That is FIDE's "released". Then a legal move is accepted if the occupancy after it equals
  what the switches show and the log agrees with it (every square it empties was lifted, the
  square it fills was filled after its piece was lifted). A square emptied and refilled before
  the mover was lifted is therefore never a capture.
- Policy ``fide`` adds touch-move: the first piece of the side to move lifted deliberately (and
  with a legal move) must be the one moved; an opponent's piece kept off past the settle time must
  be captured; touching the rook first forbids castling. A refused move is recorded as a
  violation and LEDs show what to restore.
- Promotions stay open for ``Timing.promotion_window`` after the new piece settles, so the piece
  can be swapped and under-promotion chosen with the promote buttons; then the move is final.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from enum import StrEnum

import chess

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

logger = logging.getLogger(__name__)

#: Occupancy of the standard start position.
START_OCCUPANCY = chess.BB_RANK_1 | chess.BB_RANK_2 | chess.BB_RANK_7 | chess.BB_RANK_8

#: The order ``Button.PROMOTE`` cycles through.
PROMOTION_CYCLE = (chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT)


class Policy(StrEnum):
    FIDE = "fide"
    CASUAL = "casual"


class TakebackMode(StrEnum):
    APPLY = "apply"
    OFFER = "offer"
    OFF = "off"


@dataclass(frozen=True, slots=True)
class Timing:
    """Seconds. ``settle`` is "released"; ``brush`` is the longest contact that is not a touch."""

    settle: float = 0.3
    brush: float = 0.1
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
    move: chess.Move
    san: str
    ply: int


@dataclass(frozen=True, slots=True)
class MoveTakenBack:
    t: float
    move: chess.Move
    ply: int


@dataclass(frozen=True, slots=True)
class TakebackOffered:
    """The board shows the position before ``move``; ``Button.TAKEBACK`` confirms."""

    t: float
    move: chess.Move


@dataclass(frozen=True, slots=True)
class GameStarted:
    t: float
    fen: str


@dataclass(frozen=True, slots=True)
class Violation:
    t: float
    code: Code
    ply: int
    color: chess.Color
    detail: str


@dataclass(frozen=True, slots=True)
class Matched:
    """The board matches the game again (after a mismatch, a refused move, a takeback or a setup)."""

    t: float


@dataclass(frozen=True, slots=True)
class Forfeit:
    """FIDE 7.5.5 with ``arbiter``: a second completed illegal move ends the game."""

    t: float
    loser: chess.Color
    result: str


Output = MoveMade | MoveTakenBack | TakebackOffered | GameStarted | Violation | Matched | Forfeit | ButtonPressed


@dataclass(frozen=True, slots=True)
class Step:
    """What one event or tick produced: outputs in order, and the complete LED set wanted now."""

    outputs: tuple[Output, ...]
    leds: tuple[LedIntent, ...]

    @property
    def moves(self) -> list[chess.Move]:
        return [o.move for o in self.outputs if isinstance(o, MoveMade)]

    @property
    def violations(self) -> list[Violation]:
        return [o for o in self.outputs if isinstance(o, Violation)]


@dataclass(slots=True)
class _Change:
    t: float
    square: chess.Square
    occupied: bool


@dataclass(slots=True)
class _Promotion:
    move: chess.Move
    deadline: float
    placed_t: float


def move_squares(board: chess.Board, move: chess.Move) -> chess.SquareSet:
    """Every square a hand must touch to make ``move`` on ``board`` (rook and e.p. pawn included)."""
    squares = chess.SquareSet([move.from_square, move.to_square])
    if board.is_castling(move):
        rook_from, rook_to = castling_rook_squares(board, move)
        squares.add(rook_from)
        squares.add(rook_to)
    elif board.is_en_passant(move):
        squares.add(en_passant_victim(board, move))
    return squares


def castling_rook_squares(board: chess.Board, move: chess.Move) -> tuple[chess.Square, chess.Square]:
    """Where the rook of a castling move starts and ends (standard chess)."""
    rank = chess.square_rank(move.from_square)
    if board.is_kingside_castling(move):
        return chess.square(7, rank), chess.square(5, rank)
    return chess.square(0, rank), chess.square(3, rank)


def en_passant_victim(board: chess.Board, move: chess.Move) -> chess.Square:
    """The square of the pawn an en passant move captures."""
    return chess.square(chess.square_file(move.to_square), chess.square_rank(move.from_square))


def occupancy_after(board: chess.Board, move: chess.Move) -> int:
    """The occupancy bitboard after ``move``, without pushing it."""
    occ = board.occupied
    from_bb, to_bb = chess.BB_SQUARES[move.from_square], chess.BB_SQUARES[move.to_square]
    if board.is_castling(move):
        rook_from, rook_to = castling_rook_squares(board, move)
        king_to = chess.square(6 if board.is_kingside_castling(move) else 2, chess.square_rank(move.from_square))
        occ &= ~(from_bb | chess.BB_SQUARES[rook_from])
        return occ | chess.BB_SQUARES[king_to] | chess.BB_SQUARES[rook_to]
    if board.is_en_passant(move):
        occ &= ~chess.BB_SQUARES[en_passant_victim(board, move)]
    return (occ & ~from_bb) | to_bb


class Tracker:
    """Turns occupancy events into moves under FIDE Article 4 (or casually). See the module docstring."""

    def __init__(
        self,
        board: chess.Board | None = None,
        *,
        policy: Policy = Policy.FIDE,
        timing: Timing = DEFAULT_TIMING,
        takeback: TakebackMode = TakebackMode.APPLY,
        arbiter: bool = False,
        occupancy: int | None = None,
        show_legal_moves: bool = False,
    ) -> None:
        self._board = board.copy() if board is not None else chess.Board()
        self._policy = Policy(policy)
        self._timing = timing
        self._takeback = TakebackMode(takeback)
        self._arbiter = arbiter
        self._show_legal_moves = show_legal_moves
        self._occ = self._board.occupied if occupancy is None else occupancy
        self.illegal_counts: dict[chess.Color, int] = {chess.WHITE: 0, chess.BLACK: 0}
        self._now = 0.0
        self._log: list[_Change] = []
        self._last_change = float("-inf")
        self._settled_done = True
        self._touched: chess.Square | None = None
        self._adjusting = False
        self._promotion: _Promotion | None = None
        self._preselect: chess.PieceType | None = None
        self._expected: chess.Move | None = None
        self._hint: chess.Move | None = None
        self._restore: Code | None = None
        self._reported_occ: int | None = None
        self._mismatch_at: float | None = None
        self._mismatch_shown = False
        self._offer: chess.Move | None = None
        self._cleared = False
        self._finished = False
        if self._occ != self._board.occupied:
            self._restore = Code.MISMATCH  # resuming onto a board that does not match yet

    # -- read-only views -------------------------------------------------------------------

    @property
    def board(self) -> chess.Board:
        """The game so far. Do not mutate it; the tracker owns it."""
        return self._board

    @property
    def occupancy(self) -> int:
        return self._occ

    @property
    def policy(self) -> Policy:
        return self._policy

    @property
    def expected(self) -> chess.Move | None:
        return self._expected

    @property
    def promotion(self) -> chess.Move | None:
        """The promotion waiting for its window to close, if any."""
        return self._promotion.move if self._promotion else None

    def is_matching(self) -> bool:
        """The switches show exactly the game position, and no move is half made."""
        return self._occ == self._board.occupied and self._promotion is None

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
        else:
            assert isinstance(event, Tick)
        return Step(tuple(out), self._leds())

    def tick(self, t: float) -> Step:
        return self.feed(Tick(t))

    def expect(self, move: chess.Move | None, t: float) -> Step:
        """The engine's move is pending: only it is accepted, and touch-move is off meanwhile."""
        out: list[Output] = []
        self._advance(t, out)
        if move is not None and move not in self._board.legal_moves:
            raise ValueError(f"expected move {move.uci()} is not legal in {self._board.fen()}")
        self._expected = move
        self._touched = None
        self._settled_done = False
        self._advance(t, out)
        return Step(tuple(out), self._leds())

    def hint(self, move: chess.Move | None) -> None:
        """Light ``move`` as a hint until the next move is made."""
        self._hint = move

    def finish(self) -> None:
        """The game has ended (result decided by the session); a start position now means a new game."""
        self._finished = True

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
        self._expected = None
        self._finished = False
        if self._occ != self._board.occupied:
            self._restore = Code.TAKEBACK
        return Step(tuple(out), self._leds())

    def new_game(self, t: float, board: chess.Board | None = None) -> Step:
        """Start over from ``board`` (default: the start position) and wait for the pieces to match."""
        out: list[Output] = []
        self._advance(t, out)
        self._start_game(t, board if board is not None else chess.Board(), out)
        if self._occ != self._board.occupied:
            self._restore = Code.SETUP
        return Step(tuple(out), self._leds())

    # -- time ------------------------------------------------------------------------------

    def _advance(self, t: float, out: list[Output]) -> None:
        if t < self._now:
            raise ValueError(f"time went backwards: {t} after {self._now}")
        self._now = t
        if not self._settled_done and t >= self._last_change + self._timing.settle:
            self._settled_done = True
            self._evaluate(self._last_change + self._timing.settle, out)
        if self._promotion is not None and t >= self._promotion.deadline:
            self._close_promotion(out)
        if self._mismatch_at is not None and not self._mismatch_shown and t >= self._mismatch_at:
            self._mismatch_shown = True
            self._restore = self._restore or Code.MISMATCH
            if self._reported_occ != self._occ:
                self._reported_occ = self._occ
                out.append(self._violation(t, Code.MISMATCH, self._diff_detail()))

    # -- events ----------------------------------------------------------------------------

    def _on_square(self, ev: SquareChanged, out: list[Output]) -> None:
        bit = chess.BB_SQUARES[ev.square]
        if bool(self._occ & bit) == ev.occupied:
            logger.debug("ignoring repeated %s at %s", "place" if ev.occupied else "lift", ev.t)
            return
        if self._promotion is not None and ev.square != self._promotion.move.to_square:
            self._promotion_interrupted(ev, out)
        self._occ ^= bit
        self._last_change = ev.t
        self._settled_done = False
        self._mismatch_at = None
        self._mismatch_shown = False
        if self._occ == 0:
            self._cleared = True
        if self._promotion is not None:
            # The swap on the promotion square: the window restarts once the new piece is down.
            if ev.occupied:
                self._promotion.placed_t = ev.t
                self._promotion.deadline = ev.t + self._timing.settle + self._timing.promotion_window
            else:
                self._promotion.deadline = float("inf")
        for i in range(len(self._log) - 1, -1, -1):
            prev = self._log[i]
            if prev.square == ev.square:
                if ev.t - prev.t <= self._timing.brush:
                    del self._log[i]  # a brush, or a slid piece passing over
                    return
                break
        self._log.append(_Change(ev.t, ev.square, ev.occupied))

    def _on_button(self, ev: ButtonPressed, out: list[Output]) -> None:
        button = ev.button
        if button in PROMOTION_BUTTONS or button is Button.PROMOTE:
            current = self._promotion.move.promotion if self._promotion else self._preselect
            if button is Button.PROMOTE:
                index = PROMOTION_CYCLE.index(current) if current in PROMOTION_CYCLE else 0
                piece = PROMOTION_CYCLE[(index + 1) % len(PROMOTION_CYCLE)]
            else:
                piece = PROMOTION_BUTTONS[button]
            if self._promotion is not None:
                move = self._promotion.move
                self._promotion.move = chess.Move(move.from_square, move.to_square, piece)
                if self._promotion.deadline != float("inf"):
                    self._promotion.deadline = ev.t + self._timing.promotion_window
            else:
                self._preselect = piece
            return
        if button is Button.CLOCK:
            # Pressing the clock completes the move at once (FIDE 6.2 / 7.5.5).
            if not self._settled_done:
                self._settled_done = True
                self._evaluate(ev.t, out)
            if self._promotion is not None and self._promotion.deadline != float("inf"):
                self._close_promotion(out)
            out.append(ev)
            return
        if button is Button.ADJUST:
            self._adjusting = True
            return
        if button is Button.TAKEBACK and self._offer is not None:
            self._apply_takeback(ev.t, out)
            return
        if button is Button.NEW_GAME:
            out.append(ev)
            self._start_game(ev.t, chess.Board(), out)
            if self._occ != self._board.occupied:
                self._restore = Code.SETUP
            return
        out.append(ev)

    def _on_snapshot(self, ev: Snapshot, out: list[Output]) -> None:
        """A resync: compared, never replayed, so no move is ever inferred from it."""
        if ev.occupancy == self._occ:
            return
        logger.info("resync changed %s squares", chess.popcount(ev.occupancy ^ self._occ))
        self._occ = ev.occupancy
        self._log.clear()
        self._last_change = ev.t
        self._settled_done = False
        if self._occ != self._board.occupied:
            self._mismatch_at = ev.t
            self._mismatch_shown = False

    # -- judgement -------------------------------------------------------------------------

    def _legal_after(self, from_mask: int = chess.BB_ALL, to_mask: int = chess.BB_ALL) -> list[tuple[chess.Move, int]]:
        """Legal moves from ``from_mask`` to ``to_mask``, each with the occupancy after it."""
        board = self._board
        return [(m, occupancy_after(board, m)) for m in board.generate_legal_moves(from_mask, to_mask)]

    def _has_legal_move_from(self, square: chess.Square) -> bool:
        return any(self._board.generate_legal_moves(chess.BB_SQUARES[square]))

    def _last_event(self, square: chess.Square) -> _Change | None:
        for change in reversed(self._log):
            if change.square == square:
                return change
        return None

    def _first_lift(self, square: chess.Square) -> _Change | None:
        for change in self._log:
            if change.square == square and not change.occupied:
                return change
        return None

    def _is_consistent(self, move: chess.Move) -> bool:
        """The log tells the story of ``move``: its piece lifted, its target filled afterwards."""
        board = self._board
        lift = self._first_lift(move.from_square)
        if lift is None:
            return False
        changed = self._occ ^ board.occupied
        for square in chess.SquareSet(changed):
            if self._last_event(square) is None:
                return False
        target = move.to_square
        if board.is_castling(move):
            target = chess.square(6 if board.is_kingside_castling(move) else 2, chess.square_rank(move.from_square))
        last = self._last_event(target)
        # A capture's square, like any target, must be filled after the mover was lifted: a square
        # emptied and refilled before that (a phantom capture) does not qualify.
        return last is not None and last.occupied and last.t >= lift.t

    def _update_touch(self) -> None:
        """Record the first piece of the side to move that was deliberately lifted (FIDE 4.3a)."""
        if self._policy is not Policy.FIDE or self._expected is not None or self._touched is not None:
            return
        if self._adjusting:
            return  # "j'adoube" announced: pieces may be straightened until the next move
        board = self._board
        own = board.occupied_co[board.turn]
        seen: set[chess.Square] = set()
        for change in self._log:
            if change.occupied or change.square in seen:
                continue
            seen.add(change.square)
            if not own & chess.BB_SQUARES[change.square]:
                continue
            if self._has_legal_move_from(change.square):
                self._touched = change.square
                return

    def _evaluate(self, t: float, out: list[Output]) -> None:
        board = self._board
        self._update_touch()
        occ = self._occ
        if occ == board.occupied:
            if self._promotion is None:
                self._settle_matched(t, out)
            return
        if self._promotion is not None:
            return
        own_lifted = board.occupied_co[board.turn] & ~occ
        candidates = [m for m, after in self._legal_after(own_lifted, occ | board.castling_rights) if after == occ and self._is_consistent(m)]
        if candidates:
            self._judge_move(t, candidates[0], out)
            return
        if self._is_castling_after_rook(occ):
            return self._castling_after_rook(t, out)
        if self._takeback is not TakebackMode.OFF and board.move_stack and not self._finished and self._is_takeback(occ):
            move = board.peek()
            if self._takeback is TakebackMode.APPLY:
                self._apply_takeback(t, out)
            elif self._offer != move:
                self._offer = move
                out.append(TakebackOffered(t, move))
            return
        self._offer = None
        if occ == START_OCCUPANCY and (self._finished or self._cleared or board.is_game_over()):
            self._start_game(t, chess.Board(), out)
            return
        self._judge_unexplained(t, out)

    def _settle_matched(self, t: float, out: list[Output]) -> None:
        was_off = self._restore is not None or self._mismatch_shown or self._offer is not None
        self._reset_window()
        self._cleared = False
        if was_off:
            out.append(Matched(t))

    def _judge_move(self, t: float, move: chess.Move, out: list[Output]) -> None:
        board = self._board
        expected = self._expected
        if expected is not None:
            if (move.from_square, move.to_square) != (expected.from_square, expected.to_square):
                self._refuse(t, Code.ILLEGAL_MOVE, f"{board.san(move)} instead of the engine's {board.san(expected)}", out, count=False)
                return
            self._accept(t, expected, out)
            return
        if self._touched is not None and move.from_square != self._touched:
            touched_piece = board.piece_at(self._touched)
            if board.is_castling(move) and touched_piece is not None and touched_piece.piece_type == chess.ROOK:
                self._refuse(t, Code.CASTLING_ROOK_FIRST, f"rook {chess.square_name(self._touched)} touched before the king", out, count=False)
            else:
                self._refuse(
                    t, Code.TOUCH_MOVE,
                    f"{board.san(move)} but {chess.square_name(self._touched)} was touched first", out, count=False,
                )
            return
        if move.promotion is not None:
            piece = self._preselect or chess.QUEEN
            last = self._last_event(move.to_square)
            placed = last.t if last is not None else t
            self._promotion = _Promotion(
                chess.Move(move.from_square, move.to_square, piece), t + self._timing.promotion_window, placed
            )
            return
        self._accept(t, move, out)

    def _promotion_interrupted(self, ev: SquareChanged, out: list[Output]) -> None:
        """Another square changed: the promotion is final. If its square is empty now, the last
        lift there was the opponent taking the new piece, so it belongs to the next move."""
        promo = self._promotion
        assert promo is not None
        to_bit = chess.BB_SQUARES[promo.move.to_square]
        last = self._last_event(promo.move.to_square)
        if self._occ & to_bit or last is None or last.occupied or last.t < promo.placed_t:
            self._close_promotion(out)
            self._promotion = None  # still in the hand: judge again from the log when it settles
            return
        self._log.remove(last)
        self._occ |= to_bit
        self._close_promotion(out)
        self._occ &= ~to_bit
        self._log.append(last)
        self._last_change = last.t

    def _close_promotion(self, out: list[Output]) -> None:
        promo = self._promotion
        assert promo is not None
        if not self._occ & chess.BB_SQUARES[promo.move.to_square]:
            return  # the new piece is still in the hand
        self._promotion = None
        self._accept(promo.placed_t + self._timing.settle, promo.move, out)

    def _accept(self, t: float, move: chess.Move, out: list[Output]) -> None:
        board = self._board
        ply = len(board.move_stack) + 1
        san = board.san_and_push(move)
        out.append(MoveMade(t, move, san, ply))
        self._expected = None
        self._hint = None
        self._preselect = None
        self._touched = None
        self._adjusting = False
        self._reset_window()
        # Pieces that moved after the move completed (e.g. the opponent already lifting) stay in play.
        self._settled_done = self._occ == board.occupied

    def _reset_window(self) -> None:
        """A new position to judge from: forget the log and what was shown about the old one."""
        self._log.clear()
        self._offer = None
        self._reported_occ = None
        self._mismatch_at = None
        self._mismatch_shown = False
        self._restore = None

    def _refuse(self, t: float, code: Code, detail: str, out: list[Output], *, count: bool) -> None:
        if self._reported_occ == self._occ:
            return
        self._reported_occ = self._occ
        self._restore = code
        if count:
            self.illegal_counts[self._board.turn] += 1
        out.append(self._violation(t, code, detail))
        if count and self._arbiter and self.illegal_counts[self._board.turn] >= 2:
            loser = self._board.turn
            winner_can_mate = not self._board.has_insufficient_material(not loser)
            result = ("0-1" if loser == chess.WHITE else "1-0") if winner_can_mate else "1/2-1/2"
            out.append(Forfeit(t, loser, result))
            self._finished = True

    def _violation(self, t: float, code: Code, detail: str) -> Violation:
        return Violation(t, code, len(self._board.move_stack) + 1, self._board.turn, detail)

    def _is_takeback(self, occ: int) -> bool:
        board = self._board
        last = board.peek()
        if not occ & chess.BB_SQUARES[last.from_square]:
            return False  # the moved piece is not back where it came from
        move = board.pop()
        try:
            before = board.occupied
        finally:
            board.push(move)
        if occ != before:
            return False
        return all(self._last_event(sq) is not None for sq in chess.SquareSet(occ ^ board.occupied))

    def _apply_takeback(self, t: float, out: list[Output]) -> None:
        ply = len(self._board.move_stack)
        move = self._board.pop()
        out.append(MoveTakenBack(t, move, ply))
        self._touched = None
        self._expected = None
        self._finished = False
        self._reset_window()
        self._settled_done = self._occ == self._board.occupied

    def _is_castling_after_rook(self, occ: int) -> bool:
        """The rook went first and settled (a completed rook move), then the king followed."""
        board = self._board
        if not board.move_stack:
            return False
        last = board.peek()
        if board.piece_type_at(last.to_square) != chess.ROOK or occ & chess.BB_SQUARES[last.to_square] == 0:
            return False
        rook_move = board.pop()
        try:
            for move in board.generate_castling_moves():
                rook_from, rook_to = castling_rook_squares(board, move)
                if (rook_move.from_square, rook_move.to_square) == (rook_from, rook_to) and occupancy_after(board, move) == occ:
                    return True
            return False
        finally:
            board.push(rook_move)

    def _castling_after_rook(self, t: float, out: list[Output]) -> None:
        board = self._board
        rook_move = board.peek()
        if self._policy is Policy.CASUAL:
            ply = len(board.move_stack)
            board.pop()
            out.append(MoveTakenBack(t, rook_move, ply))
            castle = next(m for m in board.generate_castling_moves() if occupancy_after(board, m) == self._occ)
            self._accept(t, castle, out)
            return
        if self._reported_occ == self._occ:
            return
        self._reported_occ = self._occ
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
        placed_on_victim = any(
            change.occupied and board.occupied_co[not board.turn] & chess.BB_SQUARES[change.square]
            and self._first_lift(change.square) is not None
            for change in self._log
        )
        unexplained = any(self._last_event(sq) is None for sq in chess.SquareSet(occ ^ board.occupied))
        if unexplained:
            # Changed without events (a resync): only the player can say what happened.
            self._mismatch_at = t + self._timing.mismatch_delay
            self._mismatch_shown = False
            return
        if self._is_partial(occ):
            return  # a move half made: castling's king without its rook, an e.p. pawn beside its victim
        if own_missing and (extra or placed_on_victim):
            obligation = self._capture_obligation(t)
            if obligation is not None:
                self._refuse(t, Code.TOUCH_MOVE, f"{chess.square_name(obligation)} was taken off and must be captured", out, count=False)
            else:
                self._refuse(t, Code.ILLEGAL_MOVE, self._diff_detail(), out, count=True)
            return
        in_hand = not extra and chess.popcount(own_missing) <= 1 and chess.popcount(missing & ~own) <= 1
        if (in_hand and self._restore is None) or occ == 0 or self._cleared or self._finished:
            return  # a piece in the hand, or the board being cleared or set up
        self._mismatch_at = t + self._timing.mismatch_delay
        self._mismatch_shown = False
        if self._restore is not None and self._restore is not Code.MISMATCH:
            self._mismatch_at = None  # already guiding a restore

    def _is_partial(self, occ: int) -> bool:
        """Every difference from the game position belongs to one legal move, not yet finished."""
        board = self._board
        diff = occ ^ board.occupied
        if not diff & ~occ & board.occupied_co[board.turn]:
            return False  # nothing of the mover's has left its square
        for move, after in self._legal_after(diff & ~occ & board.occupied_co[board.turn]):
            changed = (board.occupied ^ after) | chess.BB_SQUARES[move.to_square]
            if not diff & ~changed and self._first_lift(move.from_square) is not None:
                return True
        return False

    def _capture_obligation(self, t: float) -> chess.Square | None:
        """An opponent's piece kept off past the settle time, while a legal move would have matched."""
        board = self._board
        theirs = board.occupied_co[not board.turn]
        off = theirs & ~self._occ
        for square in chess.SquareSet(off):
            lift = self._first_lift(square)
            if lift is None or t - lift.t < self._timing.settle:
                continue
            with_victim = self._occ | chess.BB_SQUARES[square]
            if any(after == with_victim for _, after in self._legal_after()):
                return square
        return None

    def _diff_detail(self) -> str:
        board = self._board
        missing = chess.SquareSet(board.occupied & ~self._occ)
        extra = chess.SquareSet(self._occ & ~board.occupied)
        parts = []
        if missing:
            parts.append("empty " + ",".join(chess.square_name(s) for s in missing))
        if extra:
            parts.append("occupied " + ",".join(chess.square_name(s) for s in extra))
        return "; ".join(parts) or "board matches"

    def _start_game(self, t: float, board: chess.Board, out: list[Output]) -> None:
        self._board = board.copy()
        self.illegal_counts = {chess.WHITE: 0, chess.BLACK: 0}
        self._touched = None
        self._adjusting = False
        self._promotion = None
        self._preselect = None
        self._expected = None
        self._hint = None
        self._finished = False
        self._cleared = False
        self._reset_window()
        self._settled_done = self._occ == self._board.occupied
        out.append(GameStarted(t, self._board.fen()))

    # -- LEDs ------------------------------------------------------------------------------

    def _leds(self) -> tuple[LedIntent, ...]:
        board = self._board
        lit: dict[chess.Square, Code] = {}
        diff = self._occ ^ board.occupied
        restore = self._restore
        if restore is None and self._mismatch_shown:
            restore = Code.MISMATCH
        if self._offer is not None:
            restore = Code.TAKEBACK
        if restore is not None and diff and self._promotion is None:
            for square in chess.SquareSet(diff):
                lit[square] = restore
        if self._touched is not None and self._expected is None and self._occ & chess.BB_SQUARES[self._touched]:
            lit.setdefault(self._touched, Code.TOUCH_MOVE)  # put back: a reminder that it must move
        if self._promotion is not None:
            lit[self._promotion.move.to_square] = Code.PROMOTION
        if self._expected is not None:
            for square in move_squares(board, self._expected):
                lit.setdefault(square, Code.ENGINE_MOVE)
        if self._hint is not None and self._hint in board.legal_moves:
            for square in move_squares(board, self._hint):
                lit.setdefault(square, Code.HINT)
        if self._show_legal_moves and restore is None and self._expected is None:
            own_missing = board.occupied_co[board.turn] & ~self._occ
            if chess.popcount(own_missing) == 1:
                for move in board.generate_legal_moves(own_missing):
                    lit.setdefault(move.to_square, Code.LEGAL_MOVES)
        return tuple(LedIntent(square, why) for square, why in sorted(lit.items()))
