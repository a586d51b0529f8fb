"""What ``boardctl host`` and ``boardctl join`` share: a game between two boards, built by the
composition root like ``record``'s daemon, with no engine and none of a local game's extras.

The host opens (or resumes) a ``network`` game, serves ``/net`` on its web server beside the page
and prints the address and a one-time invitation code (also under ``invite`` in its state lines).
The guest exchanges the code for the game's token, or resumes its unfinished network game with the
stored token; both then run the usual daemon (sim board, ``--stdio``, the page) with a link task.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any, TypeVar

from boardctl.commands import options, root
from boardctl.config import Config
from boardctl.network.tokens import Ticket, TicketStore, unfinished_game
from boardctl.session import Settings
from boardctl.tracker import Policy

if TYPE_CHECKING:
    from boardctl.daemon import Daemon
    from boardctl.storage import GameRecord

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


def settings(cfg: Config, *, color: str, variant: str, time_control: str) -> Settings:
    """A network game's settings: no engine, no takebacks; the clock and colours agreed by both boards."""
    return Settings(
        mode="network", color=color, orientation=cfg.board_orientation, time_control=time_control,
        policy=Policy(cfg.game_policy).value, arbiter=cfg.game_arbiter, takeback="off", settle=cfg.board_settle,
        legal_moves=cfg.game_legal_moves, variant=variant,
    )


def network_options(args: argparse.Namespace) -> root.Options:
    """The checked options of ``host`` and ``join``: ``record``'s."""
    return options.options_from_args(args, mode="record")


class NetworkPlug(root.Plug):
    """A game with the other board: the ticket of this side, the link to the other board."""

    local = False
    role = ""

    def __init__(self, new: bool) -> None:
        self.new = new
        self.tickets: TicketStore | None = None
        self.ticket: Ticket | None = None
        self.link: Any = None

    def unfinished(self, run: root.Run) -> GameRecord | None:
        """This side's ticket and its unfinished game (none with ``--new``, which abandons it)."""
        self.tickets = TicketStore(run.store.root)
        self.ticket = None if self.new else self.tickets.load(self.role)
        record = unfinished_game(run.store, self.ticket)
        if self.new:
            from boardctl.commands.games import abandon_unfinished

            abandon_unfinished(run.store, "network")  # --new: no earlier network game is resumed
        return record

    async def attach(self, daemon: Daemon, run: root.Run) -> None:
        daemon.save_after_publish = True  # the other board first, then this disk

    async def started(self, daemon: Daemon, web: Any, run: root.Run) -> None:
        run.stack.push_async_callback(self.link.close)
        task = asyncio.get_running_loop().create_task(self.link.run(run.stop))
        run.stack.push_async_callback(_cancel, task)
        if run.options.stdio:
            asyncio.get_running_loop().call_soon(daemon.refresh, "network")  # the first state line at once


async def _cancel(task: asyncio.Task[None]) -> None:
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await task
