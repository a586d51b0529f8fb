"""An app follows a whole human-like game over TCP and over a pty from the status reports alone,
and its LED patterns light the board: the daemon in process, the sim board, the real face and
transports, the tests' own client (tests/chesslink/client.py)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import select
import threading
from collections.abc import AsyncIterator
from pathlib import Path

import chess
import pytest

from boardctl.chesslink import protocol as p
from boardctl.chesslink.face import ChessLinkFace, led_mask
from boardctl.chesslink.transports import serve_port, serve_tcp
from boardctl.daemon import Daemon
from boardctl.events import Code, Event, SquareChanged, Tick
from boardctl.gestures import Hand, events_for_game, random_game
from boardctl.hw.appport import AppPort
from boardctl.hw.leds import STEPS
from boardctl.hw.sim import SimBoard
from boardctl.session import Session, Settings
from boardctl.storage import GameStore
from chesslink.client import GameFollower, ReplyReader, frame


def with_ticks(events: list[Event], every: float = 0.05) -> list[Event]:
    """The daemon's timer ticks (``TICK_INTERVAL``) between the hands' events, in virtual time."""
    out: list[Event] = []
    t = 0.0
    for event in events:
        while t + every < event.t:
            t += every
            out.append(Tick(round(t, 4)))
        out.append(event)
        t = max(t, event.t)
    return [*out, Tick(t + 3.0)]  # every window closed, the last move settled


class App:
    """The client side of one connection: bytes in from a reader, replies split and followed."""

    def __init__(self) -> None:
        self.reader = ReplyReader()
        self.follower = GameFollower()
        self.replies: list[tuple[str, str]] = []
        self.got = asyncio.Event()

    def received(self, data: bytes) -> None:
        for letter, body in self.reader.feed(data):
            self.replies.append((letter, body))
            if letter == "s":
                self.follower.see(body)
        self.got.set()

    async def reply(self, letter: str, timeout: float = 5.0) -> str:
        """Wait for the next reply of kind ``letter`` (automatic reports may come first)."""
        async with asyncio.timeout(timeout):
            while True:
                for i, (kind, body) in enumerate(self.replies):
                    if kind == letter:
                        del self.replies[: i + 1]
                        return body
                self.got.clear()
                await self.got.wait()


@contextlib.asynccontextmanager
async def board_with_face(tmp_path: Path, *, orientation: str = "normal") -> AsyncIterator[tuple[Daemon, SimBoard, ChessLinkFace, asyncio.Event]]:
    session = Session(Settings(mode="record", orientation=orientation))
    board = SimBoard(session.physical_occupancy(), clock=lambda: session.t)
    daemon = Daemon(session, store=GameStore(tmp_path / "games"), board=board, virtual_board=True, virtual_time=True)
    daemon.direct = True
    board.start(daemon.feed)
    face = ChessLinkFace(daemon)
    stop = asyncio.Event()
    runner = asyncio.get_running_loop().create_task(face.run(stop))
    try:
        yield daemon, board, face, stop
    finally:
        stop.set()
        await runner
        await daemon.close()


@contextlib.asynccontextmanager
async def tcp_app(face: ChessLinkFace) -> AsyncIterator[tuple[App, asyncio.StreamWriter]]:
    server = await serve_tcp(face, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    app = App()

    async def pump() -> None:
        while data := await reader.read(4096):
            app.received(data)

    task = asyncio.get_running_loop().create_task(pump())
    try:
        yield app, writer
    finally:
        writer.close()
        with contextlib.suppress(Exception):
            await writer.wait_closed()
        task.cancel()
        server.close()


@contextlib.asynccontextmanager
async def pty_app(face: ChessLinkFace, stop: asyncio.Event) -> AsyncIterator[tuple[App, int]]:
    """The board on a pty's device side (``AppPort``, as ``--transport serial``), the app on its master."""
    master, slave = os.openpty()
    port = AppPort(os.ttyname(slave))
    os.close(slave)  # pyserial has it open now
    app = App()
    loop = asyncio.get_running_loop()
    done = threading.Event()

    def pump() -> None:
        while not done.is_set():
            ready, _, _ = select.select([master], [], [], 0.05)
            if ready:
                try:
                    data = os.read(master, 4096)
                except OSError:
                    return
                loop.call_soon_threadsafe(app.received, data)

    thread = threading.Thread(target=pump, daemon=True)
    thread.start()
    serving = loop.create_task(serve_port(face, port, stop))
    try:
        yield app, master
    finally:
        done.set()
        thread.join()
        port.close()
        serving.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await serving
        os.close(master)


async def play_game(daemon: Daemon, seed: int, face: ChessLinkFace, app: App) -> None:
    rng = random.Random(seed)
    for event in with_ticks(events_for_game(random_game(rng, max_plies=80), Hand(rng))):
        daemon.inject(event)
        await asyncio.sleep(0)
        await asyncio.sleep(0)
    async with asyncio.timeout(10):  # until the app has the last status the board sent
        while not app.follower.statuses or app.follower.statuses[-1] != face.status:
            await asyncio.sleep(0.01)


def saved_moves(tmp_path: Path, daemon: Daemon) -> list[str]:
    return list(GameStore(tmp_path / "games").load(daemon.session.record.id).moves)


