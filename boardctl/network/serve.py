"""``boardctl host`` and ``boardctl join``: a game between two boards, built like ``record``'s daemon.

The host opens (or resumes) a ``network`` game, serves ``/net`` on its web server beside the page
and prints the address and a one-time invitation code (also under ``invite`` in its state lines).
The guest exchanges the code for the game's token, or resumes its unfinished network game with the
stored token; both then run the usual daemon (sim board, ``--stdio``, the page) with a link task.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import logging
import signal
import ssl
import time
from collections.abc import Awaitable
from pathlib import Path
from typing import Any, TypeVar

from boardctl import config as config_mod
from boardctl.config import Config
from boardctl.daemon import Daemon
from boardctl.errors import BoardctlError, ConfigError
from boardctl.hosts import lan_address
from boardctl.launch import (
    _finish_view,
    _start_fen,
    _terminal_view,
    _wants_view,
    add_arguments,
    check_game_ready,
    config_from_args,
    start_web,
)
from boardctl.network.host import HostLink, attach
from boardctl.network.join import Address, JoinLink, check_welcome, handshake, tls_option
from boardctl.network.protocol import Hello
from boardctl.network.tokens import Ticket, TicketStore, new_code, unfinished_game
from boardctl.session import Session, Settings
from boardctl.stdio import InputClock, run_stdio
from boardctl.storage import GameStore
from boardctl.tracker import Policy

log = logging.getLogger(__name__)

#: The endpoint of the game on the host's web server.
PATH = "/net"

_T = TypeVar("_T")


async def unless_stopped(work: Awaitable[_T], stop: asyncio.Event) -> _T | None:
    """``work``'s result, or None as soon as ``stop`` is set (SIGTERM, Ctrl-C): ``work`` is then
    cancelled, however long it would still wait (a host that cannot be reached, or never answers)."""
    task = asyncio.ensure_future(work)
    stopped = asyncio.ensure_future(stop.wait())
    try:
        await asyncio.wait({task, stopped}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopped.cancel()
        if not task.done():
            task.cancel()
    if task.done() and not task.cancelled():
        return task.result()
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await task
    return None


def add_host_arguments(parser: argparse.ArgumentParser) -> None:
    add_arguments(parser, mode="record")
    net = parser.add_argument_group("network")
    net.add_argument("--color", choices=["white", "black", "red", "random"], default="white",
                     help="This board's colour; the other board gets the other one. Default: white.")
    net.add_argument("--name", default="Host", help="This player's name in both records. Default: Host.")
    net.add_argument("--guest-name", default="Guest", help="The other player's name in both records. Default: Guest.")
    net.add_argument("--tls-cert", type=Path, metavar="FILE", help="Serve the game and page over TLS (wss://) with this PEM certificate. Default: none (ws://).")
    net.add_argument("--tls-key", type=Path, metavar="FILE", help="The private key of --tls-cert, a PEM file. Default: none.")


def add_join_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("address", metavar="ws://HOST:PORT", help="The address the host printed (its invite). Default: none, it must be given.")
    add_arguments(parser, mode="record")
    net = parser.add_argument_group("network")
    net.add_argument("--code", help="The one-time invitation code the host printed; not needed to resume. Default: none.")
    net.add_argument("--ca", type=Path, metavar="FILE", help="wss://: trust a host certificate signed by this CA file. Default: the system's CAs.")
    net.add_argument("--fingerprint", metavar="SHA256",
                     help="wss://: trust the host certificate with this SHA-256 fingerprint (the host prints it). Default: none.")


def _settings(cfg: Config, *, color: str, variant: str, time_control: str) -> Settings:
    return Settings(
        mode="network", color=color, orientation=cfg.board_orientation, time_control=time_control,
        policy=Policy(cfg.game_policy).value, arbiter=cfg.game_arbiter, takeback="off", settle=cfg.board_settle,
        legal_moves=cfg.game_legal_moves, variant=variant,
    )


def certificate_fingerprint(cert: Path) -> str:
    """SHA-256 of the certificate (DER), colon-separated hex, as ``join --fingerprint`` takes it."""
    der = ssl.PEM_cert_to_DER_cert(cert.read_text(encoding="ascii"))
    return ":".join(f"{b:02X}" for b in hashlib.sha256(der).digest())


def _tls_context(args: argparse.Namespace) -> ssl.SSLContext | None:
    if (args.tls_cert is None) != (args.tls_key is None):
        raise ConfigError("host: give both --tls-cert and --tls-key")
    if args.tls_cert is None:
        return None
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    try:
        context.load_cert_chain(str(args.tls_cert), str(args.tls_key))
    except (OSError, ssl.SSLError) as exc:
        raise ConfigError(f"--tls-cert/--tls-key: cannot load ({exc})") from None
    return context


async def _host_web(daemon: Daemon, cfg: Config, link: HostLink, *, port_chosen: bool, context: Any) -> Any:
    from boardctl.hosts import is_loopback_host
    from boardctl.web.pin import load_or_create_pin
    from boardctl.web.server import WebServer

    pin: str | None = cfg.web_pin or None
    if pin is None and not is_loopback_host(cfg.web_host):
        pin = load_or_create_pin(config_mod.user_file())
    fallback = not port_chosen and cfg.web_port == config_mod.KEY_BY_NAME["web.port"].default
    server = WebServer(daemon, host=cfg.web_host, port=cfg.web_port, pin=pin, port_fallback=fallback, ssl_context=context)
    attach(server, link, PATH)
    await server.start()
    daemon.web_url = server.url
    return server


async def serve(role: str, args: argparse.Namespace) -> int:
    from boardctl.hw import open_board
    from boardctl.hw.sim import occupancy_for_setup

    cfg = config_from_args(args)
    variant = check_game_ready("record", cfg)
    if args.stdio and cfg.board_backend != "sim":
        raise ConfigError("--stdio: only with the sim board (--board sim)")
    if role == "host" and not cfg.web_enabled:
        raise ConfigError("host: the game is served by the web server; do not give --no-web")
    fen = _start_fen(args.fen, variant) if args.fen else variant.starting_fen
    context = _tls_context(args) if role == "host" else None
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    refused: list[str] = []
    async with contextlib.AsyncExitStack() as stack:
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
            stack.callback(loop.remove_signal_handler, sig)
        store = GameStore(cfg.games_dir)
        store.check()
        store.repair()
        tickets = TicketStore(store.root)
        ticket = None if args.new else tickets.load(role)
        record = unfinished_game(store, ticket)
        if args.new:
            from boardctl.games import abandon_unfinished

            abandon_unfinished(store, "network")  # --new: no earlier network game is resumed
        if role == "host":
            if record is not None and ticket is not None:
                session = Session(_settings(cfg, color=record.human or "white", variant=record.variant,
                                            time_control=record.time_control), record=record)
            else:
                color = args.color
                if color == "random":
                    import random

                    color = random.choice(["white", "black"])
                names = variant.color_names
                color = names[0] if color in ("white", "red") else names[1]
                session = Session(_settings(cfg, color=color, variant=variant.name, time_control=cfg.game_time_control),
                                  fen=fen)
                local = color == names[0]
                session.set_players(args.name if local else args.guest_name, args.guest_name if local else args.name)
                store.save(session.record)  # on disk before the code is shown: a restart resumes it
                ticket = Ticket("host", session.record.id, code=new_code(), color=color)
                tickets.save(ticket)
        else:
            address = Address.from_string(args.address)
            tls = tls_option(address, ca=args.ca, fingerprint=args.fingerprint)
            known = ticket is not None and ticket.address == address.url and ticket.token is not None
            if record is not None and ticket is not None and known:
                session = Session(_settings(cfg, color=record.human or "black", variant=record.variant,
                                            time_control=record.time_control), record=record)
                token = str(ticket.token)
            else:
                if known and ticket is not None and ticket.token is not None:
                    hello = Hello(variant=variant.name, token=ticket.token)  # joined, but nothing saved yet
                elif not args.code:
                    raise ConfigError("join: give --code CODE (the invitation code the host printed)")
                else:
                    hello = Hello(variant=variant.name, code=args.code.strip().upper())
                welcome = await unless_stopped(handshake(address, hello, tls=tls), stop)
                if welcome is None:  # stopped while the host could not be reached: nothing to save yet
                    log.warning("join: stopped before %s answered; nothing was saved", address.url)
                    return 0
                start = check_welcome(welcome, variant=variant)  # nothing of the host's is used unchecked
                session = Session(_settings(cfg, color=welcome.color, variant=variant.name,
                                            time_control=welcome.time_control), fen=start.fen(), variant=variant)
                session.set_players(welcome.white, welcome.black)
                token = welcome.token
                store.save(session.record)
                ticket = Ticket("join", session.record.id, token=token, address=address.url, color=welcome.color,
                                host_game=welcome.game)
                tickets.save(ticket)
        input_clock = InputClock() if args.stdio else None
        clock = input_clock.now if input_clock is not None else time.monotonic
        geometry = session.variant.geometry
        board = open_board(
            cfg.board_backend, clock=clock, url=cfg.board_serial_url, pinout=cfg.board_pinout or None, pin_factory=cfg.board_pin_factory,
            debounce=cfg.board_debounce,
            occupancy=occupancy_for_setup(args.sim_setup, expected=session.physical_occupancy(), geometry=geometry),
            geometry=geometry,
        )
        stack.callback(board.close)
        daemon = Daemon(session, store=store, engine=None, board=board, virtual_board=cfg.board_backend == "sim",
                        clock=clock, direct=input_clock is not None)
        stack.push_async_callback(daemon.close)
        daemon.save_after_publish = True  # the other board first, then this disk
        link: HostLink | JoinLink
        if role == "host":
            assert ticket is not None
            link = HostLink(daemon, tickets, ticket)
            web = await _host_web(daemon, cfg, link, port_chosen=args.port is not None, context=context)
            stack.push_async_callback(web.close)
            shown = cfg.web_host if cfg.web_host not in ("", "0.0.0.0", "::") else lan_address()
            shown = f"[{shown}]" if ":" in shown else shown
            invite: dict[str, Any] = {"address": f"{'wss' if context else 'ws'}://{shown}:{web.port}{PATH}",
                                      "code": ticket.code}
            if args.tls_cert is not None:
                invite["fingerprint"] = certificate_fingerprint(args.tls_cert)
            daemon.extra_state["invite"] = invite
            link.invite = invite
            if ticket.code:
                extra = f" --fingerprint {invite['fingerprint']}" if "fingerprint" in invite else ""
                log.warning("Invite the other board: boardctl join %s --code %s%s", invite["address"], ticket.code, extra)
            else:
                log.warning("Resuming the network game %s at %s; the other board rejoins by itself",
                            session.record.id, invite["address"])
        else:
            def _refused(message: str) -> None:
                refused.append(message)
                stop.set()

            link = JoinLink(daemon, address, token, tls=tls, on_refused=_refused, tickets=tickets, ticket=ticket)
            web = await start_web(daemon, cfg, port_chosen=args.port is not None)
            if web is not None:
                stack.push_async_callback(web.close)
        stack.push_async_callback(link.close)
        task = loop.create_task(link.run(stop))
        stack.push_async_callback(_cancel, task)
        if input_clock is not None:
            loop.call_soon(daemon.refresh, "network")  # the first state line (the invitation) at once
            status = await run_stdio(daemon, stop, clock=input_clock)
        else:
            # The sim's face in this terminal, as play and record have it (the board drawn, moves typed).
            view = _terminal_view(daemon, cfg) if _wants_view(cfg, args) else None
            if web is not None:
                if view is not None:
                    view.notes = (f"Open {web.url} in a browser",)
                else:
                    log.warning("Open %s in a browser", web.url)
            if view is not None:
                viewing = loop.create_task(view.run(stop))
                stack.push_async_callback(_finish_view, view, viewing, daemon)
            await daemon.run_board(stop)
            status = 0
    if refused:
        raise BoardctlError(refused[0])
    return status


async def _cancel(task: asyncio.Task[None]) -> None:
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await task


def run_command(role: str, args: argparse.Namespace) -> int:
    return asyncio.run(serve(role, args))
