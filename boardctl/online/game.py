"""One Lichess game through the daemon: the server's moves lit on the board, ours sent.

The opponent sits where the engine sits in ``boardctl play``: the daemon asks it for a move when
it is the opponent's turn (:class:`LichessOpponent` is the daemon's ``engine``), and asking is
also when our move, complete on the board, is sent. :class:`OnlineGame` follows the game stream
(reconnecting after a drop: every ``gameFull`` carries the whole move list, compared by
:func:`boardctl.online.sync.plan`, so nothing is applied twice), keeps the clocks at the
server's ``wtime``/``btime``, ends the game when the server says it ended, and sends the board's
draw, takeback and resign buttons to Lichess.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

from boardctl.core.rules import GameBoard
from boardctl.engine_client import Reply
from boardctl.errors import EngineError
from boardctl.events import Button, Code
from boardctl.online import OnlineError, PayloadError
from boardctl.online.client import LichessClient, StreamDropped
from boardctl.online.protocol import ChatLine, GameFull, GameLine, GameState, OpponentGone
from boardctl.online.sync import plan
from boardctl.session import Session

log = logging.getLogger(__name__)

#: Reconnecting a dropped game stream: first wait, doubled up to the last.
RECONNECT_FIRST = 0.5
RECONNECT_MAX = 30.0

_OVER_WORDS = {
    "mate": "checkmate",
    "resign": "{loser} resigned",
    "stalemate": "stalemate",
    "timeout": "{loser} left the game",
    "outoftime": "{loser} lost on time",
    "draw": "draw agreed",
    "cheat": "{loser} forfeits (Lichess: cheat detected)",
    "noStart": "{loser} did not start the game",
    "insufficientMaterialClaim": "draw: insufficient material",
    "variantEnd": "variant ending",
    "unknownFinish": "finished on Lichess",
}


def verdict(state: GameState) -> tuple[str, str]:
    """The result and termination of a finished game as the server tells it."""
    if state.status == "aborted":
        return "*", "aborted on Lichess"
    if state.winner is None:
        result = "1/2-1/2"
        loser = "nobody"
    else:
        result = "1-0" if state.winner == "white" else "0-1"
        loser = "Black" if state.winner == "white" else "White"
    words = _OVER_WORDS.get(state.status, state.status).format(loser=loser)
    return result, f"{words} (Lichess)"


class LichessOpponent:
    """The daemon's ``engine`` for an online game: its "move" is the opponent's, from Lichess."""

    level = "lichess"

    def __init__(self, game: OnlineGame) -> None:
        self.game = game

    async def set_level(self, level: str) -> None:
        return None

    async def play(self, board: GameBoard, *, budget: float | None = None) -> Reply:
        return await self.game.opponent_move(board)

    async def hint(self, board: GameBoard) -> Reply:
        raise EngineError("no hints in an online game")

    async def close(self) -> None:
        return None


class OnlineGame:
    """Follows one Lichess game and keeps the daemon's session in step with it."""

    def __init__(self, client: LichessClient, full: GameFull, *, color: str) -> None:
        self.client = client
        self.full = full
        self.game_id = full.id
        self.color = color  # ours: white or black
        self.state = full.state
        self.daemon: Any = None  # set by attach(); a boardctl.daemon.Daemon
        self._changed = asyncio.Event()
        self._sent: dict[int, str] = {}  # ply -> our move posted for it
        self._tasks: set[asyncio.Task[None]] = set()
        #: What happened, for the log and the tests: reconnections, refused lines.
        self.reconnects = 0
        self.refused: list[str] = []

    # -- the daemon's side ------------------------------------------------------------------------

    @property
    def session(self) -> Session:
        return self.daemon.session  # type: ignore[no-any-return]

    def attach(self, daemon: Any) -> None:
        self.daemon = daemon
        self.session.button_hook = self._on_button

    def _now(self) -> float:
        return float(self.daemon.now())

    def _is_ours(self, ply: int) -> bool:
        """Whether ply ``ply`` (0 = the first move of the game) is ours."""
        first_is_white = self.full.initial_fen in ("startpos", "") or " w " in self.full.initial_fen
        white_moves = (ply % 2 == 0) == first_is_white
        return white_moves == (self.color == "white")

    def _publish(self, warning: str | None = None) -> None:
        if warning is not None:
            self.session.warning = self.client.redact(warning)
        self.daemon.changed(Code.ONLINE)

    # -- the opponent's moves, ours sent ----------------------------------------------------------

    async def opponent_move(self, board: GameBoard) -> Reply:
        """Wait for the opponent's answer to the board's position (our move is sent by :meth:`watch`)."""
        local = [move.uci() for move in board.move_stack]
        while True:
            state = self.state
            if (not state.is_over() and len(state.moves) > len(local)
                    and list(state.moves[: len(local)]) == local):
                uci = state.moves[len(local)]
                try:
                    move = board.parse_uci(uci)
                except ValueError:
                    raise EngineError(f"Lichess sent move {uci}, not legal here ({board.fen()})") from None
                asyncio.get_running_loop().call_soon(self._sync_clock)  # after the daemon applied it
                return Reply(move, None)
            self._changed.clear()
            await self._changed.wait()

    def _check_local(self) -> None:
        """Send our move once it is complete on the board (the session has recorded it), even
        when it ended the game here (a mate)."""
        local = self.session.record.moves
        if not local or self.state.is_over():
            return
        step = plan(local, self.state.moves, mine=self._is_ours(len(local) - 1))
        ply = len(local) - 1
        if step.send is not None and self._sent.get(ply) != step.send:
            self._sent[ply] = step.send
            self._spawn(lambda: self._send(step.send or ""))

    async def watch(self, lines: asyncio.Queue[dict[str, Any]]) -> None:
        """Every state line the daemon publishes: a move of ours just completed is sent."""
        while True:
            await lines.get()
            self._check_local()

    async def _send(self, uci: str) -> None:
        try:
            await self.client.move(self.game_id, uci)
        except OnlineError as exc:
            log.error("%s", exc)
            self._publish(f"{exc}; the board goes back to the server's position")
            self._resync(self._now(), refused=True)

    # -- the server's side ------------------------------------------------------------------------

    async def follow(self, stop: asyncio.Event, *, stream: AsyncIterator[GameLine] | None = None) -> None:
        """The game stream until the game ends or ``stop``; a dropped stream is opened again.
        ``stream``: the one whose ``gameFull`` this game was made from, followed on first."""
        wait = RECONNECT_FIRST
        first = stream is None
        while not stop.is_set():
            lines = stream if stream is not None else self.client.game(self.game_id)
            stream = None
            try:
                async for line in lines:
                    if isinstance(line, GameFull):
                        if not first:
                            log.info("game %s: stream back, %d moves on the server", self.game_id,
                                     len(line.state.moves))
                        first = False
                        self._sent = {ply: uci for ply, uci in self._sent.items() if ply < len(line.state.moves)}
                        self._on_state(line.state)
                    elif isinstance(line, GameState):
                        self._on_state(line)
                    elif isinstance(line, OpponentGone):
                        self._publish("your opponent left the game" if line.gone else "your opponent is back")
                    elif isinstance(line, ChatLine):
                        log.info("chat (%s) %s: %s", line.room, line.username, line.text)
                    wait = RECONNECT_FIRST
                    if self.state.is_over():
                        return
            except StreamDropped as exc:
                log.warning("%s; reconnecting in %g s", exc, wait)
            except PayloadError as exc:
                self.refused.append(str(exc))
                log.error("%s; reconnecting in %g s", exc, wait)
                self._publish(str(exc))
            except OnlineError as exc:
                log.error("%s; trying again in %g s", exc, wait)
                self._publish(str(exc))
            if self.state.is_over():
                return
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), wait)
            wait = min(wait * 2, RECONNECT_MAX)
            self.reconnects += 1

    def _on_state(self, state: GameState) -> None:
        previous, self.state = self.state, state
        t = self._now()
        self._resync(t)
        self._sync_clock()
        opp = "b" if self.color == "white" else "w"
        offers = []
        if getattr(state, f"{opp}draw") and not getattr(previous, f"{opp}draw"):
            offers.append("your opponent offers a draw: press draw to accept")
        if getattr(state, f"{opp}takeback") and not getattr(previous, f"{opp}takeback"):
            offers.append("your opponent asks for a takeback: press takeback to accept")
        if state.is_over():
            result, termination = verdict(state)
            if result == "*":
                self.session.record.termination = "abandoned"  # an aborted game is not resumed
                self.session.warning = f"game {self.game_id} {termination}"
                self.session.record.result = "*"
            else:
                self.session.end_remote(result, termination, t)
        self._changed.set()
        self._publish("; ".join(offers) if offers else None)

    def _resync(self, t: float, *, refused: bool = False) -> None:
        """Take back on the board what the server does not have (a takeback it agreed, a refused
        move); a shown move the server no longer has goes off the LEDs."""
        session = self.session
        local = list(session.record.moves)
        mine = bool(local) and self._is_ours(len(local) - 1)
        step = plan(local, self.state.moves, mine=mine and not refused, over=self.state.is_over())
        pending = session.pending
        if step.take_back:
            session.take_back(t, plies=step.take_back)
            for ply in list(self._sent):
                if ply >= len(local) - step.take_back:
                    del self._sent[ply]
        elif pending is not None:
            n = len(local)
            if len(self.state.moves) <= n or self.state.moves[n] != pending.uci():
                session.take_back(t, plies=0)

    def _sync_clock(self) -> None:
        """The session's clock set to the server's times; the side to move runs (Lichess starts
        the clocks once both sides have moved)."""
        clock = self.session.clock
        if clock is None or self.daemon is None:
            return
        t = self._now()
        state = self.state
        clock.stop(t)
        clock.take_back(True, state.wtime / 1000)
        clock.take_back(False, state.btime / 1000)
        if not state.is_over() and len(state.moves) >= 2 and not self.session.is_over():
            ours = self._is_ours(len(state.moves))  # the server's side to move, shown or not
            clock.start((self.color == "white") == ours, t)

    # -- the board's buttons ----------------------------------------------------------------------

    def _on_button(self, button: Button, t: float) -> bool:
        """Draw, takeback and resign go to Lichess; the server's answer ends or changes the game."""
        if self.session.is_over() and button != Button.TAKEBACK:
            return False
        state = self.state
        opp = "b" if self.color == "white" else "w"
        action: Callable[[], Any] | None = None
        if button in (Button.DRAW, Button.CLAIM):
            accepting = bool(getattr(state, f"{opp}draw"))
            action = lambda: self.client.offer_draw(self.game_id)  # noqa: E731
            self.session.warning = "draw accepted on Lichess" if accepting else "draw offered on Lichess"
        elif button == Button.TAKEBACK:
            if self.session.is_over():
                return True
            accepting = bool(getattr(state, f"{opp}takeback"))
            action = lambda: self.client.takeback(self.game_id)  # noqa: E731
            self.session.warning = "takeback accepted on Lichess" if accepting else "takeback asked on Lichess"
        elif button == Button.RESIGN:
            if len(state.moves) < 2:
                action = lambda: self.client.abort(self.game_id)  # noqa: E731
                self.session.warning = "aborting the game on Lichess"
            else:
                action = lambda: self.client.resign(self.game_id)  # noqa: E731
                self.session.warning = "resigning on Lichess"
        elif button == Button.HINT:
            self.session.warning = "no hints in an online game"
            return True
        else:
            return False
        self._spawn(action)
        return True

    def _spawn(self, action: Callable[[], Any]) -> None:
        async def run() -> None:
            try:
                await action()
            except OnlineError as exc:
                log.error("%s", exc)
                self._publish(str(exc))

        task = asyncio.get_running_loop().create_task(run())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
