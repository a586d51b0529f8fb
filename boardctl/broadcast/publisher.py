"""The board's broadcast face: its game, as the daemon's state lines change it, to an MQTT broker.

It subscribes to the daemon like any face and reads the game record the daemon keeps (moves, the
clock after each move, violations, result). Whenever the game changed it makes one ``game``
message (:class:`~boardctl.broadcast.schema.Snapshot`: the whole game, numbered) and publishes it
retained with QoS 1. The number is kept on disk (``broadcast/<event>-<board>.seq`` in the games
folder, fsynced), so it only ever grows, across restarts too. While the link is down nothing is
lost: the latest message stands for all before it, and it is published again as soon as the
broker is back (the saved game resumed, after a restart of the board, is published at once).
paho also sends again, after a reconnection, the messages the broker had not acknowledged, which
may reach the broker after the latest one; whenever the broker acknowledges such an older
message, the latest is published once more, so the retained message is always the latest.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import time
from pathlib import Path
from typing import Any

from boardctl.broadcast import mqtt
from boardctl.broadcast.schema import (
    BrokerAddress,
    Snapshot,
    Status,
    ViolationNote,
    client_id,
    game_topic,
    status_topic,
)
from boardctl.daemon import Daemon
from boardctl.storage import GameRecord

log = logging.getLogger(__name__)

#: Seconds between the ``status`` heartbeats (a relay calls a board silent after a few missed).
HEARTBEAT = 5.0


def snapshot_of(record: GameRecord, clock: dict[str, Any] | None, *, seq: int, event: str, board: str,
                sent: float) -> Snapshot:
    """The ``game`` message of ``record`` (``clock``: the state line's live clock)."""
    return Snapshot(
        seq=seq, event=event, board=board, game=record.id, variant=record.variant, fen=record.fen,
        moves=tuple(record.moves), clocks=tuple(None if c is None else round(c, 3) for c in record.clocks),
        result=record.result, termination=record.termination[:200], white=record.white[:100],
        black=record.black[:100], time_control=record.time_control,
        clock=None if clock is None else dict(clock),
        violations=tuple(ViolationNote(v.ply, v.code[:40], v.color[:10], v.detail[:200]) for v in record.violations),
        sent=sent,
    )


def _content(record: GameRecord) -> tuple[Any, ...]:
    """What a new message is made for: everything in the game but the running clock."""
    return (record.id, record.variant, record.fen, tuple(record.moves), tuple(record.clocks), record.result,
            record.termination, record.white, record.black, record.time_control, len(record.violations))


class SeqFile:
    """The last number given to a message, on disk (written and fsynced before the message goes)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.value = 0
        with contextlib.suppress(OSError, ValueError):
            self.value = int(path.read_text(encoding="ascii").strip())

    def next(self) -> int:
        self.value += 1
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_suffix(".tmp")
            with open(tmp, "w", encoding="ascii") as out:
                out.write(f"{self.value}\n")
                out.flush()
                os.fsync(out.fileno())
            os.replace(tmp, self.path)
        except OSError as exc:  # the broadcast goes on; a restart before the next save could reuse a number
            log.warning("cannot keep the broadcast's message number in %s: %s", self.path, exc)
        return self.value


class Publisher:
    """Publishes one board's game; ``start`` once, ``close`` at the end (safe twice).

    Everything runs on the daemon's loop: paho's callbacks (on its own thread, holding its own
    locks) only hand their news to the loop, so no lock is ever taken in two orders."""

    def __init__(self, daemon: Daemon, address: BrokerAddress, *, state_dir: Path,
                 heartbeat: float = HEARTBEAT, wall: Any = time.time) -> None:
        assert address.board is not None
        self.daemon = daemon
        self.address = address
        self.board = address.board
        self.heartbeat = heartbeat
        self._wall = wall
        self._seq = SeqFile(state_dir / f"{address.event}-{address.board}.seq")
        self._latest: bytes | None = None
        self._latest_seq = 0
        self._inflight: dict[int, int] = {}  # message id -> seq, until the broker acknowledges it
        self._content: tuple[Any, ...] | None = None
        self._connected = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._queue: asyncio.Queue[dict[str, Any]] | None = None
        self._closed = False
        self.published = 0  # game messages handed to the client (tests, the bench)
        self._client = mqtt.make_client(
            address, client_id("board", address.event, address.board),
            on_connect=lambda: self._soon(self._on_connect), on_disconnect=lambda: self._soon(self._on_disconnect),
            on_publish=lambda mid: self._soon(self._on_publish, mid),
            will=(status_topic(address.event, address.board), self._status(online=False)),
        )

    @property
    def connected(self) -> bool:
        return self._connected

    @property
    def latest(self) -> bytes | None:
        """The latest ``game`` message made (sent, or to be sent when the link returns)."""
        return self._latest

    def _soon(self, callback: Any, *args: Any) -> None:
        """(paho's thread) Run ``callback`` on the daemon's loop."""
        if self._loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop has closed: nothing is left to send
                self._loop.call_soon_threadsafe(callback, *args)

    def _status(self, *, online: bool) -> bytes:
        status = Status(board=self.board, online=online, seq=self._seq.value, sent=self._wall())
        return json.dumps(status.to_json(self.address.event), separators=(",", ":")).encode()

    async def start(self) -> None:
        """Publish the game as it stands and follow it."""
        self._loop = asyncio.get_running_loop()
        self._queue = self.daemon.subscribe()
        self.update()
        mqtt.start(self._client, self.address)
        self._tasks = [self._loop.create_task(self._pump()), self._loop.create_task(self._beat())]

    def update(self) -> bool:
        """Make and send a message if the game changed since the last one; True if one was made.
        The record and the clock are read together, as they are now (a state line still queued
        may be older than the record)."""
        record = self.daemon.session.record
        session_clock = self.daemon.session.clock
        clock = None if session_clock is None else session_clock.to_json(self.daemon.session.t)
        content = _content(record)
        if content == self._content:
            return False
        snapshot = snapshot_of(record, clock, seq=self._seq.next(), event=self.address.event, board=self.board,
                               sent=self._wall())
        self._content = content
        self._latest = json.dumps(snapshot.to_json(), separators=(",", ":")).encode()
        self._latest_seq = snapshot.seq
        if self._connected:
            self._send()
        return True

    def _send(self) -> None:
        """Hand the latest message to paho: it is sent again until the broker has it."""
        if self._latest is None:
            return
        info = self._client.publish(game_topic(self.address.event, self.board), self._latest, qos=1, retain=True)
        self._inflight[info.mid] = self._latest_seq
        if len(self._inflight) > 10_000:  # ids paho gave up on (a cleared session): forget the oldest
            self._inflight.pop(next(iter(self._inflight)))
        self.published += 1

    def _on_publish(self, mid: int) -> None:
        """The broker has a message: if an older one than the latest, the latest goes again after
        it, so that the broker retains the latest."""
        seq = self._inflight.pop(mid, None)
        if seq is not None and seq < self._latest_seq and self._connected:
            self._send()

    def _on_connect(self) -> None:
        """Back on line: the latest message, which holds every one before it."""
        self._connected = True
        self._send()
        self._client.publish(status_topic(self.address.event, self.board), self._status(online=True), qos=1, retain=True)

    def _on_disconnect(self) -> None:
        self._connected = False

    async def _pump(self) -> None:
        assert self._queue is not None
        while True:
            await self._queue.get()  # the game may have changed
            self.update()

    async def _beat(self) -> None:
        while True:
            await asyncio.sleep(self.heartbeat)
            if self._connected:
                self._client.publish(status_topic(self.address.event, self.board), self._status(online=True),
                                     qos=1, retain=True)

    async def close(self, *, drain: float = 2.0) -> None:
        """Send what is left, say the board is off line, disconnect; waits up to ``drain`` s."""
        if self._closed:
            return
        self._closed = True
        for task in self._tasks:
            task.cancel()
        if self._queue is not None:
            self.daemon.unsubscribe(self._queue)
        self.update()
        if self._connected:
            info = self._client.publish(status_topic(self.address.event, self.board), self._status(online=False),
                                        qos=1, retain=True)
            with contextlib.suppress(Exception):
                await asyncio.to_thread(info.wait_for_publish, drain)
        await asyncio.to_thread(mqtt.stop, self._client)


async def start_broadcast(daemon: Daemon, url: str, *, state_dir: Path) -> Publisher:
    """The face for ``--broadcast URL`` (checked here: BroadcastError names what is wrong)."""
    from boardctl.broadcast.schema import parse_address

    publisher = Publisher(daemon, parse_address(url, board=True), state_dir=state_dir)
    await publisher.start()
    log.info("broadcasting to %s", publisher.address)
    return publisher
