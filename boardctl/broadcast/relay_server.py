"""The relay's server (``boardctl relay``, docs/broadcast.md): an event's boards followed through an
MQTT broker and served live over HTTP (the multi-game PGN, the page, JSON). It keeps no state of
its own."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import signal
from typing import Any

from aiohttp import web

from boardctl.broadcast import mqtt
from boardctl.broadcast.page import PAGE
from boardctl.broadcast.relay import Relay
from boardctl.broadcast.schema import (
    NAME,
    BroadcastError,
    BrokerAddress,
    client_id,
    subscriptions,
)

log = logging.getLogger(__name__)

#: The page's stream sends at most this often (seconds) while boards change, and every second anyway.
PUSH_EVERY = 0.1
IDLE_PUSH = 1.0


class RelayServer:
    """The HTTP side of a :class:`Relay`: ``start``, ``close`` (safe twice), ``url``."""

    def __init__(self, relay: Relay, *, host: str = "127.0.0.1", port: int = 8090) -> None:
        self.relay = relay
        self.host = host
        self.port = port
        self._runner: web.AppRunner | None = None
        self._pusher: asyncio.Task[None] | None = None
        self._latest: asyncio.Future[bytes] | None = None
        app = web.Application()
        app.router.add_get("/", self._page)
        app.router.add_get("/games.pgn", self._pgn)
        app.router.add_get("/api/boards", self._boards)
        app.router.add_get("/api/boards/{name}", self._board)
        app.router.add_get("/api/arbiter", self._arbiter)
        app.router.add_get("/api/stream", self._stream)
        self.app = app

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/"

    async def start(self) -> None:
        self._runner = web.AppRunner(self.app, access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port)
        await site.start()
        server = getattr(site, "_server", None)
        if self.port == 0 and server is not None and server.sockets:
            self.port = server.sockets[0].getsockname()[1]
        self._latest = asyncio.get_running_loop().create_future()
        self._pusher = asyncio.get_running_loop().create_task(self._push())

    async def close(self) -> None:
        if self._pusher is not None:
            self._pusher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._pusher
            self._pusher = None
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    def message(self, changed: list[str]) -> bytes:
        """One stream message: the boards, the panel and which boards changed."""
        now = self.relay._wall()
        body = {"event": self.relay.event, "boards": self.relay.overview(now), "arbiter": self.relay.arbiter(now),
                "changed": changed}
        return json.dumps(body, separators=(",", ":")).encode()

    async def _push(self) -> None:
        """Every :data:`PUSH_EVERY` s, if anything changed (else every :data:`IDLE_PUSH` s), one
        message made once for every listener."""
        loop = asyncio.get_running_loop()
        seen, last = -1, 0.0
        while True:
            await asyncio.sleep(PUSH_EVERY)
            if self.relay.version == seen and loop.time() - last < IDLE_PUSH:
                continue
            seen, last = self.relay.version, loop.time()
            done, self._latest = self._latest, loop.create_future()
            if done is not None and not done.done():
                done.set_result(self.message(self.relay.take_changed()))

    async def _page(self, _request: web.Request) -> web.Response:
        return web.Response(text=PAGE, content_type="text/html", headers={"Cache-Control": "no-cache"})

    async def _pgn(self, _request: web.Request) -> web.Response:
        return web.Response(text=self.relay.pgn(), content_type="application/x-chess-pgn",
                            headers={"Cache-Control": "no-cache"})

    async def _boards(self, _request: web.Request) -> web.Response:
        return web.json_response(self.relay.overview())

    async def _board(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        detail = self.relay.detail(name) if NAME.fullmatch(name) else None
        if detail is None:
            raise web.HTTPNotFound(text=f"no board {name[:40]!r}")
        return web.json_response(detail)

    async def _arbiter(self, _request: web.Request) -> web.Response:
        return web.json_response(self.relay.arbiter())

    async def _stream(self, request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
        await response.prepare(request)
        await response.write(b"data: " + self.message([]) + b"\n\n")
        while True:
            assert self._latest is not None
            body = await asyncio.shield(self._latest)
            try:
                await response.write(b"data: " + body + b"\n\n")
            except (ConnectionError, RuntimeError):
                break
        return response


class RelayLink:
    """The relay's MQTT side: subscribes on every connection, hands each message to the loop."""

    def __init__(self, relay: Relay, address: BrokerAddress, *, name: str) -> None:
        self.relay = relay
        self.address = address
        self._loop = asyncio.get_running_loop()
        self.client = mqtt.make_client(address, client_id("relay", address.event, name),
                                       on_connect=self._connected, on_message=self._message)

    def _connected(self) -> None:
        self.client.subscribe([(topic, 1) for topic in subscriptions(self.address.event)])

    def _message(self, topic: str, payload: bytes, _retained: bool) -> None:
        with contextlib.suppress(RuntimeError):  # the loop has closed: the relay is stopping
            self._loop.call_soon_threadsafe(self.relay.receive, topic, payload)

    def start(self) -> None:
        mqtt.start(self.client, self.address)

    async def close(self) -> None:
        await asyncio.to_thread(mqtt.stop, self.client)


def acl_text(event: str, boards: list[str], *, relay_user: str = "relay") -> str:
    """A Mosquitto ``acl_file``: each board's user (``board-NAME``) writes only its own two
    topics, the relay's user reads the event's (docs/broadcast.md, *Securing the broker*)."""
    lines = [f"# boardctl broadcast of event {event}: made by boardctl relay --write-acl",
             f"user {relay_user}", f"topic read boardctl/{event}/#", ""]
    for board in boards:
        lines += [f"user board-{board}", f"topic write boardctl/{event}/{board}/game",
                  f"topic write boardctl/{event}/{board}/status", f"topic read boardctl/{event}/{board}/game", ""]
    return "\n".join(lines)


def _board_list(text: str) -> list[str]:
    """``1-40`` or ``a,b,c`` (or both, comma-separated)."""
    out: list[str] = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        if "-" in part and all(p.isdigit() for p in part.split("-", 1)):
            low, high = (int(p) for p in part.split("-", 1))
            if not 0 <= low <= high <= low + 5000:
                raise BroadcastError(f"--boards: {part!r} is not a range like 1-40")
            out += [str(n) for n in range(low, high + 1)]
        elif NAME.fullmatch(part):
            out.append(part)
        else:
            raise BroadcastError(f"--boards: {part[:40]!r} is not a board name")
    return out


async def serve(relay: Relay, address: BrokerAddress, *, host: str, port: int, name: str,
                ready: asyncio.Event | None = None, lichess: dict[str, Any] | None = None) -> int:
    """Run the relay until SIGTERM or SIGINT (pushing to a Lichess round when ``lichess`` names one)."""
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    server = RelayServer(relay, host=host, port=port)
    await server.start()
    link = RelayLink(relay, address, name=name)
    link.start()
    log.warning("relay of %s on %s", address, server.url)
    pusher: asyncio.Task[None] | None = None
    if lichess is not None:
        from boardctl.broadcast.lichess_push import LichessPusher

        pushing = LichessPusher(relay, rounds=lichess["round"], token=lichess["token"], url=lichess["url"])
        pusher = loop.create_task(pushing.run())
    if ready is not None:
        ready.set()
    try:
        await stop.wait()
    finally:
        if pusher is not None:
            pusher.cancel()
        await link.close()
        await server.close()
    return 0
