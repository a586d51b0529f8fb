"""The guest's side: connect to the host's ``/net``, keep the connection, follow the host's game.

The first connection gives the invitation code and gets the game's token; every later one (a
reconnect after a lost link, a restarted daemon) gives the token. Lost connections are retried
with back-off (:data:`BACKOFF`); moves made meanwhile are sent when the link returns.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import ssl
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import aiohttp

from boardctl.config import check_time_control
from boardctl.core.rules import GameBoard, Variant
from boardctl.daemon import Daemon
from boardctl.errors import BoardctlError, ConfigError, PositionError
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
from boardctl.network.tokens import Ticket, TicketStore
from boardctl.positions import board_from_fen
from boardctl.session import RemoteInput, RemoteMoveError
from boardctl.variants import NAMES

log = logging.getLogger(__name__)

#: Seconds between reconnection attempts: doubling from the first to the last.
BACKOFF = (0.2, 5.0)
#: Seconds to wait for the host's answer to ``hello``.
ANSWER_TIMEOUT = 15.0


class JoinRefused(BoardctlError, PermissionError):
    """The host refused this board for good (wrong or used code, wrong token, another game)."""


class InvalidGame(JoinRefused):
    """The host sent a game this board cannot play (a bad FEN, another variant, a bad clock):
    the guest stops with one line, ``the host sent an invalid game: ...``."""


def check_welcome(welcome: Welcome, *, variant: Variant) -> GameBoard:
    """Every field of the host's ``welcome`` checked against this board's game ``variant``: the
    same variant, a colour of it, a possible start position of it (not an empty board), a time
    control this board's clock can keep, printable names. Returns the start position's board;
    raises :class:`InvalidGame` naming the field."""

    def bad(detail: str) -> InvalidGame:
        return InvalidGame(f"the host sent an invalid game: {detail}")

    if welcome.variant != variant.name:
        shown = welcome.variant if welcome.variant in NAMES else f"an unknown variant {welcome.variant[:20]!r}"
        raise bad(f"{shown}, but this board plays {variant.name}")
    if welcome.color not in variant.color_names:
        raise bad(f"colour {welcome.color!r} is not one of {variant.name}'s ({', '.join(variant.color_names)})")
    try:
        check_time_control(welcome.time_control)
    except ValueError as exc:
        raise bad(f"time control {welcome.time_control[:20]!r}: {exc}") from None
    for field, name in (("white", welcome.white), ("black", welcome.black)):
        if not name.strip() or not name.isprintable():
            raise bad(f"player name {field} {name[:40]!r} is empty or not printable")
    try:
        return board_from_fen(welcome.fen, where="start position", variant=variant)
    except PositionError as exc:
        raise bad(str(exc)) from None


@dataclass(frozen=True)
class Address:
    """The host's WebSocket URL (``ws://`` or ``wss://``, path ``/net`` when none is given)."""

    url: str

    @classmethod
    def from_string(cls, text: str) -> Address:
        parts = urlsplit(text.strip())
        if parts.scheme not in ("ws", "wss") or not parts.hostname:
            raise ConfigError(f"join: {text!r} is not an address like ws://HOST:PORT or wss://HOST:PORT")
        try:
            parts.port  # noqa: B018 - a bad port raises here
        except ValueError:
            raise ConfigError(f"join: {text!r} has a bad port") from None
        path = parts.path if parts.path not in ("", "/") else "/net"
        return cls(urlunsplit((parts.scheme, parts.netloc, path, "", "")))

    @property
    def is_tls(self) -> bool:
        return self.url.startswith("wss:")


def _welcome_of(text: str) -> Welcome:
    """The host's answer to ``hello``: its welcome; JoinRefused for its ``error``, InvalidGame
    for anything else (retrying would get the same)."""
    try:
        answer = protocol.parse(text, where="its answer to hello")
    except ProtocolError as exc:
        raise InvalidGame(f"the host sent an invalid game: {exc}") from None
    if isinstance(answer, Error):
        raise JoinRefused(f"the host refused: {answer.message}")
    if not isinstance(answer, Welcome):
        raise InvalidGame(f"the host sent an invalid game: a {answer.type} message instead of its welcome")
    return answer


def tls_option(address: Address, *, ca: Path | None, fingerprint: str | None) -> Any:
    """How ``join`` checks the host: the certificate's SHA-256 fingerprint, a CA file, or the
    system's CAs (the default for ``wss://``)."""
    if not address.is_tls:
        if ca is not None or fingerprint is not None:
            raise ConfigError("join: --ca and --fingerprint need a wss:// address")
        return None
    if fingerprint is not None:
        digest = bytes.fromhex(fingerprint.replace(":", "").strip())
        if len(digest) != 32:
            raise ConfigError("join: --fingerprint must be the SHA-256 the host printed (64 hex digits)")
        return aiohttp.Fingerprint(digest)
    context = ssl.create_default_context(cafile=str(ca) if ca is not None else None)
    return context


