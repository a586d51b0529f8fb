"""Judgement: the board has settled (or the clock was pressed); what does it show?

A move (accepted, refused, or its promotion window opened), a takeback, a new game being set up,
a move half made, or a mismatch. It holds the collaborators that each own a part of the state,
and the one reset of a new game (set-up and start of game).
"""

from __future__ import annotations

from boardctl.core.geometry import Square, squares_of
from boardctl.core.rules import GameBoard, Move, Variant
from boardctl.core.tracking.captures import Captures
from boardctl.core.tracking.game import Game, start_occupancy
from boardctl.core.tracking.outputs import (
    GameStarted,
    Matched,
    MoveMade,
    MoveTakenBack,
    Output,
    Policy,
    TakebackMode,
    TakebackOffered,
    Timing,
)
from boardctl.core.tracking.promotion import Promotions
from boardctl.core.tracking.readings import BIT, Readings
from boardctl.core.tracking.recognition import Recognizer
from boardctl.core.tracking.restoration import Restoration
from boardctl.core.tracking.touch import TouchMove
from boardctl.events import Code, LedIntent


class Judgement:
    """Decides what a settled board shows, and ends turns and games (the tracker's collaborators)."""

    def __init__(
        self, variant: Variant, game: Game, readings: Readings, *, policy: Policy, timing: Timing,
        takeback: TakebackMode, arbiter: bool, show_legal_moves: bool,
    ) -> None:
        self._variant = variant
        self._start_occ = start_occupancy(variant)
        self._game = game
        self._readings = readings
        self._policy = policy
        self._timing = timing
        self._takeback = takeback
        self._show_legal_moves = show_legal_moves
        self.recognizer = Recognizer(game, readings, variant.geometry.all_mask)
        self.touch = TouchMove(policy, timing, game, readings, self.recognizer, variant.geometry.square_name)
        self.promotions = Promotions(timing, game, readings, self.accept)
        self.restoration = Restoration(
            variant, game, readings, self.recognizer, self.touch, mismatch_delay=timing.mismatch_delay, arbiter=arbiter
        )
        self.captures = Captures(
            timing.settle, game, readings, self.recognizer, self.touch, self.promotions, self.restoration, self.judge_final
        )
        #: The hint shown until the next move.
        self.hint: Move | None = None

    # -- turns and games -------------------------------------------------------------------

    def new_turn(self, expected: Move | None = None, *, keep: bool = False) -> None:
        """A new move to make: nothing touched, asked or chosen (``keep``: the hint and the piece
        chosen for a promotion stay, as when the engine's move is announced)."""
        self.touch.new_turn(expected)
        self.captures.new_turn()
        if not keep:
            self.promotions.preselect = None
            self.hint = None

    def reset_window(self) -> None:
        """A new position to judge from: forget the log and what was shown about the old one."""
        self._readings.clear()
        self.recognizer.forget()
        self.restoration.reset()

    def start_game(self, t: float, board: GameBoard, out: list[Output]) -> None:
        """A new game from ``board`` (the tracker's own: nobody else may mutate it)."""
        self._game.start(board)
        self.promotions.window = None
        self.new_turn()
        self._readings.cleared = False
        self.reset_window()
        self._readings.settled_done = self._readings.occ == board.occupied
        out.append(GameStarted(t, board.fen()))

    def finish(self) -> None:
        """The game has ended: what follows is clearing up."""
        self._game.finished = True
        self.promotions.window = None
        self.new_turn()
        self.reset_window()

    def take_back(self, t: float, plies: int, out: list[Output]) -> None:
        """Remove ``plies`` moves now; the squares to restore are lit until the board matches."""
        game = self._game
        self.promotions.window = None
        for _ in range(min(plies, len(game.board.move_stack))):
            move, ply = game.pop()
            out.append(MoveTakenBack(t, move, ply))
        self.reset_window()
        self.new_turn()
        game.finished = False
        game.over_unknown = False
        if self._readings.occ != game.board.occupied:
            self.restoration.restore = Code.TAKEBACK

    def accept(self, t: float, move: Move, out: list[Output]) -> None:
        """``move`` is made."""
        san, ply = self._game.push(move)
        out.append(MoveMade(t, move, san, ply))
        self.new_turn()
        self.reset_window()
        # Pieces that moved after the move completed (e.g. the opponent already lifting) stay in play.
        self._readings.settled_done = self._readings.occ == self._game.board.occupied

    def apply_takeback(self, t: float, out: list[Output]) -> None:
        move, ply = self._game.pop()
        out.append(MoveTakenBack(t, move, ply))
        self.new_turn()
        self.reset_window()
        self._readings.settled_done = self._readings.occ == self._game.board.occupied

    # -- judging ---------------------------------------------------------------------------

    def evaluate(self, t: float, out: list[Output]) -> None:
        """The board has settled at ``t`` (or the clock was pressed): judge what it shows."""
        game = self._game
        board = game.board
        readings = self._readings
        recognizer = self.recognizer
        restoration = self.restoration
        occ = readings.occ
        if game.finished:
            if occ == board.occupied:
                self._settle_matched(t, out)
            elif occ == self._start_occ and (board.move_stack or readings.cleared or board.fen() != self._variant.starting_fen):
                self.start_game(t, self._variant.board(), out)
            return  # clearing up after the result
        promotions = self.promotions
        if promotions.window is None and occ != board.occupied and self.captures.reply_started(t, out):
            return
        self.touch.update(t)
        if occ == board.occupied:
            if promotions.window is None:
                self._settle_matched(t, out)
            return
        if promotions.window is not None:
            return  # a promotion waits for its window to close
        confirmed = self.captures.which_confirmed()
        if confirmed is not None:
            aside = board.occupied & ~occ & ~BIT[confirmed.from_square]
            if aside:
                self.captures.complete_with_reply(t, confirmed, aside, out)  # the opponent already lifting
            else:
                self.judge_final(t, confirmed, out)
            return
        takeback = restoration.restore is Code.TAKEBACK
        candidates = recognizer.explained(occ, takeback=takeback)
        off = board.occupied & ~occ
        if not candidates and off & (off - 1):  # a move and a knocked piece leave two squares empty
            knocked = readings.knocked_off(off)
            if knocked:
                candidates = recognizer.explained(occ | knocked, takeback=takeback)  # the move, with pieces knocked over aside
        if candidates:
            self.judge_move(t, candidates[0], out)
            return
        castle = board.compound_after(occ) if board.move_stack else None
        if castle is not None:
            return self._castling_after_rook(t, castle, out)
        if self._takeback is not TakebackMode.OFF and board.move_stack and recognizer.is_takeback(occ):
            if game.check_over():
                return self.evaluate(t, out)  # stalemate: moving back is clearing up
            move = board.peek()
            if self._takeback is TakebackMode.APPLY:
                self.apply_takeback(t, out)
            elif restoration.offer != move:
                restoration.offer = move
                out.append(TakebackOffered(t, move))
            return
        restoration.offer = None
        if occ == self._start_occ and readings.cleared:
            self.start_game(t, self._variant.board(), out)
            return
        hidden = recognizer.hidden_from()
        if hidden is not None and not self.captures.which:
            lift = readings.first_lift(hidden)
            assert lift is not None
            blinked = readings.blinked_since(lift.t) if readings.blinks else 0
            targets = recognizer.capture_targets(hidden) if blinked else 0
            if blinked & targets:
                # A square it could take blinked and all has been still since: its victim pushed
                # off. (A brush of such a square while the piece is held longer than the settle
                # time reads the same: docs/events.md.)
                capture = self.captures.resolve(t, hidden, targets)
                if capture is not None:
                    self.judge_final(t, capture, out)
                return
            restoration.capture_at = t + self._timing.mismatch_delay  # it checks for a capture then
        restoration.judge_unexplained(t, out)

    def _settle_matched(self, t: float, out: list[Output]) -> None:
        was_off = not self.restoration.idle()
        self.reset_window()
        self._readings.cleared = False
        if self.captures.which:
            self.captures.answered()
        if was_off:
            out.append(Matched(t))

    def _castling_after_rook(self, t: float, castle: Move, out: list[Output]) -> None:
        """The rook went first and settled (a completed rook move), then the king followed
        (the chess rules' :meth:`~boardctl.core.rules.GameBoard.compound_after`)."""
        board = self._game.board
        if self._policy is Policy.CASUAL:
            rook_move = board.peek()
            ply = len(board.move_stack)
            board.pop()
            out.append(MoveTakenBack(t, rook_move, ply))
            self.accept(t, castle, out)
            return
        self.restoration.rook_first(t, out)

    def judge_final(self, t: float, move: Move, out: list[Output]) -> bool:
        """:meth:`judge_move` with no promotion window: the move is complete."""
        return self.judge_move(t, move, out, final=True)

    def judge_move(self, t: float, move: Move, out: list[Output], *, final: bool = False) -> bool:
        """Accept ``move`` (or open its promotion window), or refuse it; True if accepted."""
        board = self._game.board
        expected = self.touch.expected
        if expected is not None:
            if (move.from_square, move.to_square) != (expected.from_square, expected.to_square):
                self.restoration.refuse(t, Code.ILLEGAL_MOVE, f"{board.san(move)} instead of the engine's {board.san(expected)}", out, count=False)
                return False
            self.accept(t, expected, out)
            return True
        refusal = self.touch.refusal(move)
        if refusal is not None:
            self.restoration.refuse(t, refusal[0], refusal[1], out, count=False)
            return False
        if board.choice_of(move) is not None and not final:
            self.promotions.open(t, move)
            return True
        self.accept(t, move, out)
        return True

    # -- LEDs ------------------------------------------------------------------------------

    def leds(self) -> tuple[LedIntent, ...]:
        """The complete LED set wanted now."""
        touch = self.touch
        promotion = self.promotions.window
        if (
            self.restoration.idle() and promotion is None and not self._show_legal_moves and not self.captures.which
            and touch.touched is None and touch.victim is None and touch.expected is None and self.hint is None
        ):
            return ()  # the usual case: nothing to show
        board = self._game.board
        lit: dict[Square, Code] = {}
        restore = self.restoration.show(lit, promoting=promotion is not None)
        for square in self.captures.which:
            lit.setdefault(square, Code.WHICH_CAPTURE)
        touch.show(lit)
        if promotion is not None:
            lit[promotion.move.to_square] = Code.PROMOTION
        if touch.expected is not None:
            for square in squares_of(board.move_mask(touch.expected)):
                lit.setdefault(square, Code.ENGINE_MOVE)
        if self.hint is not None and board.is_legal(self.hint):
            for square in squares_of(board.move_mask(self.hint)):
                lit.setdefault(square, Code.HINT)
        if self._show_legal_moves and restore is None and touch.expected is None:
            own_missing = board.occupied_co[board.turn] & ~self._readings.occ
            if own_missing.bit_count() == 1:
                for move in board.generate_legal_moves(own_missing):
                    lit.setdefault(move.to_square, Code.LEGAL_MOVES)
        return tuple(LedIntent(square, why) for square, why in sorted(lit.items()))
