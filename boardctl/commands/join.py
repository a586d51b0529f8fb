"""``boardctl join ws://HOST:PORT --code CODE``: play the game another board hosts (``boardctl host``).

The code is exchanged for the game's token (stored mode 0600); restarted with the same command,
it resumes the unfinished network game with that token.
"""

from __future__ import annotations

import argparse
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from boardctl.commands import network, options, root
from boardctl.errors import BoardctlError, ConfigError
from boardctl.network.join import Address, JoinLink, check_welcome, handshake, tls_option
from boardctl.network.protocol import Hello
from boardctl.network.tokens import Ticket
from boardctl.session import Session

if TYPE_CHECKING:
    from boardctl.daemon import Daemon

log = logging.getLogger(__name__)


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from boardctl.cli import describe

    parser = sub.add_parser("join", help="join a game another board hosts", description=describe(__doc__))
    parser.add_argument("address", metavar="ws://HOST:PORT", help="The address the host printed (its invite). Default: none, it must be given.")
    options.add_arguments(parser, mode="record")
    net = parser.add_argument_group("network")
    net.add_argument("--code", help="The one-time invitation code the host printed; not needed to resume. Default: none.")
    net.add_argument("--ca", type=Path, metavar="FILE", help="wss://: trust a host certificate signed by this CA file. Default: the system's CAs.")
    net.add_argument("--fingerprint", metavar="SHA256",
                     help="wss://: trust the host certificate with this SHA-256 fingerprint (the host prints it). Default: none.")


def run(args: argparse.Namespace) -> int:
    checked = network.network_options(args)
    address = Address.from_string(args.address)
    tls = tls_option(address, ca=args.ca, fingerprint=args.fingerprint)
    return root.run(checked, JoinPlug(checked, address, tls=tls, code=args.code))


class JoinPlug(network.NetworkPlug):
    """The guest's side: the code exchanged for the game's token, or the stored token to resume."""

    role = "join"

    def __init__(self, checked: root.Options, address: Address, *, tls: Any, code: str | None) -> None:
        super().__init__(checked.new)
        self.address = address
        self.tls = tls
        self.code = code
        self.token = ""
        self.refused: list[str] = []

    async def open_session(self, run: root.Run) -> Session | None:
        cfg, store, address = run.cfg, run.store, self.address
        record = self.unfinished(run)
        ticket = self.ticket
        assert self.tickets is not None
        known = ticket is not None and ticket.address == address.url and ticket.token is not None
        if record is not None and ticket is not None and known:
            self.token = str(ticket.token)
            return Session(network.settings(cfg, color=record.human or "black", variant=record.variant,
                                            time_control=record.time_control), record=record)
        variant = run.options.variant
        if known and ticket is not None and ticket.token is not None:
            hello = Hello(variant=variant.name, token=ticket.token)  # joined, but nothing saved yet
        elif not self.code:
            raise ConfigError("join: give --code CODE (the invitation code the host printed)")
        else:
            hello = Hello(variant=variant.name, code=self.code.strip().upper())
        welcome = await network.unless_stopped(handshake(address, hello, tls=self.tls), run.stop)
        if welcome is None:  # stopped while the host could not be reached: nothing to save yet
            log.warning("join: stopped before %s answered; nothing was saved", address.url)
            return None
        start = check_welcome(welcome, variant=variant)  # nothing of the host's is used unchecked
        session = Session(network.settings(cfg, color=welcome.color, variant=variant.name,
                                           time_control=welcome.time_control), fen=start.fen(), variant=variant)
        session.set_players(welcome.white, welcome.black)
        self.token = welcome.token
        store.save(session.record)
        self.ticket = Ticket("join", session.record.id, token=self.token, address=address.url, color=welcome.color,
                             host_game=welcome.game)
        self.tickets.save(self.ticket)
        return session

    async def attach(self, daemon: Daemon, run: root.Run) -> None:
        await super().attach(daemon, run)

        def refused(message: str) -> None:
            self.refused.append(message)
            run.stop.set()

        self.link = JoinLink(daemon, self.address, self.token, tls=self.tls, on_refused=refused,
                             tickets=self.tickets, ticket=self.ticket)

    async def start_web(self, daemon: Daemon, run: root.Run) -> Any:
        return await root.start_web(daemon, run.cfg, port_chosen=run.options.port_chosen)

    def finished(self) -> None:
        if self.refused:
            raise BoardctlError(self.refused[0])
