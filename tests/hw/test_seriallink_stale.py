"""Stale serial lines never make a move: the daemon's whole path, over ``loop://`` and a pty.

A game is played through the serial link into a real ``Daemon`` (record mode, saving to disk).
Then lines are replayed, duplicated, reordered or forged with valid checksums and stale sequence
numbers, while the device answers the resync request late (up to seconds) or loses requests.
Until the snapshot answering a fresh request arrives, no event may reach the session; afterwards
the recorded and saved moves are exactly the ones really played, and play goes on.
"""

from __future__ import annotations

import asyncio
import os
import select
import threading
import time
import tty
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import chess
import pytest
import serial

from boardctl.daemon import Daemon
from boardctl.events import ButtonPressed, Event, Snapshot, SquareChanged
from boardctl.hw.protocol import encode_line
from boardctl.hw.seriallink import SerialBoard
from boardctl.session import Session, Settings
from boardctl.storage import GameStore

from .serialdevice import FakePico, LoopPico

pytestmark = pytest.mark.slow

OPENING = ["g1f3", "d7d5", "f3g5", "h7h6", "g5f3", "e7e6"]  # the knight is back on f3


class PtyPico(FakePico):
    """A ``FakePico`` on the master side of a pseudo-terminal; the host opens the slave."""

    def __init__(self) -> None:
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        self.path = os.ttyname(self.slave)
        super().__init__(lambda data: os.write(self.master, data))
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        while not self._stop.is_set():
            ready, _, _ = select.select([self.master], [], [], 0.05)
            if ready:
                try:
                    data = os.read(self.master, 4096)
                except OSError:
                    return
                self.from_host(data)

    def open(self) -> Any:
        return serial.serial_for_url(self.path, timeout=0.02)

    def close(self) -> None:
        super().close()
        self._stop.set()
        self._thread.join(timeout=2)
        os.close(self.master)
        os.close(self.slave)


def _open(transport: str) -> Any:
    return LoopPico() if transport == "loop" else PtyPico()


