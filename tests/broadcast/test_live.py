"""Boards, relays and a real Mosquitto started by the test: nothing lost, nothing doubled.

The boards are real daemons with sim boards fed by human-like hands (bench/club_room.py); the
broker is restarted mid-game, a board's link is cut for a while, and relays come and go. Every
relay must end with each board's own record: its moves, its clocks, its result, its PGN movetext.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest

from bench.club_room import RoomBoard, make_script
from bench.mqtt_rig import Broker, CuttableLink, free_port, mosquitto_path
from boardctl.broadcast.relay import Relay
from boardctl.broadcast.relay_server import RelayLink, RelayServer
from boardctl.broadcast.schema import parse_address

pytestmark = [pytest.mark.slow, pytest.mark.skipif(mosquitto_path() is None, reason="mosquitto not installed "
                                                   "(make test installs it: scripts/ensure-mosquitto.sh)")]
EVENT = "club"


async def until(what: Callable[[], bool], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not what():
        if time.monotonic() > deadline:
            raise AssertionError("timed out")
        await asyncio.sleep(0.05)


def matches(relay: Relay, board: RoomBoard) -> bool:
    game = relay.boards.get(board.publisher.board)
    record = board.session.record
    snap = game.snapshot if game is not None else None
    return (snap is not None and snap.game == record.id and snap.moves == tuple(record.moves)
            and snap.clocks == tuple(record.clocks) and snap.result == record.result)


def movetext(pgn: str) -> str:
    return pgn.split("\n\n", 1)[1].strip()


def test_a_room_survives_a_broker_restart_a_cut_link_and_relays_coming_and_going(tmp_path: Path) -> None:
    async def scenario() -> None:
        with Broker(tmp_path / "broker") as broker:
            relay_a = Relay(EVENT)
            link_a = RelayLink(relay_a, parse_address(f"{broker.url}/{EVENT}", board=False), name="a")
            link_a.start()
            cut = CuttableLink(broker.port)
            await cut.start()
            boards = []
            for n in range(1, 4):
                port = cut.port if n == 2 else broker.port  # board 2 goes through a link that fails
                address = parse_address(f"mqtt://127.0.0.1:{port}/{EVENT}/{n}", board=True)
                boards.append(RoomBoard(address, tmp_path / f"board{n}", make_script(n, plies=24, think=(0.5, 2.0)),
                                        heartbeat=1.0))
            for board in boards:
                await board.start()
            start = time.monotonic()
            plays = asyncio.gather(*(board.play(compress=5.0, start=start) for board in boards))
            await asyncio.sleep(2.5)
            await asyncio.to_thread(broker.restart, down=0.5)  # every board loses the broker
            await asyncio.sleep(1.5)
            # Board 2 off line from here to a second after the last game ended: its last moves and
            # its result reach the broker only when the link returns.
            cut.cut(start + max(b.script.end for b in boards) / 5.0 + 1.0 - time.monotonic())
            published = boards[1].publisher.published
            await asyncio.sleep(1.0)
            await link_a.close()  # relay A goes away mid-round...
            relay_b = Relay(EVENT)  # ...and relay B starts mid-round on its own
            link_b = RelayLink(relay_b, parse_address(f"{broker.url}/{EVENT}", board=False), name="b")
            link_b.start()
            await asyncio.sleep(1.0)
            relay_a2 = Relay(EVENT)  # relay A comes back with its persistent session
            link_a = RelayLink(relay_a2, parse_address(f"{broker.url}/{EVENT}", board=False), name="a")
            link_a.start()
            await plays
            assert cut.is_down and boards[1].publisher.published == published  # nothing went while away
            for relay in (relay_a2, relay_b):
                await until(lambda relay=relay: all(matches(relay, b) for b in boards))  # type: ignore[misc]
            for board in boards:
                assert board.session.record.result != "*"
            for relay in (relay_a2, relay_b):
                assert relay.counts["refused"] == 0, relay.arbiter()["notes"]
                assert relay.arbiter()["notes"] == []
                for board in boards:
                    game = relay.boards[board.publisher.board]
                    assert movetext(relay.game_pgn(game)) == movetext(board.session.record.pgn_text())
            server = RelayServer(relay_b, port=0)
            await server.start()
            pgn = await asyncio.to_thread(lambda: urllib.request.urlopen(f"{server.url}games.pgn", timeout=5).read())
            assert pgn.decode() == relay_b.pgn() and pgn.decode().count("[Board ") == 3
            overview = json.loads(await asyncio.to_thread(
                lambda: urllib.request.urlopen(f"{server.url}api/boards", timeout=5).read()))
            assert [b["board"] for b in overview] == ["1", "2", "3"]
            await server.close()
            for board in boards:
                await board.close()
            await link_a.close()
            await link_b.close()
            await cut.close()

    asyncio.run(scenario())


def test_boardctl_record_broadcasts_to_boardctl_relay(tmp_path: Path) -> None:
    """The command lines a club runs: ``record --broadcast`` on a board, ``relay`` on a laptop."""
    with Broker(tmp_path / "broker") as broker:
        http = free_port()
        env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "cfg"), "XDG_DATA_HOME": str(tmp_path / "data")}
        pairings = tmp_path / "round.csv"
        pairings.write_text("board,white,black,round\n5,Ann Lee,Bob Ray,2\n", encoding="utf-8")
        relay = subprocess.Popen([sys.executable, "-m", "boardctl", "relay", f"{broker.url}/{EVENT}", "--http",
                                  str(http), "--pairings", str(pairings)], env=env, stderr=subprocess.PIPE)
        try:
            lines = [json.dumps({"t": t, "square": sq, "occupied": occ}) for t, sq, occ in [
                (1.0, "e2", False), (1.4, "e4", True), (3.0, "e7", False), (3.3, "e5", True), (5.0, "g1", False),
                (5.5, "f3", True), (7.0, "b8", False), (7.4, "c6", True)]] + [json.dumps({"t": 9.0}),
                                                                           json.dumps({"t": 9.5, "button": "resign"})]
            board = subprocess.run(
                [sys.executable, "-m", "boardctl", "record", "--board", "sim", "--stdio", "--no-web",
                 "--time-control", "5+3", "--games-dir", str(tmp_path / "games"),
                 "--broadcast", f"{broker.url}/{EVENT}/board-5"],
                input="\n".join(lines) + "\n", text=True, capture_output=True, env=env, timeout=60)
            assert board.returncode == 0, board.stderr
            own = next((tmp_path / "games").glob("*.pgn")).read_text(encoding="utf-8")
            deadline = time.monotonic() + 20
            text = ""
            while time.monotonic() < deadline:
                try:
                    text = urllib.request.urlopen(f"http://127.0.0.1:{http}/games.pgn", timeout=2).read().decode()
                except OSError:
                    text = ""
                if '[Result "0-1"]' in text:
                    break
                time.sleep(0.2)
            assert '[White "Ann Lee"]' in text and '[Round "2"]' in text and '[Board "5"]' in text, text
            assert movetext(text) == movetext(own)
            assert "3. ... " not in text and "Nc6" in text
        finally:
            relay.terminate()
            _, err = relay.communicate(timeout=10)
        assert relay.returncode == 0, err.decode()
