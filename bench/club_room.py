"""Simulated boards of a club room, each a real daemon with a sim board and a broadcast face.

Each :class:`RoomBoard` is what ``boardctl record --board sim --broadcast ...`` assembles: a
session, the sim board, the daemon saving the game in its own folder, and the
:class:`~boardctl.broadcast.publisher.Publisher`; it is fed the switch events of a random game made
by human-like hands (``boardctl.gestures``), with thinking time between the moves, in time
compressed by ``compress``. Used by ``python -m bench club``, ``make demo-club`` and the tests.
"""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass, field
from pathlib import Path

from boardctl.broadcast.publisher import Publisher
from boardctl.broadcast.schema import BrokerAddress
from boardctl.daemon import Daemon
from boardctl.events import Button, ButtonPressed, Event, Tick
from boardctl.gestures import Hand, random_game
from boardctl.hw.sim import SimBoard
from boardctl.session import Session, Settings
from boardctl.storage import GameStore


@dataclass
class Script:
    """A board's whole game: its events in board time, and where each move is complete."""

    events: list[Event]
    plies: int
    end: float
    move_times: list[float] = field(default_factory=list)


def make_script(seed: int, *, plies: int = 60, think: tuple[float, float] = (1.0, 20.0), resign: bool = True) -> Script:
    """A random game of at most ``plies`` made by a human hand, thinking ``think`` s before each
    move; a game the moves leave undecided is resigned at the end (``resign``)."""
    rng = random.Random(seed)
    moves = random_game(rng, max_plies=plies)
    hand = Hand(rng)
    from boardctl.variants import get_variant

    board = get_variant("chess").board()
    events: list[Event] = []
    times = []
    for move in moves:
        hand.t += rng.uniform(*think)
        made = hand.move(board, move)
        events.extend(made)
        times.append(max(e.t for e in made))
        board.push(move)
    end = hand.t + 1.5
    events.append(Tick(end))
    if resign and board.outcome() is None:
        end += 1.0
        events.append(ButtonPressed(end, Button.RESIGN))
    return Script(sorted(events, key=lambda e: e.t), len(moves), end, times)


class RoomBoard:
    """One simulated board publishing to ``address`` (its ``board`` set), saving under ``folder``."""

    def __init__(self, address: BrokerAddress, folder: Path, script: Script, *, time_control: str = "15+10",
                 heartbeat: float = 5.0) -> None:
        self.script = script
        self.session = Session(Settings(mode="record", time_control=time_control))
        self.sim = SimBoard(self.session.physical_occupancy(), clock=lambda: self.session.t)
        self.store = GameStore(folder / "games")
        self.daemon = Daemon(self.session, store=self.store, board=self.sim, virtual_board=True, virtual_time=True)
        self.daemon.direct = True
        self.sim.start(self.daemon.feed)
        self.publisher = Publisher(self.daemon, address, state_dir=folder / "broadcast", heartbeat=heartbeat)
        self.next = 0
        #: Wall-clock time at which each ply was made (the bench's latency starts here).
        self.made: dict[int, float] = {}

    async def start(self) -> None:
        await self.publisher.start()

    def step_until(self, board_time: float) -> None:
        """Feed every event up to ``board_time``."""
        events = self.script.events
        while self.next < len(events) and events[self.next].t <= board_time:
            event = events[self.next]
            self.next += 1
            before = len(self.session.record.moves)
            self.daemon.inject(event)
            after = len(self.session.record.moves)
            if after > before:
                self.made[after] = time.time()

    @property
    def done(self) -> bool:
        return self.next >= len(self.script.events)

    async def play(self, compress: float, *, start: float | None = None) -> None:
        """Play the whole script, board time running ``compress`` times faster than the wall clock."""
        origin = time.monotonic() if start is None else start
        while not self.done:
            t = self.script.events[self.next].t
            delay = origin + t / compress - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            self.step_until(t)

    async def close(self) -> None:
        await self.publisher.close()
        await self.daemon.close()