def _ssl(tls: Any) -> Any:
    """aiohttp's ``ssl=``: the check chosen by :func:`tls_option`, else the default (True)."""
    return True if tls is None else tls


async def handshake(address: Address, hello: Hello, *, tls: Any, attempts: int = 0) -> Welcome:
    """Say ``hello`` and return the host's ``welcome``; retried with back-off while the host
    cannot be reached (``attempts`` 0: forever); JoinRefused when the host says no."""
    delay = BACKOFF[0]
    tried = 0
    while True:
        tried += 1
        try:
            async with aiohttp.ClientSession() as http, http.ws_connect(address.url, ssl=_ssl(tls), heartbeat=5.0) as ws:
                await ws.send_str(protocol.dumps(hello))
                msg = await asyncio.wait_for(ws.receive(), ANSWER_TIMEOUT)
                if msg.type != aiohttp.WSMsgType.TEXT:
                    raise ConnectionError(f"the host closed the connection ({msg.type.name})")
                return _welcome_of(msg.data)
        except JoinRefused:
            raise
        except (OSError, aiohttp.ClientError, TimeoutError, ConnectionError) as exc:
            if isinstance(exc, aiohttp.ClientConnectorCertificateError | aiohttp.ServerFingerprintMismatch):
                raise JoinRefused(f"the host's certificate is not trusted: {exc}") from None
            if attempts and tried >= attempts:
                raise BoardctlError(f"cannot reach {address.url}: {exc}") from None
            # Said once where a user sees it (the first try), then only in the detailed log.
            (log.warning if tried == 1 else log.info)(
                "cannot reach %s (%s); retrying in %.1f s (Ctrl-C stops)", address.url, exc, delay
            )
            await asyncio.sleep(delay)
            delay = min(BACKOFF[1], delay * 2)


