"""``boardctl host``: host a game for another board (``boardctl join``) or a phone, over the network.

Prints the address and a one-time invitation code; with ``--stdio`` the first state line carries
them under ``invite``. Restarted with the same command, it resumes its unfinished network game.
"""

from __future__ import annotations

import argparse
import hashlib
import logging
import random
import ssl
from pathlib import Path
from typing import TYPE_CHECKING, Any

from boardctl.commands import network, options, root
from boardctl.errors import ConfigError
from boardctl.hosts import lan_address
from boardctl.network.host import HostLink, attach
from boardctl.network.tokens import Ticket, new_code
from boardctl.session import Session

if TYPE_CHECKING:
    from boardctl.daemon import Daemon

log = logging.getLogger(__name__)


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from boardctl.cli import describe

    parser = sub.add_parser("host", help="host a game for another board over the network", description=describe(__doc__))
    options.add_arguments(parser, mode="record")
    net = parser.add_argument_group("network")
    net.add_argument("--color", choices=["white", "black", "red", "random"], default="white",
                     help="This board's colour; the other board gets the other one. Default: white.")
    net.add_argument("--name", default="Host", help="This player's name in both records. Default: Host.")
    net.add_argument("--guest-name", default="Guest", help="The other player's name in both records. Default: Guest.")
    net.add_argument("--tls-cert", type=Path, metavar="FILE", help="Serve the game and page over TLS (wss://) with this PEM certificate. Default: none (ws://).")
    net.add_argument("--tls-key", type=Path, metavar="FILE", help="The private key of --tls-cert, a PEM file. Default: none.")


def run(args: argparse.Namespace) -> int:
    checked = network.network_options(args)
    if not checked.cfg.web_enabled:
        raise ConfigError("host: the game is served by the web server; do not give --no-web")
    context = _tls_context(args.tls_cert, args.tls_key)
    fingerprint = certificate_fingerprint(args.tls_cert) if args.tls_cert is not None else None
    return root.run(checked, HostPlug(checked, color=args.color, name=args.name, guest_name=args.guest_name,
                                      context=context, fingerprint=fingerprint))


def certificate_fingerprint(cert: Path) -> str:
    """SHA-256 of the certificate (DER), colon-separated hex, as ``join --fingerprint`` takes it."""
    der = ssl.PEM_cert_to_DER_cert(cert.read_text(encoding="ascii"))
    return ":".join(f"{b:02X}" for b in hashlib.sha256(der).digest())


def _tls_context(cert: Path | None, key: Path | None) -> ssl.SSLContext | None:
    if (cert is None) != (key is None):
        raise ConfigError("host: give both --tls-cert and --tls-key")
    if cert is None or key is None:
        return None
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    try:
        context.load_cert_chain(str(cert), str(key))
    except (OSError, ssl.SSLError) as exc:
        raise ConfigError(f"--tls-cert/--tls-key: cannot load ({exc})") from None
    return context


class HostPlug(network.NetworkPlug):
    """The host's side: its game saved before the invitation is shown, ``/net`` on its page."""

    role = "host"

    def __init__(self, checked: root.Options, *, color: str, name: str, guest_name: str, context: Any,
                 fingerprint: str | None) -> None:
        super().__init__(checked.new)
        self.color, self.name, self.guest_name = color, name, guest_name
        self.context = context
        self.fingerprint = fingerprint

    async def open_session(self, run: root.Run) -> Session:
        cfg, store = run.cfg, run.store
        record = self.unfinished(run)
        assert self.tickets is not None
        if record is not None and self.ticket is not None:
            return Session(network.settings(cfg, color=record.human or "white", variant=record.variant,
                                            time_control=record.time_control), record=record)
        variant = run.options.variant
        color = self.color
        if color == "random":
            color = random.choice(["white", "black"])
        names = variant.color_names
        color = names[0] if color in ("white", "red") else names[1]
        fen = root.start_fen(run.options.fen, variant) if run.options.fen else variant.starting_fen
        session = Session(network.settings(cfg, color=color, variant=variant.name, time_control=cfg.game_time_control),
                          fen=fen)
        local = color == names[0]
        session.set_players(self.name if local else self.guest_name, self.guest_name if local else self.name)
        store.save(session.record)  # on disk before the code is shown: a restart resumes it
        self.ticket = Ticket("host", session.record.id, code=new_code(), color=color)
        self.tickets.save(self.ticket)
        return session

    async def attach(self, daemon: Daemon, run: root.Run) -> None:
        await super().attach(daemon, run)
        assert self.tickets is not None and self.ticket is not None
        self.link = HostLink(daemon, self.tickets, self.ticket)

    async def start_web(self, daemon: Daemon, run: root.Run) -> Any:
        """The page, over TLS with ``--tls-cert``, with the game's endpoint beside it (no Invite)."""
        server = root.web_server(daemon, run.cfg, port_chosen=run.options.port_chosen, ssl_context=self.context)
        assert server is not None  # web.enabled: checked by run
        attach(server, self.link, network.PATH)
        await server.start()
        daemon.web_url = server.url
        return server

    async def started(self, daemon: Daemon, web: Any, run: root.Run) -> None:
        assert self.ticket is not None
        shown = run.cfg.web_host if run.cfg.web_host not in ("", "0.0.0.0", "::") else lan_address()
        shown = f"[{shown}]" if ":" in shown else shown
        invite: dict[str, Any] = {"address": f"{'wss' if self.context else 'ws'}://{shown}:{web.port}{network.PATH}",
                                  "code": self.ticket.code}
        if self.fingerprint is not None:
            invite["fingerprint"] = self.fingerprint
        daemon.extra_state["invite"] = invite
        self.link.invite = invite
        if self.ticket.code:
            extra = f" --fingerprint {invite['fingerprint']}" if "fingerprint" in invite else ""
            log.warning("Invite the other board: boardctl join %s --code %s%s", invite["address"], self.ticket.code, extra)
        else:
            log.warning("Resuming the network game %s at %s; the other board rejoins by itself",
                        daemon.session.record.id, invite["address"])
        await super().started(daemon, web, run)
