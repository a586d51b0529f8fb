"""Follow an event's boards through an MQTT broker and serve them live over HTTP (docs/broadcast.md).

``boardctl relay mqtt://BROKER[:PORT]/EVENT`` serves the multi-game PGN that broadcast tools
poll (``/games.pgn``), a page with every board and the arbiter's panel (``/``), and JSON
(``/api/boards``, ``/api/boards/NAME``, ``/api/arbiter``, the page's stream ``/api/stream``).
It keeps no state of its own: started at any time, or twice on two machines, it shows the same
games, from the broker's retained messages and what the boards publish.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import signal
import socket
from pathlib import Path
from typing import Any

from aiohttp import web

from boardctl.broadcast import mqtt
from boardctl.broadcast.page import PAGE
from boardctl.broadcast.pairings import Pairing, read_pairings
from boardctl.broadcast.relay import Relay
from boardctl.broadcast.schema import (
    NAME,
    BroadcastError,
    BrokerAddress,
    client_id,
    parse_address,
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


def add_parser(sub: Any) -> None:
    from boardctl.cli import describe

    parser: argparse.ArgumentParser = sub.add_parser("relay", help="serve an event's boards live from an MQTT broker",
                                                     description=describe(__doc__))
    parser.add_argument("address", help="the broker and the event: mqtt://[USER[:PASSWORD]@]BROKER[:PORT]/EVENT "
                        "(mqtts:// for TLS, ?ca=FILE for its certificate authority)")
    parser.add_argument("--http", type=int, default=8090, metavar="PORT", help="HTTP port of the page and the PGN. "
                        "Default: 8090.")
    parser.add_argument("--host", default="127.0.0.1", help="HTTP address; 0.0.0.0 for the hall's screens. "
                        "Default: 127.0.0.1.")
    parser.add_argument("--pairings", type=Path, metavar="FILE", help="who plays on which board: a .csv "
                        "(board,white,black[,round]), a FIDE .trf file or a boardctl tournament's .json. "
                        "Default: the names the boards send.")
    parser.add_argument("--round", dest="round_no", type=int, metavar="N", help="the round of a .trf file, and "
                        "the PGN's Round. Default: the last paired round.")
    parser.add_argument("--silent-after", type=float, default=20.0, metavar="SECONDS",
                        help="a board not heard for this long is listed as not reporting. Default: 20.")
    parser.add_argument("--flag-warning", type=float, default=30.0, metavar="SECONDS",
                        help="a running clock under this is listed as a flag about to fall. Default: 30.")
    parser.add_argument("--write-acl", type=Path, metavar="FILE", help="write a Mosquitto acl_file for the "
                        "boards (of --boards or --pairings) and exit. Default: serve the event")
    parser.add_argument("--boards", metavar="LIST", help="the boards of --write-acl, e.g. 1-40 or a,b,c. Default: those of --pairings")
    parser.add_argument("--lichess-round", metavar="ID", action="append", help="also push the games to this Lichess "
                        "broadcast round (its owner's token, scope study:write, as lichess.token in the config file); "
                        "again for more rounds, 64 games each. Default: no push.")
    parser.add_argument("--lichess-url", metavar="URL", help="The Lichess server. Default: https://lichess.org "
                        "(config lichess.url).")
    parser.add_argument("--name", default=socket.gethostname(), help="this relay's name: each relay keeps its "
                        "own session on the broker. Default: the host name.")


def run(args: argparse.Namespace) -> int:
    address = parse_address(args.address, board=False)
    pairings: dict[str, Pairing] = read_pairings(args.pairings, round_no=args.round_no) if args.pairings else {}
    if args.write_acl is not None:
        boards = _board_list(args.boards) if args.boards else [p.board for p in pairings.values()]
        if not boards:
            raise BroadcastError("--write-acl: name the boards with --boards 1-40 or --pairings FILE")
        args.write_acl.write_text(acl_text(address.event, boards), encoding="utf-8")
        log.warning("wrote %s: %d boards of event %s", args.write_acl, len(boards), address.event)
        return 0
    relay = Relay(address.event, pairings=pairings, round_name=str(args.round_no or ""),
                  silent_after=args.silent_after, flag_warning=args.flag_warning)
    lichess = _lichess(args)
    return asyncio.run(serve(relay, address, host=args.host, port=args.http, name=f"{args.name}-{args.http}",
                             lichess=lichess))


def _lichess(args: argparse.Namespace) -> dict[str, Any] | None:
    """The Lichess round, server and token of ``--lichess-round`` (None: no push)."""
    if not args.lichess_round:
        return None
    import re

    from boardctl import config as config_mod
    from boardctl.errors import ConfigError

    for round_id in args.lichess_round:
        if not re.fullmatch(r"[A-Za-z0-9]{4,20}", round_id):
            raise ConfigError(f"--lichess-round: not a Lichess round id: {round_id[:40]!r}")
    cfg = config_mod.load({})
    if not cfg.lichess_token:
        raise ConfigError("--lichess-round: no Lichess token; store one with scope study:write as lichess.token "
                          "(boardctl online --set-token, docs/broadcast.md)")
    return {"round": args.lichess_round, "url": args.lichess_url or cfg.lichess_url, "token": cfg.lichess_token}


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
