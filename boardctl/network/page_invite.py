"""The page's "Invite" on a play, record or demo daemon: host a network game from the page.

``boardctl host`` starts hosting from the command line; here ``POST /api/invite`` switches the
running daemon into hosting: a new ``network`` game (the current settings, ``mode`` network, the
colour asked for), a one-time invitation code kept as ``boardctl host`` keeps it, and the same
:class:`boardctl.network.host.HostLink` serving ``/net`` on this web server. The invitation
(address, code) is in the state lines under ``invite`` like the host's. A new game, a lesson or a
replay from the page stops hosting (the other board is told, and the ticket forgotten) and goes back
to the settings from before. The ticket is marked
as the page's: a restarted daemon resumes the unfinished game and hosts it again (:meth:`resume`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from aiohttp import web

from boardctl.errors import PinError
from boardctl.hosts import is_loopback_host, lan_address
from boardctl.network.host import HostLink, add_new_code_route
from boardctl.network.protocol import Error
from boardctl.network.tokens import Ticket, TicketStore, new_code, unfinished_game

if TYPE_CHECKING:
    from boardctl.config import Config
    from boardctl.daemon import Daemon
    from boardctl.session import Session, Settings
    from boardctl.storage import GameRecord

log = logging.getLogger(__name__)

#: The game's endpoint, as ``boardctl host`` serves it (boardctl.commands.network.PATH).
PATH = "/net"
MAX_BODY = 1024
COLORS = ("white", "black", "red", "random")


class PageInvite:
    """``GET``/``POST /api/invite`` and ``/net`` for a daemon that does not host from the start."""

    def __init__(self, server: Any, daemon: Daemon, cfg: Config) -> None:
        self.server = server
        self.daemon = daemon
        self.cfg = cfg
        self.link: HostLink | None = None
        self._task: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()
        self._before: Settings | None = None

    @property
    def invite(self) -> dict[str, Any] | None:
        return None if self.link is None else self.link.invite

    # -- the routes -------------------------------------------------------------------------------

    async def net(self, request: web.Request) -> web.StreamResponse:
        """``/net``: the host's endpoint while hosting; nothing otherwise."""
        if self.link is None:
            return web.json_response({"error": "this board hosts no network game now (the page's Invite starts one)"},
                                     status=404)
        return await self.link.handle(request)

    async def get(self, request: web.Request) -> web.Response:
        """Whether this board hosts; the invitation only for a client with the PIN in LAN mode
        (its code is worth the guest's seat; boardctl.web.server, PIN_ONLY_KEYS)."""
        try:
            shown = self.server.has_pin(request)
        except PinError as exc:
            return _error(403, str(exc))
        return web.json_response({"available": True, "hosting": self.link is not None,
                                  "invite": self.invite if shown else None, "command": self.command()})

    async def post(self, request: web.Request) -> web.Response:
        if request.content_type != "application/json":
            return _error(415, "POST /api/invite: send JSON with Content-Type: application/json")
        try:
            self.server.require_pin(request)
        except PinError as exc:
            return _error(403, str(exc))
        raw = await request.content.read(MAX_BODY + 1)
        try:
            data = json.loads(raw.decode("utf-8") or "{}") if len(raw) <= MAX_BODY else None
        except (UnicodeDecodeError, ValueError):
            data = None
        if not isinstance(data, dict) or set(data) - {"color", "name", "guest_name"}:
            return _error(400, 'POST /api/invite: expected {"color": "white"|"black"|"random", "name": ..., '
                               '"guest_name": ...}')
        color = data.get("color", "white")
        if color not in COLORS:
            return _error(400, f"POST /api/invite: color must be one of {', '.join(COLORS)}, got {str(color)[:20]!r}")
        names = [data.get(k, d) for k, d in (("name", "Host"), ("guest_name", "Guest"))]
        if not all(isinstance(n, str) and 0 < len(n.strip()) <= 40 and n.isprintable() for n in names):
            return _error(400, "POST /api/invite: name and guest_name are 1 to 40 printable characters")
        if self.link is None:
            try:
                self.begin(str(color), name=names[0].strip(), guest_name=names[1].strip())
            except OSError as exc:
                return _error(500, f"cannot save the network game in {self.daemon.store.root}: {exc.strerror or exc}")
        return web.json_response({"hosting": True, "invite": self.invite, "command": self.command()})

    # -- hosting ----------------------------------------------------------------------------------

    def address(self) -> str:
        host = self.cfg.web_host
        shown = host if host not in ("", "0.0.0.0", "::") else lan_address()
        shown = f"[{shown}]" if ":" in shown else shown
        return f"ws://{shown}:{self.server.port}{PATH}"

    def command(self) -> str:
        """The command line that hosts from the start, for the page to show."""
        lan = "" if not is_loopback_host(self.cfg.web_host) else " --host 0.0.0.0"
        return f"boardctl host --board {self.cfg.board_backend}{lan}"

    def begin(self, color: str, *, name: str = "Host", guest_name: str = "Guest") -> None:
        """Switch the daemon into hosting a new network game now (the code on disk first)."""
        daemon = self.daemon
        session = daemon.session
        before = getattr(session.guide, "settings_before", None) or session.settings
        names = session.variant.color_names
        if color == "random":
            color = random.choice(["white", "black"])
        colour = names[0] if color in ("white", "red") else names[1]
        settings = replace(before, mode="network", color=colour, takeback="off", opponent="", coach=False)
        local = colour == names[0]
        with daemon.remote_input("network") as game:
            game.new_game(daemon.now(), settings=settings)
            game.players(name if local else guest_name, guest_name if local else name)
            daemon.store.save(session.record)  # on disk before the code is shown, as boardctl host does
            tickets = TicketStore(daemon.store.root)
            ticket = Ticket("host", session.record.id, code=new_code(), color=colour, page=True)
            tickets.save(ticket)
            self._host(tickets, ticket, before)
            log.warning("Invite the other board: boardctl join %s --code %s", self.address(), ticket.code)

    def _host(self, tickets: TicketStore, ticket: Ticket, before: Settings) -> None:
        """Serve ``ticket``'s game on ``/net`` from now on (a new one, or one resumed)."""
        daemon = self.daemon
        link = HostLink(daemon, tickets, ticket)
        link.invite = {"address": self.address(), "code": ticket.code}
        daemon.extra_state["invite"] = link.invite
        daemon.save_after_publish = True  # the other board first, then this disk
        self._before, self.link, self._stop = before, link, asyncio.Event()
        self._task = asyncio.get_running_loop().create_task(link.run(self._stop))

    def resume(self, *, fresh: bool = False, command: str = "boardctl play") -> bool:
        """After a restart: take up the unfinished network game the page's Invite hosted, as
        ``boardctl host`` does with its stored ticket (the code if still unused, else the token
        the guest reconnects with). True if hosting again.

        Only the same game is taken up: a command that names another variant (``--variant``), a
        new game (``fresh``: ``--new``, ``--fen``) or a lesson or replay never resumes it; the
        log then says what was left unfinished and ``command`` (the command as given, e.g.
        ``boardctl demo``) with the options that return to it."""
        from boardctl.session import Session

        daemon = self.daemon
        tickets = TicketStore(daemon.store.root)
        ticket = tickets.load("host")
        if ticket is None or not ticket.page:
            return False
        record = unfinished_game(daemon.store, ticket)
        if record is None:
            return False
        old = daemon.session
        why = _not_resumed_because(old, record, fresh=fresh)
        if why is not None:
            log.warning("Left unfinished: the %s network game %s hosted from the page (%d plies, you play %s); "
                        "%s. To return to it: %s --variant %s", record.variant, record.id, len(record.moves),
                        (record.human or "?").capitalize(), why, command, record.variant)
            return False
        before = getattr(old.guide, "settings_before", None) or old.settings
        settings = replace(before, mode="network", color=record.human or "white", takeback="off", opponent="",
                           coach=False, variant=record.variant, time_control=record.time_control)
        daemon.session = Session(settings, record=record)  # the board's first snapshot says where the pieces are
        self._host(tickets, ticket, before)
        log.warning("Resuming the network game %s hosted from the page at %s; the other board rejoins by itself",
                    record.id, self.address())
        daemon.refresh("network")
        return True

    async def end(self) -> None:
        """Stop hosting (before a new game, a lesson or a replay from the page); safe to call twice."""
        link, task, self.link, self._task = self.link, self._task, None, None
        if link is None:
            return
        self._stop.set()
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        # The other board is told, not left to reconnect for ever; this hosting is not resumed.
        await link.send(Error(f"the host stopped hosting game {link.ticket.game} (a new game, lesson or replay on "
                              "its page); the game stays saved, unfinished", fatal=True))
        TicketStore(self.daemon.store.root).forget("host")
        await link.close()
        for key in ("invite", "network"):
            self.daemon.extra_state.pop(key, None)
        self.daemon.save_after_publish = False
        session = self.daemon.session
        if session.settings.mode == "network" and self._before is not None:
            session.settings = self._before  # what the next game starts from
        log.warning("network: no longer hosting; the network game %s stays saved", session.record.id)


def _not_resumed_because(session: Session, record: GameRecord, *, fresh: bool) -> str | None:
    """Why ``session`` (what the command opened) must not give way to the page's network game
    ``record``, or None when the command names nothing else."""
    if record.variant != session.variant.name:
        return f"this command plays {session.variant.name}"
    if session.guide is not None:
        return "this command opens a lesson or a replay"
    if fresh:
        return "this command starts a new game (--new, --fen)"
    return None


def enable(server: Any, daemon: Daemon, cfg: Config) -> PageInvite:
    """Add the Invite routes to ``server`` (not started yet) and stop hosting before the page's
    next new game, lesson or replay, and when the daemon closes."""
    invite = PageInvite(server, daemon, cfg)
    server.add_websocket(PATH, invite.net)
    server.app.router.add_get("/api/invite", invite.get)
    server.app.router.add_post("/api/invite", invite.post)
    add_new_code_route(server, lambda: invite.link)
    daemon.before_new_game.append(invite.end)
    return invite


def _error(status: int, message: str) -> web.Response:
    return web.json_response({"error": message}, status=status)
