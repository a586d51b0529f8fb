"""Issue 29, finding 4: a host's welcome is checked field by field before the guest uses any of
it. A bad one stops ``boardctl join`` with one line, ``the host sent an invalid game: ...``, and
exit status 2 (no traceback, nothing saved); a rematch's welcome is checked the same way."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from boardctl.cli import main
from boardctl.daemon import Daemon
from boardctl.network.join import Address, JoinLink
from boardctl.storage import GameStore
from network.peers import FakeHost, Frame, state, welcome
from network.test_endpoint import _session, _until, run

XIANGQI_START = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"

BAD_WELCOMES: list[tuple[Frame, str]] = [
    (welcome(fen="not a fen"), "not a valid FEN"),
    (welcome(fen=XIANGQI_START), "not a valid FEN"),  # a xiangqi position for a chess game
    (welcome(fen="8/8/8/8/8/8/8/8 w - - 0 1"), "impossible position"),  # an empty board
    (welcome(fen="4k3/8/8/8/8/8/8/K3K3 w - - 0 1"), "impossible position"),  # two white kings
    (welcome(fen="4k3/4Q3/4K3/8/8/8/8/8 w - - 0 1"), "impossible position"),  # the side not to move in check
    (welcome(variant="shogi"), "unknown variant 'shogi', but this board plays chess"),
    (welcome(variant="xiangqi", fen=XIANGQI_START, color="black"), "xiangqi, but this board plays chess"),
    (welcome(color="red"), "colour 'red'"),
    (welcome(time_control="5+x"), "time control"),
    (welcome(time_control="99999999+0"), "time control"),
    (welcome(time_control="0+0"), "time control"),
    (welcome(white="Host\n[Result \"1-0\"]"), "player name white"),
    ({k: v for k, v in welcome().items() if k != "fen"}, "missing 'fen'"),
    (welcome(fen=["x"]), "'fen' has the wrong type"),
    (state(), "a state message instead of its welcome"),
    ("{not json", "not JSON"),
]


@pytest.fixture
def fake_host() -> Iterator[tuple[FakeHost, asyncio.AbstractEventLoop]]:
    """A FakeHost on its own event loop in a thread, for ``boardctl join`` run in this one."""
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    host = FakeHost()

    def serve() -> None:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(host.__aenter__())
        ready.set()
        loop.run_forever()
        loop.run_until_complete(host.__aexit__(None, None, None))

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    assert ready.wait(10)
    try:
        yield host, loop
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()


@pytest.mark.parametrize(("frame", "why"), BAD_WELCOMES, ids=[why for _, why in BAD_WELCOMES])
def test_join_refuses_an_invalid_welcome_with_one_line(
        frame: Frame, why: str, fake_host: tuple[FakeHost, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    host, _ = fake_host
    host.welcome_frame = frame
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    games = tmp_path / "games"
    status = main(["join", host.url, "--code", "ABCD2345", "--board", "sim", "--stdio", "--no-web",
                   "--games-dir", str(games)])
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if "invalid game" in line]
    assert status == 2 and len(lines) == 1 and "the host sent an invalid game: " in lines[0] and why in lines[0], err
    assert "Traceback" not in err
    assert not list(games.glob("*.pgn")) and not (games / "network-join.json").exists()


def test_an_invalid_rematch_welcome_stops_the_guest_and_keeps_its_game(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with FakeHost(then=[state(["e2e4", "e7e5"], result="1/2-1/2", termination="draw agreed")]) as fake:
            store = GameStore(tmp_path / "guest")
            guest = Daemon(_session("black", time_control="5+0"), store=store)
            refused: list[str] = []
            stop = asyncio.Event()

            def on_refused(message: str) -> None:
                refused.append(message)
                stop.set()

            link = JoinLink(guest, Address.from_string(fake.url), "T" * 43, tls=None, on_refused=on_refused)
            link.host_game = welcome()["game"]
            task = asyncio.get_running_loop().create_task(link.run(stop))
            await _until(lambda: link.is_connected)
            game = guest.session.record.id
            await fake.send(welcome(game="20260101-130000-000002", color="white", fen="8/8/8/8/8/8/8/8 w - - 0 1"))
            await _until(stop.is_set)
            await task
            assert refused and refused[0].startswith("the host sent an invalid game: ") and "impossible" in refused[0]
            assert guest.session.record.id == game  # no rematch begun on an empty board

    run(scenario)
