"""The engine's turns, as the session sees them: what to ask it and when, its replies (a move
shown on the LEDs, a hint), its failures, and what its last move said (score, line, book)."""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import TYPE_CHECKING

from boardctl.core.rules import GameBoard, Move
from boardctl.events import Code, EngineReplied, LedIntent
from boardctl.reply import MATE_SCORE, Reply
from boardctl.session.model import BLUNDER_CP, ENGINE_RETRY, EngineRequest, legal

if TYPE_CHECKING:
    from boardctl.session.game import Session

log = logging.getLogger(__name__)


class EngineTurns:
    """Owns the ``request`` the engine should answer (None: nothing to ask) and the engine's
    view at its last move: ``score`` (its own side's), ``pv`` (its line, SAN) and ``book``."""

    def __init__(self, session: Session) -> None:
        self._s = session
        self.request: EngineRequest | None = None
        self.score: int | None = None  # engine's view (its own side) at its last move
        self.pv: str | None = None  # the engine's last principal variation, SAN
        self.book = False  # the engine's last move came from its opening book

    def schedule(self, t: float, *, delay: float = 0.0) -> None:
        """Ask for the engine's move from ``t + delay`` if it is its turn; else ask nothing."""
        s = self._s
        self.request = None
        if not s.is_over() and s.is_engine_turn():
            self.request = EngineRequest("move", s.board.copy(), s.serial, t + delay)

    def ask_hint(self, t: float) -> None:
        s = self._s
        self.request = EngineRequest("hint", s.board.copy(), s.serial, t)

    def not_before(self, t: float) -> None:
        """Time starts for the session at ``t``: a request made before waits no longer."""
        if self.request is not None:
            self.request = replace(self.request, not_before=t)

    def forget(self) -> None:
        """The engine's line, score and book flag belonged to a position no longer on the board:
        shown no more (a stale "9...h5 10. Qh3" with White to move) until the engine answers again."""
        self.pv, self.score, self.book = None, None, False

    @property
    def thinking(self) -> bool:
        return self.request is not None and self.request.kind == "move"

    def accepts_draw(self) -> bool:
        """The engine accepts a draw when it does not think itself better."""
        return self.score is not None and self.score <= 0

    def next(self) -> EngineRequest | None:
        """What the engine should be asked now (the daemon starts it once per request)."""
        s = self._s
        request = self.request
        if request is None or request.not_before > s.t or not s._started:
            return None
        if s.guide is not None and not s.guide.may_ask_engine(s, request.kind):
            return None  # the guide plays this move itself (a lesson's reply)
        if request.kind == "move" and not s.tracker.is_matching():
            return None  # wait until the board shows the game (after a takeback, resume or setup)
        if request.kind == "move" and request.budget is None and (budget := s.timing.budget(s.t)) is not None:
            request = replace(request, budget=budget)
            self.request = request
        return request

    def replied(self, request: EngineRequest, reply: Reply, t: float) -> None:
        """The engine answered ``request``; stale answers (the game moved on) are dropped."""
        s = self._s
        s._advance(t)
        if request is not self.request or request.serial != s.serial or s.is_over():
            log.info("dropping stale engine reply %s", reply.move.uci())
            return
        self.request = None
        # The reply as this game's own move (a log's engine line is only text until here).
        move = legal(s.board, reply.move.uci())
        if request.kind == "hint":
            s.tracker.hint(move)
            s.turning.hint(move)
            s.display.tracker_leds = s.tracker.leds()
            return
        if move is None:
            raise ValueError(f"expected move {reply.move.uci()} is not legal in {s.board.fen()}")
        s.game_log.entry(EngineReplied(t, move, reply.score))
        self._check_blunder(reply.score)
        self.score = reply.score
        self.book = reply.book
        self.pv = pv_text(request.board, reply.pv) if reply.pv else None
        s._dirty = True  # saved, so that a restart shows the same move
        s.timing.engine_shown(t)  # the human's time runs from the moment it is shown
        s.turning.assumed()
        s._apply(s.tracker.expect(move, t))
        s._after(t)

    def _check_blunder(self, score: int | None) -> None:
        s = self._s
        if not s.settings.blunder_warning or s.is_coached() or score is None or self.score is None:
            return
        if score - self.score >= BLUNDER_CP and s.board.move_stack:
            move = s.board.peek()
            s.warning = f"blunder warning: {s.board.move_stack[-1].uci()} loses about {(score - self.score) / 100:.1f} pawns"
            s.display.light([LedIntent(move.from_square, Code.BLUNDER), LedIntent(move.to_square, Code.BLUNDER)])
            s.display.sound(Code.BLUNDER)

    def failed(self, request: EngineRequest, message: str) -> None:
        """The engine could not answer even after restarts: say so, and ask again a little later."""
        if request is self.request:
            self.request = replace(request, not_before=self._s.t + ENGINE_RETRY)
        self._s.warning = f"engine failed: {message}"

    def eval(self) -> dict[str, int] | None:
        """The engine's last score, from White's side: ``{"cp": n}`` or ``{"mate": n}``."""
        human = self._s.human_color()
        if human is None or self.score is None:
            return None
        score = self.score if not human else -self.score
        if abs(score) >= MATE_SCORE - 500:
            moves = MATE_SCORE - abs(score)
            return {"mate": moves if score > 0 else -moves}
        return {"cp": score}


def pv_text(board: GameBoard, pv: tuple[Move, ...] | list[Move]) -> str | None:
    """The engine's line in the game's notation, as far as it is legal from ``board``."""
    probe = board.copy(stack=False)
    moves = []
    for step in pv:
        move = legal(probe, step.uci())
        if move is None:
            break
        moves.append(move)
        probe.push(move)
    return board.variation_san(moves) if moves else None