def test_an_app_follows_a_whole_game_over_tcp(tmp_path: Path) -> None:
    async def scenario() -> tuple[list[str], list[str], App]:
        async with board_with_face(tmp_path) as (daemon, _, face, _), tcp_app(face) as (app, writer):
            writer.write(frame("V") + frame("S"))  # reports stay at their default: every scan
            assert await app.reply("v") == "0103"
            assert await app.reply("s") == p.START_STATUS
            await play_game(daemon, 11, face, app)
            followed = app.follower.moves
        return followed, saved_moves(tmp_path, daemon), app

    followed, saved, app = asyncio.run(scenario())
    assert len(saved) >= 20
    assert followed == saved
    assert app.reader.errors == []


def test_an_app_follows_a_whole_game_over_a_pty(tmp_path: Path) -> None:
    async def scenario() -> tuple[list[str], list[str], App]:
        async with board_with_face(tmp_path) as (daemon, _, face, stop), pty_app(face, stop) as (app, master):
            os.write(master, frame("W0203"))  # a report on every change, as many apps ask
            assert await app.reply("w") == "0203"
            await play_game(daemon, 5, face, app)
            followed = app.follower.moves
        return followed, saved_moves(tmp_path, daemon), app

    followed, saved, app = asyncio.run(scenario())
    assert len(saved) >= 20
    assert followed == saved
    assert app.reader.errors == []


def _lit_steps(board: SimBoard, square: int) -> str:
    return "".join("#" if board.frame.lit(step) >> square & 1 else "." for step in range(STEPS))


@pytest.mark.parametrize("orientation", ["normal", "flipped"])
def test_led_patterns_round_trip_to_the_board(tmp_path: Path, orientation: str) -> None:
    async def scenario() -> None:
        async with board_with_face(tmp_path, orientation=orientation) as (daemon, board, face, _):
            async with tcp_app(face) as (app, writer):
                wanted = {chess.E2: 0xFF, chess.E4: 0xCC, chess.H8: 0x81}
                writer.write(frame(p.led_text(0x20, p.grid_for_squares(wanted))))
                await app.reply("l")
                # Lit by the time the app has its reply, from the square's four corners, blinking kept.
                turn = (lambda sq: 63 - sq) if orientation == "flipped" else (lambda sq: sq)
                assert {(lamp.square, lamp.why) for lamp in board.frame.lamps} == {(turn(sq), Code.APP) for sq in wanted}
                assert _lit_steps(board, turn(chess.E2)) == "#" * 16
                assert _lit_steps(board, turn(chess.E4)) == "####....####...."
                assert _lit_steps(board, turn(chess.H8)) == "##............##"
                assert not board.frame.lit(0) >> turn(chess.E3) & 1  # between e2 and e4: dark
                assert {x["square"] for x in daemon.state()["leds"]} == {chess.square_name(turn(sq)) for sq in wanted}
                # The game's own LEDs do not come through while the app has the board.
                daemon.inject(SquareChanged(daemon.session.t + 0.1, chess.E2 if orientation == "normal" else chess.E7, False))
                daemon.inject(SquareChanged(daemon.session.t + 0.2, chess.E5 if orientation == "normal" else chess.E4, True))
                daemon.inject(Tick(daemon.session.t + 5.0))  # a refused move: the game would light it
                assert daemon.session.leds()
                assert {lamp.why for lamp in board.frame.lamps} == {Code.APP}
                writer.write(frame("X"))
                await app.reply("x")
                assert board.frame.lamps == ()
            await asyncio.sleep(0.1)  # the app went: the game's LEDs are back
            assert board.intents == frozenset(daemon.session.leds())
            assert daemon.state()["leds"] == [i.to_json() for i in daemon.session.leds()]

    asyncio.run(scenario())


def test_led_mask_stretches_eight_slots_over_the_board_cycle() -> None:
    assert led_mask(0xFF) == 0xFFFF
    assert led_mask(0x80) == 0b11
    assert led_mask(0xC4) == 0b0000_1100_0000_1111
    assert led_mask(0) == 0


def test_statuses_reach_every_app_and_a_lift_is_seen(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with board_with_face(tmp_path) as (daemon, _, face, _), tcp_app(face) as (one, w1), tcp_app(face) as (two, w2):
            for writer in (w1, w2):
                writer.write(frame("W0203"))
            await one.reply("w")
            await two.reply("w")
            assert face.connections == 2
            daemon.inject(SquareChanged(0.1, chess.D1, False))
            lifted = p.START_STATUS[:59] + "." + p.START_STATUS[60:]
            assert await one.reply("s") == lifted
            assert await two.reply("s") == lifted

    asyncio.run(scenario())


def test_when_the_app_that_lit_the_board_goes_the_others_leds_come_back(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with board_with_face(tmp_path) as (daemon, board, face, _):
            async with tcp_app(face) as (first, w1):
                w1.write(frame(p.led_text(0x20, p.grid_for_squares({chess.E2: 0xFF}))))
                await first.reply("l")
                async with tcp_app(face) as (second, w2), tcp_app(face) as (_, w3):
                    w3.write(frame("V"))  # a third app that never lights anything
                    w2.write(frame(p.led_text(0x20, p.grid_for_squares({chess.D7: 0xFF}))))
                    await second.reply("l")
                    assert {lamp.square for lamp in board.frame.lamps} == {chess.D7}
                await asyncio.sleep(0.1)
                assert {lamp.square for lamp in board.frame.lamps} == {chess.E2}
            await asyncio.sleep(0.1)
            assert board.intents == frozenset(daemon.session.leds())

    asyncio.run(scenario())
