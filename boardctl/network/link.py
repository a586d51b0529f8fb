"""What both ends of a board-to-board game do alike (docs/network-protocol.md).

Both follow their daemon's state lines (a move is complete the moment its settle time is over),
read the other side's text frames into validated messages and hand each to its handler, and pass
offers and answers between the players. :class:`boardctl.network.host.HostLink` and
:class:`boardctl.network.join.JoinLink` differ only in authority: the host applies the guest's
moves, decides results, takebacks and rematches, and sends the game as ``state``; the guest sends
its moves and requests, and applies the host's ``state``, ``takeback`` and ``welcome``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any, ClassVar

from boardctl.daemon import Daemon
from boardctl.errors import BoardctlError
from boardctl.network import protocol
from boardctl.network.protocol import (
    Error,
    MoveMsg,
    ProtocolError,
    Request,
    State,
    Takeback,
    Welcome,
)
from boardctl.session import RemoteInput, Session

log = logging.getLogger(__name__)

#: Requests that are offers: the other side answers them with ``accept`` or ``decline``.
OFFERS = ("draw", "takeback", "rematch")


class RequestRefused(BoardctlError, ValueError):
    """A request from the other side that cannot be carried out now (the game is over, no offer
    of this board stands): answered with a non-fatal ``error``, nothing changes."""


class SettleTimer:
    """Completes a move the moment its settle time is over, not at the daemon's next 50 ms tick:
    a piece placed (the occupancy changed) schedules one tick just after the settle time, so the
    other board lights the move with no tick's delay (bench/network.py)."""

    def __init__(self, daemon: Daemon) -> None:
        self.daemon = daemon
        self._occupancy: Any = None
        self._handle: asyncio.TimerHandle | None = None

    def saw(self, line: dict[str, Any]) -> None:
        occupancy = line.get("occupancy")
        if occupancy == self._occupancy:
            return
        self._occupancy = occupancy
        if self._handle is not None:
            self._handle.cancel()
        session = self.daemon.session
        since = max(0.0, self.daemon.now() - session.t)  # the change was stamped when it was read
        delay = max(0.0, session.settings.settle + 0.002 - since)
        self._handle = asyncio.get_running_loop().call_later(delay, self._tick)

    def _tick(self) -> None:
        self._handle = None
        with contextlib.suppress(Exception):  # the daemon's own ticker logs failures
            self.daemon.tick()

    def cancel(self) -> None:
        if self._handle is not None:
            self._handle.cancel()