class JoinLink(Link):
    """Keeps this board in the host's game: reconnects, sends local moves and requests, applies
    the host's ``state``, ``takeback`` and ``welcome`` (the host has the authority)."""

    role = "guest"

    def __init__(self, daemon: Daemon, address: Address, token: str, *, tls: Any,
                 on_refused: Callable[[str], None] | None = None, tickets: TicketStore | None = None,
                 ticket: Ticket | None = None) -> None:
        super().__init__(daemon)
        self.address = address
        self.token = token
        self.tls = tls
        self.on_refused = on_refused
        self.tickets = tickets
        self.ticket = ticket
        #: The host's id of the game played now; a welcome with another one begins a rematch.
        self.host_game = None if ticket is None else ticket.host_game
        self._host_moves = -1  # moves in the host's last state (-1: none seen on this link)
        self._sent_plies: set[int] = set()
        self._requests: list[str] = []
        self._final: State | None = None
        self.connects = 0
        self._update_extra()

    def _update_extra(self) -> None:
        self.daemon.extra_state["network"] = {"role": "join", "connected": self.is_connected, "address": self.address.url}

    async def run(self, stop: asyncio.Event) -> None:
        """Until ``stop``: stay connected (back-off between attempts) and follow the daemon."""
        loop = asyncio.get_running_loop()
        follower = loop.create_task(self.follow(stop))
        closer = loop.create_task(self._close_on(stop))
        delay = BACKOFF[0]
        try:
            while not stop.is_set():
                try:
                    await self._connection(stop)
                    delay = BACKOFF[0]
                except JoinRefused as exc:
                    log.error("%s", exc)
                    if self.on_refused is not None:
                        self.on_refused(str(exc))
                    return
                except (OSError, aiohttp.ClientError, TimeoutError, ConnectionError, ProtocolError) as exc:
                    log.info("network: %s; retrying in %.1f s", exc, delay)
                except Exception:  # a bug must not end the link for good: say it, and connect again
                    log.exception("network: the link failed; retrying in %.1f s", delay)
                if stop.is_set():
                    break
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), delay)
                delay = min(BACKOFF[1], delay * 2)
        finally:
            for task in (follower, closer):
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task

    async def _close_on(self, stop: asyncio.Event) -> None:
        await stop.wait()
        await self.close()

    async def _connection(self, stop: asyncio.Event) -> None:
        async with aiohttp.ClientSession() as http, http.ws_connect(self.address.url, ssl=_ssl(self.tls), heartbeat=5.0) as ws:
            await ws.send_str(protocol.dumps(Hello(variant=self.session.variant.name, token=self.token)))
            msg = await asyncio.wait_for(ws.receive(), ANSWER_TIMEOUT)
            if msg.type != aiohttp.WSMsgType.TEXT:
                raise ConnectionError("the host closed the connection")
            answer = _welcome_of(msg.data)
            self._ws, self._host_moves, self._sent_plies = ws, -1, set()
            self._on_welcome(answer, self.daemon.now())
            self.connects += 1
            self._update_extra()
            if self.connects > 1:
                log.warning("network: reconnected to %s", self.address.url)
            self.daemon.refresh("network")
            try:
                async for msg in ws:
                    if msg.type != aiohttp.WSMsgType.TEXT:
                        continue
                    try:
                        self.receive(msg.data, where="message from the host")
                    except (ProtocolError, RemoteMoveError, RequestRefused) as exc:
                        log.warning("network: refused from the host: %s", exc)
            finally:
                self._ws = None
                self._update_extra()
                if not stop.is_set():
                    log.warning("network: connection to the host lost; retrying")
                    with contextlib.suppress(Exception):
                        self.daemon.refresh("network")

    def on_state(self, message: State, now: float) -> None:
        self._apply_state(message, now)

    def on_takeback(self, message: Takeback, now: float) -> None:
        if self.session.is_over():  # a result is final on this board too (docs/network-protocol.md)
            raise RequestRefused(f"takeback: the game is over ({self.session.record.result}); its result is final")
        with self.daemon.remote_input(Code.TAKEBACK) as game:
            game.takeback(message.moves, now)

    def on_welcome(self, message: Welcome, now: float) -> None:
        self._on_welcome(message, now)

    def on_error(self, message: Error) -> None:
        log.warning("network: the host says: %s", message.message)
        if message.fatal:
            raise JoinRefused(f"the host refused: {message.message}")

    def _on_welcome(self, welcome: Welcome, now: float) -> None:
        """The host's game: the one this board plays, or a new one (an agreed rematch) begun on
        the host, which begins here too (colours swapped, saved, the ticket pointing at it)."""
        session = self.session
        check_welcome(welcome, variant=session.variant)  # InvalidGame stops this board, with one line
        if self.host_game is not None and welcome.game != self.host_game:
            variant = session.variant
            with self.daemon.remote_input(Code.NEW_GAME) as rematch:
                rematch.start_rematch(now, color=welcome.color, white=welcome.white, black=welcome.black,
                                      fen=None if welcome.fen == variant.starting_fen else welcome.fen)
                self.daemon.store.save(session.record)
                self._host_moves, self._sent_plies, self._final = -1, set(), None
                log.warning("network: rematch; new game %s, this board plays %s", session.record.id, welcome.color)
        if welcome.game != self.host_game:
            self.host_game = welcome.game
            if self.tickets is not None and self.ticket is not None:
                self.ticket = replace(self.ticket, game=session.record.id, host_game=welcome.game,
                                      color=session.record.human)
                self.tickets.save(self.ticket)

    def _apply_state(self, state: State, now: float) -> None:
        session = self.session
        local = session.network_moves()
        common = min(len(local), len(state.moves))
        if list(state.moves[:common]) != local[:common]:
            log.error("network: this board's game differs from the host's; the host's counts")
        self._host_moves = len(state.moves)
        with self.daemon.remote_input("network") as game:
            if len(state.moves) == len(local) + 1 and game.move(len(local), state.moves[-1], now, clock=state.clocks[-1]):
                game.reason = Code.REMOTE_MOVE
            game.move_clocks(list(state.clocks))
            if len(state.moves) >= len(session.network_moves()):
                game.sync_clock(state.remaining, state.running, now)
            if state.result != "*":
                self._final = state
            self._check_final(game, now)

    def _check_final(self, game: RemoteInput, now: float) -> None:
        """The host's game is over: end this board's once its last move is made here by hand too
        (the mate itself is then found here as well), so both records hold every move."""
        final, session = self._final, self.session
        if final is None or len(session.record.moves) < len(final.moves):
            return
        game.move_clocks(list(final.clocks))
        game.end(final.result, final.termination, now)

    async def _send_pending(self) -> None:
        """This board's moves the host has not got yet, and its requests."""
        ws = self._ws
        if ws is None or ws.closed or self._host_moves < 0:
            return
        self._requests.extend(self.requests_out(self.daemon.now()))
        for move in self.session.local_moves(self._host_moves):
            if move.ply not in self._sent_plies:
                self._sent_plies.add(move.ply)
                await ws.send_str(protocol.dumps(MoveMsg(move.ply, move.uci)))
        while self._requests:
            await ws.send_str(protocol.dumps(Request(self._requests.pop(0))))

    async def after_line(self) -> None:
        if self._final is not None and not self.session.is_over():
            with self.daemon.remote_input("network", only_if_changed=True) as game:
                self._check_final(game, self.daemon.now())
        if not self.is_connected:
            self._requests.extend(self.requests_out(self.daemon.now()))  # kept for the link's return
            return
        with contextlib.suppress(Exception):
            await self._send_pending()
