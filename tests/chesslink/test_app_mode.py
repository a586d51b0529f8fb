"""App mode: play, record and demo switch the ChessLink face on and off from the page (the
daemon's ``app-mode`` switch), in process; the action's checking."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from boardctl.actions import AppModeAction
from boardctl.chesslink.appmode import AppMode
from boardctl.daemon import ActionError, Daemon
from boardctl.hw.sim import SimBoard
from boardctl.session import Session, Settings
from boardctl.storage import GameStore
from boardctl.web.protocol import WebInputError, action_to_json, validate_action
from chesslink.client import ReplyReader, frame


@pytest.mark.parametrize(("raw", "expected"), [({"app-mode": True}, AppModeAction(True)),
                                               ({"app-mode": False}, AppModeAction(False))])
def test_the_action_reads_and_writes_back(raw: dict[str, bool], expected: AppModeAction) -> None:
    assert validate_action(raw) == expected
    assert action_to_json(expected) == raw


@pytest.mark.parametrize("bad", [{"app-mode": "on"}, {"app-mode": 1}, {"app-mode": None}])
def test_the_action_refuses_what_is_not_a_boolean(bad: dict[str, object]) -> None:
    with pytest.raises(WebInputError, match="app-mode: expected true or false"):
        validate_action(bad)


def _daemon(tmp_path: Path) -> Daemon:
    session = Session(Settings(mode="record"))
    board = SimBoard(session.physical_occupancy(), clock=lambda: session.t)
    daemon = Daemon(session, store=GameStore(tmp_path / "games"), board=board, virtual_board=True, virtual_time=True)
    daemon.direct = True
    board.start(daemon.feed)
    return daemon


async def _version(address: str) -> str:
    host, port = address.removeprefix("socket://").rsplit(":", 1)
    reader, writer = await asyncio.open_connection(host, int(port))
    writer.write(frame("W0201") + frame("V"))
    replies = ReplyReader()
    got: list[tuple[str, str]] = []
    while len(got) < 2:
        got += replies.feed(await reader.read(4096))
    writer.close()
    return dict(got)["v"]


def test_the_page_switches_app_mode_on_and_off(tmp_path: Path) -> None:
    async def scenario() -> None:
        daemon = _daemon(tmp_path)
        stop = asyncio.Event()
        mode = AppMode(daemon, stop, transport="tcp", port="0", host="127.0.0.1")
        daemon.switches["app-mode"] = mode.switch
        daemon.refresh()
        assert daemon.state()["app_mode"] == {"on": False, "transport": "tcp", "address": None}
        await daemon.submit({"app-mode": True})
        state = daemon.state()["app_mode"]
        assert state["on"] and state["address"].startswith("socket://127.0.0.1:")
        assert await _version(state["address"]) == "0103"
        await daemon.submit({"app-mode": True})  # on already: nothing changes
        assert daemon.state()["app_mode"] == state
        await daemon.submit({"app-mode": False})
        assert daemon.state()["app_mode"]["on"] is False
        with pytest.raises(OSError):
            await _version(state["address"])
        await mode.close()
        await daemon.close()

    asyncio.run(scenario())


def test_without_the_switch_the_action_is_refused(tmp_path: Path) -> None:
    async def scenario() -> None:
        daemon = _daemon(tmp_path)
        with pytest.raises(ActionError, match="app-mode: not offered here"):
            await daemon.submit({"app-mode": True})
        await daemon.close()

    asyncio.run(scenario())


def test_a_taken_port_is_the_actions_error(tmp_path: Path) -> None:
    async def scenario() -> None:
        import socket

        daemon = _daemon(tmp_path)
        with socket.create_server(("127.0.0.1", 0)) as taken:
            mode = AppMode(daemon, asyncio.Event(), transport="tcp", port=str(taken.getsockname()[1]), host="127.0.0.1")
            daemon.switches["app-mode"] = mode.switch
            with pytest.raises(ActionError, match="app-mode: link: cannot listen"):
                await daemon.submit({"app-mode": True})
        daemon.refresh()
        assert daemon.state()["app_mode"]["on"] is False
        await daemon.close()

    asyncio.run(scenario())
