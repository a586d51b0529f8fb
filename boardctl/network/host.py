"""The host's side: the ``/net`` WebSocket endpoint on the web server, and the authoritative game.

One guest at a time: it says ``hello`` with the one-time invitation code (exchanged for a token,
stored mode 0600) or, after that, with the token; a later connection with the token replaces an
earlier one (a reconnect). The host's session holds the moves, the clocks and the result; every
change goes to the guest as a full ``state`` (docs/network-protocol.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from aiohttp import WSMsgType, web

from boardctl import backoff
from boardctl.backoff import GlobalBackoff
from boardctl.daemon import Daemon
from boardctl.errors import PinError
from boardctl.events import Code
from boardctl.network import protocol
from boardctl.network.link import Link, RequestRefused
from boardctl.network.protocol import (
    Error,
    Hello,
    MoveMsg,
    ProtocolError,
    Request,
    State,
    Takeback,
    Welcome,
)
from boardctl.network.tokens import Ticket, TicketStore, new_code, new_token, same_secret
from boardctl.session import RemoteInput, RemoteMoveError, Session

log = logging.getLogger(__name__)

#: Seconds a new connection has to say ``hello``.
HELLO_TIMEOUT = 10.0
#: Seconds before a wrong code or token is answered (slows guessing).
WRONG_SECRET_DELAY = 1.0
#: Bad messages tolerated on one connection before it is closed.
MAX_BAD_MESSAGES = 50
#: Wrong codes or tokens from all addresses together before the global back-off starts: each
#: further one closes the code to everyone for twice as long as the last, up to GLOBAL_MAX_DELAY.
GLOBAL_FREE_FAILURES = backoff.FREE_FAILURES
GLOBAL_MAX_DELAY = backoff.MAX_DELAY
#: With no wrong code or token for this long, the global count starts again (a right one resets it too).
GLOBAL_QUIET_SECONDS = backoff.QUIET_SECONDS


class WrongSecrets(GlobalBackoff):
    """The global limit on guessing the invitation code, whatever the source (as for the page's
    PIN, boardctl.web.server): parallel connections from one or many addresses share it. While
    closed, codes are refused unchecked; tokens (256 random bits, not guessable) are still
    checked, so the guest that joined reconnects during an attack."""

    def __init__(self, *, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(clock=clock, free=GLOBAL_FREE_FAILURES, max_delay=GLOBAL_MAX_DELAY,
                         quiet=GLOBAL_QUIET_SECONDS)


def state_of(session: Session, t: float) -> State:
    """The authoritative game as the guest gets it."""
    clock = session.clock
    remaining: dict[str, float] = {}
    running: str | None = None
    if clock is not None:
        data = clock.to_json(t)
        running = data.pop("running")
        remaining = {str(k): float(v) for k, v in data.items()}
    board = session.board.copy(stack=False)
    if session.pending is not None and session.is_remote_turn():
        board.push(session.pending)
    moves = tuple(session.network_moves())
    return State(
        fen=board.fen(),
        moves=moves,
        san=_named(session, moves),
        clocks=tuple(session.network_clocks()),
        remaining=remaining,
        running=running,
        result=session.record.result,
        termination=session.record.termination,
    )


def _named(session: Session, moves: tuple[str, ...]) -> tuple[str, ...]:
    """``moves`` in the game's notation from the game's start (empty if one cannot be read)."""
    replay = session.variant.board(session.record.fen)
    names = []
    try:
        for uci in moves:
            move = replay.parse_uci(uci)
            names.append(replay.san(move))
            replay.push(move)
    except ValueError:
        return ()
    return tuple(names)


def takeback_target(session: Session, requester: bool) -> int:
    """How long the game is after a takeback that leaves ``requester`` to move."""
    moves = len(session.network_moves())
    if moves == 0:
        return 0
    start = session.variant.board(session.record.fen).turn
    last_mover = start if (moves - 1) % 2 == 0 else not start
    return max(0, moves - 1 if last_mover == requester else moves - 2)


class HostLink(Link):
    """Serves the guest (``handle`` is the aiohttp handler of ``/net``), with the authority: the
    guest's moves applied, results, takebacks and rematches decided, the game sent as ``state``."""

    role = "host"

    def __init__(self, daemon: Daemon, store: TicketStore, ticket: Ticket) -> None:
        super().__init__(daemon)
        self.store = store
        self.ticket = ticket
        self._sent: State | None = None
        self._outbox: list[protocol.Message] = []
        #: What the state lines show under ``invite`` (address, code while unused, fingerprint).
        self.invite: dict[str, Any] | None = None
        #: Wrong codes and tokens from anywhere (the global rate limit).
        self.wrong_secrets = WrongSecrets()
        self._update_extra()

    def _update_extra(self) -> None:
        self.daemon.extra_state["network"] = {"role": "host", "connected": self.is_connected,
                                             "joined": self.ticket.token is not None}

    # -- the endpoint -----------------------------------------------------------------------------

    async def handle(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(heartbeat=5.0, max_msg_size=protocol.MAX_MESSAGE_BYTES)
        await ws.prepare(request)
        remote = request.remote or "?"
        try:
            if not await self._hello(ws, remote):
                return ws
            old, self._ws = self._ws, ws
            if old is not None and not old.closed:
                await old.close(code=4000, message=b"replaced by a newer connection")
            self._sent = None
            self._outbox.clear()  # the welcome said it all
            self._update_extra()
            log.warning("network: the other board joined from %s", remote)
            self.daemon.refresh("network")
            await self._push()
            await self._serve(ws)
        except (ConnectionResetError, asyncio.CancelledError):
            pass
        finally:
            if self._ws is ws:
                self._ws = None
                self._update_extra()
                log.warning("network: connection to the other board lost; it may reconnect")
                with contextlib.suppress(Exception):
                    self.daemon.refresh("network")
        return ws

    async def _refuse(self, ws: web.WebSocketResponse, message: str) -> bool:
        with contextlib.suppress(Exception):
            await ws.send_str(protocol.dumps(Error(message, fatal=True)))
            await ws.close(code=4001, message=message[:100].encode())
        return False

    async def _hello(self, ws: web.WebSocketResponse, remote: str) -> bool:
        """Check the first message; True once the guest is let in (welcome sent)."""
        try:
            msg = await asyncio.wait_for(ws.receive(), HELLO_TIMEOUT)
        except TimeoutError:
            return await self._refuse(ws, "no hello")
        if msg.type != WSMsgType.TEXT:
            return False
        try:
            hello = protocol.parse(msg.data, where="hello")
        except ProtocolError as exc:
            return await self._refuse(ws, str(exc))
        if not isinstance(hello, Hello):
            return await self._refuse(ws, "the first message must be hello")
        ticket = self.ticket
        # The secret first: nothing about the game (not even its variant) for a wrong one.
        if hello.code is not None:
            closed = self.wrong_secrets.closed_for()
            if closed > 0:
                await asyncio.sleep(WRONG_SECRET_DELAY)
                return await self._refuse(ws, f"too many wrong invitation codes on this board recently; "
                                              f"try again in {closed:.0f} s")
            if not same_secret(hello.code, ticket.code):
                self.wrong_secrets.failed()
                await asyncio.sleep(WRONG_SECRET_DELAY)
                log.warning("network: wrong or used invitation code from %s", remote)
                return await self._refuse(ws, "wrong or already used invitation code")
        elif not same_secret(hello.token, ticket.token):
            self.wrong_secrets.failed()
            await asyncio.sleep(WRONG_SECRET_DELAY)
            log.warning("network: wrong game token from %s", remote)
            return await self._refuse(ws, "wrong game token (this board hosts another game now)")
        if hello.code is not None:
            self.wrong_secrets.succeeded()  # the code's one use ends the guessing anyway
        variant = self.session.variant.name
        if hello.variant != variant:  # the code is not used up by a board of the other game
            log.warning("network: refused a board playing %s (this game is %s)", hello.variant, variant)
            return await self._refuse(ws, f"this game is {variant} and your board plays {hello.variant}: both boards must "
                                          f"play the same game (join with --variant {variant})")
        if hello.code is not None:
            ticket = ticket.with_token(new_token())
            self.store.save(ticket)
            self.ticket = ticket
            if self.invite is not None:
                self.invite = {**self.invite, "code": None}
                self.daemon.extra_state["invite"] = self.invite
        await ws.send_str(protocol.dumps(self._welcome()))
        return True

    def _welcome(self) -> Welcome:
        """The game the guest plays now (its id, the guest's colour, the players)."""
        session = self.session
        local = session.local_color()
        names = session.variant.color_names
        assert self.ticket.token is not None and local is not None
        return Welcome(
            token=self.ticket.token, game=session.record.id, color=names[1 if local else 0],
            variant=session.variant.name, fen=session.record.fen, white=session.record.white,
            black=session.record.black, time_control=session.record.time_control,
        )

    async def _serve(self, ws: web.WebSocketResponse) -> None:
        bad = 0
        async for msg in ws:
            if msg.type != WSMsgType.TEXT:
                continue
            try:
                self.receive(msg.data, where="message from the other board")
            except (ProtocolError, RemoteMoveError, RequestRefused) as exc:
                bad += 1
                log.warning("network: refused: %s", exc)
                await ws.send_str(protocol.dumps(Error(str(exc))))
                self._sent = None
                await self._push()  # the guest sees the game as it stands
                if bad >= MAX_BAD_MESSAGES:
                    await ws.close(code=4002, message=b"too many bad messages")

    def on_move(self, message: MoveMsg, now: float) -> None:
        with self.daemon.remote_input("network") as game:
            if game.move(message.ply, message.uci, now):
                self.offer_out = None  # a move declines this board's offer
                game.reason = Code.REMOTE_MOVE
            else:  # sent twice: answered with the game as it stands
                self._sent = None

    def decide(self, game: RemoteInput, kind: str, now: float) -> None:
        """The guest resigned, claimed, or accepted this board's offer: the host decides."""
        session = self.session
        local = session.local_color()
        assert local is not None
        guest = not local
        offered = None
        if kind == "accept":
            offered, self.offer_out = self.offer_out, None  # an answer settles the offer either way
        if session.is_over() and not (kind == "accept" and offered == "rematch"):
            # The result is final: a late resignation, claim or acceptance changes nothing.
            raise RequestRefused(f"{kind}: the game is over ({session.record.result}, "
                                 f"{session.record.termination or 'no reason'}); its result is final")
        if kind == "accept" and offered is None:
            raise RequestRefused("accept: this board has no offer standing (a move or the end withdrew it)")
        if kind == "resign":
            game.end("0-1" if guest else "1-0", f"{session.variant.color_name(guest)} resigned", now)
        elif kind == "claim":
            claim = session.board.claimable_draw()
            if claim is not None:
                game.end("1/2-1/2", f"draw claimed: {claim}", now)
            else:
                self._send_soon(Request("decline"))
        elif kind == "accept":
            if offered == "draw":
                game.end("1/2-1/2", "draw agreed", now)
            elif offered == "takeback":
                self._take_back(game, local, now)
            elif offered == "rematch" and session.is_over():
                self._start_rematch(now)

    def on_rematch(self, game: RemoteInput, now: float) -> None:
        if not self.session.is_over():
            self._send_soon(Request("decline"))  # only after the result
        elif self.offer_out == "rematch":
            self._start_rematch(now)  # both asked
        else:
            super().on_rematch(game, now)

    def _start_rematch(self, now: float) -> None:
        """Both boards agreed on a rematch: a new game with the colours swapped and a new id,
        saved and made this ticket's game before the guest is told (a restart resumes it); the
        token stays."""
        session = self.session
        names = session.variant.color_names
        local = session.local_color()
        assert local is not None
        self.offer_in = self.offer_out = None
        start = session.record.fen
        white, black = session.record.black, session.record.white
        with self.daemon.remote_input(Code.NEW_GAME) as game:
            game.start_rematch(now, color=names[1 if local else 0], white=white, black=black,
                               fen=None if start == session.variant.starting_fen else start)
            self.daemon.store.save(session.record)
            self.ticket = replace(self.ticket, game=session.record.id, color=session.record.human)
            self.store.save(self.ticket)
            log.warning("network: rematch agreed; new game %s, this board plays %s", session.record.id,
                        session.record.human)
            self._sent = None
            self._send_soon(self._welcome())

    def _take_back(self, game: RemoteInput, requester: bool, now: float) -> None:
        target = takeback_target(self.session, requester)
        game.takeback(target, now)
        self._send_soon(Takeback(target))

    def _send_soon(self, message: protocol.Message) -> None:
        """Queue ``message`` for the guest: sent before the next state, in order (a rematch's
        welcome before the new game's state, a takeback before the shorter game)."""
        if self.is_connected:
            self._outbox.append(message)

    # -- following the game -----------------------------------------------------------------------

    async def _push(self) -> None:
        """Send the game if it changed since last sent (moves, clocks per move, result)."""
        ws = self._ws
        if ws is None or ws.closed:
            self._outbox.clear()
            return
        while self._outbox:
            with contextlib.suppress(Exception):
                await ws.send_str(protocol.dumps(self._outbox.pop(0)))
        state = state_of(self.session, self.daemon.now())
        sent = self._sent
        if sent is not None and (sent.moves, sent.clocks, sent.result, sent.termination, sent.running) == (
                state.moves, state.clocks, state.result, state.termination, state.running):
            return
        self._sent = state
        with contextlib.suppress(Exception):
            await ws.send_str(protocol.dumps(state))

    def request_out(self, kind: str, answered: str | None, now: float) -> bool:
        """The host's own requests: an agreed takeback or rematch is carried out here first."""
        if kind == "rematch" and self.offer_in == "rematch":
            self._start_rematch(now)  # both asked: the welcome tells the guest
            return False
        if kind == "accept" and answered == "rematch":
            self._start_rematch(now)
            return False
        if kind == "accept" and answered == "takeback":
            local = self.session.local_color()
            if local is not None:
                with self.daemon.remote_input("network") as game:
                    self._take_back(game, not local, now)
        # resign and claim: the host's session has decided; the state says it
        return kind not in ("resign", "claim")

    async def after_line(self) -> None:
        for kind in self.requests_out(self.daemon.now()):
            self._send_soon(Request(kind))
        await self._push()

    async def run(self, stop: asyncio.Event) -> None:
        """Follow the daemon's state lines until ``stop``: requests out, the game to the guest."""
        await self.follow(stop)

    async def renew_code(self) -> str:
        """Give the guest's seat a new one-time code: the old code and the joined board's token
        stop working, and a board connected with it is told so and let go. For a guest whose
        board or phone is lost, or a seat to hand to another board; the game goes on as it is."""
        ticket = replace(self.ticket, code=new_code(), token=None)
        self.store.save(ticket)  # on disk before it is shown, as the first code
        self.ticket = ticket
        if self.invite is not None:
            self.invite = {**self.invite, "code": ticket.code}
            self.daemon.extra_state["invite"] = self.invite
        ws, self._ws = self._ws, None
        if ws is not None and not ws.closed:
            with contextlib.suppress(Exception):
                await ws.send_str(protocol.dumps(Error("this board gave your seat a new invitation code", fatal=True)))
                await ws.close(code=4003, message=b"the seat has a new invitation code")
        self._update_extra()
        log.warning("network: a new invitation code; the old one and the joined board's token no longer work")
        self.daemon.refresh("network")
        assert ticket.code is not None
        return ticket.code

    async def close(self) -> None:
        ws, self._ws = self._ws, None
        if ws is not None and not ws.closed:
            with contextlib.suppress(Exception):
                await ws.close(code=1001, message=b"host shutting down")


NEW_CODE_PATH = "/api/invite/new-code"


def attach(server: Any, link: HostLink, path: str = "/net") -> None:
    """Serve ``link`` on ``server`` (a :class:`boardctl.web.server.WebServer` not yet started)."""
    server.add_websocket(path, link.handle)
    add_new_code_route(server, lambda: link)


def add_new_code_route(server: Any, link_of: Callable[[], HostLink | None]) -> None:
    """``POST /api/invite/new-code`` (with the PIN where the page needs one): a new invitation
    code for the seat of the game hosted now (:meth:`HostLink.renew_code`)."""
    async def new_code(request: web.Request) -> web.Response:
        try:
            server.require_pin(request)
        except PinError as exc:
            return web.json_response({"error": str(exc)}, status=403)
        link = link_of()
        if link is None:
            return web.json_response({"error": "this board hosts no network game now"}, status=409)
        await link.renew_code()
        return web.json_response({"hosting": True, "invite": link.invite})

    server.app.router.add_post(NEW_CODE_PATH, new_code)