class Link:
    """One end of the game's WebSocket: the common part of the host's and the guest's."""

    #: "host" or "guest", for messages.
    role: ClassVar[str] = "board"

    def __init__(self, daemon: Daemon) -> None:
        self.daemon = daemon
        self._ws: Any = None  # the open WebSocket (server or client side), None while down
        # The other side's offer awaiting this board's answer, and this board's awaiting the
        # other's, each with the game's length when it was made (see :meth:`_standing`).
        self._offer_in: tuple[str, int] | None = None
        self._offer_out: tuple[str, int] | None = None

    @property
    def offer_in(self) -> str | None:
        """The other side's offer that still stands (:meth:`_standing`)."""
        self._offer_in = self._standing(self._offer_in)
        return None if self._offer_in is None else self._offer_in[0]

    @offer_in.setter
    def offer_in(self, kind: str | None) -> None:
        self._offer_in = None if kind is None else (kind, len(self.session.network_moves()))

    @property
    def offer_out(self) -> str | None:
        """This board's offer that still stands (:meth:`_standing`)."""
        self._offer_out = self._standing(self._offer_out)
        return None if self._offer_out is None else self._offer_out[0]

    @offer_out.setter
    def offer_out(self, kind: str | None) -> None:
        self._offer_out = None if kind is None else (kind, len(self.session.network_moves()))

    def _standing(self, offer: tuple[str, int] | None) -> tuple[str, int] | None:
        """``offer`` if it still stands: a rematch while the game is over; a draw or takeback
        while the game runs and no move was made since (the offerer's move withdraws it, the
        other's declines it; a resignation, a flag, a mate or any other end withdraws it)."""
        if offer is None:
            return None
        kind, moves = offer
        if kind == "rematch":
            return offer if self.session.is_over() else None
        if self.session.is_over() or len(self.session.network_moves()) != moves:
            return None
        return offer

    @property
    def session(self) -> Session:
        return self.daemon.session

    @property
    def is_connected(self) -> bool:
        return self._ws is not None and not self._ws.closed

    # -- the other side's messages ----------------------------------------------------------------

    def receive(self, data: str, *, where: str) -> None:
        """One text frame: validated (ProtocolError says what is wrong) and handed to its handler;
        a move that cannot be the game's raises RemoteMoveError."""
        message = protocol.parse(data, where=where)
        now = self.daemon.now()
        if isinstance(message, MoveMsg):
            self.on_move(message, now)
        elif isinstance(message, State):
            self.on_state(message, now)
        elif isinstance(message, Takeback):
            self.on_takeback(message, now)
        elif isinstance(message, Welcome):
            self.on_welcome(message, now)
        elif isinstance(message, Request):
            self.on_request(message.kind, now)
        elif isinstance(message, Error):
            self.on_error(message)
        else:
            self.not_for_me(message)

    def not_for_me(self, message: protocol.Message) -> None:
        raise ProtocolError(f"a {message.type} message is not for the {self.role}")

    # The side with the authority for a message overrides its handler; the other refuses it.
    def on_move(self, message: MoveMsg, now: float) -> None:
        self.not_for_me(message)

    def on_state(self, message: State, now: float) -> None:
        self.not_for_me(message)

    def on_takeback(self, message: Takeback, now: float) -> None:
        self.not_for_me(message)

    def on_welcome(self, message: Welcome, now: float) -> None:
        self.not_for_me(message)

    def on_error(self, message: Error) -> None:
        log.warning("network: the other board says: %s", message.message)

    def on_request(self, kind: str, now: float) -> None:
        """Offers and answers pass between the players alike; what comes of a resignation, a
        claim or an accepted offer is the host's to decide (:meth:`decide`)."""
        session = self.session
        if kind in ("draw", "takeback") and session.is_over():
            raise RequestRefused(f"{kind}: the game is over ({session.record.result}); its result is final")
        with self.daemon.remote_input("network") as game:
            if kind in ("draw", "takeback"):
                self.offer_in = kind
                game.request(kind, now)
            elif kind == "decline":
                self.offer_out = None
                game.request("decline", now)
            elif kind == "rematch":
                self.on_rematch(game, now)
            else:  # resign, claim, accept
                self.decide(game, kind, now)

    def on_rematch(self, game: RemoteInput, now: float) -> None:
        self.offer_in = "rematch"
        game.request("rematch", now)

    def decide(self, game: RemoteInput, kind: str, now: float) -> None:
        """The guest decides nothing: the host's ``state`` says what came of it."""

    # -- this board's side ------------------------------------------------------------------------

    def requests_out(self, now: float) -> list[str]:
        """This board's requests since the last call (its buttons, boardctl.session): an offer is
        remembered until answered, an answer settles the other side's offer. Each then goes
        through :meth:`request_out`, the authority's own part; returns the kinds to send."""
        out: list[str] = []
        for kind in self.daemon.take_requests():
            answered = None
            if kind in OFFERS:
                self.offer_out = kind
            elif kind in ("accept", "decline"):
                answered, self.offer_in = self.offer_in, None
            if self.request_out(kind, answered, now):
                out.append(kind)
        return out

    def request_out(self, kind: str, answered: str | None, now: float) -> bool:
        """Whether ``kind`` goes to the other side as a ``request`` (``answered``: the offer an
        ``accept`` or ``decline`` answers)."""
        return True

    async def send(self, message: protocol.Message) -> bool:
        """Send ``message`` now if connected; False if not (or the send failed)."""
        ws = self._ws
        if ws is None or ws.closed:
            return False
        try:
            await ws.send_str(protocol.dumps(message))
        except (ConnectionError, RuntimeError, OSError) as exc:
            log.info("network: could not send a %s: %s", message.type, exc)
            return False
        return True

    async def follow(self, stop: asyncio.Event) -> None:
        """Until ``stop``: after every state line the daemon publishes, :meth:`after_line` (moves
        and requests out, the game to the guest); a placed piece completes at its settle time."""
        queue = self.daemon.subscribe()
        timer = SettleTimer(self.daemon)
        try:
            while not stop.is_set():
                line = await queue.get()
                while not queue.empty():
                    line = queue.get_nowait()
                timer.saw(line)
                await self.after_line()
        finally:
            timer.cancel()
            self.daemon.unsubscribe(queue)

    async def after_line(self) -> None:
        raise NotImplementedError

    async def close(self) -> None:
        ws, self._ws = self._ws, None
        if ws is not None and not ws.closed:
            with contextlib.suppress(Exception):
                await ws.close()
