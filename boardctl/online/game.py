"""One Lichess game through the daemon: the server's moves lit on the board, ours sent.

The session plays in its ``network`` mode (the same remote side as ``boardctl join``): the
opponent's move is given to :meth:`Session.remote_move` and lit as ``remote-move`` until made by
hand; this board's moves and button requests are read back (:meth:`Session.local_moves`,
:meth:`Session.take_requests`) after every state line and sent to Lichess. :class:`OnlineGame`
follows the game stream, reconnecting after a drop: every ``gameFull`` carries the whole move
list, compared with the board's (:func:`boardctl.online.sync.plan`), so nothing is applied or
sent twice. Clocks are the server's ``wtime``/``btime``; the result is the server's.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from boardctl.events import Code
from boardctl.online import OnlineError, PayloadError
from boardctl.online.client import LichessClient, StreamDropped
from boardctl.online.protocol import ChatLine, GameFull, GameLine, GameState, OpponentGone
from boardctl.online.sync import plan
from boardctl.session import RemoteInput, RemoteMoveError, Session

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
    """The result and termination of a finished game as the server tells it (``*`` if aborted)."""
    if state.status == "aborted":
        return "*", "aborted on Lichess"
    if state.winner is None:
        result, loser = "1/2-1/2", "nobody"
    else:
        result = "1-0" if state.winner == "white" else "0-1"
        loser = "Black" if state.winner == "white" else "White"
    words = _OVER_WORDS.get(state.status, state.status).format(loser=loser)
    return result, f"{words} (Lichess)"


class OnlineGame:
    """Follows one Lichess game and keeps the daemon's ``network`` session in step with it."""

    def __init__(self, client: LichessClient, full: GameFull, *, color: str) -> None:
        self.client = client
        self.full = full
        self.game_id = full.id
        self.color = color  # ours: white or black
        self.state = full.state
        self.daemon: Any = None  # set by attach(); a boardctl.daemon.Daemon
        self._sent: dict[int, str] = {}  # ply -> our move posted for it
        self._tasks: set[asyncio.Task[None]] = set()
        self._lock = asyncio.Lock()
        self._final: GameState | None = None
        self.connected = True
        #: The opponent left the game: (when we heard, seconds before the win may be claimed).
        self._gone_since: tuple[float, float] | None = None
        #: What happened, for the log and the tests: reconnections, refused lines.
        self.reconnects = 0
        self.refused: list[str] = []

    # -- the daemon's side ------------------------------------------------------------------------

    @property
    def session(self) -> Session:
        return self.daemon.session  # type: ignore[no-any-return]

    def attach(self, daemon: Any) -> None:
        self.daemon = daemon
        self._describe()

    def _describe(self) -> None:
        """The ``online`` key of every state line: which game, where, and whether the stream is up."""
        opponent = self.full.black if self.color == "white" else self.full.white
        self.daemon.extra_state["online"] = {
            "game": self.game_id, "url": f"{self.client.url}/{self.game_id}", "color": self.color,
            "opponent": opponent.name, "rating": opponent.rating, "rated": self.full.rated,
            "connected": self.connected,
        }

    def _now(self) -> float:
        return float(self.daemon.now())

    def _is_ours(self, ply: int) -> bool:
        """Whether ply ``ply`` (0 = the first move of the game) is ours."""
        first_is_white = self.full.initial_fen in ("startpos", "") or " w " in self.full.initial_fen
        white_moves = (ply % 2 == 0) == first_is_white
        return white_moves == (self.color == "white")

    def _refresh(self, reason: str, warning: str | None = None) -> None:
        with self.daemon.remote_input(reason) as game:
            if warning is not None:
                game.warn(self.client.redact(warning))
            self._describe()

    # -- ours, sent -------------------------------------------------------------------------------

    async def watch(self, lines: asyncio.Queue[dict[str, Any]]) -> None:
        """After every state line the daemon publishes: a move of ours just completed, and the
        requests of the board's buttons, go to Lichess."""
        while True:
            await lines.get()
            while not lines.empty():
                lines.get_nowait()
            if self._final is not None:
                with self.daemon.remote_input(Code.ONLINE, only_if_changed=True) as game:
                    self._check_final(game)
            self._send_pending()

    def _send_pending(self) -> None:
        session = self.session
        server = len(self.state.moves)
        if not self.state.is_over():
            for move in session.local_moves(server):
                if move.ply == server and self._sent.get(move.ply) != move.uci:
                    self._sent[move.ply] = move.uci
                    uci = move.uci
                    self._spawn(lambda uci=uci: self._send_move(uci))  # type: ignore[misc]
        for kind in self.daemon.take_requests():
            self._spawn(lambda kind=kind: self._request(kind))  # type: ignore[misc]

    async def _send_move(self, uci: str) -> None:
        try:
            await self.client.move(self.game_id, uci)
        except OnlineError as exc:
            log.error("%s", exc)
            # the server has not got it: the board goes back to the server's game
            with self.daemon.remote_input(Code.ONLINE) as game:
                game.takeback(len(self.state.moves), self._now())
                game.warn(self.client.redact(f"{exc}; put the move back"))
                self._describe()

    async def _request(self, kind: str) -> None:
        """A button's request (boardctl.session.NETWORK_REQUESTS) as the Lichess call for it."""
        game, client, state = self.game_id, self.client, self.state
        opp = "b" if self.color == "white" else "w"
        if kind == "resign":
            if len(state.moves) < 2:
                await client.abort(game)
            else:
                await client.resign(game)
        elif kind == "claim":
            await self._claim()
        elif kind == "draw":
            await client.offer_draw(game)
        elif kind == "takeback":
            await client.takeback(game)
        elif kind in ("accept", "decline"):
            yes = kind == "accept"
            if getattr(state, f"{opp}takeback"):
                await client.takeback(game, yes)
            else:
                await client.offer_draw(game, yes)

    async def _claim(self) -> None:
        """The claim button: the win once the opponent has been gone its ``claimWinInSeconds``
        (``claim-victory``), a draw by threefold repetition on the board (a draw "yes", which
        Lichess takes as the claim); otherwise nothing is sent and the board says why."""
        gone = self._gone_since
        if gone is not None and self._now() - gone[0] >= gone[1]:
            await self.client.claim_victory(self.game_id)
            self._refresh(Code.ONLINE, "claimed victory: your opponent left the game")
        elif gone is not None:
            left = max(0.0, gone[1] - (self._now() - gone[0]))
            self._refresh(Code.ONLINE, f"your opponent left; the win can be claimed in {left:.0f} s")
        elif self.session.board.claimable_draw() == "threefold repetition":
            await self.client.claim_draw(self.game_id)
        # otherwise the session has said there is nothing to claim (the fifty-move rule ends it by itself)

    def _spawn(self, action: Callable[[], Awaitable[None]]) -> None:
        async def run() -> None:
            async with self._lock:  # in the order the board made them
                try:
                    await action()
                except OnlineError as exc:
                    log.error("%s", exc)
                    self._refresh(Code.ONLINE, str(exc))

        task = asyncio.get_running_loop().create_task(run())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- the server's side ------------------------------------------------------------------------

    async def follow(self, stop: asyncio.Event, *, stream: AsyncIterator[GameLine] | None = None) -> None:
        """The game stream until the game ends or ``stop``; a dropped stream is opened again.
        ``stream``: the one whose ``gameFull`` this game was made from, followed on first."""
        wait = RECONNECT_FIRST
        first = stream is None
        if stream is not None:
            self._on_state(self.state)  # the gameFull read already: an answer that came meanwhile is lit
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
                        self.connected = True
                        self._sent = {ply: uci for ply, uci in self._sent.items() if ply < len(line.state.moves)}
                        self._on_state(line.state)
                    elif isinstance(line, GameState):
                        self._on_state(line)
                    elif isinstance(line, OpponentGone):
                        self._gone_since = (self._now(), float(line.claim_win_in_seconds or 0)) if line.gone else None
                        self._refresh(Code.ONLINE, "your opponent left the game: press claim to claim the win"
                                      + (f" in {line.claim_win_in_seconds} s" if line.claim_win_in_seconds else "")
                                      if line.gone else "your opponent is back")
                    elif isinstance(line, ChatLine):
                        log.info("chat (%s) %s: %s", line.room, line.username, line.text)
                    wait = RECONNECT_FIRST
                    if self.state.is_over():
                        return
            except StreamDropped as exc:
                log.warning("%s; reconnecting in %g s", exc, wait)
                self.connected = False
                self._refresh(Code.ONLINE)
            except PayloadError as exc:
                self.refused.append(str(exc))
                log.error("%s; reconnecting in %g s", exc, wait)
                self.connected = False
                self._refresh(Code.ONLINE, str(exc))
            except OnlineError as exc:
                log.error("%s; trying again in %g s", exc, wait)
                self.connected = False
                self._refresh(Code.ONLINE, str(exc))
            if self.state.is_over():
                return
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), wait)
            wait = min(wait * 2, RECONNECT_MAX)
            self.reconnects += 1

    def _on_state(self, state: GameState) -> None:
        with self.daemon.remote_input(Code.ONLINE) as game:
            self._follow(game, state)
            self._describe()

    def _follow(self, game: RemoteInput, state: GameState) -> None:
        """The server's game ``state``, given to the board's game as the other side's input."""
        previous, self.state = self.state, state
        session, t = self.session, self._now()
        local = session.network_moves()
        step = plan(local, state.moves, mine=bool(local) and self._is_ours(len(local) - 1), over=state.is_over())
        if step.take_back:
            game.takeback(len(local) - step.take_back, t)
            self._sent = {ply: uci for ply, uci in self._sent.items() if ply < len(state.moves)}
            game.reason = Code.TAKEBACK
        for ply in range(len(session.network_moves()), len(state.moves)):
            if self._is_ours(ply):
                log.error("game %s: the server has a move of ours (%s) the board has not", self.game_id,
                          state.moves[ply])
                break
            mover_left = (state.wtime if ply % 2 == 0 else state.btime) / 1000
            try:
                if game.move(ply, state.moves[ply], t, clock=mover_left if session.clock else None):
                    game.reason = Code.REMOTE_MOVE
            except RemoteMoveError as exc:
                log.error("game %s: %s", self.game_id, exc)
                self.refused.append(str(exc))
                break
        if len(state.moves) >= len(session.network_moves()) and not state.is_over():
            running = None
            if len(state.moves) >= 2:
                running = self.color if self._is_ours(len(state.moves)) else ("black" if self.color == "white" else "white")
            game.sync_clock({"white": state.wtime / 1000, "black": state.btime / 1000}, running, t)
        self._offers(game, previous, state, t)
        if state.is_over():
            result, termination = verdict(state)
            if result == "*":
                game.end("*", "abandoned", t)  # an aborted game is not resumed
                game.warn(f"game {self.game_id} {termination}")
            else:
                self._final = state
        self._check_final(game)

    def _offers(self, game: RemoteInput, previous: GameState, state: GameState, t: float) -> None:
        me, opp = ("w", "b") if self.color == "white" else ("b", "w")
        for kind in ("draw", "takeback"):
            if getattr(state, f"{opp}{kind}") and not getattr(previous, f"{opp}{kind}"):
                game.request(kind, t)
            elif (getattr(previous, f"{me}{kind}") and not getattr(state, f"{me}{kind}")
                  and not state.is_over() and state.moves == previous.moves):
                game.request("decline", t)

    def _check_final(self, game: RemoteInput) -> None:
        """The server's game is over: end the board's once its last move is made here by hand too
        (a mate by the opponent is then found here as well), so the record holds every move."""
        final, session = self._final, self.session
        if final is None or len(session.record.moves) < len(final.moves):
            return
        result, termination = verdict(final)
        if session.is_over() and session.record.result == result:
            return  # found on the board already (a mate, a stalemate): its own words stay
        game.end(result, termination, self._now())
