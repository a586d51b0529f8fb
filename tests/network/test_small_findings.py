"""Issue 29, finding 8, the smaller ones: the host's ticket is no game file (no false warning at
every restart); a games folder that is a file or a symlink loop is named as such, not "(File
exists)"; a wrong code learns nothing about the game (not even its variant); and wrong codes
are limited globally, however many connections try them in parallel."""

from __future__ import annotations

import asyncio
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from boardctl.network import host as host_mod
from boardctl.network.tokens import Ticket, TicketStore
from boardctl.storage import GameRecord, GameStore
from network.peers import FakeGuest
from network.test_endpoint import hosted, run


@pytest.fixture(autouse=True)
def _no_delay(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(host_mod, "WRONG_SECRET_DELAY", 0.0)


def test_the_network_tickets_are_not_taken_for_games(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    store = GameStore(tmp_path)
    store.save(GameRecord(id="20260101-120000-000001", mode="network", white="a", black="b"))
    tickets = TicketStore(tmp_path)
    tickets.save(Ticket("host", "20260101-120000-000001", code="ABCD2345", color="white"))
    tickets.save(Ticket("join", "20260101-120000-000001", token="T" * 43, address="ws://x:1/net"))
    with caplog.at_level(logging.WARNING):
        store.repair()
        assert store.ids() == ["20260101-120000-000001"]
        assert [r.id for r in store.records()] == ["20260101-120000-000001"]
    assert "network-" not in caplog.text, caplog.text


def _boardctl(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XDG_DATA_HOME": str(tmp / "data"), "XDG_CONFIG_HOME": str(tmp / "config")}
    return subprocess.run([sys.executable, "-m", "boardctl", *args], input='{"t": 0}\n', capture_output=True,
                          text=True, env=env, timeout=120)


@pytest.mark.slow
@pytest.mark.parametrize(("kind", "named"), [("file", "a file, not a folder"),
                                              ("loop", "a symbolic link loop, not a folder"),
                                              ("inside-file", "which is a file, not a folder"),
                                              ("dangling", "which does not exist")])
def test_a_games_folder_that_cannot_be_one_is_named(tmp_path: Path, kind: str, named: str) -> None:
    folder = tmp_path / "games"
    if kind == "file":
        folder.write_text("x")
    elif kind == "loop":
        folder.symlink_to(folder)
    elif kind == "inside-file":
        (tmp_path / "f").write_text("x")
        folder = tmp_path / "f" / "games"
    else:
        folder.symlink_to(tmp_path / "nowhere")
    done = _boardctl(tmp_path, "record", "--board", "sim", "--stdio", "--no-web", "--games-dir", str(folder))
    assert named in done.stderr and "File exists" not in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def test_a_wrong_code_learns_nothing_of_the_game(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with hosted(tmp_path, variant="xiangqi") as h, FakeGuest(h.url) as guest:
            answer = await guest.hello(code="WRONG234", variant="chess")
            assert answer["type"] == "error" and "xiangqi" not in answer["message"] and "wrong" in answer["message"]

    run(scenario)


def test_wrong_codes_in_parallel_meet_a_global_limit(tmp_path: Path) -> None:
    from boardctl.network.host import WrongSecrets

    async def scenario() -> None:
        async with hosted(tmp_path) as h:
            now = [1000.0]
            h.link.wrong_secrets = WrongSecrets(clock=lambda: now[0])
            code = h.ticket.code
            assert code

            async def guess(text: str) -> dict[str, object]:
                async with FakeGuest(h.url) as guest:
                    return await guest.hello(code=text)

            wrong = [f"WRONG{i:03d}".replace("0", "Z").replace("1", "Y") for i in range(host_mod.GLOBAL_FREE_FAILURES + 1)]
            answers = await asyncio.gather(*(guess(text) for text in wrong))  # many connections at once
            assert all(a["type"] == "error" for a in answers)
            closed = await guess(code)  # even the right code waits while the board is closed
            assert closed["type"] == "error" and "too many wrong invitation codes" in str(closed["message"])
            assert h.ticket.code == code  # not used up
            now[0] += 1.5  # the back-off (1 s after the first failure over the limit) is over
            welcome = await guess(code)
            assert welcome["type"] == "welcome"

    run(scenario)


def test_the_global_limit_doubles_and_is_capped() -> None:
    from boardctl.network.host import WrongSecrets

    now = [0.0]
    guard = WrongSecrets(clock=lambda: now[0])
    for _ in range(host_mod.GLOBAL_FREE_FAILURES):
        guard.failed()
    assert guard.closed_for() == 0
    waits = []
    for _ in range(15):
        guard.failed()
        waits.append(guard.closed_for())
    assert waits[:4] == [1.0, 2.0, 4.0, 8.0] and max(waits) == host_mod.GLOBAL_MAX_DELAY
    now[0] += host_mod.GLOBAL_QUIET_SECONDS + host_mod.GLOBAL_MAX_DELAY + 1
    guard.failed()
    assert guard.closed_for() == 0  # a quiet hour starts the count again
