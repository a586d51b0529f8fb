"""The web companion: an aiohttp server for the page, its WebSocket and a small JSON API.

The WebSocket (``/ws``) sends the daemon's state lines unchanged, the same JSON as the sim's
stdio mode, starting with the current state; the page sends actions (see
:mod:`boardctl.web.protocol`) and gets ``{"reply": id, ...}`` back.

Security model:

- By default the server binds 127.0.0.1 and needs no PIN. To stop other web sites (via the
  visitor's browser) and DNS rebinding from reaching it, a request whose ``Host`` is not a
  loopback name, or whose ``Origin`` is not exactly the page's own (scheme, host and port of the
  request's ``Host``), is refused; ``Origin: null`` (sandboxed frames, ``data:`` pages) is refused
  too. No ``Origin`` at all is a non-browser client (curl, scripts), which is allowed.
  ``Host`` is parsed strictly (:func:`parse_host`): an IPv4 literal, a bracketed IPv6 literal or a
  DNS name, then optionally ``:`` and digits; anything else (``[::1].evil.com``,
  ``127.0.0.1:80@evil.com``) is refused.
- On any bind that is not loopback (LAN mode: ``""``, ``0.0.0.0``, ``::``, a LAN address, a name
  that resolves to one) every state-changing request and WebSocket action needs the PIN; reading
  the state, the PGN and past games does not. The PIN and the lockout are checked before the
  action is parsed, and a missing PIN counts as a wrong one. Wrong PINs are counted per client
  address (after :data:`MAX_PIN_FAILURES` in a row the address is locked out for
  :data:`PIN_LOCKOUT_SECONDS`) and across all addresses: after :data:`GLOBAL_FREE_FAILURES` wrong
  PINs from anywhere, each further one closes the board to every PIN for twice as long as the
  last, up to :data:`GLOBAL_MAX_DELAY` (a WebSocket that already gave the right PIN keeps working).
- In LAN mode the state lines' secrets (:data:`PIN_ONLY_KEYS`: a hosted network game's ``invite``,
  whose code is worth a seat in the game) reach only clients that gave the PIN: ``GET
  /api/state`` with the right ``X-Boardctl-Pin``, a ``/ws`` socket after a message with the right
  ``pin`` (``{"pin": ...}`` alone is enough). Everyone else gets the lines without them.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import functools
import hmac
import ipaddress
import json
import logging
import re
import time
from pathlib import Path
from typing import Any, Protocol, Self, TextIO

from aiohttp import WSMsgType, web

from boardctl import backoff
from boardctl.actions import Action
from boardctl.backoff import GlobalBackoff
from boardctl.core.rules import GameBoard, GameText, Variant
from boardctl.errors import BoardctlError, ConfigError
from boardctl.hosts import is_loopback_host as is_loopback_host  # re-exported: where it was first
from boardctl.variants import NAMES, get_variant
from boardctl.web.describe import can_promote, check_square, describe_board, logical_occupancy
from boardctl.web.protocol import (
    MAX_MESSAGE_BYTES,
    PinError,
    WebInputError,
    needs_worker,
    parse_envelope,
    parse_json,
    validate_action,
)

log = logging.getLogger(__name__)

STATIC_DIR = Path(__file__).parent / "static"
MAX_PIN_FAILURES = 5
#: Ports tried after a taken default port before any free port is taken (8081 … 8089 for 8080).
FALLBACK_PORTS = 9
PIN_LOCKOUT_SECONDS = 60.0
#: Wrong PINs from all addresses together before the global back-off starts.
GLOBAL_FREE_FAILURES = backoff.FREE_FAILURES
#: The global back-off doubles with each further wrong PIN up to this many seconds.
GLOBAL_MAX_DELAY = backoff.MAX_DELAY
#: With no wrong PIN for this long, the global count starts again (a right PIN also resets it).
GLOBAL_QUIET_SECONDS = backoff.QUIET_SECONDS
#: At most one "wrong PIN" log line per this many seconds; the others are counted in the next one.
PIN_LOG_INTERVAL = 10.0
PIN_HEADER = "X-Boardctl-Pin"
#: State line keys that, in LAN mode, only clients that gave the PIN see (the invitation code).
PIN_ONLY_KEYS = ("invite",)
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_HOST_RE = re.compile(
    rf"(?:\[(?P<v6>[0-9A-Fa-f:.]{{2,45}})\]|(?P<name>{_LABEL}(?:\.{_LABEL})*\.?))(?::(?P<port>[0-9]{{1,5}}))?"
)
_ORIGIN_RE = re.compile(r"(?P<scheme>https?)://(?P<netloc>[^/?#@\s]+)")
_GAME_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,200}\.pgn$")


class Daemon(Protocol):
    """What the server needs from ``boardctl.daemon`` (state lines out, actions in)."""

    def subscribe(self) -> asyncio.Queue[dict[str, Any]]: ...

    def unsubscribe(self, queue: asyncio.Queue[dict[str, Any]]) -> None: ...

    def state(self) -> dict[str, Any]: ...

    async def submit(self, action: Action) -> None: ...


def parse_host(value: str) -> tuple[str, int | None] | None:
    """A ``Host`` header (or an origin's host part) as ``(host, port)``, or None when malformed.

    Strict: an IPv4 literal or DNS name, or an IPv6 literal in brackets, then optionally ``:``
    and a port of digits. The host comes back lower-case, without brackets or a trailing dot.
    """
    match = _HOST_RE.fullmatch(value)
    if match is None:
        return None
    port_text = match.group("port")
    port = int(port_text) if port_text is not None else None
    if port is not None and not 0 < port < 65536:
        return None
    v6 = match.group("v6")
    if v6 is not None:
        try:
            address = ipaddress.IPv6Address(v6)
        except ValueError:
            return None
        return address.compressed, port
    name = match.group("name").rstrip(".").lower()
    if re.fullmatch(r"[0-9.]+", name):
        try:
            return str(ipaddress.IPv4Address(name)), port
        except ValueError:
            return None
    if name.rsplit(".", 1)[-1].isdigit():
        return None  # not an IPv4 literal, and no top-level domain is numeric
    return name, port


def _is_loopback_name(host: str) -> bool:
    """``localhost`` or a loopback literal (no lookup: the Host header is the client's claim)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _default_port(scheme: str) -> int:
    return 443 if scheme == "https" else 80


def is_same_origin(origin: str, *, scheme: str, host: str) -> bool:
    """Whether an ``Origin`` header is exactly the origin of a page served as ``scheme://host``.

    ``null``, other schemes, userinfo, paths and anything :func:`parse_host` refuses are not.
    """
    own = parse_host(host)
    match = _ORIGIN_RE.fullmatch(origin)
    if own is None or match is None:
        return False
    theirs = parse_host(match.group("netloc"))
    if theirs is None or match.group("scheme") != scheme:
        return False
    default = _default_port(scheme)
    return (theirs[0], theirs[1] or default) == (own[0], own[1] or default)


class _PinGuard:
    """Checks PINs in constant time; locks out an address after repeated failures, and backs off
    globally, whatever the source, once too many PINs were wrong (see the module docstring)."""

    def __init__(self, pin: str | None, *, clock: Any = time.monotonic) -> None:
        self.pin = pin
        self._clock = clock
        self._failures: dict[str, int] = {}
        self._locked_until: dict[str, float] = {}
        self._global = GlobalBackoff(clock=clock, free=GLOBAL_FREE_FAILURES, max_delay=GLOBAL_MAX_DELAY,
                                     quiet=GLOBAL_QUIET_SECONDS)
        self._last_log = -float("inf")
        self._unlogged = 0

    def check_lockout(self, remote: str) -> None:
        """Refuse at once (before anything is parsed) while ``remote`` or the board is locked out."""
        if self.pin is None:
            return
        now = self._clock()
        until = self._locked_until.get(remote, 0.0)
        if now < until:
            raise PinError(f"too many wrong PINs from {remote}; try again in {until - now:.0f} s")
        if self._locked_until and len(self._locked_until) > 10_000:
            self._locked_until = {k: v for k, v in self._locked_until.items() if v > now}
        closed = self._global.closed_for()
        if closed > 0:
            raise PinError(f"too many wrong PINs on this board recently; try again in {closed:.0f} s")

    def check(self, remote: str, given: str | None, *, authenticated: bool = False) -> None:
        """Accept the right PIN; anything else (a missing PIN too) counts as a failure.

        ``authenticated``: the connection already gave the right PIN, so a lockout it did not
        cause does not stop it (the owner's open page keeps working during an attack).
        """
        if self.pin is None:
            return
        if not authenticated:
            self.check_lockout(remote)
        if given and hmac.compare_digest(given.encode(), self.pin.encode()):
            self._failures.pop(remote, None)
            self._global.succeeded()
            return
        now = self._clock()
        if len(self._failures) > 10_000:  # many addresses (IPv6): the global back-off covers them
            self._failures.clear()
        count = self._failures.get(remote, 0) + 1
        self._failures[remote] = count
        self._global.failed()
        self._log_failure(remote, count, now)
        if count >= MAX_PIN_FAILURES:
            self._failures.pop(remote, None)
            self._locked_until[remote] = now + PIN_LOCKOUT_SECONDS
            raise PinError(f"wrong PIN; too many attempts from {remote}, locked for {PIN_LOCKOUT_SECONDS:.0f} s")
        if not given:
            raise PinError("this board is in LAN mode: enter the PIN (shown by 'boardctl pin')")
        raise PinError("wrong PIN")

    def _log_failure(self, remote: str, count: int, now: float) -> None:
        """One warning per :data:`PIN_LOG_INTERVAL` at most, so a flood cannot fill the log."""
        if now - self._last_log < PIN_LOG_INTERVAL:
            self._unlogged += 1
            return
        more = f"; {self._unlogged} more wrong PINs not logged" if self._unlogged else ""
        log.warning(
            "wrong PIN from %s (%d in a row from it, %d on the board)%s", remote, count, self._global.failures, more
        )
        self._last_log, self._unlogged = now, 0


class WebServer:
    """Serves the page and bridges browsers to the daemon. ``port=0`` picks a free port."""

    def __init__(
        self,
        daemon: Daemon,
        *,
        host: str,
        port: int,
        pin: str | None,
        lan: bool | None = None,
        games_dir: Path | None = None,
        port_fallback: bool = False,
        ssl_context: Any = None,
    ) -> None:
        """``lan`` defaults to "host is not loopback"; tests force it on a loopback bind.

        ``port_fallback``: when ``port`` is taken, serve on the next free one of the
        :data:`FALLBACK_PORTS` after it (then any free port) instead of failing; for the default
        port, which the user did not choose."""
        self._daemon = daemon
        self._host = host
        self._requested_port = port
        self._lan = (not is_loopback_host(host)) if lan is None else lan
        if self._lan and not pin:
            raise ConfigError(f"web.pin: a PIN is required to serve on {host!r} (LAN mode); see 'boardctl pin'")
        self._guard = _PinGuard(pin if self._lan else None)
        self._games_dir = games_dir
        self._port_fallback = port_fallback
        self._runner: web.AppRunner | None = None
        self._site: web.TCPSite | None = None
        self._port: int | None = None
        self._sockets: set[web.WebSocketResponse] = set()
        self._annotator = Annotator()
        self._parse_slot = asyncio.Semaphore(1)
        self._app = self._build_app()
        #: TLS (``boardctl host --tls-cert``): the page and its sockets over https/wss.
        self._ssl_context = ssl_context

    def add_websocket(self, path: str, handler: Any) -> None:
        """Another endpoint on this server before it starts (``boardctl host``'s ``/net``); its
        handler does its own authentication (the network game's code or token, not the PIN)."""
        self._app.router.add_get(path, handler)

    # -- lifecycle -------------------------------------------------------------------------

    @property
    def port(self) -> int:
        """The bound port (the real one when 0 was asked for)."""
        if self._port is None:
            raise RuntimeError("WebServer.port: the server is not started")
        return self._port

    @property
    def url(self) -> str:
        host = self._host
        if host in ("0.0.0.0", "::", ""):
            host = "127.0.0.1"
        elif ":" in host:
            host = f"[{host}]"
        return f"{'https' if self._ssl_context is not None else 'http'}://{host}:{self.port}/"

    @property
    def is_lan(self) -> bool:
        """Whether state-changing requests need the PIN."""
        return self._lan

    @property
    def app(self) -> web.Application:
        return self._app

    async def start(self) -> None:
        if self._runner is not None:
            return
        runner = web.AppRunner(self._app, access_log=None, handle_signals=False, shutdown_timeout=1.0)
        await runner.setup()
        ports = [self._requested_port]
        if self._port_fallback and self._requested_port != 0:
            ports += [self._requested_port + i for i in range(1, FALLBACK_PORTS + 1) if self._requested_port + i < 65536]
            ports.append(0)
        for port in ports:
            site = web.TCPSite(runner, self._host, port, ssl_context=self._ssl_context)
            try:
                await site.start()
                break
            except OSError as exc:
                if port != ports[-1] and exc.errno == errno.EADDRINUSE:
                    continue
                await runner.cleanup()
                raise BoardctlError(f"web: cannot listen on {self._host}:{port} ({exc.strerror or exc})") from exc
        self._runner, self._site = runner, site
        addresses = runner.addresses
        self._port = int(addresses[0][1]) if addresses else self._requested_port
        if self._port != self._requested_port and self._requested_port != 0:
            log.info("port %d is taken; the page is on port %d instead", self._requested_port, self._port)
        if self._lan:
            # A Pi has no screen: the log is one of the two places the owner can read the PIN.
            log.warning("web page at %s for the LAN; changing anything needs PIN %s", self.url, self._guard.pin)
        else:
            log.info("web page at %s", self.url)  # the daemon prints "Open <url> in a browser"

    async def close(self) -> None:
        """Stop serving; safe to call twice."""
        runner, self._runner = self._runner, None
        if runner is None:
            return
        for ws in list(self._sockets):
            with contextlib.suppress(Exception):
                await ws.close(code=1001, message=b"server shutting down")
        await runner.cleanup()

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # -- app ------------------------------------------------------------------------------

    def _build_app(self) -> web.Application:
        app = web.Application(middlewares=[self._guard_middleware], client_max_size=MAX_MESSAGE_BYTES)
        app.router.add_get("/", self._index)
        app.router.add_get("/ws", self._websocket)
        app.router.add_get("/api/info", self._info)
        app.router.add_get("/api/state", self._state)
        app.router.add_post("/api/action", self._action)
        app.router.add_get("/api/pgn", self._current_pgn)
        app.router.add_get("/api/games", self._games)
        app.router.add_get("/api/games/{name}", self._game_file)
        app.router.add_get("/api/characters", self._characters)
        from boardctl.web import tournament_api  # boardctl tournament's controls on the page

        tournament_api.add_routes(app, self)
        app.router.add_static("/static/", STATIC_DIR, append_version=False)
        return app

    @web.middleware
    async def _guard_middleware(self, request: web.Request, handler: Any) -> web.StreamResponse:
        """Refuse foreign Host (DNS rebinding) and foreign Origin (cross-site requests)."""
        hosts = request.headers.getall("Host", [])
        host = hosts[0] if len(hosts) == 1 else ""
        parsed = parse_host(host)
        if parsed is None or (not self._lan and not _is_loopback_name(parsed[0])):
            return _error(403, f"Host {host!r} is not allowed; open the page via http://127.0.0.1:{self._port}/")
        origins = request.headers.getall("Origin", [])
        if origins and (len(origins) > 1 or not is_same_origin(origins[0], scheme=request.scheme, host=host)):
            return _error(403, f"cross-origin request from {', '.join(map(repr, origins))} refused")
        response: web.StreamResponse = await handler(request)
        if isinstance(response, web.Response | web.FileResponse):
            response.headers.setdefault("Cache-Control", "no-cache")
            response.headers.setdefault("X-Content-Type-Options", "nosniff")
        return response

    def _remote(self, request: web.Request) -> str:
        return request.remote or "?"

    async def _index(self, request: web.Request) -> web.StreamResponse:
        return web.FileResponse(STATIC_DIR / "index.html")

    async def _info(self, request: web.Request) -> web.Response:
        variant = getattr(self._daemon, "variant", None)
        game = variant.name if isinstance(variant, Variant) else "chess"
        # The page draws the right board (8x8 or 9x10 points) before the first state line.
        return web.json_response({"pin_required": self._lan, "games": self._games_path() is not None, "variant": game})

    async def _characters(self, request: web.Request) -> web.Response:
        """The opponents with a character, for the page's chooser (boardctl/learning/characters.py)."""
        from boardctl.learning.characters import load_characters

        try:
            characters = await asyncio.to_thread(load_characters, game=None)
        except BoardctlError as exc:
            return _error(500, str(exc))
        return web.json_response({"characters": [c.to_json() for c in characters]})

    def visible(self, line: dict[str, Any], *, authenticated: bool) -> dict[str, Any]:
        """``line`` as a client sees it: in LAN mode without :data:`PIN_ONLY_KEYS` unless the
        client gave the PIN."""
        if not self._lan or authenticated or not any(key in line for key in PIN_ONLY_KEYS):
            return line
        return {k: v for k, v in line.items() if k not in PIN_ONLY_KEYS}

    def has_pin(self, request: web.Request) -> bool:
        """Whether an HTTP request carries the right PIN (in LAN mode; always True otherwise).
        A missing PIN is no failure (reading is allowed); a wrong one counts as one and raises
        PinError."""
        if not self._lan:
            return True
        given = request.headers.get(PIN_HEADER)
        if not given:
            return False
        self._guard.check(self._remote(request), given)
        return True

    def require_pin(self, request: web.Request) -> None:
        """For a request that changes something: the right PIN where the page has one (a missing
        or wrong one counts as a failure and raises PinError)."""
        self._guard.check(self._remote(request), request.headers.get(PIN_HEADER))

    async def _state(self, request: web.Request) -> web.Response:
        try:
            authenticated = self.has_pin(request)
        except PinError as exc:
            return _error(403, str(exc))
        line = self._annotator.annotate(self._daemon.state())
        return web.json_response(self.visible(line, authenticated=authenticated))

    async def _submit(self, action: Action) -> None:
        log.debug("web action %s", action)
        await self._daemon.submit(action)

    async def _action(self, request: web.Request) -> web.Response:
        if request.content_type != "application/json":
            # Also keeps out cross-site "simple" form posts, which cannot set this type.
            return _error(415, "POST /api/action: send JSON with Content-Type: application/json")
        try:
            self._guard.check(self._remote(request), request.headers.get(PIN_HEADER))
        except PinError as exc:
            return _error(403, str(exc))
        try:
            body = await request.read()
            action = await self._validate(parse_json(body, where="POST /api/action"))
            await self._submit(action)
        except (BoardctlError, ValueError) as exc:
            return _error(400, str(exc))
        return web.json_response({"ok": True})

    async def _validate(self, action: Any) -> Action:
        """:func:`validate_action` for the daemon's game, with a PGN upload parsed in a worker
        thread (one at a time), so a big one never holds up the event loop."""
        variant = getattr(self._daemon, "variant", None)
        check = validate_action if variant is None else functools.partial(validate_action, variant=variant)
        if not needs_worker(action):
            return check(action)
        async with self._parse_slot:
            return await asyncio.get_running_loop().run_in_executor(None, check, action)

    async def _websocket(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(heartbeat=20.0, max_msg_size=MAX_MESSAGE_BYTES)
        await ws.prepare(request)
        self._sockets.add(ws)
        # Subscribe before reading the state, so no line falls between the two; the current state
        # goes out before the forwarder starts, so the page sees the lines in order.
        queue = self._daemon.subscribe()
        remote = self._remote(request)
        sender: asyncio.Task[None] | None = None
        authenticated = [False]
        try:
            line = self._annotator.annotate(self._daemon.state())
            await ws.send_str(_dumps(self.visible(line, authenticated=False)))
            sender = asyncio.create_task(self._forward(queue, ws, authenticated))
            async for msg in ws:
                if msg.type == WSMsgType.TEXT:
                    await self._handle_ws_message(ws, remote, msg.data, authenticated)
                elif msg.type == WSMsgType.ERROR:
                    log.info("websocket from %s closed with %s", remote, ws.exception())
        except ConnectionResetError:
            pass
        finally:
            if sender is not None:
                sender.cancel()
                with contextlib.suppress(asyncio.CancelledError, ConnectionResetError):
                    await sender
            self._daemon.unsubscribe(queue)
            self._sockets.discard(ws)
        return ws

    async def _handle_ws_message(
        self, ws: web.WebSocketResponse, remote: str, text: str, authenticated: list[bool]
    ) -> None:
        """Lockout first, then the envelope (for the PIN), then the PIN, and only then the action.

        ``authenticated[0]`` becomes True once this socket gave the right PIN.
        """
        msg_id: int | None = None
        try:
            if self._lan and not authenticated[0]:
                self._guard.check_lockout(remote)
            try:
                envelope = parse_envelope(text)
            except WebInputError:
                if self._lan and not authenticated[0]:
                    self._guard.check(remote, None)  # unreadable, so no PIN: counts as a wrong one
                raise
            msg_id = envelope.id
            if self._lan:
                self._guard.check(remote, envelope.pin, authenticated=authenticated[0])
                if not authenticated[0]:
                    authenticated[0] = True
                    # What was kept from this socket so far (the invitation) is its now.
                    line = self._annotator.annotate(self._daemon.state())
                    if any(key in line for key in PIN_ONLY_KEYS):
                        await ws.send_str(_dumps(line))
            if envelope.pin_only:
                await ws.send_str(_dumps({"reply": msg_id, "ok": True}))
                return
            action = await self._validate(envelope.action)
            await self._submit(action)
        except (BoardctlError, ValueError) as exc:
            if msg_id is None and isinstance(exc, WebInputError):
                msg_id = exc.msg_id
            reply: dict[str, Any] = {"reply": msg_id, "error": str(exc)}
            if isinstance(exc, PinError):
                reply["pin"] = "required"
            await ws.send_str(_dumps(reply))
            return
        await ws.send_str(_dumps({"reply": msg_id, "ok": True}))

    async def _forward(self, queue: asyncio.Queue[dict[str, Any]], ws: web.WebSocketResponse,
                       authenticated: list[bool]) -> None:
        while not ws.closed:
            line = self._annotator.annotate(await queue.get())
            await ws.send_str(_dumps(self.visible(line, authenticated=authenticated[0])))

    # -- games ------------------------------------------------------------------------------

    def _games_path(self) -> Path | None:
        path = self._games_dir or getattr(self._daemon, "games_dir", None)
        return Path(path) if path is not None else None

    async def _current_pgn(self, request: web.Request) -> web.Response:
        maker = getattr(self._daemon, "pgn", None)
        state = self._daemon.state()
        text = maker() if callable(maker) else pgn_from_state(state)
        game = str(state.get("game") or "")
        name = f"{game}.pgn" if _GAME_NAME_RE.match(f"{game}.pgn") else "boardctl-game.pgn"
        return web.Response(
            text=str(text),
            content_type="application/x-chess-pgn",
            headers={"Content-Disposition": f'attachment; filename="{name}"'},
        )

    async def _games(self, request: web.Request) -> web.Response:
        folder = self._games_path()
        if folder is None or not folder.is_dir():
            return web.json_response({"games": []})
        try:
            games = await asyncio.to_thread(list_games, folder)
        except (OSError, ValueError) as exc:  # never a 500 for a folder that changed while listed
            log.warning("cannot list the games in %s: %s", folder, exc)
            games = []
        return web.json_response({"games": games})

    async def _game_file(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        folder = self._games_path()
        if name.endswith(".json"):
            pgn_name = name[: -len(".json")] + ".pgn"
            path = game_path(folder, pgn_name)
            if path is None:
                return _error(404, f"no game {pgn_name!r}")
            try:
                data = await asyncio.to_thread(game_for_viewer, path)
            except BoardctlError as exc:
                return _error(422, str(exc))
            return web.json_response(data)
        path = game_path(folder, name)
        if path is None:
            return _error(404, f"no game {name!r}")
        return web.FileResponse(
            path,
            headers={"Content-Type": "application/x-chess-pgn", "Content-Disposition": f'attachment; filename="{name}"'},
        )


def game_path(folder: Path | None, name: str) -> Path | None:
    """The saved game ``name`` (a ``.pgn`` file name) in ``folder``, resolved safely: None for a
    bad name, a missing or dangling file, a directory, a symlink loop (of the file or of the folder
    itself) and a link that leads out of the folder."""
    if folder is None or not _GAME_NAME_RE.match(name):
        return None
    try:
        path = (folder / name).resolve(strict=True)
        if path.parent != folder.resolve(strict=True) or not path.is_file():
            return None
    except (OSError, RuntimeError):  # missing, dangling, a symlink loop (RuntimeError before 3.13)
        return None
    return path


class Annotator:
    """Adds ``san`` and ``opening`` to state lines that lack them, for the page's move list.

    The daemon's state lines are passed on unchanged otherwise; keys the daemon sends itself
    always win. Moves are replayed from ``start_fen`` (default: the game's start) in the line's
    ``variant`` (default chess), and the last game's replay is kept, so a new move costs one push,
    not a replay of the game.
    """

    def __init__(self) -> None:
        self._variant = get_variant("chess")
        self._board = self._variant.board()
        self._san: list[str] = []
        # The daemon hands the same dict to every subscriber: annotate it once for all pages.
        self._last: tuple[dict[str, Any], dict[str, Any]] | None = None

    def _replay(self, variant: Variant, start: str, moves: list[str]) -> list[str] | None:
        board = self._board
        done = [m.uci() for m in board.move_stack]
        if variant is not self._variant or board.root().fen() != start or done != moves[: len(done)]:
            try:
                board = variant.board(start)
            except ValueError:
                return None
            self._variant = variant
            self._san = []
        try:
            for uci in moves[len(board.move_stack) :]:
                move = board.parse_uci(uci)
                self._san.append(board.san(move))
                board.push(move)
        except ValueError:
            self._board, self._san = variant.board(), []
            return None
        self._board = board
        return list(self._san)

    def annotate(self, line: dict[str, Any]) -> dict[str, Any]:
        if self._last is not None and self._last[0] is line:
            return self._last[1]
        out = self._annotate(line)
        self._last = (line, out)
        return out

    def _annotate(self, line: dict[str, Any]) -> dict[str, Any]:
        wanted = [key for key in ANNOTATIONS if key not in line]
        moves = line.get("moves")
        if not wanted or not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
            return line
        name = line.get("variant") or "chess"
        if name not in NAMES:
            return line
        variant = get_variant(str(name))
        san = self._replay(variant, str(line.get("start_fen") or variant.starting_fen), moves)
        if san is None:
            return line
        board = self._board
        out = dict(line)
        out.setdefault("san", san)
        if "opening" not in line:
            out["opening"] = _opening_name(board)
        for key, san_key in (("pending", "pending_san"), ("hint", "hint_san")):
            if san_key not in line:
                out[san_key] = _san_of(board, line.get(key))
        if variant.has_part("notation"):
            _annotate_chinese(out, str(line.get("start_fen") or variant.starting_fen), moves, board, variant)
        out.setdefault("check", check_square(board))
        out.setdefault("can_promote", can_promote(board))
        if "board_hint" not in line:
            occupancy = logical_occupancy(
                line.get("occupancy"), flipped=line.get("orientation") == "flipped", geometry=variant.geometry
            )
            out["board_hint"] = None if occupancy is None else describe_board(board, occupancy)
        return out


#: Keys the server adds to state lines that lack them (docs/web.md); a xiangqi game's
#: also ``san_chinese``, ``pending_chinese`` and ``hint_chinese`` (:func:`_annotate_chinese`).
ANNOTATIONS = ("san", "opening", "pending_san", "hint_san", "check", "can_promote", "board_hint")


def _annotate_chinese(out: dict[str, Any], start_fen: str, moves: list[str], board: GameBoard,
                      variant: Variant) -> None:
    """A xiangqi game's moves, the engine's move and the hint in Chinese notation (炮二平五,
    马８进７), which the page shows by default (its WXF is ``san``)."""
    notation = variant.part("notation")
    chinese, write_line = notation.chinese, notation.write_line
    if "san_chinese" not in out:
        try:
            out["san_chinese"] = write_line(moves, "chinese", fen=start_fen)
        except ValueError:
            out["san_chinese"] = None
    for key in ("pending", "hint"):
        uci = out.get(key)
        text = None
        if isinstance(uci, str) and uci:
            try:
                move = board.parse_uci(uci)
                text = chinese(board, move) if board.is_legal(move) else None
            except ValueError:
                text = None
        out.setdefault(f"{key}_chinese", text)


def game_for_viewer(path: Path) -> dict[str, Any]:
    """A saved game for the page's viewer: headers, and every position with its move in SAN and UCI.

    The page has no chess rules of its own, so ``fens[i]`` is the position after ``i`` plies.
    """
    try:
        with path.open(encoding="utf-8", errors="replace") as fh:
            variant = _variant_of(fh)
            reader = variant.read_pgn
            game = reader(fh) if reader is not None else None
    except OSError as exc:
        raise BoardctlError(f"{path.name}: cannot read ({exc.strerror or exc})") from None
    if game is None:
        raise BoardctlError(f"{path.name}: no game in the file")
    board = variant.board(game.fen)
    fens, san, uci = [board.fen()], [], []
    for text in game.moves:
        move = board.parse_uci(text)
        san.append(board.san(move))
        uci.append(move.uci())
        board.push(move)
        fens.append(board.fen())
    headers = game.headers
    return {
        "name": path.name,
        "variant": variant.name,
        "headers": headers,
        "start_fen": fens[0],
        "fens": fens,
        "san": san,
        "moves": uci,
        "result": headers.get("Result", "*"),
        "errors": list(game.errors),
    }


def _variant_of(handle: TextIO) -> Variant:
    """The game a PGN file records (``[Game "Chinese Chess"]`` or ``[Variant "xiangqi"]``: xiangqi;
    else chess), read from its first lines; the handle is rewound."""
    start = handle.tell()
    head = handle.read(4096)
    handle.seek(start)
    if re.search(r'\[(Game\s+"Chinese Chess"|Variant\s+"xiangqi")\]', head, re.IGNORECASE):
        return get_variant("xiangqi")
    return get_variant("chess")


def _san_of(board: GameBoard, uci: Any) -> str | None:
    """SAN of a UCI move in ``board``'s position; None when it is not a legal move there."""
    if not isinstance(uci, str) or not uci:
        return None
    try:
        return board.san(board.parse_uci(uci))
    except ValueError:
        return None


def _opening_name(board: GameBoard) -> str | None:
    try:
        from boardctl.openings import classify
    except ImportError:  # the openings table is optional for the page
        return None
    found = classify(board)
    return " ".join(filter(None, (found.eco, found.name))) if found is not None else None


def list_games(folder: Path) -> list[dict[str, Any]]:
    """The saved games' headers, newest first (the daemon writes one ``.pgn`` per game).

    The folder changes under our feet (a save renames files in, a user deletes one): an entry
    that vanishes, a dangling symlink, a directory or a link out of the folder is skipped.
    """
    found: list[tuple[float, Path]] = []
    try:
        entries = list(folder.glob("*.pgn"))
    except OSError as exc:
        log.warning("cannot list %s: %s", folder, exc)
        return []
    real_folder = folder.resolve()
    for path in entries:
        if not _GAME_NAME_RE.match(path.name):
            continue
        try:
            info = path.stat()
            if path.resolve(strict=True).parent != real_folder or not path.is_file():
                continue
        except (OSError, RuntimeError):  # vanished, dangling, a symlink loop
            continue
        found.append((info.st_mtime, path))
    games: list[dict[str, Any]] = []
    for mtime, path in sorted(found, key=lambda item: item[0], reverse=True):
        try:
            with path.open(encoding="utf-8", errors="replace") as fh:
                variant = _variant_of(fh)
                reader = variant.read_pgn_headers
                headers = reader(fh) if reader is not None else None
        except OSError as exc:
            log.info("cannot read %s: %s", path, exc)
            continue
        if headers is None:
            continue
        games.append(
            {
                "name": path.name,
                "date": headers.get("Date", "?"),
                "variant": variant.name,
                "white": headers.get("White", headers.get("Red", "?")),  # xiangqi records name Red
                "black": headers.get("Black", "?"),
                "result": headers.get("Result", "*"),
                "opening": headers.get("Opening", ""),
                "modified": mtime,
            }
        )
    return games


def pgn_from_state(state: dict[str, Any]) -> str:
    """A PGN from a state line, for daemons that do not offer ``pgn()`` themselves."""
    variant = get_variant(str(state.get("variant") or "chess"))
    start = state.get("start_fen") or state.get("initial_fen") or variant.starting_fen
    moves = tuple(str(uci) for uci in state.get("moves", []))
    board = variant.board(start)
    for uci in moves:
        board.push(board.parse_uci(uci))  # every move must be legal
    headers = {"Event": "boardctl", "Result": state.get("result") or "*"}
    if state.get("opening"):
        headers["Opening"] = str(state["opening"])
    write = variant.write_pgn
    if write is None:
        raise BoardctlError(f"no PGN writer for {variant.name}")
    return write(GameText(fen=board.root().fen(), moves=moves, headers=headers)) + "\n"


def _dumps(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"))


def _error(status: int, message: str) -> web.Response:
    return web.json_response({"error": message}, status=status)
