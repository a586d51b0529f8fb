"""The buttons' meanings in a game (the tracker passes them on): new game, takeback, hint,
resign, claim, draw; in a network game most go to the other side, in a guided one the guide
may give them its own."""

from __future__ import annotations

from typing import TYPE_CHECKING

from boardctl.events import Button

if TYPE_CHECKING:
    from boardctl.session.game import Session


class Buttons:
    """Owns no state of its own: each button is carried out by the part it concerns
    (``remote``, ``takebacks``, ``engine``, ``referee``) or the guide."""

    def __init__(self, session: Session) -> None:
        self._s = session

    def pressed(self, button: Button, t: float) -> None:
        """``button`` pressed (the tracker passes it on once the board allows)."""
        s = self._s
        if s.local_color() is not None and button in (Button.RESIGN, Button.CLAIM, Button.DRAW, Button.TAKEBACK):
            s.remote.button(button, t)
            return
        if s.guide is not None and s.guide.on_button(s, button, t):
            return  # the guide's own meaning of the button (a lesson's hint, a replay's step)
        if button == Button.NEW_GAME:
            pass  # the tracker has started the new game itself (GameStarted follows)
        elif button == Button.TAKEBACK:
            s.takebacks.take_back(t)
        elif s.is_over():
            s.warning = f"the game is over ({s.record.result}); press new-game"
        elif button == Button.HINT:
            if s.settings.mode == "play" and s.is_engine_turn():
                # The engine's own move is being asked for or shown: a hint would replace that
                # request, and the game would wait for a move nobody asks for any more.
                s.warning = "a hint is for your own move; the engine is to move"
            elif s.settings.mode == "play":
                s.engine.ask_hint(t)
            else:
                s.warning = "hints come from the engine: only in boardctl play"
        elif button == Button.RESIGN:
            loser = s.human_color()
            s.referee.resign(s.board.turn if loser is None else loser, t)
        elif button == Button.CLAIM:
            s.referee.claim(t)
        elif button == Button.DRAW:
            s.referee.draw(t)