class Recorder(Daemon):
    """The real daemon, remembering every event it was handed (and when)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.fed: list[tuple[float, Event]] = []
        super().__init__(*args, **kwargs)

    def handle(self, event: Event, *, reason: str | None = None) -> dict[str, Any]:
        self.fed.append((time.monotonic(), event))
        return super().handle(event, reason=reason)


def _play(dev: FakePico, board: chess.Board, uci: str) -> None:
    move = chess.Move.from_uci(uci)
    assert not board.is_capture(move) and not board.is_castling(move)
    dev.move(chess.square_name(move.from_square), False)
    time.sleep(0.02)
    dev.move(chess.square_name(move.to_square), True)
    board.push(move)


@dataclass(frozen=True)
class Attack:
    name: str
    #: Puts the stale lines on the wire (and changes the truth if a piece really moves).
    inject: Callable[[FakePico, dict[str, list[bytes]]], None]
    #: Seconds the device waits before answering a request, and how many requests it loses.
    delay: float
    lose: int


def _replay_move(dev: FakePico, lines: dict[str, list[bytes]]) -> None:
    for raw in lines["f3g5"]:  # 2. Ng5's own lines, checksums and all, replayed
        dev.deliver(raw)


def _forge(dev: FakePico, lines: dict[str, list[bytes]]) -> None:
    # The report's case: valid checksums, out-of-order sequence numbers.
    dev.deliver(encode_line((dev.seq - 9) & 0xFF, "C", "f3", "0"))
    dev.deliver(encode_line((dev.seq - 4) & 0xFF, "C", "g5", "1"))


def _reorder(dev: FakePico, lines: dict[str, list[bytes]]) -> None:
    # A genuine lift and place arrive swapped; then a replayed lift of the knight.
    lift, place = dev.change("c2", False), dev.change("c3", True)
    dev.deliver(place)
    dev.deliver(lift)
    dev.deliver(lines["f3g5"][0])
    dev.deliver(lines["f3g5"][1])


def _duplicate_then_replay(dev: FakePico, lines: dict[str, list[bytes]]) -> None:
    # A repeat right after itself is harmless; repeated later it is a replay.
    first = dev.send("S", f"{dev.occupancy:016x}", "beat")
    dev.deliver(first)
    dev.send("S", f"{dev.occupancy:016x}", "beat")
    dev.deliver(first)  # again, after another line
    dev.deliver(lines["f3g5"][0])
    dev.deliver(lines["f3g5"][1])


def _replay_old_answer_and_reset(dev: FakePico, lines: dict[str, list[bytes]]) -> None:
    # An old HELLO, boot snapshot and request answer: all stale, none may resync the board.
    for raw in lines["boot"]:
        dev.deliver(raw)
    _replay_move(dev, lines)


ATTACKS = [
    Attack("replayed-move", _replay_move, delay=0.6, lose=1),
    Attack("replayed-move-slow", _replay_move, delay=3.0, lose=0),
    Attack("forged-stale", _forge, delay=1.0, lose=2),
    Attack("forged-stale-prompt", _forge, delay=0.0, lose=0),
    Attack("reordered", _reorder, delay=0.8, lose=1),
    Attack("duplicated-then-replayed", _duplicate_then_replay, delay=1.5, lose=1),
    Attack("old-answer-and-reset-replayed", _replay_old_answer_and_reset, delay=1.0, lose=1),
]


CASES = [("loop", a) for a in ATTACKS if a.name != "forged-stale-prompt"]
CASES += [("pty", a) for a in ATTACKS if a.name in ("replayed-move", "forged-stale-prompt", "reordered")]


@pytest.mark.parametrize(("transport", "attack"), CASES, ids=[f"{t}-{a.name}" for t, a in CASES])
def test_stale_lines_never_make_a_move(transport: str, attack: Attack, tmp_path: Path) -> None:
    dev = _open(transport)
    try:
        asyncio.run(_scenario(attack, dev, tmp_path))
    finally:
        dev.close()


async def _scenario(attack: Attack, dev: Any, tmp_path: Path) -> None:
    session = Session(Settings(mode="record", orientation="normal"))
    store = GameStore(tmp_path / "games")
    board = SerialBoard(opener=dev.open, reconnect_delay=0.05)
    daemon = Recorder(session, store=store, board=board)
    stop = asyncio.Event()
    runner = asyncio.get_running_loop().create_task(daemon.run_board(stop))
    try:
        await _until(lambda: bool(dev.requests) and not board.is_resync_pending)
        dev.boot()
        await _until(lambda: board.stats.resets == 1 and not board.is_resync_pending)
        lines = {"boot": [dev.sent[0], dev.sent[1], *(r for r in dev.sent if b" req " in r)]}
        game = chess.Board()
        for i, uci in enumerate(OPENING):
            mark = len(dev.sent)
            await asyncio.to_thread(_play, dev, game, uci)
            lines[uci] = dev.sent[mark:]
            await _until(lambda i=i: len(session.record.moves) == i + 1)
        assert session.record.moves == OPENING
        truth = dev.occupancy

        dev.delay, dev.lose = attack.delay, attack.lose
        fed_before = len(daemon.fed)
        attacked = time.monotonic()
        attack.inject(dev, lines)
        await _until(lambda: any(isinstance(e, Snapshot) for _, e in daemon.fed[fed_before:]), timeout=attack.delay + 0.5 * attack.lose + 4)
        answered = next(t for t, e in daemon.fed[fed_before:] if isinstance(e, Snapshot))
        held_back = [e for t, e in daemon.fed[fed_before:] if t < answered]
        assert held_back == [], f"events reached the game before the snapshot: {held_back}"
        assert answered - attacked >= attack.delay * 0.9  # the snapshot really was late
        await asyncio.sleep(0.5)  # past the settle window: a wrongly fed move would be recorded now
        snapshots = [e for _, e in daemon.fed[fed_before:] if isinstance(e, Snapshot)]
        assert {e.occupancy for e in snapshots} == {dev.occupancy}  # only the truth, however many resyncs
        assert not any(isinstance(e, SquareChanged | ButtonPressed) for _, e in daemon.fed[fed_before:])
        assert session.record.moves == OPENING
        assert store.load(session.record.id).moves == OPENING
        assert "Ng5" not in store.path(session.record.id, ".pgn").read_text().split("Ng5", 1)[1]

        if dev.occupancy == truth:  # nothing really moved: play goes on over the same link
            dev.delay, dev.lose = 0.0, 0
            await _until(lambda: not board.is_resync_pending)
            await asyncio.to_thread(_play, dev, game, "d2d4")
            await _until(lambda: session.record.moves == [*OPENING, "d2d4"])
            assert store.load(session.record.id).moves == [*OPENING, "d2d4"]
        assert board.stats.dropped + board.stats.stale_snapshots + board.stats.duplicates > 0
    finally:
        stop.set()
        await runner
        await daemon.close()
        board.close()


async def _until(cond: Callable[[], bool], timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, "condition not reached"
        await asyncio.sleep(0.01)
