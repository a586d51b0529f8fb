"""How a game ends and what the rules say meanwhile: mate, stalemate, forfeits and flags, the
buttons that end it (resign, claim, draw), illegal moves and the notices of the rules."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from boardctl.core.rules import Color
from boardctl.events import Code, GameDecided, LedIntent
from boardctl.storage import Violation
from boardctl.tracker import Forfeit, loss_result
from boardctl.tracker import Violation as TrackerViolation

if TYPE_CHECKING:
    from boardctl.session.game import Session

log = logging.getLogger(__name__)


class Referee:
    """Owns the ``draw_offer`` standing (a button's, or the other board's) and the count of
    illegal moves seen per side (``illegal_seen``: the arbiter's bonus is given once)."""

    def __init__(self, session: Session) -> None:
        self._s = session
        self.draw_offer = False
        self.illegal_seen: dict[Color, int] = dict(session.tracker.illegal_counts)

    def new_game(self) -> None:
        self.draw_offer = False
        self.illegal_seen = {True: 0, False: 0}

    def decide_end(self, t: float, forfeit: Forfeit | None = None) -> bool:
        """Mate, stalemate, a dead position, a forfeit or a fallen flag: the one place a game ends
        by itself (buttons end it in :meth:`button`). True if it ended now."""
        s = self._s
        if s.is_over():
            return False
        board = s.board
        outcome = board.outcome(claim_draw=False)
        flagged = s.timing.flagged(t)
        if forfeit is not None:
            result, why = forfeit.result, f"{s.variant.color_name(forfeit.loser)} forfeits: second illegal move"
        elif outcome is not None:
            result, why = outcome.result(), outcome.reason
        elif flagged is not None:
            result = loss_result(board, flagged)
            name = s.variant.color_name(flagged)
            why = f"{name} lost on time" if result != "1/2-1/2" else f"{name} ran out of time; opponent cannot mate"
        else:
            return False
        self.end(result, why, t)
        return True

    def end(self, result: str, termination: str, t: float) -> None:
        """The game ends now with ``result``: the tracker clears up from here on, the kings light."""
        s = self._s
        s.record.result = result
        s.record.termination = termination
        if s.local_color() is not None:
            # A network game's result may rest on the other side's word (its resignation, its
            # acceptance of this board's offer, the host's flag): logged so replay ends it here too.
            s.game_log.entry(GameDecided(max(t, s.t), result, termination))
            # Any end withdraws the offers still open (a draw, a takeback): nothing can accept them now.
            s.remote.offer = None
            self.draw_offer = False
        s.engine.request = None
        s.turning.assumed()
        s.tracker.finish()  # from now on pieces moved are cleared up (the pending move goes too)
        s.display.tracker_leds = s.tracker.leds()
        s.timing.stop(t)
        board = s.board
        kings = {"1-0": [board.king(True)], "0-1": [board.king(False)]}.get(result, [board.king(True), board.king(False)])
        s.display.light([LedIntent(sq, Code.RESULT) for sq in kings if sq is not None])
        s.display.sound(Code.RESULT)
        s.coaching.save_review()
        s.warning = f"game over: {result} ({termination})"
        s._dirty = True
        log.info("game %s over: %s (%s)", s.record.id, result, termination)

    def resign(self, loser: Color, t: float) -> None:
        self.end("0-1" if loser else "1-0", f"{self._s.variant.color_name(loser)} resigned", t)

    def claim(self, t: float) -> None:
        """A draw claimed by button: only the position on the board counts (a button cannot
        announce a move to be made)."""
        s = self._s
        claim = s.board.claimable_draw()
        if claim is not None:
            self.end("1/2-1/2", f"draw claimed: {claim}", t)
        elif s.variant.name == "chess":
            s.warning = "no draw to claim (neither threefold repetition nor the fifty-move rule)"
        elif s.variant.name == "xiangqi":
            s.warning = ("no draw to claim in xiangqi: only a cycle kept by both sides (双方不变作和) under the Chinese "
                         "rules, at its third occurrence; the Asian rules and the move limit rule by themselves")
        else:
            s.warning = f"no draw to claim in {s.variant.name}"

    def draw(self, t: float) -> None:
        """The draw button outside network games: the engine answers in play; in record mode one
        button serves both players (a second press accepts, a move declines)."""
        s = self._s
        if s.settings.mode == "play":
            if s.engine.accepts_draw():
                self.end("1/2-1/2", "draw agreed", t)
            else:
                s.warning = "the engine declines the draw"
        elif self.draw_offer:
            self.end("1/2-1/2", "draw agreed", t)
        else:
            self.draw_offer = True
            s.warning = "draw offered: press draw again to accept, or move to decline"
            s.display.light_kings(Code.DRAW_OFFER)

    def show_notice(self) -> None:
        """What the rules call for while the game goes on (xiangqi's 必须变着, a repetition's draw
        to claim): the warning says it, the side's general (or both) lights."""
        s = self._s
        notice = s.board.notice()
        if notice is None:
            return
        s.warning = notice.text
        if notice.must_vary is None:
            s.display.light_kings(Code.DRAW_OFFER)
        elif (king := s.board.king(notice.must_vary)) is not None:
            s.display.light([LedIntent(king, Code.MUST_VARY)])
            s.display.sound(Code.MUST_VARY)

    def violation(self, out: TrackerViolation) -> None:
        """An illegal move the tracker saw: the warning, the sound, the record (not in network
        games: one record on both boards), the arbiter's bonus for a first one."""
        s = self._s
        counted = s.tracker.illegal_counts[out.color]
        if s.settings.arbiter and s.clock is not None and counted == 1 and self.illegal_seen[out.color] == 0:
            # FIDE 7.5.5: the first completed illegal move gives the opponent two minutes.
            s.timing.arbiter_bonus(out.color)
        self.illegal_seen[out.color] = counted
        color = s.variant.color_name(out.color)
        detail = out.detail
        if s.local_color() is not None:  # one record on both boards: a refused attempt stays local
            detail = detail.replace("the engine's", "your opponent's")
        else:
            s.record.violations.append(Violation(len(s.record.moves), str(out.code), color, out.detail))
        s.warning = f"{color}: {out.code}: {detail}"
        s.display.sound(out.code)
        s._dirty = True
