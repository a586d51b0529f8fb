"""The board's face: what it publishes as a real daemon's game goes on (no broker needed)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import chess

from boardctl.broadcast.publisher import Publisher
from boardctl.broadcast.relay import Relay
from boardctl.broadcast.schema import parse_address
from boardctl.daemon import Daemon
from boardctl.events import Button, ButtonPressed, SquareChanged, Tick
from boardctl.hw.sim import SimBoard
from boardctl.session import Session, Settings
from boardctl.storage import GameStore

ADDRESS = parse_address("mqtt://127.0.0.1:1/club/7", board=True)


def make(tmp_path: Path) -> tuple[Daemon, Publisher]:
    session = Session(Settings(mode="record", time_control="5+3"))
    board = SimBoard(session.physical_occupancy(), clock=lambda: session.t)
    daemon = Daemon(session, store=GameStore(tmp_path / "games"), board=board, virtual_board=True, virtual_time=True)
    daemon.direct = True
    board.start(daemon.feed)
    return daemon, Publisher(daemon, ADDRESS, state_dir=tmp_path / "broadcast")


def lift_place(daemon: Daemon, t: float, steps: list[tuple[str, bool]]) -> float:
    for square, occupied in steps:
        t += 0.4
        daemon.inject(SquareChanged(t, chess.parse_square(square), occupied))
    t += 1.0
    daemon.inject(Tick(t))
    return t


def test_moves_clocks_violations_and_the_result_are_published_once_each(tmp_path: Path) -> None:
    async def scenario() -> list[bytes]:
        daemon, publisher = make(tmp_path)
        sent: list[bytes] = []

        def publish() -> None:
            if publisher.update():
                assert publisher.latest is not None
                sent.append(publisher.latest)

        publish()
        t = lift_place(daemon, 0.0, [("e2", False), ("e4", True)])
        publish()
        publish()  # nothing changed: no message
        daemon.inject(Tick(t + 5))  # only the clock ran
        publish()
        # Black touches the knight on g8 (kept off past the settle time), puts it back, then
        # plays e7-e5: touch-move refuses it, a violation.
        t = lift_place(daemon, t + 5, [("g8", False), ("g8", True), ("e7", False), ("e5", True)])
        publish()
        t = lift_place(daemon, t, [("e5", False), ("e7", True), ("g8", False), ("f6", True)])
        publish()
        daemon.handle(ButtonPressed(t + 1, Button.RESIGN))
        publish()
        await daemon.close()
        return sent

    sent = asyncio.run(scenario())
    games = [json.loads(m) for m in sent]
    assert [g["seq"] for g in games] == list(range(1, len(games) + 1))
    assert [len(g["moves"]) for g in games][:3] == [0, 1, 1]
    assert games[2]["violations"] and games[2]["violations"][0]["code"] == "touch-move"
    assert games[-1]["moves"] == ["e2e4", "g8f6"] and games[-1]["result"] == "0-1"  # white, to move, resigned
    assert games[1]["clocks"] == [games[1]["clock"]["white"]]
    # The relay rebuilds the board's record from them, in any order, duplicates and all.
    relay = Relay("club")
    for message in [*sent[::-1], *sent, sent[1]]:
        relay.receive("boardctl/club/7/game", message)
    snap = relay.boards["7"].snapshot
    record = json.loads(next((tmp_path / "games").glob("*.json")).read_text(encoding="utf-8"))
    assert snap is not None and list(snap.moves) == record["moves"] and snap.result == record["result"] == "0-1"
    assert [v["code"] for v in relay.arbiter()["violations"]] == ["touch-move"]


def test_the_numbering_goes_on_after_a_restart(tmp_path: Path) -> None:
    async def scenario() -> tuple[int, int]:
        daemon, publisher = make(tmp_path)
        publisher.update()
        first = json.loads(publisher.latest or b"{}")["seq"]
        await daemon.close()
        daemon, publisher = make(tmp_path)  # the board restarted: same games folder
        publisher.update()
        again = json.loads(publisher.latest or b"{}")["seq"]
        await daemon.close()
        return first, again

    first, again = asyncio.run(scenario())
    assert again > first
